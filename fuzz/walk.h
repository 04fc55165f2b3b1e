#pragma once
// Shared by the fuzz targets: every batch a reader accepts has all of its values walked, so an
// array that passed validation but points outside its buffers shows up under AddressSanitizer.
#include <cstdint>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::fuzz {

// Values printing would visit, bounded so a small input cannot make walking take minutes
// (a list<null> of 2^31 elements costs no bytes).
inline int64_t Cells(const ArrayData& d) {
  int64_t n = d.length;
  for (const auto& c : d.children)
    n += c ? Cells(*c) : 0;
  if (d.dictionary) n += Cells(*d.dictionary);
  return n;
}

inline void Walk(const RecordBatch& batch) {
  int64_t cells = 0;
  for (const auto& column : batch.columns())
    cells += Cells(*column.data());
  if (cells > 4096) return;
  for (const auto& column : batch.columns()) {
    volatile size_t size = column.ToString().size();
    (void)size;
  }
}

}  // namespace flotilla::fuzz
