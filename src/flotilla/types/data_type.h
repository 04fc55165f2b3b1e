#pragma once
// Logical types with Arrow's physical layout. A DataType is immutable and shared
// (TypePtr = shared_ptr<const DataType>); build them with the factory functions below.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace flotilla {

enum class TypeId : uint8_t {
  kNull,
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kDecimal128,   // 16-byte little-endian two's complement, with precision and scale
  kDate32,       // days since the UNIX epoch
  kTimestamp,    // int64 since the epoch in `unit`, optionally in a time zone
  kDuration,     // int64 in `unit`
  kString,       // UTF-8, int32 offsets
  kLargeString,  // UTF-8, int64 offsets
  kBinary,
  kLargeBinary,
  kFixedSizeBinary,
  kList,           // int32 offsets + one child
  kFixedSizeList,  // `fixed_size` child values per slot (embeddings, tensors)
  kStruct,
  kDictionary,  // integer indices into a dictionary array of `value_type`
  kTime64,      // int64 time of day since midnight in `unit` (micro or nano)
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };
const char* TimeUnitName(TimeUnit unit);  // "s", "ms", "us", "ns"

class DataType;
using TypePtr = std::shared_ptr<const DataType>;

struct Field {
  std::string name;
  TypePtr type;
  bool nullable = true;

  bool Equals(const Field& other) const;
  std::string ToString() const;  // "name: type" (+ " not null")
};

class DataType {
 public:
  TypeId id() const { return id_; }
  /// Bits per value of the fixed-width values buffer (1 for bool, 128 for decimal, 8*n for
  /// fixed_size_binary), or -1 for types without one.
  int bit_width() const;
  int byte_width() const { return bit_width() > 0 ? bit_width() / 8 : -1; }
  /// Byte width of fixed_size_binary, list size of fixed_size_list.
  int32_t fixed_size() const { return fixed_size_; }
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  TimeUnit unit() const { return unit_; }
  const std::string& timezone() const { return timezone_; }
  /// List and fixed_size_list: one field (the element); struct: the fields.
  const std::vector<Field>& fields() const { return fields_; }
  const TypePtr& value_type() const;  // element type of lists, value type of dictionaries
  const TypePtr& index_type() const { return index_type_; }  // dictionary only

  bool Equals(const DataType& other) const;
  /// "int64", "decimal128(15, 2)", "timestamp[us, tz=UTC]", "list<int32>", "struct<a: int8>".
  std::string ToString() const;

  bool is_integer() const { return id_ >= TypeId::kInt8 && id_ <= TypeId::kUInt64; }
  bool is_signed_integer() const { return id_ >= TypeId::kInt8 && id_ <= TypeId::kInt64; }
  bool is_floating() const { return id_ == TypeId::kFloat32 || id_ == TypeId::kFloat64; }
  bool is_numeric() const { return is_integer() || is_floating(); }
  bool is_string() const { return id_ == TypeId::kString || id_ == TypeId::kLargeString; }
  bool is_date_or_timestamp() const { return id_ == TypeId::kDate32 || id_ == TypeId::kTimestamp; }
  /// String/binary with int32 or int64 offsets.
  bool is_binary_like() const {
    return id_ == TypeId::kString || id_ == TypeId::kBinary || id_ == TypeId::kLargeString ||
           id_ == TypeId::kLargeBinary;
  }
  bool has_large_offsets() const {
    return id_ == TypeId::kLargeString || id_ == TypeId::kLargeBinary;
  }
  /// Values stored in one fixed-width buffer (primitive, decimal, temporal, fixed_size_binary).
  bool is_fixed_width() const { return bit_width() > 0; }
  bool is_nested() const {
    return id_ == TypeId::kList || id_ == TypeId::kFixedSizeList || id_ == TypeId::kStruct;
  }

 private:
  friend struct TypeFactory;
  struct Params {
    int32_t fixed_size = 0;
    int32_t precision = 0;
    int32_t scale = 0;
    TimeUnit unit = TimeUnit::kSecond;
    std::string timezone;
    std::vector<Field> fields;
    TypePtr index_type;
    TypePtr value_type;  // dictionary only
  };
  DataType(TypeId id, Params p)
      : id_(id),
        fixed_size_(p.fixed_size),
        precision_(p.precision),
        scale_(p.scale),
        unit_(p.unit),
        timezone_(std::move(p.timezone)),
        fields_(std::move(p.fields)),
        index_type_(std::move(p.index_type)),
        value_type_(std::move(p.value_type)) {}

  TypeId id_;
  int32_t fixed_size_;
  int32_t precision_;
  int32_t scale_;
  TimeUnit unit_;
  std::string timezone_;
  std::vector<Field> fields_;
  TypePtr index_type_;
  TypePtr value_type_;
};

// Factories. The parameterless ones return shared singletons.
TypePtr null();
TypePtr boolean();
TypePtr int8();
TypePtr int16();
TypePtr int32();
TypePtr int64();
TypePtr uint8();
TypePtr uint16();
TypePtr uint32();
TypePtr uint64();
TypePtr float32();
TypePtr float64();
TypePtr date32();
TypePtr utf8();
TypePtr large_utf8();
TypePtr binary();
TypePtr large_binary();
TypePtr decimal128(int32_t precision, int32_t scale);
TypePtr timestamp(TimeUnit unit, std::string timezone = "");
TypePtr duration(TimeUnit unit);
/// Time of day; `unit` is kMicro or kNano (Arrow time64).
TypePtr time64(TimeUnit unit);
TypePtr fixed_size_binary(int32_t byte_width);
TypePtr list(TypePtr element);
TypePtr list(Field element);
TypePtr fixed_size_list(TypePtr element, int32_t list_size);
TypePtr fixed_size_list(Field element, int32_t list_size);
TypePtr struct_(std::vector<Field> fields);
TypePtr dictionary(TypePtr index_type, TypePtr value_type);

/// Every type of the columnar core, one instance each with typical parameters: used by tests.
std::vector<TypePtr> AllTypesForTesting();

}  // namespace flotilla
