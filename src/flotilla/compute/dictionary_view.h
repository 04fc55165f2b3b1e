#pragma once
// Internal to the compute module: a dictionary array's indices seen as a plain integer array, so
// kernels can reuse their integer paths (gather, concat, rank lookup) on dictionary columns.

#include <memory>

#include "flotilla/columnar/array.h"

namespace flotilla::compute::internal {

/// The indices of dictionary array `dict` as an array of its index type (zero-copy; same
/// offset, length and validity).
inline Array DictionaryIndices(const Array& dict) {
  auto d = std::make_shared<ArrayData>();
  d->type = dict.type()->index_type();
  d->length = dict.length();
  d->offset = dict.offset();
  d->null_count = dict.null_count();
  d->buffers = {dict.data()->buffers[0], dict.data()->buffers[1]};
  return Array(std::move(d));
}

/// A dictionary array of `type` with `indices` (an array of the index type) and `dictionary`.
inline Array WithDictionary(const TypePtr& type, const Array& indices,
                            const std::shared_ptr<ArrayData>& dictionary) {
  auto d = std::make_shared<ArrayData>(*indices.data());
  d->type = type;
  d->dictionary = dictionary;
  return Array(std::move(d));
}

}  // namespace flotilla::compute::internal
