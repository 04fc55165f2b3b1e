#pragma once
// Record shredding for the writer: the levels and dense values of each leaf column, buffered for
// a row group (see column_shredder.cc).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/io/parquet/schema.h"

namespace flotilla::io::parquet {

// A leaf's levels and dense values for the rows buffered in a row group.
struct LeafBuffer {
  std::vector<int16_t> def, rep;
  std::string fixed;                 // fixed-width values (booleans: one byte each)
  std::vector<uint32_t> offsets{0};  // byte arrays: value i is data[offsets[i], offsets[i+1])
  std::string data;
  int64_t values = 0;
  int64_t nulls = 0;

  // Keeps the capacity: the next row group fills the same memory instead of fresh pages.
  void Clear() {
    def.clear();
    rep.clear();
    fixed.clear();
    offsets.assign(1, 0);
    data.clear();
    values = 0;
    nulls = 0;
  }
  std::string_view Value(int64_t i, int width) const {
    if (width == 0) return std::string_view(data).substr(offsets[i], offsets[i + 1] - offsets[i]);
    return std::string_view(fixed).substr(static_cast<size_t>(i * width),
                                          static_cast<size_t>(width));
  }
};

/// Appends `v`'s bytes (little-endian, as PLAIN encodes fixed-width values) to `out`.
template <typename T>
void AppendPlain(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

/// Appends rows of top-level columns to the leaves of `schema` in `*leaves` (one per leaf).
class Shredder {
 public:
  Shredder(const FileSchema& schema, std::vector<LeafBuffer>* leaves)
      : schema_(schema), leaves_(*leaves) {}

  /// Rows [begin, end) of a top-level column that is a leaf: levels from the validity bitmap,
  /// values appended in bulk where the layouts match.
  void FlatRows(const SchemaNode& node, const Array& a, int64_t begin, int64_t end);

  /// Row i of `a`, the array of `node`, whose parent is present at definition level `d` and
  /// starts at repetition level `r`.
  void Row(const SchemaNode& node, const Array& a, int64_t i, int16_t d, int16_t r);

 private:
  // A null (or empty list) at definition level `d`: one entry in every leaf below.
  void Empty(const SchemaNode& node, int16_t d, int16_t r);
  static void AppendValue(const SchemaNode& node, const Array& a, int64_t i, LeafBuffer* leaf);

  const FileSchema& schema_;
  std::vector<LeafBuffer>& leaves_;
};

}  // namespace flotilla::io::parquet
