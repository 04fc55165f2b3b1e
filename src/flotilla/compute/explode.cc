#include "flotilla/compute/explode.h"

#include <fmt/format.h>

#include <cstring>

#include "flotilla/compute/gather.h"

namespace flotilla::compute {
namespace {

// Where the elements of one list column's rows live in its values (child) array.
struct ListLayout {
  Array list;
  Array values;
  bool fixed_size;
  int64_t list_size;  // fixed_size_list only

  // The element count of row i; a null list counts as empty.
  int64_t Length(int64_t i) const {
    if (list.IsNull(i)) return 0;
    return fixed_size ? list_size : list.ValueLength(i);
  }
  // Position of row i's first element in `values`.
  int64_t Start(int64_t i) const {
    return fixed_size ? (list.offset() + i) * list_size : list.ValueOffset(i);
  }
};

std::string DescribeLength(const ListLayout& layout, int64_t row) {
  if (layout.list.IsNull(row)) return "a null list";
  const int64_t n = layout.Length(row);
  return fmt::format("{} element{}", n, n == 1 ? "" : "s");
}

}  // namespace

Result<RecordBatch> Explode(const RecordBatch& batch, const std::vector<int>& list_columns,
                            MemoryPool* pool) {
  const int num_columns = batch.num_columns();
  std::vector<int> exploded_slot(num_columns, -1);
  std::vector<ListLayout> layouts;
  for (int c : list_columns) {
    if (c < 0 || c >= num_columns) {
      return Status::IndexError(fmt::format(
          "Explode: column {} is out of range for a batch of {} columns (valid: 0 to {})", c,
          num_columns, num_columns - 1));
    }
    const Field& field = batch.schema()->field(c);
    if (exploded_slot[c] >= 0) {
      return Status::Invalid(
          fmt::format("Explode: column '{}' is listed twice; list each column once", field.name));
    }
    const Array& list = batch.column(c);
    const TypeId id = list.type_id();
    if (id != TypeId::kList && id != TypeId::kFixedSizeList) {
      return Status::TypeError(fmt::format(
          "Explode: column '{}' is {}, not a list; only list and fixed_size_list columns can be "
          "exploded",
          field.name, list.type()->ToString()));
    }
    exploded_slot[c] = static_cast<int>(layouts.size());
    const bool fixed = id == TypeId::kFixedSizeList;
    layouts.push_back(
        ListLayout{list, list.child(0), fixed, fixed ? list.type()->fixed_size() : 0});
  }
  if (layouts.empty()) return batch;

  const int64_t n = batch.num_rows();
  std::vector<int64_t> lengths(n);
  int64_t total = 0;
  bool padded = false;  // some row has a null or empty list
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = layouts[0].Length(i);
    for (size_t k = 1; k < layouts.size(); ++k) {
      if (layouts[k].Length(i) != len) {
        return Status::Invalid(fmt::format(
            "Explode: row {} has {} in column '{}' but {} in column '{}'; lists exploded "
            "together must have the same number of elements in every row (a null list counts "
            "as empty)",
            i, DescribeLength(layouts[0], i), batch.schema()->field(list_columns[0]).name,
            DescribeLength(layouts[k], i), batch.schema()->field(list_columns[k]).name));
      }
    }
    lengths[i] = len;
    padded |= len == 0;
    total += len == 0 ? 1 : len;
  }

  // Output row -> input row, for the columns that are repeated.
  Array repeat;
  const bool identity = total == n;  // every row has exactly one element (or is padded)
  if (!identity) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(total * 8, pool));
    int64_t* out = reinterpret_cast<int64_t*>(buffer->mutable_data());
    for (int64_t i = 0, k = 0; i < n; ++i) {
      for (int64_t e = lengths[i] == 0 ? 1 : lengths[i]; e > 0; --e)
        out[k++] = i;
    }
    auto d = std::make_shared<ArrayData>();
    d->type = int64();
    d->length = total;
    d->buffers = {nullptr, std::move(buffer)};
    repeat = Array(std::move(d));
  }

  // Output row -> element position in a values array, null for the padding rows. The nulls
  // are the same for every exploded column; the positions are filled in per column.
  Array elements;
  if (padded) {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr positions, Buffer::Allocate(total * 8, pool));
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity,
                              Buffer::AllocateZeroed(bit_util::BytesForBits(total), pool));
    uint8_t* valid = validity->mutable_data();
    int64_t nulls = 0;
    for (int64_t i = 0, k = 0; i < n; ++i) {
      if (lengths[i] == 0) {
        ++nulls;
        ++k;
        continue;
      }
      bit_util::SetBitsTo(valid, k, lengths[i], true);
      k += lengths[i];
    }
    auto d = std::make_shared<ArrayData>();
    d->type = int64();
    d->length = total;
    d->null_count = nulls;
    d->buffers = {std::move(validity), std::move(positions)};
    elements = Array(std::move(d));
  }

  std::vector<Field> fields = batch.schema()->fields();
  std::vector<Array> columns(num_columns);
  for (int c = 0; c < num_columns; ++c) {
    if (exploded_slot[c] < 0) {
      if (identity) {
        columns[c] = batch.column(c);
      } else {
        FLOTILLA_ASSIGN_OR_RETURN(columns[c], internal::Gather(batch.column(c), repeat, pool));
      }
      continue;
    }
    const ListLayout& layout = layouts[exploded_slot[c]];
    fields[c] = Field{fields[c].name, layout.list.type()->value_type(), true};
    if (!padded) {
      // No null or empty lists: the elements of consecutive rows are contiguous.
      const int64_t start = n == 0 ? 0 : layout.Start(0);
      columns[c] = layout.values.Slice(start, total);
      continue;
    }
    int64_t* pos = reinterpret_cast<int64_t*>(elements.data()->buffers[1]->mutable_data());
    for (int64_t i = 0, k = 0; i < n; ++i) {
      if (lengths[i] == 0) {
        pos[k++] = 0;
        continue;
      }
      const int64_t start = layout.Start(i);
      for (int64_t e = 0; e < lengths[i]; ++e)
        pos[k++] = start + e;
    }
    FLOTILLA_ASSIGN_OR_RETURN(columns[c], internal::Gather(layout.values, elements, pool));
  }
  return RecordBatch::Make(std::make_shared<Schema>(std::move(fields), batch.schema()->metadata()),
                           std::move(columns), total);
}

}  // namespace flotilla::compute
