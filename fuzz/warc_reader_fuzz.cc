// libFuzzer target: arbitrary bytes as a WARC file (plain, or gzip when they start with its
// magic), read strictly and with ignore_errors, which must always succeed and never return more
// records than a strict read of an undamaged file would; each payload then goes through
// html_to_text and the HTTP functions.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/expr/datum.h"
#include "flotilla/expr/function_registry.h"
#include "flotilla/io/warc/scan_task.h"
#include "fuzz/walk.h"

using namespace flotilla;

namespace {

void CallOnPayloads(const RecordBatch& batch) {
  const auto index = batch.schema()->FindField("payload");
  if (!index.ok()) return;
  const std::vector<expr::Datum> args = {expr::Datum::Column(batch.column(*index))};
  for (const char* name : {"html_to_text", "http_body"}) {
    auto function = expr::DefaultRegistry().Find(name);
    if (!function.ok()) __builtin_trap();
    auto out = (*function)->exec(args, batch.num_rows());
    if (!out.ok()) __builtin_trap();  // these never fail on bytes
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto buffer = Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!buffer.ok()) return 0;
  auto file = io::MemoryFile(*buffer, "fuzz.warc");
  int64_t strict_rows = -1;
  io::warc::WarcScanTask strict(file, io::warc::WarcReadOptions{false});
  auto read = strict.Read({});
  if (read.ok()) {
    strict_rows = 0;
    for (const RecordBatch& b : *read) {
      fuzz::Walk(b);
      CallOnPayloads(b);
      strict_rows += b.num_rows();
    }
  }
  io::warc::WarcScanTask lenient(file, io::warc::WarcReadOptions{true});
  auto skipped = lenient.Read({});
  if (!skipped.ok()) __builtin_trap();
  int64_t rows = 0;
  for (const RecordBatch& b : *skipped) {
    fuzz::Walk(b);
    rows += b.num_rows();
  }
  // Where the strict read succeeds nothing was damaged, so skipping changes nothing.
  if (strict_rows >= 0 && rows != strict_rows) __builtin_trap();
  return 0;
}
