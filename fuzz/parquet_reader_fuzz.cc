// libFuzzer target: arbitrary bytes as a Parquet file — footer, schema, every row group of every
// column; each batch read is validated and walked (fuzz/walk.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/io/parquet/reader.h"
#include "fuzz/walk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto buffer =
      flotilla::Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!buffer.ok()) return 0;
  auto reader = flotilla::parquet::ParquetFileReader::Open(
      flotilla::io::MemoryFile(*buffer, "fuzz.parquet"));
  if (!reader.ok()) return 0;
  auto fields = (*reader)->FieldIndices(std::nullopt);
  if (!fields.ok()) return 0;
  for (int g = 0; g < (*reader)->num_row_groups() && g < 100; ++g) {
    auto batch = (*reader)->ReadRowGroup(g, *fields);
    if (batch.ok()) flotilla::fuzz::Walk(*batch);
  }
  return 0;
}
