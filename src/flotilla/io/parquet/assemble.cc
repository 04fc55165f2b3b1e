#include "flotilla/io/parquet/assemble.h"

#include <cstring>
#include <limits>

#include "flotilla/columnar/buffer_builder.h"

namespace flotilla::io::parquet {

namespace {

// A node's slots: for each of its values, the range of level entries of one leaf that belong to
// it. Outside lists every entry is its own slot, which `identity` stands for (no vector built).
struct Slots {
  bool identity = false;
  int64_t count = 0;
  std::vector<int64_t> start, end;
  int64_t size() const { return identity ? count : static_cast<int64_t>(start.size()); }
  int64_t first(int64_t i) const { return identity ? i : start[static_cast<size_t>(i)]; }
  int64_t last(int64_t i) const { return identity ? i + 1 : end[static_cast<size_t>(i)]; }
};

class Assembler {
 public:
  Assembler(const std::vector<LeafData>& leaves, const std::vector<ColumnDescriptor>& columns)
      : leaves_(leaves), columns_(columns) {}

  Result<Array> Build(const SchemaNode& node, int leaf, const Slots& slots,
                      std::vector<const SchemaNode*>* path) {
    path->push_back(&node);
    auto result = BuildNode(node, leaf, slots, path);
    path->pop_back();
    return result;
  }

  // The rows of `leaf` as slots of the top-level field.
  Slots Rows(int leaf) const {
    const LeafData& d = leaves_[leaf];
    Slots s;
    if (d.rep.empty()) {
      s.identity = true;
      s.count = d.entries;
      return s;
    }
    for (int64_t i = 0; i < d.entries; ++i) {
      if (d.rep[i] == 0) {
        if (!s.start.empty()) s.end.push_back(i);
        s.start.push_back(i);
      }
    }
    if (!s.start.empty()) s.end.push_back(d.entries);
    return s;
  }

 private:
  int16_t Def(int leaf, int64_t entry) const { return leaves_[leaf].Def(entry); }

  // The slots of a list's elements, from the slots of the list.
  Slots ElementSlots(const SchemaNode& list, int leaf, const Slots& slots) const {
    const LeafData& d = leaves_[leaf];
    Slots out;
    for (int64_t i = 0; i < slots.size(); ++i) {
      const int64_t s = slots.first(i), e = slots.last(i);
      if (Def(leaf, s) < list.element_def) continue;
      for (int64_t x = s; x < e; ++x) {
        if (x == s || d.rep[x] <= list.rep_level) {
          if (x != s) out.end.push_back(x);
          out.start.push_back(x);
        }
      }
      out.end.push_back(e);
    }
    return out;
  }

  // Re-derives, in `leaf`'s own entries, the slots of the last node of `path`.
  Slots SlotsAlong(const std::vector<const SchemaNode*>& path, int leaf) const {
    Slots slots = Rows(leaf);
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      if (path[i]->kind == SchemaNode::Kind::kList) slots = ElementSlots(*path[i], leaf, slots);
    }
    return slots;
  }

  Result<BufferPtr> Validity(const SchemaNode& node, int leaf, const Slots& slots,
                             int64_t* null_count) {
    *null_count = 0;
    if (!node.nullable) return BufferPtr();
    const int64_t n = slots.size();
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, Buffer::AllocateZeroed(bit_util::BytesForBits(n)));
    uint8_t* b = bits->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      if (Def(leaf, slots.first(i)) >= node.def_level) {
        bit_util::SetBit(b, i);
      } else {
        ++*null_count;
      }
    }
    if (*null_count == 0) return BufferPtr();
    return bits;
  }

  Result<Array> BuildNode(const SchemaNode& node, int leaf, const Slots& slots,
                          std::vector<const SchemaNode*>* path) {
    switch (node.kind) {
      case SchemaNode::Kind::kLeaf:
        return Leaf(node, slots);
      case SchemaNode::Kind::kStruct: {
        auto data = std::make_shared<ArrayData>();
        data->type = node.type;
        data->length = slots.size();
        data->buffers.resize(1);
        FLOTILLA_ASSIGN_OR_RETURN(data->buffers[0], Validity(node, leaf, slots, &data->null_count));
        for (const SchemaNode& child : node.children) {
          Array array;
          if (child.first_leaf == leaf) {
            FLOTILLA_ASSIGN_OR_RETURN(array, Build(child, leaf, slots, path));
          } else {
            path->push_back(&child);
            Slots own = SlotsAlong(*path, child.first_leaf);
            path->pop_back();
            if (own.size() != slots.size())
              return Status::Invalid("columns '" + columns_[leaf].path + "' and '" +
                                     columns_[child.first_leaf].path +
                                     "' disagree on the number of values of their struct");
            FLOTILLA_ASSIGN_OR_RETURN(array, Build(child, child.first_leaf, own, path));
          }
          data->children.push_back(array.data());
        }
        return Array(data);
      }
      case SchemaNode::Kind::kList: {
        if (leaves_[leaf].rep.empty())
          return Status::Invalid("list column '" + columns_[leaf].path +
                                 "' has no repetition levels");
        auto data = std::make_shared<ArrayData>();
        data->type = node.type;
        data->length = slots.size();
        data->buffers.resize(2);
        FLOTILLA_ASSIGN_OR_RETURN(data->buffers[0], Validity(node, leaf, slots, &data->null_count));
        Slots elements = ElementSlots(node, leaf, slots);
        if (elements.size() > std::numeric_limits<int32_t>::max())
          return Status::NotImplemented(
              "a list column with more than 2^31 elements in a row group");
        FLOTILLA_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((slots.size() + 1) * 4));
        auto* o = reinterpret_cast<int32_t*>(offsets->mutable_data());
        o[0] = 0;
        // Each non-empty slot's elements are consecutive in `elements`: count them per slot.
        int64_t next = 0;
        for (int64_t i = 0; i < slots.size(); ++i) {
          const int64_t e = slots.last(i);
          if (Def(leaf, slots.first(i)) >= node.element_def) {
            while (next < elements.size() && elements.first(next) < e)
              ++next;
          }
          o[i + 1] = static_cast<int32_t>(next);
        }
        data->buffers[1] = std::move(offsets);
        FLOTILLA_ASSIGN_OR_RETURN(Array values, Build(node.children[0], leaf, elements, path));
        data->children.push_back(values.data());
        return Array(data);
      }
    }
    return Status::Internal("unknown schema node kind");
  }

  // Bit i: slot i holds a value (its entry is at the column's maximum definition level).
  static Result<BufferPtr> PresentBits(const LeafData& d, const ColumnDescriptor& c,
                                       const Slots& slots, int64_t* present) {
    const int64_t n = slots.size();
    if (d.def_bitmap) {  // a bitmap over the entries, which are the slots (no lists above)
      if (!slots.identity || d.entries != n)
        return Status::Invalid("column '" + c.path + "' has " + std::to_string(d.entries) +
                               " entries for " + std::to_string(n) + " slots");
      *present = bit_util::CountSetBits(d.def_bits->data(), 0, n);
      return d.def_bits;
    }
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, Buffer::AllocateZeroed(bit_util::BytesForBits(n)));
    uint8_t* b = bits->mutable_data();
    int64_t count = 0;
    if (slots.identity) {
      for (int64_t i = 0; i < n; ++i) {
        const bool p = d.def[static_cast<size_t>(i)] == c.max_def;
        b[i >> 3] |= static_cast<uint8_t>(p) << (i & 7);
        count += p;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        if (d.def[slots.first(i)] == c.max_def) {
          bit_util::SetBit(b, i);
          ++count;
        }
      }
    }
    *present = count;
    return bits;
  }

  // A leaf's array: its dense values spread over the slots, nulls where an entry is not at the
  // column's maximum definition level.
  Result<Array> Leaf(const SchemaNode& node, const Slots& slots) {
    const LeafData& d = leaves_[node.leaf];
    const ColumnDescriptor& c = columns_[node.leaf];
    const Array& values = d.values;
    const int64_t n = slots.size();
    if (!slots.identity) {
      for (int64_t i = 0; i < n; ++i) {
        if (slots.last(i) != slots.first(i) + 1)
          return Status::Invalid("column '" + c.path +
                                 "' repeats values where its schema has no list");
      }
    }
    if (d.def.empty() && d.def_bits == nullptr) {  // every entry holds a value
      if (values.length() != n)
        return Status::Invalid("column '" + c.path + "' holds " + std::to_string(values.length()) +
                               " values for " + std::to_string(n) + " rows");
      return values;
    }
    // A top-level column without nulls (the common case of optional columns): the values are
    // the array, no bitmap needed.
    if (slots.identity && static_cast<int64_t>(d.def.size()) >= n) {
      const int16_t* def = d.def.data();
      int64_t full = 0;
      for (int64_t i = 0; i < n; ++i)
        full += def[i] == c.max_def;
      if (full == n) {
        if (values.length() != n)
          return Status::Invalid("column '" + c.path + "' holds " +
                                 std::to_string(values.length()) +
                                 " values but its levels define " + std::to_string(n));
        return values;
      }
    }
    // Positions of the present values.
    int64_t present = 0;
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, PresentBits(d, c, slots, &present));
    const uint8_t* b = bits->data();
    if (present != values.length())
      return Status::Invalid("column '" + c.path + "' holds " + std::to_string(values.length()) +
                             " values but its levels define " + std::to_string(present));
    if (present == n) return values;
    auto data = std::make_shared<ArrayData>();
    data->type = values.type();
    data->length = n;
    data->null_count = n - present;
    data->buffers.resize(values.data()->buffers.size());
    data->buffers[0] = bits;
    const TypeId id = values.type_id();
    if (id == TypeId::kNull) {
      data->buffers[0] = nullptr;
      data->null_count = n;
      return Array(data);
    }
    if (values.type()->is_binary_like()) {
      FLOTILLA_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((n + 1) * 4));
      auto* o = reinterpret_cast<int32_t*>(offsets->mutable_data());
      const int32_t* src = values.data()->buffers[1]->data_as<int32_t>();
      int64_t k = 0;
      o[0] = src[0];
      for (int64_t i = 0; i < n; ++i) {
        if (bit_util::GetBit(b, i)) ++k;
        o[i + 1] = src[k];
      }
      data->buffers[1] = std::move(offsets);
      data->buffers[2] = values.data()->buffers[2];
      return Array(data);
    }
    if (id == TypeId::kBool) {
      FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateZeroed(bit_util::BytesForBits(n)));
      uint8_t* dst = out->mutable_data();
      int64_t k = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (bit_util::GetBit(b, i) && values.BoolValue(k++)) bit_util::SetBit(dst, i);
      }
      data->buffers[1] = std::move(out);
      return Array(data);
    }
    const int width = values.type()->byte_width();
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateZeroed(n * width));
    uint8_t* dst = out->mutable_data();
    const uint8_t* src = values.raw_values();
    int64_t k = 0;
    switch (width) {
      case 4:
        for (int64_t i = 0; i < n; ++i) {
          if (bit_util::GetBit(b, i)) std::memcpy(dst + i * 4, src + 4 * k++, 4);
        }
        break;
      case 8:
        for (int64_t i = 0; i < n; ++i) {
          if (bit_util::GetBit(b, i)) std::memcpy(dst + i * 8, src + 8 * k++, 8);
        }
        break;
      default:
        for (int64_t i = 0; i < n; ++i) {
          if (bit_util::GetBit(b, i))
            std::memcpy(dst + i * width, src + static_cast<int64_t>(width) * k++,
                        static_cast<size_t>(width));
        }
    }
    data->buffers[1] = std::move(out);
    return Array(data);
  }

  const std::vector<LeafData>& leaves_;
  const std::vector<ColumnDescriptor>& columns_;
};

}  // namespace

Result<Array> AssembleField(const SchemaNode& field, const std::vector<LeafData>& leaves,
                            const std::vector<ColumnDescriptor>& columns, int64_t num_rows) {
  Assembler assembler(leaves, columns);
  const int leaf = field.first_leaf;
  Slots rows = assembler.Rows(leaf);
  if (rows.size() != num_rows)
    return Status::Invalid("column '" + columns[leaf].path + "' holds " +
                           std::to_string(rows.size()) + " rows, its row group " +
                           std::to_string(num_rows));
  std::vector<const SchemaNode*> path;
  return assembler.Build(field, leaf, rows, &path);
}

}  // namespace flotilla::io::parquet
