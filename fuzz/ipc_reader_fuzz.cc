// libFuzzer target: arbitrary bytes through the IPC stream reader and the file reader. Every
// batch that reads successfully has all of its values walked, so an array that passed
// validation but points outside its buffers shows up under AddressSanitizer.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/io/ipc/ipc.h"

namespace {

using flotilla::ArrayData;
using flotilla::RecordBatch;

// Values printing would visit, bounded so a small input cannot make walking take minutes
// (a list<null> of 2^31 elements costs no bytes).
int64_t Cells(const ArrayData& d) {
  int64_t n = d.length;
  for (const auto& c : d.children)
    n += c ? Cells(*c) : 0;
  if (d.dictionary) n += Cells(*d.dictionary);
  return n;
}

void Walk(const RecordBatch& batch) {
  int64_t cells = 0;
  for (const auto& column : batch.columns())
    cells += Cells(*column.data());
  if (cells > 4096) return;
  for (const auto& column : batch.columns()) {
    volatile size_t size = column.ToString().size();
    (void)size;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto buffer =
      flotilla::Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!buffer.ok()) return 0;

  auto stream =
      flotilla::ipc::StreamReader::Open(std::make_unique<flotilla::io::BufferReader>(*buffer));
  if (stream.ok()) {
    for (int i = 0; i < 1000; ++i) {
      auto batch = (*stream)->Next();
      if (!batch.ok() || !batch->has_value()) break;
      Walk(**batch);
    }
  }

  auto file = flotilla::ipc::FileReader::Open(*buffer);
  if (file.ok()) {
    for (int i = 0; i < (*file)->num_batches() && i < 1000; ++i) {
      auto batch = (*file)->ReadBatch(i);
      if (batch.ok()) Walk(*batch);
    }
  }
  return 0;
}
