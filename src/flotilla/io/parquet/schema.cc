#include "flotilla/io/parquet/schema.h"

namespace flotilla::io::parquet {

namespace {

// Parquet's levels are small; files nesting deeper than this are corrupt (or hostile).
constexpr int kMaxNesting = 64;

struct Builder {
  const std::vector<SchemaElement>& elements;
  FileSchema* out;
  size_t next = 1;                // the element to read next (0 is the root)
  std::vector<std::string> path;  // names from the root to the element being converted

  Result<const SchemaElement*> Take() {
    if (next >= elements.size())
      return Status::Invalid("schema ends early: a group announces more children than follow");
    return &elements[next++];
  }

  static bool IsAnnotated(const SchemaElement& e, LogicalType::Kind kind, ConvertedType ct) {
    return e.logical_type.kind == kind || (e.logical_type.kind == LogicalType::kNone &&
                                           e.converted_type && *e.converted_type == ct);
  }

  // Reads `e`'s children (which follow it in the flattened list) as struct fields.
  Status Children(const SchemaElement& e, SchemaNode* node, int16_t def, int16_t rep, int depth) {
    if (e.num_children <= 0) return Status::Invalid("group '" + e.name + "' has no fields");
    std::vector<Field> fields;
    for (int i = 0; i < e.num_children; ++i) {
      FLOTILLA_ASSIGN_OR_RETURN(const SchemaElement* child, Take());
      SchemaNode c;
      FLOTILLA_RETURN_NOT_OK(Node(*child, def, rep, depth + 1, /*as_element=*/false, &c));
      fields.push_back(c.ToField());
      node->children.push_back(std::move(c));
    }
    node->type = struct_(std::move(fields));
    return Status::OK();
  }

  // Converts element `e` whose parent is present at definition level `def` and repetition level
  // `rep`. `as_element`: `e` is the repeated element of a list already accounted for (so its
  // repetition does not make another list).
  Status Node(const SchemaElement& e, int16_t def, int16_t rep, int depth, bool as_element,
              SchemaNode* node) {
    if (depth > kMaxNesting) return Status::Invalid("schema nested deeper than 64 levels");
    node->name = e.name;
    node->first_leaf = static_cast<int>(out->leaves.size());
    const Repetition repetition = e.repetition.value_or(Repetition::kOptional);
    const bool bare_repeated = repetition == Repetition::kRepeated && !as_element;
    // A bare repeated field converts itself twice (as the list, then as its element): its name
    // enters the path once.
    if (!bare_repeated) path.push_back(e.name);
    struct Pop {
      std::vector<std::string>* path;
      bool active;
      ~Pop() {
        if (active) path->pop_back();
      }
    } pop{&path, !bare_repeated};
    if (bare_repeated) {
      // A bare repeated field: a required list of required elements.
      node->kind = SchemaNode::Kind::kList;
      node->nullable = false;
      node->def_level = def;
      node->element_def = static_cast<int16_t>(def + 1);
      node->rep_level = static_cast<int16_t>(rep + 1);
      SchemaNode element;
      FLOTILLA_RETURN_NOT_OK(
          Node(e, node->element_def, node->rep_level, depth + 1, true, &element));
      element.nullable = false;
      node->type = list(Field{"item", element.type, false});
      node->children.push_back(std::move(element));
      node->end_leaf = static_cast<int>(out->leaves.size());
      return Status::OK();
    }
    const bool optional = repetition == Repetition::kOptional;
    node->nullable = optional;
    // A repeated element is not optional: its level was counted by its list (element_def).
    node->def_level = static_cast<int16_t>(def + (optional ? 1 : 0));
    const int16_t child_def = node->def_level;

    if (!e.type) {  // a group
      const bool is_list = IsAnnotated(e, LogicalType::kList, ConvertedType::kList);
      const bool is_map = IsAnnotated(e, LogicalType::kMap, ConvertedType::kMap) ||
                          (e.converted_type && *e.converted_type == ConvertedType::kMapKeyValue);
      if ((is_list || is_map) && !as_element) {
        if (e.num_children != 1)
          return Status::Invalid("list or map group '" + e.name + "' has " +
                                 std::to_string(e.num_children) + " children, expected 1");
        FLOTILLA_ASSIGN_OR_RETURN(const SchemaElement* repeated, Take());
        if (repeated->repetition.value_or(Repetition::kOptional) != Repetition::kRepeated)
          return Status::Invalid("the child '" + repeated->name + "' of list or map group '" +
                                 e.name + "' is not repeated");
        node->kind = SchemaNode::Kind::kList;
        node->element_def = static_cast<int16_t>(child_def + 1);
        node->rep_level = static_cast<int16_t>(rep + 1);
        SchemaNode element;
        // The backward-compatibility rules of the LIST spec: the repeated field itself is the
        // element when it is a primitive, a group of several fields, or named "array" or
        // "<list>_tuple"; maps always use the repeated key_value group as the element.
        const bool repeated_is_element = is_map || repeated->type || repeated->num_children != 1 ||
                                         repeated->name == "array" ||
                                         repeated->name == e.name + "_tuple";
        if (repeated_is_element) {
          FLOTILLA_RETURN_NOT_OK(
              Node(*repeated, node->element_def, node->rep_level, depth + 1, true, &element));
          element.nullable = false;
        } else {
          FLOTILLA_ASSIGN_OR_RETURN(const SchemaElement* inner, Take());
          FLOTILLA_RETURN_NOT_OK(
              Node(*inner, node->element_def, node->rep_level, depth + 1, false, &element));
        }
        if (is_map && (element.kind != SchemaNode::Kind::kStruct || element.children.size() != 2))
          return Status::Invalid("map group '" + e.name + "' does not hold key/value pairs");
        node->type = list(Field{"item", element.type, element.nullable});
        node->children.push_back(std::move(element));
      } else {
        node->kind = SchemaNode::Kind::kStruct;
        FLOTILLA_RETURN_NOT_OK(Children(e, node, child_def, rep, depth));
      }
      node->end_leaf = static_cast<int>(out->leaves.size());
      return Status::OK();
    }

    node->kind = SchemaNode::Kind::kLeaf;
    node->leaf = static_cast<int>(out->leaves.size());
    ColumnDescriptor column;
    column.index = node->leaf;
    column.element = e;
    column.path_in_schema = path;
    for (const std::string& part : path)
      column.path += (column.path.empty() ? "" : ".") + part;
    column.max_def = child_def;
    column.max_rep = rep;
    LeafType(e, &column);
    node->type = column.type;
    out->leaves.push_back(std::move(column));
    node->end_leaf = static_cast<int>(out->leaves.size());
    return Status::OK();
  }

  static void LeafType(const SchemaElement& e, ColumnDescriptor* c) {
    const LogicalType& lt = e.logical_type;
    const auto ct = e.converted_type;
    auto is = [&](LogicalType::Kind kind, std::optional<ConvertedType> legacy = std::nullopt) {
      return lt.kind == kind || (lt.kind == LogicalType::kNone && legacy && ct && *ct == *legacy);
    };
    auto unsupported = [&](std::string why) {
      c->type = null();
      c->unsupported = std::move(why);
    };
    int32_t precision = lt.kind == LogicalType::kDecimal ? lt.precision : e.precision;
    int32_t scale = lt.kind == LogicalType::kDecimal ? lt.scale : e.scale;
    auto decimal = [&] {
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        unsupported("decimal(" + std::to_string(precision) + ", " + std::to_string(scale) +
                    ") is outside decimal128's range");
      } else {
        c->type = decimal128(precision, scale);
      }
    };
    if (lt.kind == LogicalType::kUnknown) {
      c->type = null();
      return;
    }
    switch (*e.type) {
      case PhysicalType::kBoolean:
        c->type = boolean();
        return;
      case PhysicalType::kInt32: {
        if (is(LogicalType::kDecimal, ConvertedType::kDecimal)) return decimal();
        if (is(LogicalType::kDate, ConvertedType::kDate)) {
          c->type = date32();
          return;
        }
        if (is(LogicalType::kTime, ConvertedType::kTimeMillis)) {
          c->type = time64(TimeUnit::kMicro);  // milliseconds widened (FinishValues)
          return;
        }
        int bits = 32;
        bool is_signed = true;
        if (lt.kind == LogicalType::kInteger) {
          bits = lt.bit_width;
          is_signed = lt.is_signed;
        } else if (lt.kind == LogicalType::kNone && ct) {
          switch (*ct) {
            case ConvertedType::kInt8:
              bits = 8;
              break;
            case ConvertedType::kInt16:
              bits = 16;
              break;
            case ConvertedType::kUint8:
              bits = 8, is_signed = false;
              break;
            case ConvertedType::kUint16:
              bits = 16, is_signed = false;
              break;
            case ConvertedType::kUint32:
              bits = 32, is_signed = false;
              break;
            default:
              break;
          }
        }
        switch (bits) {
          case 8:
            c->type = is_signed ? int8() : uint8();
            return;
          case 16:
            c->type = is_signed ? int16() : uint16();
            return;
          case 32:
            c->type = is_signed ? int32() : uint32();
            return;
          default:
            return unsupported("INT32 with an integer annotation of " + std::to_string(bits) +
                               " bits");
        }
      }
      case PhysicalType::kInt64:
        if (is(LogicalType::kDecimal, ConvertedType::kDecimal)) return decimal();
        if (is(LogicalType::kTime, ConvertedType::kTimeMicros)) {
          c->type = time64(lt.kind == LogicalType::kTime && lt.unit == LogicalType::kNanos
                               ? TimeUnit::kNano
                               : TimeUnit::kMicro);
          return;
        }
        if (lt.kind == LogicalType::kTimestamp) {
          const TimeUnit unit = lt.unit == LogicalType::kMillis   ? TimeUnit::kMilli
                                : lt.unit == LogicalType::kMicros ? TimeUnit::kMicro
                                                                  : TimeUnit::kNano;
          c->type = timestamp(unit, lt.adjusted_to_utc ? "UTC" : "");
          return;
        }
        if (lt.kind == LogicalType::kNone && ct &&
            (*ct == ConvertedType::kTimestampMillis || *ct == ConvertedType::kTimestampMicros)) {
          // The legacy annotations mean instants (UTC-adjusted).
          c->type = timestamp(
              *ct == ConvertedType::kTimestampMillis ? TimeUnit::kMilli : TimeUnit::kMicro, "UTC");
          return;
        }
        if ((lt.kind == LogicalType::kInteger && !lt.is_signed) ||
            (lt.kind == LogicalType::kNone && ct && *ct == ConvertedType::kUint64)) {
          c->type = uint64();
          return;
        }
        c->type = int64();
        return;
      case PhysicalType::kInt96:
        c->type = timestamp(TimeUnit::kNano);
        return;
      case PhysicalType::kFloat:
        c->type = float32();
        return;
      case PhysicalType::kDouble:
        c->type = float64();
        return;
      case PhysicalType::kByteArray:
        if (is(LogicalType::kDecimal, ConvertedType::kDecimal)) return decimal();
        if (is(LogicalType::kString, ConvertedType::kUtf8) ||
            is(LogicalType::kEnum, ConvertedType::kEnum) ||
            is(LogicalType::kJson, ConvertedType::kJson)) {
          c->type = utf8();
          return;
        }
        c->type = binary();
        return;
      case PhysicalType::kFixedLenByteArray:
        if (e.type_length <= 0)
          return unsupported("FIXED_LEN_BYTE_ARRAY of length " + std::to_string(e.type_length));
        if (is(LogicalType::kDecimal, ConvertedType::kDecimal)) {
          if (e.type_length > 16)
            return unsupported("decimal stored in " + std::to_string(e.type_length) + " bytes");
          return decimal();
        }
        if (lt.kind == LogicalType::kFloat16) {
          if (e.type_length != 2)
            return unsupported("FLOAT16 of length " + std::to_string(e.type_length));
          c->type = float32();
          return;
        }
        c->type = fixed_size_binary(e.type_length);
        return;
    }
    unsupported("physical type " + std::to_string(static_cast<int>(*e.type)));
  }
};

}  // namespace

int ColumnDescriptor::physical_width() const {
  switch (*element.type) {
    case PhysicalType::kBoolean:
      return 1;
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
      return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return 8;
    case PhysicalType::kInt96:
      return 12;
    case PhysicalType::kFixedLenByteArray:
      return element.type_length;
    case PhysicalType::kByteArray:
      return 0;
  }
  return 0;
}

Result<FileSchema> BuildFileSchema(const FileMetaData& metadata) {
  if (metadata.schema.empty()) return Status::Invalid("the file's schema is empty");
  FileSchema out;
  Builder b{metadata.schema, &out};
  const SchemaElement& root = metadata.schema[0];
  std::vector<Field> fields;
  for (int i = 0; i < root.num_children; ++i) {
    FLOTILLA_ASSIGN_OR_RETURN(const SchemaElement* e, b.Take());
    SchemaNode node;
    FLOTILLA_RETURN_NOT_OK(b.Node(*e, 0, 0, 1, false, &node));
    fields.push_back(node.ToField());
    out.fields.push_back(std::move(node));
  }
  if (b.next != metadata.schema.size())
    return Status::Invalid("schema has " + std::to_string(metadata.schema.size() - b.next) +
                           " elements beyond the root's children");
  out.arrow = std::make_shared<Schema>(std::move(fields));
  return out;
}

}  // namespace flotilla::io::parquet
