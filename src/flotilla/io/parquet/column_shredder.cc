// Record shredding: Arrow arrays into the definition and repetition levels and dense values of
// Parquet's leaves (Dremel's scheme), with the values converted to their physical types.
#include "flotilla/io/parquet/column_shredder.h"

#include "flotilla/columnar/decimal.h"

namespace flotilla::io::parquet {

void Shredder::FlatRows(const SchemaNode& node, const Array& a, int64_t begin, int64_t end) {
  LeafBuffer& leaf = leaves_[node.leaf];
  const bool has_def = schema_.leaves[node.leaf].max_def > 0;
  const bool nulls = a.null_count() > 0;
  if (has_def) {
    const size_t at = leaf.def.size();
    leaf.def.resize(at + static_cast<size_t>(end - begin), node.def_level);
    if (nulls)
      for (int64_t i = begin; i < end; ++i)
        if (a.IsNull(i)) {
          leaf.def[at + static_cast<size_t>(i - begin)] = 0;
          ++leaf.nulls;
        }
  }
  const DataType& t = *a.type();
  const bool same_layout = t.id() == TypeId::kInt32 || t.id() == TypeId::kUInt32 ||
                           t.id() == TypeId::kDate32 || t.id() == TypeId::kFloat32 ||
                           t.id() == TypeId::kInt64 || t.id() == TypeId::kUInt64 ||
                           t.id() == TypeId::kFloat64 || t.id() == TypeId::kTime64 ||
                           (t.id() == TypeId::kTimestamp && t.unit() != TimeUnit::kSecond);
  if (!nulls && same_layout) {
    const int width = t.byte_width();
    leaf.fixed.append(reinterpret_cast<const char*>(a.raw_values()) + (a.offset() + begin) * width,
                      static_cast<size_t>((end - begin) * width));
    leaf.values += end - begin;
    return;
  }
  if (!nulls && t.id() == TypeId::kString) {
    const int32_t* offsets = a.values<int32_t>();  // the offsets buffer, at the array's offset
    const int32_t first = offsets[begin], last = offsets[end];
    const size_t base = leaf.data.size();
    leaf.data.append(reinterpret_cast<const char*>(a.data()->buffers[2]->data()) + first,
                     static_cast<size_t>(last - first));
    leaf.offsets.reserve(leaf.offsets.size() + static_cast<size_t>(end - begin));
    for (int64_t i = begin; i < end; ++i)
      leaf.offsets.push_back(
          static_cast<uint32_t>(base + static_cast<size_t>(offsets[i + 1] - first)));
    leaf.values += end - begin;
    return;
  }
  for (int64_t i = begin; i < end; ++i)
    if (!nulls || !a.IsNull(i)) AppendValue(node, a, i, &leaf);
}

void Shredder::Row(const SchemaNode& node, const Array& a, int64_t i, int16_t d, int16_t r) {
  if (node.nullable && a.IsNull(i)) return Empty(node, d, r);
  const int16_t present = node.def_level;
  switch (node.kind) {
    case SchemaNode::Kind::kLeaf: {
      LeafBuffer& leaf = leaves_[node.leaf];
      if (schema_.leaves[node.leaf].max_def > 0) leaf.def.push_back(present);
      if (schema_.leaves[node.leaf].max_rep > 0) leaf.rep.push_back(r);
      AppendValue(node, a, i, &leaf);
      return;
    }
    case SchemaNode::Kind::kStruct:
      for (size_t f = 0; f < node.children.size(); ++f)
        Row(node.children[f], a.field(static_cast<int>(f)), i, present, r);
      return;
    case SchemaNode::Kind::kList: {
      int64_t begin, end;
      Array values;
      if (a.type_id() == TypeId::kFixedSizeList) {
        const int64_t size = a.type()->fixed_size();
        begin = (a.offset() + i) * size;
        end = begin + size;
        values = a.child(0);
      } else {
        begin = a.ValueOffset(i);
        end = a.ValueOffset(i + 1);
        values = a.child(0);
      }
      if (begin == end) return Empty(node, present, r);
      for (int64_t k = begin; k < end; ++k)
        Row(node.children[0], values, k, node.element_def, k == begin ? r : node.rep_level);
      return;
    }
  }
}

void Shredder::Empty(const SchemaNode& node, int16_t d, int16_t r) {
  for (int l = node.first_leaf; l < node.end_leaf; ++l) {
    LeafBuffer& leaf = leaves_[l];
    if (schema_.leaves[l].max_def > 0) leaf.def.push_back(d);
    if (schema_.leaves[l].max_rep > 0) leaf.rep.push_back(r);
    ++leaf.nulls;
  }
}

void Shredder::AppendValue(const SchemaNode& node, const Array& a, int64_t i, LeafBuffer* leaf) {
  ++leaf->values;
  const DataType& t = *a.type();
  switch (t.id()) {
    case TypeId::kBool:
      leaf->fixed.push_back(a.BoolValue(i) ? 1 : 0);
      return;
    case TypeId::kInt8:
      return AppendPlain<int32_t>(&leaf->fixed, a.values<int8_t>()[i]);
    case TypeId::kInt16:
      return AppendPlain<int32_t>(&leaf->fixed, a.values<int16_t>()[i]);
    case TypeId::kUInt8:
      return AppendPlain<int32_t>(&leaf->fixed, a.values<uint8_t>()[i]);
    case TypeId::kUInt16:
      return AppendPlain<int32_t>(&leaf->fixed, a.values<uint16_t>()[i]);
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kDate32:
    case TypeId::kFloat32:
      leaf->fixed.append(reinterpret_cast<const char*>(a.values<int32_t>() + i), 4);
      return;
    case TypeId::kTimestamp:
      if (t.unit() == TimeUnit::kSecond)
        return AppendPlain<int64_t>(&leaf->fixed, a.values<int64_t>()[i] * 1000);
      [[fallthrough]];
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kTime64:
    case TypeId::kFloat64:
      leaf->fixed.append(reinterpret_cast<const char*>(a.values<int64_t>() + i), 8);
      return;
    case TypeId::kDecimal128: {
      const Int128 v = a.values<Int128>()[i];
      if (t.precision() <= 9) return AppendPlain<int32_t>(&leaf->fixed, static_cast<int32_t>(v));
      if (t.precision() <= 18) return AppendPlain<int64_t>(&leaf->fixed, static_cast<int64_t>(v));
      char be[16];
      for (int k = 0; k < 16; ++k)
        be[k] = static_cast<char>(static_cast<unsigned __int128>(v) >> (8 * (15 - k)));
      leaf->fixed.append(be, 16);
      return;
    }
    case TypeId::kFixedSizeBinary:
      leaf->fixed.append(a.GetView(i));
      return;
    case TypeId::kNull:
      return;
    default: {  // string and binary
      const std::string_view v = a.GetView(i);
      leaf->data.append(v);
      leaf->offsets.push_back(static_cast<uint32_t>(leaf->data.size()));
      return;
    }
  }
}

}  // namespace flotilla::io::parquet
