#pragma once
// Thrift's compact protocol, the encoding of every Parquet metadata structure (file footer, page
// headers, page index). Only what Parquet uses: structs, lists, binary, integers, bools, doubles.
//
// The reader is sticky-failing: after the first malformed or truncated byte every read returns a
// zero value and NextField() returns false, so decoders stay simple loops; they check status()
// once at the end. Sizes of lists and strings are checked against the bytes left before anything
// is allocated, and nesting is bounded, so corrupt input cannot make it allocate or recurse
// without limit.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/common/status.h"

namespace flotilla::io::parquet {

enum class CType : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

class CompactReader {
 public:
  CompactReader(const uint8_t* data, int64_t size) : data_(data), end_(data + size), pos_(data) {}

  /// OK, or what was malformed and at which byte offset.
  Status status() const;
  bool ok() const { return error_.empty(); }
  int64_t position() const { return pos_ - data_; }

  /// Enters a struct: call before its first NextField.
  void BeginStruct();
  /// The next field of the current struct; false at its end (leaving it) or after an error.
  bool NextField(int16_t* id, CType* type);
  /// The value of a bool field, carried in its type.
  static bool BoolField(CType type) { return type == CType::kTrue; }

  int8_t ReadByte();
  int16_t ReadI16() { return static_cast<int16_t>(ReadZigZag()); }
  int32_t ReadI32() { return static_cast<int32_t>(ReadZigZag()); }
  int64_t ReadI64() { return ReadZigZag(); }
  double ReadDouble();
  /// A binary or string; the view points into the input.
  std::string_view ReadBinary();
  std::string ReadString() { return std::string(ReadBinary()); }
  bool ReadBoolElement();  // a bool inside a list
  /// A list (or set) header: the element type and count.
  int64_t ReadListHeader(CType* element_type);
  /// Skips one value of `type`, whatever it holds.
  void Skip(CType type);

  /// Marks the input malformed (a decoder found a value it cannot accept).
  void Fail(std::string what);

 private:
  uint64_t ReadVarint();
  int64_t ReadZigZag() {
    const uint64_t v = ReadVarint();
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }

  const uint8_t* data_;
  const uint8_t* end_;
  const uint8_t* pos_;
  std::vector<int16_t> last_ids_;  // one per open struct
  std::string error_;
};

class CompactWriter {
 public:
  void BeginStruct() { last_ids_.push_back(0); }
  void EndStruct();  // writes the stop byte
  void FieldHeader(int16_t id, CType type);
  void BoolField(int16_t id, bool value) { FieldHeader(id, value ? CType::kTrue : CType::kFalse); }
  void I32Field(int16_t id, int32_t v) { FieldHeader(id, CType::kI32), WriteZigZag(v); }
  void I64Field(int16_t id, int64_t v) { FieldHeader(id, CType::kI64), WriteZigZag(v); }
  void BinaryField(int16_t id, std::string_view v) { FieldHeader(id, CType::kBinary), Binary(v); }
  void ListHeader(CType element_type, int64_t size);

  void I32(int32_t v) { WriteZigZag(v); }
  void I64(int64_t v) { WriteZigZag(v); }
  void Byte(int8_t v) { out_.push_back(static_cast<char>(v)); }
  void Binary(std::string_view v);
  void BoolElement(bool v) { out_.push_back(v ? 1 : 2); }

  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void WriteVarint(uint64_t v);
  void WriteZigZag(int64_t v) {
    WriteVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }

  std::string out_;
  std::vector<int16_t> last_ids_;
};

}  // namespace flotilla::io::parquet
