#include "flotilla/io/parquet/page_index.h"

#include <algorithm>

#include "flotilla/compute/concat.h"
#include "flotilla/io/parquet/statistics.h"

namespace flotilla::io::parquet {

void AppendRange(RowRanges* ranges, int64_t begin, int64_t end) {
  if (begin >= end) return;
  if (!ranges->empty() && ranges->back().end >= begin) {
    ranges->back().end = std::max(ranges->back().end, end);
    return;
  }
  ranges->push_back({begin, end});
}

RowRanges Intersect(const RowRanges& a, const RowRanges& b) {
  RowRanges out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    AppendRange(&out, std::max(a[i].begin, b[j].begin), std::min(a[i].end, b[j].end));
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

int64_t CountRows(const RowRanges& ranges) {
  int64_t rows = 0;
  for (const RowRange& r : ranges)
    rows += r.size();
  return rows;
}

RowRange PageRows(const OffsetIndex& index, size_t p, int64_t num_rows) {
  const auto& pages = index.page_locations;
  return {pages[p].first_row_index, p + 1 < pages.size() ? pages[p + 1].first_row_index : num_rows};
}

Status CheckOffsetIndex(const OffsetIndex& index, int64_t num_rows, int64_t chunk_offset,
                        int64_t chunk_length) {
  const auto& pages = index.page_locations;
  if (pages.empty()) return Status::Invalid("offset index without pages");
  if (pages[0].first_row_index != 0)
    return Status::Invalid("offset index starts at row " +
                           std::to_string(pages[0].first_row_index));
  for (size_t p = 0; p < pages.size(); ++p) {
    const PageLocation& page = pages[p];
    const RowRange rows = PageRows(index, p, num_rows);
    if (rows.begin > rows.end || rows.end > num_rows)
      return Status::Invalid("offset index page " + std::to_string(p) + " holds rows [" +
                             std::to_string(rows.begin) + ", " + std::to_string(rows.end) +
                             ") of a row group of " + std::to_string(num_rows));
    if (page.compressed_page_size <= 0 || page.offset < chunk_offset ||
        page.offset > chunk_offset + chunk_length - page.compressed_page_size ||
        (p > 0 && page.offset < pages[p - 1].offset + pages[p - 1].compressed_page_size))
      return Status::Invalid("offset index page " + std::to_string(p) + " at byte " +
                             std::to_string(page.offset) + " of " +
                             std::to_string(page.compressed_page_size) +
                             " bytes lies outside its column chunk or overlaps the page before");
  }
  return Status::OK();
}

RowRanges PagesMayMatch(const ColumnDescriptor& column, const std::string& name,
                        const ColumnIndex& stats, const OffsetIndex& offsets, int64_t num_rows,
                        const expr::ExprPtr& filter) {
  const size_t pages = offsets.page_locations.size();
  const bool described = stats.null_pages.size() == pages && stats.min_values.size() == pages &&
                         stats.max_values.size() == pages &&
                         (stats.null_counts.empty() || stats.null_counts.size() == pages);
  RowRanges out;
  for (size_t p = 0; p < pages; ++p) {
    const RowRange rows = PageRows(offsets, p, num_rows);
    bool may = true;
    if (described) {
      Statistics s;
      if (!stats.null_counts.empty()) s.null_count = stats.null_counts[p];
      if (stats.null_pages[p]) {
        s.null_count = rows.size();
      } else {
        s.min_value = stats.min_values[p];
        s.max_value = stats.max_values[p];
      }
      const ColumnStats page = ChunkStats(column, s, rows.size());
      may = MayMatch(filter, [&](const std::string& n) -> std::optional<ColumnStats> {
        if (n != name) return std::nullopt;
        return page;
      });
    }
    if (may) AppendRange(&out, rows.begin, rows.end);
  }
  return out;
}

Result<Array> TakeRows(const Array& values, const RowRanges& covered, const RowRanges& wanted) {
  std::vector<Array> pieces;
  size_t c = 0;
  int64_t position = 0;  // of covered[c].begin within values
  for (const RowRange& w : wanted) {
    while (c < covered.size() && covered[c].end <= w.begin) {
      position += covered[c].size();
      ++c;
    }
    if (c == covered.size() || w.begin < covered[c].begin || w.end > covered[c].end)
      return Status::Internal("rows [" + std::to_string(w.begin) + ", " + std::to_string(w.end) +
                              ") were not read");
    pieces.push_back(values.Slice(position + (w.begin - covered[c].begin), w.size()));
  }
  if (pieces.size() == 1) return pieces[0];
  if (pieces.empty()) return values.Slice(0, 0);
  return compute::Concat(pieces);
}

}  // namespace flotilla::io::parquet
