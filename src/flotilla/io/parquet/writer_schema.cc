// Arrow fields to Parquet schema elements, the inverse of schema.cc's mapping: logical and
// legacy converted types, lists in the standard 3-level form, structs as groups.
#include "flotilla/io/parquet/writer_schema.h"

namespace flotilla::io::parquet {
namespace {

void IntegerType(SchemaElement* e, PhysicalType physical, int bits, bool is_signed) {
  e->type = physical;
  e->logical_type.kind = LogicalType::kInteger;
  e->logical_type.bit_width = static_cast<int8_t>(bits);
  e->logical_type.is_signed = is_signed;
  static const ConvertedType kSigned[] = {ConvertedType::kInt8, ConvertedType::kInt16,
                                          ConvertedType::kInt32, ConvertedType::kInt64};
  static const ConvertedType kUnsigned[] = {ConvertedType::kUint8, ConvertedType::kUint16,
                                            ConvertedType::kUint32, ConvertedType::kUint64};
  const int k = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
  e->converted_type = is_signed ? kSigned[k] : kUnsigned[k];
}

}  // namespace

TypePtr StorageType(const TypePtr& type) {
  return type->id() == TypeId::kDictionary ? type->value_type() : type;
}

Status AddSchemaElements(const Field& field, std::vector<SchemaElement>* out) {
  const TypePtr type = StorageType(field.type);
  SchemaElement e;
  e.name = field.name;
  e.repetition = field.nullable ? Repetition::kOptional : Repetition::kRequired;
  switch (type->id()) {
    case TypeId::kNull:
      e.type = PhysicalType::kInt32;
      e.repetition = Repetition::kOptional;
      e.logical_type.kind = LogicalType::kUnknown;
      break;
    case TypeId::kBool:
      e.type = PhysicalType::kBoolean;
      break;
    case TypeId::kInt8:
      IntegerType(&e, PhysicalType::kInt32, 8, true);
      break;
    case TypeId::kInt16:
      IntegerType(&e, PhysicalType::kInt32, 16, true);
      break;
    case TypeId::kInt32:
      e.type = PhysicalType::kInt32;
      break;
    case TypeId::kInt64:
      e.type = PhysicalType::kInt64;
      break;
    case TypeId::kUInt8:
      IntegerType(&e, PhysicalType::kInt32, 8, false);
      break;
    case TypeId::kUInt16:
      IntegerType(&e, PhysicalType::kInt32, 16, false);
      break;
    case TypeId::kUInt32:
      IntegerType(&e, PhysicalType::kInt32, 32, false);
      break;
    case TypeId::kUInt64:
      IntegerType(&e, PhysicalType::kInt64, 64, false);
      break;
    case TypeId::kFloat32:
      e.type = PhysicalType::kFloat;
      break;
    case TypeId::kFloat64:
      e.type = PhysicalType::kDouble;
      break;
    case TypeId::kDecimal128:
      e.type = type->precision() <= 9    ? PhysicalType::kInt32
               : type->precision() <= 18 ? PhysicalType::kInt64
                                         : PhysicalType::kFixedLenByteArray;
      if (*e.type == PhysicalType::kFixedLenByteArray) e.type_length = 16;
      e.converted_type = ConvertedType::kDecimal;
      e.precision = type->precision();
      e.scale = type->scale();
      e.logical_type.kind = LogicalType::kDecimal;
      e.logical_type.precision = type->precision();
      e.logical_type.scale = type->scale();
      break;
    case TypeId::kDate32:
      e.type = PhysicalType::kInt32;
      e.converted_type = ConvertedType::kDate;
      e.logical_type.kind = LogicalType::kDate;
      break;
    case TypeId::kTimestamp: {
      e.type = PhysicalType::kInt64;
      e.logical_type.kind = LogicalType::kTimestamp;
      e.logical_type.adjusted_to_utc = !type->timezone().empty();
      // Parquet has no seconds: they are written as milliseconds.
      e.logical_type.unit = type->unit() == TimeUnit::kMicro  ? LogicalType::kMicros
                            : type->unit() == TimeUnit::kNano ? LogicalType::kNanos
                                                              : LogicalType::kMillis;
      if (e.logical_type.adjusted_to_utc && e.logical_type.unit != LogicalType::kNanos)
        e.converted_type = e.logical_type.unit == LogicalType::kMillis
                               ? ConvertedType::kTimestampMillis
                               : ConvertedType::kTimestampMicros;
      break;
    }
    case TypeId::kTime64:
      e.type = PhysicalType::kInt64;
      e.logical_type.kind = LogicalType::kTime;
      e.logical_type.adjusted_to_utc = false;
      e.logical_type.unit =
          type->unit() == TimeUnit::kNano ? LogicalType::kNanos : LogicalType::kMicros;
      if (type->unit() == TimeUnit::kMicro) e.converted_type = ConvertedType::kTimeMicros;
      break;
    case TypeId::kDuration:
      return Status::NotImplemented("Parquet has no duration type: cast column '" + field.name +
                                    "' to int64 to write it");
    case TypeId::kString:
    case TypeId::kLargeString:
      e.type = PhysicalType::kByteArray;
      e.converted_type = ConvertedType::kUtf8;
      e.logical_type.kind = LogicalType::kString;
      break;
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      e.type = PhysicalType::kByteArray;
      break;
    case TypeId::kFixedSizeBinary:
      e.type = PhysicalType::kFixedLenByteArray;
      e.type_length = type->fixed_size();
      break;
    case TypeId::kList:
    case TypeId::kFixedSizeList: {
      e.num_children = 1;
      e.converted_type = ConvertedType::kList;
      e.logical_type.kind = LogicalType::kList;
      out->push_back(e);
      SchemaElement repeated;
      repeated.name = "list";
      repeated.repetition = Repetition::kRepeated;
      repeated.num_children = 1;
      out->push_back(repeated);
      Field element = type->fields()[0];
      element.name = "element";
      return AddSchemaElements(element, out);
    }
    case TypeId::kStruct: {
      if (type->fields().empty())
        return Status::NotImplemented("Parquet cannot store the empty struct '" + field.name + "'");
      e.num_children = static_cast<int32_t>(type->fields().size());
      out->push_back(e);
      for (const Field& child : type->fields())
        FLOTILLA_RETURN_NOT_OK(AddSchemaElements(child, out));
      return Status::OK();
    }
    default:
      return Status::NotImplemented("writing " + type->ToString() + " column '" + field.name +
                                    "' to Parquet");
  }
  out->push_back(e);
  return Status::OK();
}

}  // namespace flotilla::io::parquet
