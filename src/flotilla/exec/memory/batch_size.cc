#include "flotilla/exec/memory/batch_size.h"

namespace flotilla::exec {

int64_t SliceBytes(const Array& array) {
  if (!array.valid()) return 0;
  const int64_t n = array.length();
  const DataType& type = *array.type();
  int64_t bytes = array.null_count() > 0 ? (n + 7) / 8 : 0;
  switch (type.id()) {
    case TypeId::kNull:
      return 0;
    case TypeId::kBool:
      return bytes + (n + 7) / 8;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: {
      const int64_t width = type.has_large_offsets() ? 8 : 4;
      if (n == 0) return bytes;
      return bytes + width * (n + 1) + (array.ValueOffset(n) - array.ValueOffset(0));
    }
    case TypeId::kList: {
      if (n == 0) return bytes;
      const int64_t first = array.ValueOffset(0);
      return bytes + 4 * (n + 1) +
             SliceBytes(array.child(0).Slice(first, array.ValueOffset(n) - first));
    }
    case TypeId::kFixedSizeList: {
      const int64_t size = type.fixed_size();
      return bytes + SliceBytes(array.child(0).Slice(array.offset() * size, n * size));
    }
    case TypeId::kStruct: {
      for (int i = 0; i < array.num_children(); ++i)
        bytes += SliceBytes(array.field(i));
      return bytes;
    }
    case TypeId::kDictionary: {
      // The dictionary is shared by every slice; charge it once per batch anyway, as the
      // batch keeps it alive.
      return bytes + n * type.index_type()->byte_width() +
             TotalBufferSize(*array.dictionary().data());
    }
    default:
      return bytes + n * type.byte_width();
  }
}

int64_t SliceBytes(const RecordBatch& batch) {
  int64_t bytes = 0;
  for (const Array& column : batch.columns())
    bytes += SliceBytes(column);
  return bytes;
}

}  // namespace flotilla::exec
