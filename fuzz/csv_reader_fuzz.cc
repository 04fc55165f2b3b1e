// libFuzzer target: arbitrary bytes as a CSV file. The first byte picks the dialect (delimiter,
// escape, header); the rest is the file, inspected (header, inferred schema) and read whole and
// in small row-aligned chunks. Reading in chunks must give exactly what one read gives.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/io/csv/reader.h"
#include "flotilla/io/csv/tokenizer.h"
#include "fuzz/csv_dialect.h"
#include "fuzz/walk.h"

using namespace flotilla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const io::csv::CsvReadOptions options = fuzz::CsvDialect(data[0]);
  auto buffer = Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  if (!buffer.ok()) return 0;
  auto file = io::MemoryFile(*buffer, "fuzz.csv");
  auto info = io::csv::InspectCsvFile(file.get(), options);
  if (!info.ok()) return 0;
  std::vector<Field> fields;
  std::vector<int> all;
  for (size_t c = 0; c < info->columns.names.size(); ++c) {
    fields.push_back({info->columns.names[c], io::text::ToType(info->columns.columns[c])});
    all.push_back(static_cast<int>(c));
  }
  auto schema = std::make_shared<Schema>(std::move(fields));
  auto whole = io::csv::ReadCsvRange(file.get(), info->data_offset, file->size(), schema, all,
                                     options.parse);
  if (whole.ok()) fuzz::Walk(*whole);

  auto starts = io::csv::SplitRows((*buffer)->view(), info->data_offset, options.parse, 64,
                                   io::text::LineLocator(file.get(), 0, (*buffer)->view()));
  if (!starts.ok()) {
    if (whole.ok()) __builtin_trap();  // one read succeeded where splitting failed
    return 0;
  }
  int64_t rows = 0;
  bool ok = true;
  for (size_t k = 0; k + 1 < starts->size(); ++k) {
    auto part = io::csv::ReadCsvRange(file.get(), (*starts)[k], (*starts)[k + 1], schema, all,
                                      options.parse);
    if (!part.ok()) {
      ok = false;
      break;
    }
    fuzz::Walk(*part);
    rows += part->num_rows();
  }
  if (whole.ok() && (!ok || rows != whole->num_rows())) __builtin_trap();
  return 0;
}
