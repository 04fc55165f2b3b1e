#include "flotilla/io/parquet/thrift_compact.h"

#include <cstring>

namespace flotilla::io::parquet {

namespace {
// Parquet's metadata nests a handful of levels (schema elements are a flat list); anything deeper
// than this is corrupt input trying to exhaust the stack.
constexpr size_t kMaxDepth = 64;
}  // namespace

Status CompactReader::status() const {
  if (error_.empty()) return Status::OK();
  return Status::Invalid("corrupt thrift metadata: " + error_);
}

void CompactReader::Fail(std::string what) {
  if (!error_.empty()) return;
  error_ = std::move(what) + " at byte " + std::to_string(position());
  pos_ = end_;
}

uint64_t CompactReader::ReadVarint() {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= end_) {
      Fail("truncated varint");
      return 0;
    }
    const uint8_t byte = *pos_++;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return result;
  }
  Fail("varint longer than 10 bytes");
  return 0;
}

void CompactReader::BeginStruct() {
  if (last_ids_.size() >= kMaxDepth) {
    Fail("structs nested deeper than " + std::to_string(kMaxDepth));
    return;
  }
  last_ids_.push_back(0);
}

bool CompactReader::NextField(int16_t* id, CType* type) {
  if (!ok()) return false;
  if (last_ids_.empty()) {
    Fail("field read outside a struct");
    return false;
  }
  if (pos_ >= end_) {
    Fail("truncated struct");
    return false;
  }
  const uint8_t header = *pos_++;
  *type = static_cast<CType>(header & 0x0f);
  if (*type == CType::kStop) {
    last_ids_.pop_back();
    return false;
  }
  if (static_cast<uint8_t>(*type) > static_cast<uint8_t>(CType::kStruct)) {
    Fail("unknown field type " + std::to_string(header & 0x0f));
    return false;
  }
  const int delta = header >> 4;
  *id = delta != 0 ? static_cast<int16_t>(last_ids_.back() + delta) : ReadI16();
  last_ids_.back() = *id;
  return ok();
}

int8_t CompactReader::ReadByte() {
  if (pos_ >= end_) {
    Fail("truncated byte");
    return 0;
  }
  return static_cast<int8_t>(*pos_++);
}

double CompactReader::ReadDouble() {
  if (end_ - pos_ < 8) {
    Fail("truncated double");
    return 0;
  }
  double v;
  std::memcpy(&v, pos_, 8);
  pos_ += 8;
  return v;
}

std::string_view CompactReader::ReadBinary() {
  const uint64_t size = ReadVarint();
  if (!ok()) return {};
  if (size > static_cast<uint64_t>(end_ - pos_)) {
    Fail("binary of " + std::to_string(size) + " bytes past the end");
    return {};
  }
  std::string_view v(reinterpret_cast<const char*>(pos_), size);
  pos_ += size;
  return v;
}

bool CompactReader::ReadBoolElement() {
  // The spec says 1 is true and 0 false inside lists; some writers use 2 for false.
  return ReadByte() == 1;
}

int64_t CompactReader::ReadListHeader(CType* element_type) {
  if (pos_ >= end_) {
    Fail("truncated list header");
    return 0;
  }
  const uint8_t header = *pos_++;
  *element_type = static_cast<CType>(header & 0x0f);
  uint64_t size = header >> 4;
  if (size == 15) size = ReadVarint();
  // Every element takes at least one byte, so a count beyond the bytes left is corrupt.
  if (ok() && size > static_cast<uint64_t>(end_ - pos_)) {
    Fail("list of " + std::to_string(size) + " elements past the end");
    return 0;
  }
  return ok() ? static_cast<int64_t>(size) : 0;
}

void CompactReader::Skip(CType type) {
  switch (type) {
    case CType::kTrue:
    case CType::kFalse:
      return;
    case CType::kByte:
      ReadByte();
      return;
    case CType::kI16:
    case CType::kI32:
    case CType::kI64:
      ReadVarint();
      return;
    case CType::kDouble:
      ReadDouble();
      return;
    case CType::kBinary:
      ReadBinary();
      return;
    case CType::kList:
    case CType::kSet: {
      CType element;
      const int64_t n = ReadListHeader(&element);
      if (last_ids_.size() >= kMaxDepth) return Fail("values nested too deep");
      last_ids_.push_back(0);  // counts towards the depth bound while the elements are skipped
      for (int64_t i = 0; i < n && ok(); ++i) {
        if (element == CType::kTrue || element == CType::kFalse) {
          ReadByte();
        } else {
          Skip(element);
        }
      }
      if (ok()) last_ids_.pop_back();
      return;
    }
    case CType::kMap: {
      const uint64_t n = ReadVarint();
      if (n == 0 || !ok()) return;
      if (n > static_cast<uint64_t>(end_ - pos_)) return Fail("map past the end");
      const uint8_t kv = static_cast<uint8_t>(ReadByte());
      if (last_ids_.size() >= kMaxDepth) return Fail("values nested too deep");
      last_ids_.push_back(0);
      for (uint64_t i = 0; i < n && ok(); ++i) {
        Skip(static_cast<CType>(kv >> 4));
        Skip(static_cast<CType>(kv & 0x0f));
      }
      if (ok()) last_ids_.pop_back();
      return;
    }
    case CType::kStruct: {
      BeginStruct();
      int16_t id;
      CType field;
      while (NextField(&id, &field))
        Skip(field);
      return;
    }
    default:
      Fail("cannot skip a value of type " + std::to_string(static_cast<int>(type)));
  }
}

void CompactWriter::EndStruct() {
  out_.push_back(0);
  last_ids_.pop_back();
}

void CompactWriter::FieldHeader(int16_t id, CType type) {
  const int delta = id - last_ids_.back();
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
  } else {
    out_.push_back(static_cast<char>(type));
    WriteZigZag(id);
  }
  last_ids_.back() = id;
}

void CompactWriter::ListHeader(CType element_type, int64_t size) {
  if (size < 15) {
    out_.push_back(static_cast<char>((size << 4) | static_cast<int>(element_type)));
  } else {
    out_.push_back(static_cast<char>(0xf0 | static_cast<int>(element_type)));
    WriteVarint(static_cast<uint64_t>(size));
  }
}

void CompactWriter::Binary(std::string_view v) {
  WriteVarint(v.size());
  out_.append(v);
}

void CompactWriter::WriteVarint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

}  // namespace flotilla::io::parquet
