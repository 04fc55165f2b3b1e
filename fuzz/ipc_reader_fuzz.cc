// libFuzzer target: arbitrary bytes through the IPC stream reader and the file reader; every
// batch read is walked (fuzz/walk.h).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/io/ipc/ipc.h"
#include "fuzz/walk.h"

using flotilla::fuzz::Walk;

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
