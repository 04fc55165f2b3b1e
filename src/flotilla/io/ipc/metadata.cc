#include "flotilla/io/ipc/metadata.h"

#include <fmt/format.h>

#include <map>

namespace flotilla::ipc {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;
using FieldOffsets = std::vector<Offset<fb::Field>>;

// --- ids ----------------------------------------------------------------------------------------

DictionaryNode NumberField(const DataType& type, int64_t* next_id) {
  DictionaryNode node;
  const DataType* inner = &type;
  if (type.id() == TypeId::kDictionary) {
    node.id = (*next_id)++;
    inner = type.value_type().get();
  }
  for (const Field& child : inner->fields())
    node.children.push_back(NumberField(*child.type, next_id));
  return node;
}

// --- writing ------------------------------------------------------------------------------------

fb::TimeUnit ToFlatbuffer(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return fb::TimeUnit::SECOND;
    case TimeUnit::kMilli:
      return fb::TimeUnit::MILLISECOND;
    case TimeUnit::kMicro:
      return fb::TimeUnit::MICROSECOND;
    case TimeUnit::kNano:
      return fb::TimeUnit::NANOSECOND;
  }
  return fb::TimeUnit::SECOND;
}

Offset<fb::Int> IntType(FlatBufferBuilder* fbb, const DataType& t) {
  return fb::CreateInt(*fbb, t.bit_width(), t.is_signed_integer());
}

Result<Offset<fb::Field>> FieldToFlatbuffer(FlatBufferBuilder* fbb, const Field& field,
                                            const DictionaryNode& node, int depth);

Status ChildrenToFlatbuffer(FlatBufferBuilder* fbb, const DataType& type,
                            const DictionaryNode& node, int depth, FieldOffsets* out) {
  if (node.children.size() != type.fields().size()) {
    return Status::Internal("dictionary id tree does not match the schema");
  }
  for (size_t i = 0; i < type.fields().size(); ++i) {
    FLOTILLA_ASSIGN_OR_RETURN(
        auto child, FieldToFlatbuffer(fbb, type.fields()[i], node.children[i], depth + 1));
    out->push_back(child);
  }
  return Status::OK();
}

Result<Offset<fb::Field>> FieldToFlatbuffer(FlatBufferBuilder* fbb, const Field& field,
                                            const DictionaryNode& node, int depth) {
  if (depth > kMaxNestingDepth) {
    return Status::Invalid(
        fmt::format("field '{}' is nested deeper than {} levels", field.name, kMaxNestingDepth));
  }
  const DataType* type = field.type.get();
  Offset<fb::DictionaryEncoding> encoding = 0;
  if (type->id() == TypeId::kDictionary) {
    if (type->value_type()->id() == TypeId::kDictionary) {
      return Status::NotImplemented(fmt::format(
          "field '{}': a dictionary of dictionaries cannot be written to IPC", field.name));
    }
    encoding = fb::CreateDictionaryEncoding(*fbb, node.id, IntType(fbb, *type->index_type()));
    type = type->value_type().get();
  }
  FieldOffsets children;
  FLOTILLA_RETURN_NOT_OK(ChildrenToFlatbuffer(fbb, *type, node, depth, &children));

  fb::Type type_type;
  Offset<void> type_offset;
  switch (type->id()) {
    case TypeId::kNull:
      type_type = fb::Type::Null;
      type_offset = fb::CreateNull(*fbb).Union();
      break;
    case TypeId::kBool:
      type_type = fb::Type::Bool;
      type_offset = fb::CreateBool(*fbb).Union();
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      type_type = fb::Type::Int;
      type_offset = IntType(fbb, *type).Union();
      break;
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      type_type = fb::Type::FloatingPoint;
      type_offset =
          fb::CreateFloatingPoint(
              *fbb, type->id() == TypeId::kFloat32 ? fb::Precision::SINGLE : fb::Precision::DOUBLE)
              .Union();
      break;
    case TypeId::kDecimal128:
      type_type = fb::Type::Decimal;
      type_offset = fb::CreateDecimal(*fbb, type->precision(), type->scale(), 128).Union();
      break;
    case TypeId::kDate32:
      type_type = fb::Type::Date;
      type_offset = fb::CreateDate(*fbb, fb::DateUnit::DAY).Union();
      break;
    case TypeId::kTimestamp: {
      type_type = fb::Type::Timestamp;
      auto tz = type->timezone().empty() ? 0 : fbb->CreateString(type->timezone());
      type_offset = fb::CreateTimestamp(*fbb, ToFlatbuffer(type->unit()), tz).Union();
      break;
    }
    case TypeId::kDuration:
      type_type = fb::Type::Duration;
      type_offset = fb::CreateDuration(*fbb, ToFlatbuffer(type->unit())).Union();
      break;
    case TypeId::kTime64:
      type_type = fb::Type::Time;
      type_offset = fb::CreateTime(*fbb, ToFlatbuffer(type->unit()), 64).Union();
      break;
    case TypeId::kString:
      type_type = fb::Type::Utf8;
      type_offset = fb::CreateUtf8(*fbb).Union();
      break;
    case TypeId::kLargeString:
      type_type = fb::Type::LargeUtf8;
      type_offset = fb::CreateLargeUtf8(*fbb).Union();
      break;
    case TypeId::kBinary:
      type_type = fb::Type::Binary;
      type_offset = fb::CreateBinary(*fbb).Union();
      break;
    case TypeId::kLargeBinary:
      type_type = fb::Type::LargeBinary;
      type_offset = fb::CreateLargeBinary(*fbb).Union();
      break;
    case TypeId::kFixedSizeBinary:
      type_type = fb::Type::FixedSizeBinary;
      type_offset = fb::CreateFixedSizeBinary(*fbb, type->fixed_size()).Union();
      break;
    case TypeId::kList:
      type_type = fb::Type::List;
      type_offset = fb::CreateList(*fbb).Union();
      break;
    case TypeId::kFixedSizeList:
      type_type = fb::Type::FixedSizeList;
      type_offset = fb::CreateFixedSizeList(*fbb, type->fixed_size()).Union();
      break;
    case TypeId::kStruct:
      type_type = fb::Type::Struct_;
      type_offset = fb::CreateStruct_(*fbb).Union();
      break;
    default:
      return Status::Internal("unexpected type " + type->ToString());
  }
  auto name = fbb->CreateString(field.name);
  auto children_offset = fbb->CreateVector(children);
  return fb::CreateField(*fbb, name, field.nullable, type_type, type_offset, encoding,
                         children_offset);
}

// --- reading ------------------------------------------------------------------------------------

std::string_view View(const flatbuffers::String* s) {
  return s == nullptr ? std::string_view() : std::string_view(s->c_str(), s->size());
}

Result<TimeUnit> FromFlatbuffer(fb::TimeUnit unit) {
  switch (unit) {
    case fb::TimeUnit::SECOND:
      return TimeUnit::kSecond;
    case fb::TimeUnit::MILLISECOND:
      return TimeUnit::kMilli;
    case fb::TimeUnit::MICROSECOND:
      return TimeUnit::kMicro;
    case fb::TimeUnit::NANOSECOND:
      return TimeUnit::kNano;
  }
  return Status::Invalid(fmt::format("unknown time unit {}", static_cast<int>(unit)));
}

Result<TypePtr> IntFromFlatbuffer(const fb::Int* t) {
  if (t == nullptr) return Status::Invalid("Int type without parameters");
  bool s = t->is_signed();
  switch (t->bitWidth()) {
    case 8:
      return s ? int8() : uint8();
    case 16:
      return s ? int16() : uint16();
    case 32:
      return s ? int32() : uint32();
    case 64:
      return s ? int64() : uint64();
  }
  return Status::Invalid(fmt::format("integer bit width {} is not 8, 16, 32 or 64", t->bitWidth()));
}

Result<Field> FieldFromFlatbuffer(const fb::Field* f, int depth, DictionaryNode* node);

Status ExpectChildren(const fb::Field* f, size_t n, std::string_view what) {
  size_t have = f->children() ? f->children()->size() : 0;
  if (have != n) {
    return Status::Invalid(
        fmt::format("{} field '{}' has {} children, expected {}", what, View(f->name()), have, n));
  }
  return Status::OK();
}

// The type of `f` ignoring its dictionary encoding (the dictionary's value type).
Result<TypePtr> TypeFromFlatbuffer(const fb::Field* f, int depth, DictionaryNode* node) {
  std::vector<Field> children;
  if (f->children() != nullptr) {
    for (const fb::Field* child : *f->children()) {
      if (child == nullptr) return Status::Invalid("null child field");
      node->children.emplace_back();
      FLOTILLA_ASSIGN_OR_RETURN(Field c,
                                FieldFromFlatbuffer(child, depth + 1, &node->children.back()));
      children.push_back(std::move(c));
    }
  }
  const std::string_view name = View(f->name());
  bool leaf = true;
  TypePtr type;
  switch (f->type_type()) {
    case fb::Type::Null:
      type = null();
      break;
    case fb::Type::Bool:
      type = boolean();
      break;
    case fb::Type::Int: {
      FLOTILLA_ASSIGN_OR_RETURN(type, IntFromFlatbuffer(f->type_as_Int()));
      break;
    }
    case fb::Type::FloatingPoint: {
      const auto* t = f->type_as_FloatingPoint();
      if (t == nullptr) return Status::Invalid("FloatingPoint type without parameters");
      if (t->precision() == fb::Precision::SINGLE) {
        type = float32();
      } else if (t->precision() == fb::Precision::DOUBLE) {
        type = float64();
      } else {
        return Status::NotImplemented(fmt::format("field '{}': float16 is not supported", name));
      }
      break;
    }
    case fb::Type::Decimal: {
      const auto* t = f->type_as_Decimal();
      if (t == nullptr) return Status::Invalid("Decimal type without parameters");
      if (t->bitWidth() != 128) {
        return Status::NotImplemented(
            fmt::format("field '{}': decimal{} is not supported", name, t->bitWidth()));
      }
      if (t->precision() < 1 || t->precision() > 38 || t->scale() < -38 || t->scale() > 38) {
        return Status::Invalid(fmt::format("field '{}': invalid decimal128({}, {})", name,
                                           t->precision(), t->scale()));
      }
      type = decimal128(t->precision(), t->scale());
      break;
    }
    case fb::Type::Date: {
      const auto* t = f->type_as_Date();
      if (t == nullptr || t->unit() != fb::DateUnit::DAY) {
        return Status::NotImplemented(
            fmt::format("field '{}': only date32 (days) is supported", name));
      }
      type = date32();
      break;
    }
    case fb::Type::Timestamp: {
      const auto* t = f->type_as_Timestamp();
      if (t == nullptr) return Status::Invalid("Timestamp type without parameters");
      FLOTILLA_ASSIGN_OR_RETURN(TimeUnit unit, FromFlatbuffer(t->unit()));
      type = timestamp(unit, std::string(View(t->timezone())));
      break;
    }
    case fb::Type::Duration: {
      const auto* t = f->type_as_Duration();
      if (t == nullptr) return Status::Invalid("Duration type without parameters");
      FLOTILLA_ASSIGN_OR_RETURN(TimeUnit unit, FromFlatbuffer(t->unit()));
      type = duration(unit);
      break;
    }
    case fb::Type::Time: {
      const auto* t = f->type_as_Time();
      if (t == nullptr) return Status::Invalid("Time type without parameters");
      FLOTILLA_ASSIGN_OR_RETURN(TimeUnit unit, FromFlatbuffer(t->unit()));
      if (t->bitWidth() != 64 || (unit != TimeUnit::kMicro && unit != TimeUnit::kNano))
        return Status::NotImplemented("Arrow time" + std::to_string(t->bitWidth()) + "[" +
                                      TimeUnitName(unit) +
                                      "] is not supported (time64 of us or ns is)");
      type = time64(unit);
      break;
    }
    case fb::Type::Utf8:
      type = utf8();
      break;
    case fb::Type::LargeUtf8:
      type = large_utf8();
      break;
    case fb::Type::Binary:
      type = binary();
      break;
    case fb::Type::LargeBinary:
      type = large_binary();
      break;
    case fb::Type::FixedSizeBinary: {
      const auto* t = f->type_as_FixedSizeBinary();
      // Capped so that the width in bits (DataType::bit_width) fits an int.
      if (t == nullptr || t->byteWidth() <= 0 || t->byteWidth() > INT32_MAX / 8) {
        return Status::Invalid(fmt::format("field '{}': invalid fixed_size_binary width", name));
      }
      type = fixed_size_binary(t->byteWidth());
      break;
    }
    case fb::Type::List:
      FLOTILLA_RETURN_NOT_OK(ExpectChildren(f, 1, "list"));
      type = list(children[0]);
      leaf = false;
      break;
    case fb::Type::FixedSizeList: {
      const auto* t = f->type_as_FixedSizeList();
      FLOTILLA_RETURN_NOT_OK(ExpectChildren(f, 1, "fixed_size_list"));
      if (t == nullptr || t->listSize() < 0) {
        return Status::Invalid(fmt::format("field '{}': invalid fixed_size_list size", name));
      }
      type = fixed_size_list(children[0], t->listSize());
      leaf = false;
      break;
    }
    case fb::Type::Struct_:
      type = struct_(std::move(children));
      leaf = false;
      break;
    case fb::Type::NONE:
      return Status::Invalid(fmt::format("field '{}' has no type", name));
    default:
      return Status::NotImplemented(fmt::format("field '{}': Arrow type {} ({}) is not supported",
                                                name, fb::EnumNameType(f->type_type()),
                                                static_cast<int>(f->type_type())));
  }
  if (leaf) FLOTILLA_RETURN_NOT_OK(ExpectChildren(f, 0, type->ToString()));
  return type;
}

Result<Field> FieldFromFlatbuffer(const fb::Field* f, int depth, DictionaryNode* node) {
  if (depth > kMaxNestingDepth) {
    return Status::Invalid(fmt::format("types are nested deeper than {} levels", kMaxNestingDepth));
  }
  Field field;
  field.name = std::string(View(f->name()));
  field.nullable = f->nullable();
  Result<TypePtr> type = TypeFromFlatbuffer(f, depth, node);
  if (!type.ok()) return type.status();
  field.type = *type;
  if (const fb::DictionaryEncoding* enc = f->dictionary()) {
    TypePtr index = int32();  // the spec's default when indexType is absent
    if (enc->indexType() != nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(index, IntFromFlatbuffer(enc->indexType()));
    }
    if (enc->id() < 0) {
      return Status::Invalid(fmt::format("field '{}': negative dictionary id", field.name));
    }
    node->id = enc->id();
    field.type = dictionary(index, field.type);
  }
  return field;
}

Result<flatbuffers::Offset<flatbuffers::Vector<Offset<fb::KeyValue>>>> MetadataToFlatbuffer(
    FlatBufferBuilder* fbb, const Schema::Metadata& metadata) {
  std::vector<Offset<fb::KeyValue>> kv;
  for (const auto& [k, v] : metadata) {
    kv.push_back(fb::CreateKeyValue(*fbb, fbb->CreateString(k), fbb->CreateString(v)));
  }
  return fbb->CreateVector(kv);
}

}  // namespace

DictionaryTree AssignDictionaryIds(const Schema& schema) {
  DictionaryTree tree;
  int64_t next = 0;
  for (const Field& f : schema.fields())
    tree.push_back(NumberField(*f.type, &next));
  return tree;
}

Result<flatbuffers::Offset<fb::Schema>> SchemaToFlatbuffer(FlatBufferBuilder* fbb,
                                                           const Schema& schema,
                                                           const DictionaryTree& dictionaries) {
  FieldOffsets fields;
  for (int i = 0; i < schema.num_fields(); ++i) {
    FLOTILLA_ASSIGN_OR_RETURN(auto f, FieldToFlatbuffer(fbb, schema.field(i), dictionaries[i], 0));
    fields.push_back(f);
  }
  auto fields_offset = fbb->CreateVector(fields);
  Offset<flatbuffers::Vector<Offset<fb::KeyValue>>> metadata = 0;
  if (!schema.metadata().empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(metadata, MetadataToFlatbuffer(fbb, schema.metadata()));
  }
  return fb::CreateSchema(*fbb, fb::Endianness::Little, fields_offset, metadata);
}

Result<SchemaPtr> SchemaFromFlatbuffer(const fb::Schema* schema, DictionaryTree* dictionaries) {
  if (schema == nullptr) return Status::Invalid("message without a schema");
  if (schema->endianness() != fb::Endianness::Little) {
    return Status::NotImplemented("big-endian IPC data is not supported");
  }
  std::vector<Field> fields;
  dictionaries->clear();
  if (schema->fields() != nullptr) {
    for (const fb::Field* f : *schema->fields()) {
      if (f == nullptr) return Status::Invalid("null field in schema");
      dictionaries->emplace_back();
      FLOTILLA_ASSIGN_OR_RETURN(Field field, FieldFromFlatbuffer(f, 0, &dictionaries->back()));
      fields.push_back(std::move(field));
    }
  }
  Schema::Metadata metadata;
  if (schema->custom_metadata() != nullptr) {
    for (const fb::KeyValue* kv : *schema->custom_metadata()) {
      if (kv == nullptr) continue;
      metadata.emplace_back(std::string(View(kv->key())), std::string(View(kv->value())));
    }
  }
  return std::make_shared<Schema>(std::move(fields), std::move(metadata));
}

Result<const fb::Message*> VerifyMessage(const uint8_t* data, int64_t size) {
  // Deep enough for kMaxNestingDepth levels of fields (each level is a table and a vector).
  flatbuffers::Verifier verifier(data, static_cast<size_t>(size), 2 * kMaxNestingDepth + 16);
  if (!fb::VerifyMessageBuffer(verifier)) {
    return Status::Invalid(
        fmt::format("message metadata ({} bytes) is not a valid flatbuffer", size));
  }
  return fb::GetMessage(data);
}

Result<const fb::Footer*> VerifyFooter(const uint8_t* data, int64_t size) {
  flatbuffers::Verifier verifier(data, static_cast<size_t>(size), 2 * kMaxNestingDepth + 16);
  if (!fb::VerifyFooterBuffer(verifier)) {
    return Status::Invalid(fmt::format("file footer ({} bytes) is not a valid flatbuffer", size));
  }
  return fb::GetFooter(data);
}

}  // namespace flotilla::ipc
