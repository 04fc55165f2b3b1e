// libFuzzer target: arbitrary bytes as a Parquet file — footer, schema, every row group of every
// column, whole and through the page index; each batch read is validated and walked
// (fuzz/walk.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/io/parquet/reader.h"
#include "fuzz/walk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto buffer =
      flotilla::Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!buffer.ok()) return 0;
  auto reader = flotilla::io::parquet::ParquetFileReader::Open(
      flotilla::io::MemoryFile(*buffer, "fuzz.parquet"));
  if (!reader.ok()) return 0;
  auto fields = (*reader)->FieldIndices(std::nullopt);
  if (!fields.ok()) return 0;
  const auto& schema = (*reader)->schema();
  // The page index too: pages chosen by a filter on the first column, and by fixed row ranges
  // (two pieces, so the cut-and-concatenate path runs).
  const flotilla::expr::ExprPtr filter =
      schema->num_fields() == 0
          ? nullptr
          : flotilla::expr::Less(flotilla::expr::Column(schema->field(0).name),
                                 flotilla::expr::Literal(int64_t{0}));
  for (int g = 0; g < (*reader)->num_row_groups() && g < 100; ++g) {
    auto batch = (*reader)->ReadRowGroup(g, *fields);
    if (batch.ok()) flotilla::fuzz::Walk(*batch);
    auto rows = (*reader)->RowsMayMatch(g, filter);
    if (rows.ok() && rows->has_value()) {
      batch = (*reader)->ReadRowGroup(g, *fields, &**rows);
      if (batch.ok()) flotilla::fuzz::Walk(*batch);
    }
    const int64_t n = (*reader)->metadata().row_groups[g].num_rows;
    if (n >= 4) {
      const flotilla::io::parquet::RowRanges pieces{{0, n / 4}, {n / 2, n / 2 + 1}};
      batch = (*reader)->ReadRowGroup(g, *fields, &pieces);
      if (batch.ok()) flotilla::fuzz::Walk(*batch);
    }
  }
  return 0;
}
