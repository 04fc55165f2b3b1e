#pragma once
// Test-only reference implementations: results built row by row with the generic builder
// (ArrayBuilder::AppendArraySlice), against which the fast kernels are checked.

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <vector>

#include "flotilla/columnar/builder.h"

namespace flotilla::testing {

/// Rows of `values` at `rows`; nullopt gives a null row.
inline Array NaiveTake(const Array& values, const std::vector<std::optional<int64_t>>& rows) {
  auto builder = MakeBuilder(values.type()).ValueOrDie();
  for (const auto& r : rows) {
    if (r) {
      builder->AppendArraySlice(values, *r, 1).Check();
    } else {
      builder->AppendNull().Check();
    }
  }
  return builder->Finish().ValueOrDie();
}

/// An index array of `type` (int32/int64/uint32/uint64) from `rows` (nullopt = null).
inline Array MakeIndices(const TypePtr& type, const std::vector<std::optional<int64_t>>& rows) {
  auto builder = MakeBuilder(type).ValueOrDie();
  for (const auto& r : rows) {
    if (!r) {
      builder->AppendNull().Check();
      continue;
    }
    switch (type->id()) {
      case TypeId::kInt32:
        static_cast<Int32Builder*>(builder.get())->Append(static_cast<int32_t>(*r)).Check();
        break;
      case TypeId::kUInt32:
        static_cast<UInt32Builder*>(builder.get())->Append(static_cast<uint32_t>(*r)).Check();
        break;
      case TypeId::kInt64:
        static_cast<Int64Builder*>(builder.get())->Append(*r).Check();
        break;
      default:
        static_cast<UInt64Builder*>(builder.get())->Append(static_cast<uint64_t>(*r)).Check();
    }
  }
  return builder->Finish().ValueOrDie();
}

/// A bool array from values where -1 means null.
inline Array MakeMask(const std::vector<int>& bits) {
  BooleanBuilder b;
  for (int v : bits) {
    if (v < 0) {
      b.AppendNull().Check();
    } else {
      b.Append(v != 0).Check();
    }
  }
  return b.Finish().ValueOrDie();
}

/// A dense copy of a dictionary array (the values its indices point to).
inline Array DecodeDictionary(const Array& dict_array) {
  std::vector<std::optional<int64_t>> rows;
  for (int64_t i = 0; i < dict_array.length(); ++i) {
    if (dict_array.IsNull(i)) {
      rows.push_back(std::nullopt);
    } else {
      rows.push_back(dict_array.DictionaryIndex(i));
    }
  }
  return NaiveTake(dict_array.dictionary(), rows);
}

template <typename T>
Array MakeNumeric(const TypePtr& type, const std::vector<std::optional<T>>& values) {
  NumericBuilder<T> b(type);
  for (const auto& v : values) {
    if (v) {
      b.Append(*v).Check();
    } else {
      b.AppendNull().Check();
    }
  }
  return b.Finish().ValueOrDie();
}

inline Array MakeStrings(const std::vector<std::optional<std::string>>& values,
                         const TypePtr& type = utf8()) {
  auto builder = MakeBuilder(type).ValueOrDie();
  for (const auto& v : values) {
    if (!v) {
      builder->AppendNull().Check();
    } else if (type->id() == TypeId::kDictionary) {
      static_cast<DictionaryBuilder*>(builder.get())->Append(*v).Check();
    } else if (type->has_large_offsets()) {
      static_cast<LargeStringBuilder*>(builder.get())->Append(*v).Check();
    } else {
      static_cast<StringBuilder*>(builder.get())->Append(*v).Check();
    }
  }
  return builder->Finish().ValueOrDie();
}

#define EXPECT_ARRAYS_EQUAL(expected, actual)                                                     \
  do {                                                                                            \
    const ::flotilla::Array& e_ = (expected);                                                     \
    const ::flotilla::Array& a_ = (actual);                                                       \
    EXPECT_TRUE(e_.Equals(a_)) << "expected " << e_.ToString() << "\n  actual " << a_.ToString(); \
  } while (false)

}  // namespace flotilla::testing
