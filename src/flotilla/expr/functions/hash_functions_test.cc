#include <gtest/gtest.h>

#include "flotilla/compute/hash.h"
#include "flotilla/expr/functions/function_test_support.h"
#include "tests/support/random_data.h"

namespace flotilla::expr::functions {

using namespace flotilla::testing;  // NOLINT
using flotilla::testing::Call;      // not expr::Call: these call a function on datums

namespace {

std::vector<uint64_t> U64(const Array& a) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < a.length(); ++i)
    out.push_back(a.values<uint64_t>()[i]);
  return out;
}

TEST(HashTest, EqualsEngineRowHash) {
  for (const TypePtr& type : AllTypesForTesting()) {
    Array column = flotilla::testing::RandomArray(type, 50, 7);
    for (uint64_t seed : {uint64_t{0}, uint64_t{42}}) {
      auto r = Call("hash", {Col(column), LitI(static_cast<int64_t>(seed))});
      ASSERT_TRUE(r.ok()) << type->ToString() << ": " << r.status().ToString();
      EXPECT_EQ(r->array().null_count(), 0);
      Array expected = compute::HashRows({column}, seed).ValueOrDie();
      EXPECT_EQ(U64(r->array()), U64(expected)) << type->ToString();
    }
  }
}

TEST(HashTest, GoldenValues) {
  // Pinned: hash() is part of the wire contract (compute/hash.h), so these never change.
  // Computed independently as XXH3_64bits_withSeed(8 bytes of V, seed 0).
  auto r = Call("hash", {Col(Ints({1, std::nullopt})), LitI(0)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(U64(r->array()),
            (std::vector<uint64_t>{3439722301264460078ull, 17425640357401453931ull}));
  auto s = Call("hash", {Col(Strings({"flotilla"}))});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(U64(s->array()), std::vector<uint64_t>{8797341913525162034ull});
}

TEST(HashTest, ScalarsSeedsAndNulls) {
  auto scalar = Call("hash", {LitS("abc")});
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(scalar->is_scalar());
  auto column = Call("hash", {Col(Strings({"abc", "abc"}))});
  ASSERT_TRUE(column.ok());
  EXPECT_EQ(column->array().values<uint64_t>()[1], scalar->array().values<uint64_t>()[0]);
  // Per-row seeds, with a null seed giving null.
  auto seeded = Call("hash", {LitS("abc"), Col(Ints({0, 1, std::nullopt}))});
  ASSERT_TRUE(seeded.ok());
  EXPECT_EQ(seeded->array().values<uint64_t>()[0], scalar->array().values<uint64_t>()[0]);
  EXPECT_NE(seeded->array().values<uint64_t>()[1], seeded->array().values<uint64_t>()[0]);
  EXPECT_TRUE(seeded->array().IsNull(2));
  EXPECT_EQ(CallToString("hash", {Col(Strings({}))}), "[]");
  EXPECT_EQ(Resolve("hash", {utf8(), utf8()}).status().message(),
            "hash() expects an integer, got string for argument 2");
}

std::vector<uint32_t> Signature(const Datum& result, int64_t row) {
  Array values = result.array().ListValues(row);
  return std::vector<uint32_t>(values.values<uint32_t>(),
                               values.values<uint32_t>() + values.length());
}

double SharedFraction(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  int same = 0;
  for (size_t i = 0; i < a.size(); ++i)
    same += a[i] == b[i];
  return static_cast<double>(same) / static_cast<double>(a.size());
}

TEST(MinHashTest, GoldenValues) {
  // Cross-checked against an independent C implementation of the definition in
  // hash_functions.h (libxxhash + SplitMix64 + mod 2^61-1 arithmetic).
  auto r = Call("minhash",
                {Col(Strings({"the quick brown fox jumps", "a"})), LitI(4), LitI(2), LitI(17)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->array().ToString(),
            "[[3368900867, 3567285368, 707673814, 1083071702], "
            "[2701535483, 1695528382, 1670324894, 3042154585]]");
}

TEST(MinHashTest, DeterministicAndWhitespaceInsensitive) {
  auto a = Call("minhash", {Col(Strings({"one two  three\tfour", " one two three four "})),
                            LitI(16), LitI(2), LitI(1)});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Signature(*a, 0), Signature(*a, 1));
  auto b = Call("minhash", {LitS("one two three four"), LitI(16), LitI(2), LitI(1)});
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->is_scalar());
  EXPECT_EQ(Signature(*a, 0), Signature(*b, 0));
  auto other_seed = Call("minhash", {LitS("one two three four"), LitI(16), LitI(2), LitI(2)});
  ASSERT_TRUE(other_seed.ok());
  EXPECT_NE(Signature(*b, 0), Signature(*other_seed, 0));
}

TEST(MinHashTest, ShortTextsAndNulls) {
  // Fewer words than the n-gram size: the whole text is one n-gram.
  auto r = Call("minhash", {Col(Strings({"two words", "two  words", "", std::nullopt})), LitI(8),
                            LitI(5), LitI(0)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Signature(*r, 0), Signature(*r, 1));
  EXPECT_EQ(Signature(*r, 2).size(), 8u);
  EXPECT_TRUE(r->array().IsNull(3));
  EXPECT_EQ(CallToString("minhash", {Col(Strings({})), LitI(8), LitI(5), LitI(0)}), "[]");
}

TEST(MinHashTest, SimilaritySanity) {
  std::string base, changed, unrelated;
  for (int i = 0; i < 200; ++i) {
    base += "word" + std::to_string(i) + " ";
    changed += (i == 100 ? std::string("CHANGED") : "word" + std::to_string(i)) + " ";
    unrelated += "other" + std::to_string(i) + " ";
  }
  auto r =
      Call("minhash", {Col(Strings({base, changed, unrelated})), LitI(128), LitI(3), LitI(42)});
  ASSERT_TRUE(r.ok());
  // Jaccard(base, changed) = 195/201 for 3-grams; unrelated shares no n-gram.
  EXPECT_GT(SharedFraction(Signature(*r, 0), Signature(*r, 1)), 0.85);
  EXPECT_LT(SharedFraction(Signature(*r, 0), Signature(*r, 2)), 0.05);
}

TEST(MinHashTest, ResultSizeIsTheConstantNumHashes) {
  auto r = Call("minhash", {Col(Strings({"a b c", std::nullopt})), LitI(3), LitI(2)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->type()->Equals(*fixed_size_list(uint32(), 3))) << r->type()->ToString();
  EXPECT_EQ(Signature(*r, 0).size(), 3u);
  EXPECT_TRUE(r->array().IsNull(1));
  const ScalarFunction* f = DefaultRegistry().Find("minhash").ValueOrDie();
  auto type = f->Resolve(
      {utf8(), int64(), int32(), uint8()},
      {Array(), Ints({70}), Numbers<int32_t>({1}, int32()), Numbers<uint8_t>({9}, uint8())});
  ASSERT_TRUE(type.ok()) << type.status().ToString();
  EXPECT_TRUE((*type)->Equals(*fixed_size_list(uint32(), 70)));
}

TEST(MinHashTest, Errors) {
  const ScalarFunction* f = DefaultRegistry().Find("minhash").ValueOrDie();
  auto resolve = [&](std::vector<Array> literals) {
    return f->Resolve({utf8(), int64(), int64(), int64()}, literals);
  };
  // Every parameter must be a constant: num_hashes sets the result type.
  auto varying = resolve({Array(), Array(), Ints({2}), Ints({0})});
  EXPECT_EQ(varying.status().code(), StatusCode::kTypeError);
  EXPECT_EQ(varying.status().message(),
            "minhash() needs num_hashes (argument 2) as a constant; got an expression that "
            "varies per row");
  EXPECT_EQ(resolve({Array(), Ints({2}), Array(), Ints({0})}).status().message(),
            "minhash() needs ngram_size (argument 3) as a constant; got an expression that "
            "varies per row");
  EXPECT_EQ(resolve({Array(), Ints({std::nullopt}), Ints({2}), Ints({0})}).status().message(),
            "minhash() needs a non-null num_hashes (argument 2)");
  auto zero = resolve({Array(), Ints({0}), Ints({2}), Ints({0})});
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(zero.status().message(),
            "minhash() needs num_hashes (argument 2) between 1 and 65536, got 0");
  EXPECT_EQ(resolve({Array(), Ints({-3}), Ints({2}), Ints({0})}).status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(resolve({Array(), Ints({65537}), Ints({2}), Ints({0})}).status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(resolve({Array(), Ints({4}), Ints({0}), Ints({0})}).status().message(),
            "minhash() needs ngram_size (argument 3) of at least 1, got 0");
  // Exec checks the same when called directly.
  auto s = Col(Strings({"a b"}));
  EXPECT_EQ(f->exec({s, LitI(0), LitI(1), LitI(0)}, 1).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(f->exec({s, Col(Ints({4})), LitI(1), LitI(0)}, 1).status().code(),
            StatusCode::kTypeError);
  EXPECT_EQ(Resolve("minhash", {int64(), int64(), int64()}).status().code(),
            StatusCode::kTypeError);
}

}  // namespace
}  // namespace flotilla::expr::functions
