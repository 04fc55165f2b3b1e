#include "flotilla/exec/hash/key_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/hash.h"
#include "flotilla/compute/take.h"
#include "flotilla/exec/memory/batch_size.h"
#include "tests/support/random_data.h"
#include "tests/support/reference_kernels.h"

namespace flotilla::exec {
namespace {

using flotilla::testing::MakeNumeric;
using flotilla::testing::MakeStrings;

constexpr uint32_t kNotFound = KeyTable::kNotFound;

std::unique_ptr<KeyTable> MakeTable(std::vector<TypePtr> types, bool nulls_equal,
                                    MemoryPool* pool = DefaultMemoryPool()) {
  auto table = KeyTable::Make(std::move(types), nulls_equal, pool);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return std::move(table).ValueOrDie();
}

std::vector<uint32_t> Insert(KeyTable* table, const std::vector<Array>& keys) {
  std::vector<uint32_t> ids(static_cast<size_t>(keys[0].length()), 12345);
  Status st = table->Insert(keys, ids.data());
  EXPECT_TRUE(st.ok()) << st.ToString();
  return ids;
}

std::vector<uint32_t> Find(const KeyTable& table, const std::vector<Array>& keys) {
  std::vector<uint32_t> ids(static_cast<size_t>(keys[0].length()), 12345);
  Status st = table.Find(keys, ids.data());
  EXPECT_TRUE(st.ok()) << st.ToString();
  return ids;
}

std::vector<Array> Keys(const KeyTable& table) {
  auto keys = table.Keys();
  EXPECT_TRUE(keys.ok()) << keys.status().ToString();
  return std::move(keys).ValueOrDie();
}

// A copy with offset 0 (the builder path), to compare with slices.
Array Copy(const Array& a) {
  auto b = MakeBuilder(a.type()).ValueOrDie();
  b->AppendArraySlice(a, 0, a.length()).Check();
  return b->Finish().ValueOrDie();
}

Array Int64s(const std::vector<std::optional<int64_t>>& v) {
  return MakeNumeric<int64_t>(int64(), v);
}

Array Int64Range(int64_t begin, int64_t end) {
  Int64Builder b(int64());
  for (int64_t i = begin; i < end; ++i)
    b.Append(i).Check();
  return b.Finish().ValueOrDie();
}

// A dictionary array over `values` with `indices` (nullopt = null) of `index_type`.
Array MakeDictionary(const TypePtr& index_type, const Array& values,
                     const std::vector<std::optional<int64_t>>& indices) {
  Array idx;
  if (index_type->id() == TypeId::kInt8) {
    std::vector<std::optional<int8_t>> narrow;
    for (const auto& i : indices)
      narrow.push_back(i ? std::optional<int8_t>(static_cast<int8_t>(*i)) : std::nullopt);
    idx = MakeNumeric<int8_t>(int8(), narrow);
  } else {
    idx = flotilla::testing::MakeIndices(index_type, indices);
  }
  auto d = std::make_shared<ArrayData>(*idx.data());
  d->type = dictionary(index_type, values.type());
  d->dictionary = values.data();
  return Array(std::move(d));
}

TEST(KeyTableTest, IdsInFirstAppearanceOrder) {
  auto table = MakeTable({int64()}, true);
  EXPECT_EQ(table->size(), 0);
  EXPECT_EQ(Insert(table.get(), {Int64s({7, 3, 7, 9, 3, 3, -1})}),
            (std::vector<uint32_t>{0, 1, 0, 2, 1, 1, 3}));
  EXPECT_EQ(Insert(table.get(), {Int64s({9, 100, -1, 0})}), (std::vector<uint32_t>{2, 4, 3, 5}));
  EXPECT_EQ(table->size(), 6);
  std::vector<Array> keys = Keys(*table);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_ARRAYS_EQUAL(Int64s({7, 3, 9, -1, 100, 0}), keys[0]);
  // An empty batch is fine and changes nothing.
  EXPECT_TRUE(table->Insert({Int64s({})}, nullptr).ok());
  EXPECT_EQ(table->size(), 6);
}

TEST(KeyTableTest, FindPresentAndAbsent) {
  auto table = MakeTable({int64()}, false);
  Insert(table.get(), {Int64s({10, 20, 30})});
  EXPECT_EQ(Find(*table, {Int64s({30, 31, 10, std::nullopt, 20, 0})}),
            (std::vector<uint32_t>{2, kNotFound, 0, kNotFound, 1, kNotFound}));
  EXPECT_EQ(table->size(), 3);  // Find never inserts

  auto empty = MakeTable({utf8()}, true);
  EXPECT_EQ(Find(*empty, {MakeStrings({"a", std::nullopt})}),
            (std::vector<uint32_t>{kNotFound, kNotFound}));
}

// A small table answers most absent keys from its filter of hash bits, without probing: every
// present key must still be found (no false negative), at every size around where the filter
// stops being read, in both layouts.
TEST(KeyTableTest, FindInSmallTablesMostlyAbsent) {
  for (int64_t keys : {1, 300, 4096, 4097, 6000}) {
    SCOPED_TRACE(keys);
    auto ints = MakeTable({int64()}, true);
    auto strings = MakeTable({utf8()}, false);
    std::vector<std::optional<std::string>> texts;
    for (int64_t k = 0; k < keys; ++k)
      texts.push_back("key " + std::to_string(k * 7919));
    Insert(ints.get(), {Int64Range(0, keys)});
    Insert(strings.get(), {MakeStrings(texts)});
    // Probes: 0 .. 20 * keys, so about one in twenty present.
    const int64_t probes = 20 * keys;
    std::vector<std::optional<std::string>> probe_texts;
    for (int64_t p = 0; p < probes; ++p)
      probe_texts.push_back("key " + std::to_string(p * 7919));
    const std::vector<uint32_t> int_ids = Find(*ints, {Int64Range(0, probes)});
    const std::vector<uint32_t> string_ids = Find(*strings, {MakeStrings(probe_texts)});
    for (int64_t p = 0; p < probes; ++p) {
      const uint32_t expected = p < keys ? static_cast<uint32_t>(p) : kNotFound;
      ASSERT_EQ(int_ids[static_cast<size_t>(p)], expected) << "int64 probe " << p;
      ASSERT_EQ(string_ids[static_cast<size_t>(p)], expected) << "string probe " << p;
    }
  }
}

TEST(KeyTableTest, SeveralColumnsOfMixedTypes) {
  // int32 + bool + float64 fits the fixed-width layout; adding a string moves it to rows.
  Array a = MakeNumeric<int32_t>(int32(), {1, 1, 2, 1, 1, 2});
  Array b = flotilla::testing::MakeMask({1, 0, 1, 1, 0, 1});
  Array c = MakeNumeric<double>(float64(), {0.5, 0.5, 0.5, 0.5, 0.5, 0.25});
  Array d = MakeStrings({"x", "x", "x", "y", "x", "x"});
  auto fixed = MakeTable({int32(), boolean(), float64()}, true);
  EXPECT_EQ(Insert(fixed.get(), {a, b, c}), (std::vector<uint32_t>{0, 1, 2, 0, 1, 3}));
  auto rows = MakeTable({int32(), boolean(), float64(), utf8()}, true);
  EXPECT_EQ(Insert(rows.get(), {a, b, c, d}), (std::vector<uint32_t>{0, 1, 2, 3, 1, 4}));
  std::vector<Array> keys = Keys(*rows);
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int32_t>(int32(), {1, 1, 2, 1, 2}), keys[0]);
  EXPECT_ARRAYS_EQUAL(flotilla::testing::MakeMask({1, 0, 1, 1, 1}), keys[1]);
  EXPECT_ARRAYS_EQUAL(MakeNumeric<double>(float64(), {0.5, 0.5, 0.5, 0.5, 0.25}), keys[2]);
  EXPECT_ARRAYS_EQUAL(MakeStrings({"x", "x", "x", "y", "x"}), keys[3]);
}

TEST(KeyTableTest, SameIntegerDifferentColumnsDoNotMeet) {
  // (1, 2) and (2, 1), (12, "") and (1, "2"): the column boundaries are part of the key.
  auto ints = MakeTable({int64(), int64()}, true);
  EXPECT_EQ(Insert(ints.get(), {Int64s({1, 2, 1}), Int64s({2, 1, 2})}),
            (std::vector<uint32_t>{0, 1, 0}));
  auto strings = MakeTable({utf8(), utf8()}, true);
  EXPECT_EQ(
      Insert(strings.get(), {MakeStrings({"12", "1", "", "12"}), MakeStrings({"", "2", "12", ""})}),
      (std::vector<uint32_t>{0, 1, 2, 0}));
}

TEST(KeyTableTest, Strings) {
  for (const TypePtr& type : {utf8(), large_utf8(), binary(), large_binary()}) {
    SCOPED_TRACE(type->ToString());
    auto table = MakeTable({type}, true);
    std::string long_value(1000, 'z');
    Array keys = MakeStrings(
        {"b", "", "a", "b", std::nullopt, "", long_value, "a", std::nullopt, long_value}, type);
    EXPECT_EQ(Insert(table.get(), {keys}), (std::vector<uint32_t>{0, 1, 2, 0, 3, 1, 4, 2, 3, 4}));
    std::vector<Array> out = Keys(*table);
    EXPECT_ARRAYS_EQUAL(MakeStrings({"b", "", "a", std::nullopt, long_value}, type), out[0]);
    EXPECT_EQ(Find(*table, {MakeStrings({"a", "c", "", std::nullopt}, type)}),
              (std::vector<uint32_t>{2, kNotFound, 1, 3}));
  }
}

TEST(KeyTableTest, GrowthBytesCoverWhatAnInsertAllocates) {
  // Memory callers reserve before inserting: the bytes a growth adds must not be more than
  // GrowthBytes said, and a batch that fits says 0.
  for (const TypePtr& type : {int64(), utf8()}) {
    SCOPED_TRACE(type->ToString());
    auto table = MakeTable({type}, true);
    int64_t next = 0;
    for (int round = 0; round < 6; ++round) {
      const int64_t n = int64_t{1000} << round;
      std::vector<std::optional<std::string>> strings;
      std::vector<std::optional<int64_t>> ints;
      for (int64_t i = 0; i < n; ++i) {
        strings.push_back("key-" + std::to_string(next + i) + std::string(20, 'x'));
        ints.push_back(next + i);
      }
      next += n;
      Array keys = type->id() == TypeId::kInt64 ? Int64s(ints) : MakeStrings(strings, type);
      const int64_t before = table->memory_bytes();
      const int64_t growth = table->GrowthBytes(n, SliceBytes(keys));
      Insert(table.get(), {keys});
      EXPECT_GT(growth, 0);
      EXPECT_LE(table->memory_bytes() - before, growth) << "round " << round;
    }
  }
  // Room for them already: nothing to grow.
  auto reserved = MakeTable({int64()}, true);
  ASSERT_TRUE(reserved->Reserve(100000).ok());
  std::vector<std::optional<int64_t>> first(1000);
  std::iota(first.begin(), first.end(), 0);
  Insert(reserved.get(), {Int64s(first)});
  EXPECT_EQ(reserved->GrowthBytes(1000, 0), 0);
}

TEST(KeyTableTest, NullsEqual) {
  // One fixed-width column (the null key has no slot), several columns (null bits), strings.
  auto one = MakeTable({int64()}, true);
  EXPECT_EQ(Insert(one.get(), {Int64s({std::nullopt, 0, std::nullopt, 5, 0})}),
            (std::vector<uint32_t>{0, 1, 0, 2, 1}));
  EXPECT_EQ(Find(*one, {Int64s({0, std::nullopt, 6})}), (std::vector<uint32_t>{1, 0, kNotFound}));
  std::vector<Array> keys = Keys(*one);
  EXPECT_ARRAYS_EQUAL(Int64s({std::nullopt, 0, 5}), keys[0]);

  auto two = MakeTable({int64(), int32()}, true);
  Array a = Int64s({std::nullopt, 0, std::nullopt, 0, std::nullopt, 0});
  Array b = MakeNumeric<int32_t>(int32(), {0, std::nullopt, std::nullopt, 0, 0, std::nullopt});
  EXPECT_EQ(Insert(two.get(), {a, b}), (std::vector<uint32_t>{0, 1, 2, 3, 0, 1}));
  keys = Keys(*two);
  EXPECT_ARRAYS_EQUAL(Int64s({std::nullopt, 0, std::nullopt, 0}), keys[0]);
  EXPECT_ARRAYS_EQUAL(MakeNumeric<int32_t>(int32(), {0, std::nullopt, std::nullopt, 0}), keys[1]);

  auto strings = MakeTable({utf8(), int64()}, true);
  Array s = MakeStrings({std::nullopt, "", std::nullopt, ""});
  EXPECT_EQ(Insert(strings.get(), {s, Int64s({1, 1, 1, 1})}), (std::vector<uint32_t>{0, 1, 0, 1}));
  keys = Keys(*strings);
  EXPECT_ARRAYS_EQUAL(MakeStrings({std::nullopt, ""}), keys[0]);
}

TEST(KeyTableTest, NullsNotEqual) {
  for (const std::vector<TypePtr>& types :
       {std::vector<TypePtr>{int64()}, std::vector<TypePtr>{int64(), int32()},
        std::vector<TypePtr>{int64(), utf8()}}) {
    SCOPED_TRACE(types.size());
    auto table = MakeTable(types, false);
    std::vector<Array> keys = {Int64s({1, std::nullopt, 1, 2, std::nullopt})};
    if (types.size() == 2) {
      if (types[1]->id() == TypeId::kInt32) {
        keys.push_back(MakeNumeric<int32_t>(int32(), {7, 7, std::nullopt, 7, 7}));
      } else {
        keys.push_back(MakeStrings({"7", "7", std::nullopt, "7", "7"}));
      }
    }
    const std::vector<uint32_t> expected =
        types.size() == 1 ? std::vector<uint32_t>{0, kNotFound, 0, 1, kNotFound}
                          : std::vector<uint32_t>{0, kNotFound, kNotFound, 1, kNotFound};
    EXPECT_EQ(Insert(table.get(), keys), expected);
    EXPECT_EQ(Find(*table, keys), expected);
    EXPECT_EQ(table->size(), 2);
    std::vector<Array> out = Keys(*table);
    EXPECT_EQ(out[0].null_count(), 0);
    EXPECT_ARRAYS_EQUAL(Int64s({1, 2}), out[0]);
  }
}

TEST(KeyTableTest, NegativeZeroAndNaNs) {
  const double nan1 = std::nan(""), nan2 = -std::nan("0x123");
  const double inf = std::numeric_limits<double>::infinity();
  auto doubles = MakeTable({float64()}, true);
  EXPECT_EQ(Insert(doubles.get(), {MakeNumeric<double>(float64(), {0.0, -0.0, nan1, nan2, 1.0,
                                                                   std::nullopt, -inf, inf})}),
            (std::vector<uint32_t>{0, 0, 1, 1, 2, 3, 4, 5}));
  std::vector<Array> keys = Keys(*doubles);
  ASSERT_EQ(keys[0].length(), 6);
  EXPECT_EQ(std::bit_cast<uint64_t>(keys[0].values<double>()[0]), 0u);  // canonical +0.0
  EXPECT_TRUE(std::isnan(keys[0].values<double>()[1]));

  const float fnan1 = std::nanf(""), fnan2 = -std::nanf("0x42");
  auto floats = MakeTable({float32(), int8()}, true);
  Array f = MakeNumeric<float>(float32(), {-0.0f, 0.0f, fnan1, fnan2, -0.0f});
  Array i = MakeNumeric<int8_t>(int8(), {1, 1, 1, 1, 2});
  EXPECT_EQ(Insert(floats.get(), {f, i}), (std::vector<uint32_t>{0, 0, 1, 1, 2}));
  // The row layout agrees.
  auto rows = MakeTable({float64(), utf8()}, true);
  EXPECT_EQ(Insert(rows.get(), {MakeNumeric<double>(float64(), {-0.0, 0.0, nan2, nan1}),
                                MakeStrings({"a", "a", "a", "a"})}),
            (std::vector<uint32_t>{0, 0, 1, 1}));
}

TEST(KeyTableTest, SlicedInputs) {
  Array ints = Int64s({5, std::nullopt, 6, 5, 7, std::nullopt, 6, 8, 5, 9, 10, std::nullopt});
  Array strs = MakeStrings(
      {"a", "b", std::nullopt, "a", "c", "b", std::nullopt, "a", "a", "d", "e", std::nullopt});
  for (bool nulls_equal : {true, false}) {
    for (int64_t offset : {1, 3, 7}) {
      SCOPED_TRACE(offset);
      const int64_t length = ints.length() - offset - 1;
      std::vector<Array> sliced = {ints.Slice(offset, length), strs.Slice(offset, length)};
      std::vector<Array> copied = {Copy(sliced[0]), Copy(sliced[1])};
      ASSERT_EQ(copied[0].offset(), 0);
      for (const std::vector<TypePtr>& types :
           {std::vector<TypePtr>{int64()}, std::vector<TypePtr>{int64(), utf8()}}) {
        auto a = MakeTable(types, nulls_equal);
        auto b = MakeTable(types, nulls_equal);
        std::vector<Array> sa(sliced.begin(), sliced.begin() + types.size());
        std::vector<Array> ca(copied.begin(), copied.begin() + types.size());
        EXPECT_EQ(Insert(a.get(), sa), Insert(b.get(), ca));
        EXPECT_EQ(Find(*a, sa), Find(*b, ca));
        std::vector<Array> ka = Keys(*a), kb = Keys(*b);
        for (size_t c = 0; c < ka.size(); ++c)
          EXPECT_ARRAYS_EQUAL(kb[c], ka[c]);
      }
    }
  }
}

TEST(KeyTableTest, DictionaryKeysEqualDenseKeys) {
  Array words = MakeStrings({"red", "green", std::nullopt, "blue"});
  Array dict8 = MakeDictionary(int8(), words, {0, 1, 2, std::nullopt, 3, 0, 1});
  Array dict32 = MakeDictionary(int32(), words.Slice(1), {2, 0, 1, 1, std::nullopt});
  Array dense = MakeStrings({"blue", "red", std::nullopt, "green", "purple"});
  for (bool declared_as_dictionary : {false, true}) {
    SCOPED_TRACE(declared_as_dictionary);
    auto table = MakeTable({declared_as_dictionary ? dictionary(int32(), utf8()) : utf8()}, true);
    // Both nulls (null index, null dictionary entry) are the one null key.
    EXPECT_EQ(Insert(table.get(), {dict8}), (std::vector<uint32_t>{0, 1, 2, 2, 3, 0, 1}));
    EXPECT_EQ(Insert(table.get(), {dict32}), (std::vector<uint32_t>{3, 1, 2, 2, 2}));
    EXPECT_EQ(Insert(table.get(), {dense}), (std::vector<uint32_t>{3, 0, 2, 1, 4}));
    EXPECT_EQ(Find(*table, {dict8.Slice(3, 3)}), (std::vector<uint32_t>{2, 3, 0}));
    std::vector<Array> keys = Keys(*table);
    EXPECT_ARRAYS_EQUAL(MakeStrings({"red", "green", std::nullopt, "blue", "purple"}), keys[0]);
  }
  // Fixed-width dictionaries (the fixed layout), with a second column.
  Array values = Int64s({100, std::nullopt, 300});
  Array dict = MakeDictionary(uint32(), values, {2, 0, std::nullopt, 1, 2});
  Array second = MakeNumeric<int16_t>(int16(), {1, 1, 1, 1, 1});
  auto table = MakeTable({dictionary(uint32(), int64()), int16()}, true);
  EXPECT_EQ(Insert(table.get(), {dict, second}), (std::vector<uint32_t>{0, 1, 2, 2, 0}));
  EXPECT_EQ(Find(*table, {Int64s({300, 100, std::nullopt, 200}), second.Slice(0, 4)}),
            (std::vector<uint32_t>{0, 1, 2, kNotFound}));
  std::vector<Array> keys = Keys(*table);
  EXPECT_ARRAYS_EQUAL(Int64s({300, 100, std::nullopt}), keys[0]);
  // Dictionary nulls with nulls not equal are never keys.
  auto strict = MakeTable({dictionary(int8(), utf8())}, false);
  EXPECT_EQ(Insert(strict.get(), {dict8}),
            (std::vector<uint32_t>{0, 1, kNotFound, kNotFound, 2, 0, 1}));
}

TEST(KeyTableTest, DictionaryIndexOutOfRange) {
  Array words = MakeStrings({"a", "b"});
  Array bad = MakeDictionary(int32(), words, {0, 2});
  auto table = MakeTable({utf8()}, true);
  std::vector<uint32_t> ids(2);
  std::vector<uint64_t> hashes(2, 0);
  // With precomputed hashes the table itself must catch the bad index.
  Status st = table->Insert({bad}, hashes.data(), ids.data());
  EXPECT_EQ(st.code(), StatusCode::kInvalid) << st.ToString();
  EXPECT_NE(st.message().find("out of range"), std::string::npos) << st.ToString();
  EXPECT_FALSE(table->Insert({bad}, ids.data()).ok());
  EXPECT_FALSE(table->Find({MakeDictionary(int32(), words, {-1})}, hashes.data(), ids.data()).ok());
}

TEST(KeyTableTest, Errors) {
  auto nested = KeyTable::Make({int64(), list(int32())}, true);
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(nested.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(nested.status().message().find("list<int32>"), std::string::npos)
      << nested.status().ToString();
  EXPECT_EQ(KeyTable::Make({struct_({Field{"a", int64()}})}, true).status().code(),
            StatusCode::kNotImplemented);
  EXPECT_EQ(KeyTable::Make({}, true).status().code(), StatusCode::kInvalid);

  auto table = MakeTable({int64(), utf8()}, true);
  std::vector<uint32_t> ids(3);
  // int32 5 and int64 5 never meet: a column of another type is a TypeError.
  Status st = table->Insert({MakeNumeric<int32_t>(int32(), {5}), MakeStrings({"a"})}, ids.data());
  EXPECT_EQ(st.code(), StatusCode::kTypeError);
  EXPECT_NE(st.message().find("int32"), std::string::npos) << st.ToString();
  EXPECT_EQ(table->Insert({Int64s({5})}, ids.data()).code(), StatusCode::kInvalid);
  EXPECT_EQ(table->Find({Int64s({5, 6}), MakeStrings({"a"})}, ids.data()).code(),
            StatusCode::kInvalid);
  EXPECT_EQ(table->Reserve(-1).code(), StatusCode::kInvalid);
  EXPECT_EQ(table->size(), 0);
}

TEST(KeyTableTest, PrecomputedHashesGiveTheSameIds) {
  Array a = flotilla::testing::RandomArray(int64(), 20000, 1,
                                           {.null_probability = 0.1, .distinct_values = 3000});
  Array b = flotilla::testing::RandomArray(utf8(), 20000, 2,
                                           {.null_probability = 0.1, .distinct_values = 5});
  for (const std::vector<Array>& keys : {std::vector<Array>{a}, std::vector<Array>{a, b}}) {
    Array hashes = compute::HashRows(keys).ValueOrDie();
    auto with = MakeTable(
        keys.size() == 1 ? std::vector<TypePtr>{int64()} : std::vector<TypePtr>{int64(), utf8()},
        true);
    auto without = MakeTable(with->key_types(), true);
    std::vector<uint32_t> ids(static_cast<size_t>(a.length()));
    ASSERT_TRUE(with->Insert(keys, hashes.values<uint64_t>(), ids.data()).ok());
    EXPECT_EQ(ids, Insert(without.get(), keys));
    std::vector<uint32_t> found(ids.size());
    ASSERT_TRUE(without->Find(keys, hashes.values<uint64_t>(), found.data()).ok());
    EXPECT_EQ(found, ids);
  }
}

// Every supported type, alone and next to a nullable int8 (other layouts): the keys come back
// with the declared type, distinct, in id order, and equal to the first row of each id.
TEST(KeyTableTest, KeysRoundTripForEveryScalarType) {
  std::vector<TypePtr> types = AllTypesForTesting();
  types.push_back(fixed_size_binary(3));
  types.push_back(fixed_size_binary(40));
  Array tag = flotilla::testing::RandomArray(int8(), 3000, 99,
                                             {.null_probability = 0.2, .distinct_values = 3});
  for (const TypePtr& type : types) {
    if (type->is_nested()) continue;
    for (bool with_tag : {false, true}) {
      SCOPED_TRACE(type->ToString() + (with_tag ? " + int8" : ""));
      Array column = flotilla::testing::RandomArray(
          type, 3000, 7, {.null_probability = 0.1, .distinct_values = 40});
      std::vector<Array> input = {column};
      std::vector<TypePtr> key_types = {type};
      if (with_tag) {
        input.push_back(tag);
        key_types.push_back(int8());
      }
      auto table = MakeTable(key_types, true);
      std::vector<uint32_t> ids = Insert(table.get(), input);
      std::vector<Array> keys = Keys(*table);
      ASSERT_EQ(keys.size(), input.size());
      const TypePtr& logical = type->id() == TypeId::kDictionary ? type->value_type() : type;
      EXPECT_TRUE(keys[0].type()->Equals(*logical)) << keys[0].type()->ToString();
      EXPECT_EQ(keys[0].length(), table->size());
      // Row i of Keys() is the first row with id i.
      std::vector<int64_t> first(static_cast<size_t>(table->size()), -1);
      for (size_t r = 0; r < ids.size(); ++r) {
        if (first[ids[r]] < 0) first[ids[r]] = static_cast<int64_t>(r);
      }
      Int64Builder rows(int64());
      for (int64_t r : first)
        rows.Append(r).Check();
      Array first_rows = rows.Finish().ValueOrDie();
      for (size_t c = 0; c < input.size(); ++c) {
        Array expected = compute::Take(input[c], first_rows).ValueOrDie();
        if (expected.type_id() == TypeId::kDictionary) {
          expected = flotilla::testing::DecodeDictionary(expected);
        }
        EXPECT_ARRAYS_EQUAL(expected, keys[c]);
      }
      // Inserted into a fresh table, the keys are all distinct and keep their ids.
      auto again = MakeTable(key_types, true);
      std::vector<uint32_t> identity(static_cast<size_t>(table->size()));
      std::iota(identity.begin(), identity.end(), 0u);
      EXPECT_EQ(Insert(again.get(), keys), identity);
      EXPECT_EQ(Find(*again, input), ids);
    }
  }
}

// ----- Randomized against std::map -----------------------------------------------------------

// A generated key column and the canonical text of each value (nullopt = null).
struct RefColumn {
  TypePtr type;
  Array array;
  std::vector<std::optional<std::string>> values;
};

RefColumn RandomInts(const TypePtr& type, int64_t n, int64_t domain, double nulls,
                     std::mt19937_64& rng) {
  auto builder = MakeBuilder(type).ValueOrDie();
  RefColumn out{type, {}, {}};
  for (int64_t i = 0; i < n; ++i) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) < nulls) {
      builder->AppendNull().Check();
      out.values.push_back(std::nullopt);
      continue;
    }
    const int64_t v = static_cast<int64_t>(rng() % static_cast<uint64_t>(domain)) - domain / 2;
    if (type->id() == TypeId::kInt64) {
      static_cast<Int64Builder*>(builder.get())->Append(v * 1000003).Check();
      out.values.push_back(std::to_string(v * 1000003));
    } else if (type->id() == TypeId::kInt32) {
      static_cast<Int32Builder*>(builder.get())->Append(static_cast<int32_t>(v)).Check();
      out.values.push_back(std::to_string(v));
    } else {
      static_cast<Int16Builder*>(builder.get())->Append(static_cast<int16_t>(v)).Check();
      out.values.push_back(std::to_string(v));
    }
  }
  out.array = builder->Finish().ValueOrDie();
  return out;
}

RefColumn RandomDoubles(int64_t n, double nulls, std::mt19937_64& rng) {
  const double pool[] = {0.0, -0.0, 1.5, -2.25, std::nan(""), -std::nan("0x7"), 1e300, 3.0};
  const char* text[] = {"0", "0", "1.5", "-2.25", "nan", "nan", "1e300", "3"};
  DoubleBuilder builder(float64());
  RefColumn out{float64(), {}, {}};
  for (int64_t i = 0; i < n; ++i) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) < nulls) {
      builder.AppendNull().Check();
      out.values.push_back(std::nullopt);
      continue;
    }
    const size_t k = rng() % 8;
    builder.Append(pool[k]).Check();
    out.values.push_back(text[k]);
  }
  out.array = builder.Finish().ValueOrDie();
  return out;
}

RefColumn RandomStrings(const TypePtr& type, int64_t n, int64_t domain, double nulls,
                        std::mt19937_64& rng) {
  std::vector<std::optional<std::string>> values;
  for (int64_t i = 0; i < n; ++i) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) < nulls) {
      values.push_back(std::nullopt);
      continue;
    }
    const uint64_t v = rng() % static_cast<uint64_t>(domain);
    // Lengths 0..~40 so some rows are long; "" is a value too.
    values.push_back(v == 0 ? std::string() : std::string(v % 37, 'k') + std::to_string(v));
  }
  return RefColumn{type, MakeStrings(values, type), values};
}

// Strings of 0..7 bytes (some with a zero byte, so "a" and "a\0" differ), and with the given
// odds a null or a string of 8 bytes or more: a batch holding one is not grouped first.
RefColumn ShortStrings(const TypePtr& type, int64_t n, int64_t domain, double odd,
                       std::mt19937_64& rng) {
  std::vector<std::optional<std::string>> values;
  for (int64_t i = 0; i < n; ++i) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    if (u < odd) {
      values.push_back(std::nullopt);
      continue;
    }
    const uint64_t v = rng() % static_cast<uint64_t>(domain);
    std::string text(v % 8, static_cast<char>('a' + v % 3));
    if (v % 5 == 1 && !text.empty()) text.back() = '\0';
    if (u < 2 * odd) text = "longer than seven " + std::to_string(v);
    values.push_back(std::move(text));
  }
  return RefColumn{type, MakeStrings(values, type), values};
}

std::optional<std::string> TextOf(const Array& a, int64_t i) {
  if (a.IsNull(i)) return std::nullopt;
  switch (a.type_id()) {
    case TypeId::kInt64:
      return std::to_string(a.values<int64_t>()[i]);
    case TypeId::kInt32:
      return std::to_string(a.values<int32_t>()[i]);
    case TypeId::kInt16:
      return std::to_string(a.values<int16_t>()[i]);
    case TypeId::kFloat64: {
      const double v = a.values<double>()[i];
      if (std::isnan(v)) return "nan";
      if (v == 0) return "0";
      if (v == 1e300) return "1e300";
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%g", v);
      return buf;
    }
    default:
      return std::string(a.GetView(i));
  }
}

void RunAgainstMap(const std::vector<RefColumn>& columns, bool nulls_equal, uint64_t seed) {
  std::vector<TypePtr> types;
  for (const RefColumn& c : columns)
    types.push_back(c.type);
  auto table = MakeTable(types, nulls_equal);
  const int64_t n = columns[0].array.length();
  // The reference key of a row: per column a null marker, or a length and the canonical text.
  std::vector<std::string> row_keys(static_cast<size_t>(n));
  std::vector<bool> row_has_null(static_cast<size_t>(n), false);
  for (const RefColumn& c : columns) {
    for (size_t r = 0; r < row_keys.size(); ++r) {
      if (!c.values[r]) {
        row_keys[r] += '\0';
        row_has_null[r] = true;
      } else {
        row_keys[r] += std::to_string(c.values[r]->size()) + ':' + *c.values[r];
      }
    }
  }
  std::map<std::string, uint32_t> reference;
  std::vector<int64_t> first_row;  // per id
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> all_ids;
  for (int64_t start = 0; start < n;) {
    // Batches of random sizes, some larger than the table's mini-batches, all slices.
    const int64_t length = std::min<int64_t>(n - start, 1 + static_cast<int64_t>(rng() % 9000));
    std::vector<Array> batch;
    for (const RefColumn& c : columns)
      batch.push_back(c.array.Slice(start, length));
    std::vector<uint32_t> ids = Insert(table.get(), batch);
    for (int64_t i = 0; i < length; ++i) {
      const auto row = static_cast<size_t>(start + i);
      uint32_t expected = kNotFound;
      if (nulls_equal || !row_has_null[row]) {
        auto [it, inserted] =
            reference.emplace(row_keys[row], static_cast<uint32_t>(reference.size()));
        if (inserted) first_row.push_back(start + i);
        expected = it->second;
      }
      ASSERT_EQ(ids[static_cast<size_t>(i)], expected) << "row " << start + i;
    }
    all_ids.insert(all_ids.end(), ids.begin(), ids.end());
    start += length;
  }
  ASSERT_EQ(table->size(), static_cast<int64_t>(reference.size()));
  std::vector<Array> whole;
  for (const RefColumn& c : columns)
    whole.push_back(c.array);
  EXPECT_EQ(Find(*table, whole), all_ids);
  std::vector<Array> keys = Keys(*table);
  for (size_t id = 0; id < first_row.size(); ++id) {
    for (size_t c = 0; c < columns.size(); ++c) {
      ASSERT_EQ(TextOf(keys[c], static_cast<int64_t>(id)),
                columns[c].values[static_cast<size_t>(first_row[id])])
          << "id " << id << " column " << c;
    }
  }
}

// ~200k rows with many duplicates, in both null modes, per layout.
constexpr int64_t kRandomRows = 200000;

TEST(KeyTableRandomizedTest, OneInt64Column) {
  std::mt19937_64 rng(42);
  for (bool nulls_equal : {true, false}) {
    SCOPED_TRACE(nulls_equal);
    RunAgainstMap({RandomInts(int64(), kRandomRows, 20000, 0.02, rng)}, nulls_equal, 1);
  }
}

TEST(KeyTableRandomizedTest, FixedWidthWithNullBits) {
  std::mt19937_64 rng(43);
  for (bool nulls_equal : {true, false}) {
    SCOPED_TRACE(nulls_equal);
    RunAgainstMap(
        {RandomInts(int32(), kRandomRows, 60, 0.05, rng),
         RandomInts(int16(), kRandomRows, 30, 0.05, rng), RandomDoubles(kRandomRows, 0.05, rng)},
        nulls_equal, 2);
  }
}

TEST(KeyTableRandomizedTest, FiveInt64ColumnsAsRows) {
  std::mt19937_64 rng(44);
  for (bool nulls_equal : {true, false}) {
    SCOPED_TRACE(nulls_equal);
    std::vector<RefColumn> columns;
    for (int c = 0; c < 5; ++c)
      columns.push_back(RandomInts(int64(), kRandomRows, 4 + c, 0.02, rng));
    RunAgainstMap(columns, nulls_equal, 3);
  }
}

TEST(KeyTableRandomizedTest, StringsAndFloats) {
  std::mt19937_64 rng(45);
  for (bool nulls_equal : {true, false}) {
    SCOPED_TRACE(nulls_equal);
    RunAgainstMap({RandomStrings(utf8(), kRandomRows, 300, 0.03, rng),
                   RandomInts(int64(), kRandomRows, 5, 0.03, rng),
                   RandomStrings(large_utf8(), kRandomRows, 4, 0.03, rng),
                   RandomDoubles(kRandomRows, 0.03, rng)},
                  nulls_equal, 4);
  }
}

// Few distinct short keys per batch: batches are grouped before the table sees them, except
// those holding a null or a long string, which go through the table directly.
TEST(KeyTableRandomizedTest, ShortKeysGroupedPerBatch) {
  std::mt19937_64 rng(46);
  for (double odd : {0.0, 0.00005}) {
    for (bool nulls_equal : {true, false}) {
      SCOPED_TRACE(::testing::Message() << "odd " << odd << " nulls_equal " << nulls_equal);
      RunAgainstMap({ShortStrings(utf8(), kRandomRows, 40, odd, rng),
                     RandomInts(int32(), kRandomRows, 3, 0, rng),
                     ShortStrings(large_binary(), kRandomRows, 3, odd, rng)},
                    nulls_equal, 5);
    }
  }
}

// fixed_size_binary values of at most 8 bytes pack as their bytes, beside a short string.
TEST(KeyTableRandomizedTest, ShortFixedSizeBinaryKeysGroupedPerBatch) {
  std::mt19937_64 rng(49);
  FixedSizeBinaryBuilder builder(fixed_size_binary(3));
  RefColumn codes{fixed_size_binary(3), {}, {}};
  for (int64_t i = 0; i < kRandomRows; ++i) {
    std::string code = {static_cast<char>('A' + rng() % 5), '\0', static_cast<char>(rng() % 3)};
    builder.Append(code).Check();
    codes.values.push_back(code);
  }
  codes.array = builder.Finish().ValueOrDie();
  RunAgainstMap({std::move(codes), ShortStrings(utf8(), kRandomRows, 4, 0, rng)}, true, 7);
}

// Too many distinct keys per batch for grouping them first: the table stops trying, and the
// ids stay right throughout.
TEST(KeyTableRandomizedTest, ManyDistinctShortKeys) {
  std::mt19937_64 rng(47);
  RunAgainstMap({RandomInts(int64(), kRandomRows, 100000, 0, rng),
                 ShortStrings(utf8(), kRandomRows, 2, 0, rng)},
                true, 6);
}

// PrecomputedHashesGiveTheSameIds with keys grouped per batch first (no nulls, short strings): the
// distinct keys are inserted with their rows' hashes, so a Find with the hashes finds them.
TEST(KeyTableTest, PrecomputedHashesOfKeysGroupedPerBatch) {
  std::mt19937_64 rng(48);
  const std::vector<Array> keys = {RandomInts(int64(), 20000, 30, 0, rng).array,
                                   ShortStrings(utf8(), 20000, 8, 0, rng).array};
  Array hashes = compute::HashRows(keys).ValueOrDie();
  auto with = MakeTable({int64(), utf8()}, true);
  auto without = MakeTable({int64(), utf8()}, true);
  std::vector<uint32_t> ids(20000);
  ASSERT_TRUE(with->Insert(keys, hashes.values<uint64_t>(), ids.data()).ok());
  EXPECT_EQ(ids, Insert(without.get(), keys));
  EXPECT_LE(with->size(), 240);
  std::vector<uint32_t> found(ids.size());
  ASSERT_TRUE(with->Find(keys, hashes.values<uint64_t>(), found.data()).ok());
  EXPECT_EQ(found, ids);
  EXPECT_EQ(Find(*with, keys), ids);
}

TEST(KeyTableTest, GrowsPastSeveralResizes) {
  // 300k distinct keys from an empty table (256 slots): ~11 doublings, in batches that end
  // mid-way through a growth.
  for (const std::vector<TypePtr>& types :
       {std::vector<TypePtr>{int64()}, std::vector<TypePtr>{utf8()}}) {
    SCOPED_TRACE(types[0]->ToString());
    auto table = MakeTable(types, true);
    const int64_t kKeys = 300000;
    std::vector<int64_t> order(kKeys);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(5));
    Int64Builder ints(int64());
    StringBuilder strs(utf8());
    for (int64_t v : order) {
      ints.Append(v * 7919).Check();
      strs.Append("key-" + std::to_string(v)).Check();
    }
    Array keys =
        types[0]->id() == TypeId::kInt64 ? ints.Finish().ValueOrDie() : strs.Finish().ValueOrDie();
    const int64_t initial_memory = table->memory_bytes();
    for (int64_t start = 0; start < kKeys; start += 33333) {
      std::vector<uint32_t> ids = Insert(table.get(), {keys.Slice(start, 33333)});
      for (size_t i = 0; i < ids.size(); ++i)
        ASSERT_EQ(ids[i], static_cast<uint32_t>(start + static_cast<int64_t>(i)));
    }
    EXPECT_EQ(table->size(), kKeys);
    EXPECT_GT(table->memory_bytes(), initial_memory + kKeys * 16);
    std::vector<uint32_t> ids = Find(*table, {keys});
    for (size_t i = 0; i < ids.size(); ++i)
      ASSERT_EQ(ids[i], i);
    std::vector<Array> out = Keys(*table);
    EXPECT_ARRAYS_EQUAL(keys, out[0]);
  }
}

TEST(KeyTableTest, OneMillionDistinctKeys) {
  MemoryPool pool;
  auto table = MakeTable({int64()}, false, &pool);
  const int64_t kKeys = 1000000;
  // Scattered values (a multiplicative permutation), inserted twice.
  Int64Builder b(int64());
  for (int64_t i = 0; i < kKeys; ++i)
    b.Append(static_cast<int64_t>(static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull)).Check();
  Array keys = b.Finish().ValueOrDie();
  std::vector<uint32_t> ids = Insert(table.get(), {keys});
  for (int64_t i = 0; i < kKeys; ++i)
    ASSERT_EQ(ids[i], static_cast<uint32_t>(i));
  EXPECT_EQ(Insert(table.get(), {keys}), ids);
  EXPECT_EQ(table->size(), kKeys);
  // 2^21 slots of 16 bytes; every byte from the table's pool.
  EXPECT_GE(table->memory_bytes(), (int64_t{1} << 21) * 16);
  EXPECT_GE(pool.bytes_allocated(), (int64_t{1} << 21) * 16);
  EXPECT_EQ(Find(*table, {Int64s({1, 2, 3})}),
            (std::vector<uint32_t>{kNotFound, kNotFound, kNotFound}));
  std::vector<Array> out = Keys(*table);
  EXPECT_ARRAYS_EQUAL(keys, out[0]);
  out.clear();
  table.reset();
  EXPECT_EQ(pool.bytes_allocated(), 0);
}

TEST(KeyTableTest, ReserveAvoidsGrowth) {
  MemoryPool pool;
  auto table = MakeTable({int64(), int64()}, true, &pool);
  ASSERT_TRUE(table->Reserve(100000).ok());
  const int64_t reserved = table->memory_bytes();
  Array a = Int64Range(0, 100000);
  Insert(table.get(), {a, a});
  EXPECT_EQ(table->size(), 100000);
  EXPECT_LE(table->memory_bytes(), reserved + (1 << 20));  // slots unchanged, scratch aside
  ASSERT_TRUE(table->Reserve(10).ok());                    // never shrinks
  EXPECT_EQ(Find(*table, {a.Slice(5, 2), a.Slice(5, 2)}), (std::vector<uint32_t>{5, 6}));
}

TEST(KeyTableTest, OutOfMemoryIsAnError) {
  for (const TypePtr& type : {int64(), utf8()}) {
    SCOPED_TRACE(type->ToString());
    MemoryPool pool(1 << 20);
    auto table = MakeTable({type}, true, &pool);
    Array keys = type->id() == TypeId::kInt64
                     ? Int64Range(0, 200000)
                     : flotilla::testing::RandomArray(type, 200000, 9, {.null_probability = 0});
    std::vector<uint32_t> ids(200000);
    Status st = table->Insert({keys}, ids.data());
    EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st.ToString();
    // What was inserted before the failure stays usable.
    ASSERT_GT(table->size(), 0);
    EXPECT_EQ(Find(*table, {keys.Slice(0, 1)}), std::vector<uint32_t>{0});
  }
}

TEST(KeyTableTest, DoesNotKeepInputsAlive) {
  for (const TypePtr& type : {int64(), utf8()}) {
    auto table = MakeTable({type}, true);
    Array keys = flotilla::testing::RandomArray(type, 10000, 8);
    Insert(table.get(), {keys});
    Find(*table, {keys});
    EXPECT_EQ(keys.data().use_count(), 1) << type->ToString();
  }
}

TEST(KeyTableTest, ConcurrentFind) {
  for (const std::vector<TypePtr>& types :
       {std::vector<TypePtr>{int64()}, std::vector<TypePtr>{utf8()}}) {
    auto table = MakeTable(types, false);
    Array keys = flotilla::testing::RandomArray(
        types[0], 100000, 3, {.null_probability = 0.05, .distinct_values = 20000});
    std::vector<uint32_t> ids = Insert(table.get(), {keys});
    std::vector<std::vector<uint32_t>> found(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int r = 0; r < 3; ++r)
          found[t] = Find(*table, {keys});
      });
    }
    for (auto& t : threads)
      t.join();
    for (const auto& f : found)
      EXPECT_EQ(f, ids);
  }
}

TEST(KeyTableTest, WideFixedKeysAndDecimals) {
  // decimal128 alone (16 bytes), fixed_size_binary(3), three int64 with null bits (25 bytes),
  // and null-typed columns.
  auto decimals = MakeTable({decimal128(38, 2)}, true);
  FixedSizeBinaryBuilder db(decimal128(38, 2));
  for (int64_t v : {1, -1, 1, 0})
    db.AppendDecimal(Int128(v) << 70).Check();
  db.AppendNull().Check();
  EXPECT_EQ(Insert(decimals.get(), {db.Finish().ValueOrDie()}),
            (std::vector<uint32_t>{0, 1, 0, 2, 3}));

  auto three = MakeTable({int64(), int64(), int64()}, true);
  Array x = Int64s({1, 1, std::nullopt, 1});
  Array y = Int64s({2, 2, 2, 2});
  Array z = Int64s({3, std::nullopt, 3, 3});
  EXPECT_EQ(Insert(three.get(), {x, y, z}), (std::vector<uint32_t>{0, 1, 2, 0}));

  Array nulls = Array::MakeNull(null(), 3).ValueOrDie();
  auto null_key = MakeTable({null()}, true);
  EXPECT_EQ(Insert(null_key.get(), {nulls}), (std::vector<uint32_t>{0, 0, 0}));
  EXPECT_EQ(Keys(*null_key)[0].length(), 1);
  auto null_strict = MakeTable({null(), int64()}, false);
  EXPECT_EQ(Insert(null_strict.get(), {nulls, Int64s({1, 2, 3})}),
            (std::vector<uint32_t>{kNotFound, kNotFound, kNotFound}));
}

}  // namespace
}  // namespace flotilla::exec
