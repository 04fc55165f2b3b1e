// The expression fuzz target's seeds (fuzz/corpus/expr): serialized expressions of every kind.
// Every committed seed must deserialize (a seed that does not tests nothing but the first
// check). FLOTILLA_WRITE_EXPR_CORPUS=DIR writes them again:
//   FLOTILLA_WRITE_EXPR_CORPUS=fuzz/corpus/expr ./build/expr_test --gtest_filter='ExprCorpus.*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "flotilla/expr/expression.h"
#include "flotilla/expr/serialize.h"

namespace flotilla::expr {
namespace {

namespace fs = std::filesystem;

fs::path Corpus() {
  // This file is src/flotilla/expr/expr_corpus_test.cc.
  return fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path() / "fuzz" /
         "corpus" / "expr";
}

std::vector<std::pair<std::string, ExprPtr>> Seeds() {
  return {
      {"arithmetic", Add(Multiply(Column("a"), Literal(int64_t{3})), Negate(Column("c")))},
      {"comparison", And(Less(Column("a"), Literal(int64_t{10})), Not(IsNull(Column("b"))))},
      {"call",
       Call("upper", {Call("substr", {Column("b"), Literal(int64_t{1}), Literal(int64_t{2})})})},
      {"case", Case({{Greater(Column("c"), Literal(0.5)), Literal("big")}}, Literal("small"))},
      {"cast", TryCast(Cast(Column("b"), int32()), float64())},
      {"in_between", Or(IsIn(Column("a"), {Literal(int64_t{1}), Literal(int64_t{2})}),
                        Between(Column("c"), Literal(0.0), Literal(1.0), true))},
      {"coalesce_alias", Alias(Coalesce({Column("b"), Literal("none")}), "b2")},
      {"aggregate", Aggregate("sum", {Column("a")})},
      {"literals", Call("concat", {Literal("x"), Call("cast", {DateLiteral(2024, 1, 2)}),
                                   DecimalLiteral(Int128(12345), 7, 2)})},
      {"list", Call("list_get", {Column("f"), Literal(int64_t{0})})},
  };
}

TEST(ExprCorpus, CommittedSeedsDeserialize) {
  const char* dir = std::getenv("FLOTILLA_WRITE_EXPR_CORPUS");
  for (const auto& [name, e] : Seeds()) {
    auto bytes = SerializeExpression(e);
    ASSERT_TRUE(bytes.ok()) << name << ": " << bytes.status().ToString();
    if (dir != nullptr) std::ofstream(fs::path(dir) / (name + ".bin"), std::ios::binary) << *bytes;
  }
  int seeds = 0;
  for (const auto& entry : fs::directory_iterator(Corpus())) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    auto e = DeserializeExpression(bytes);
    EXPECT_TRUE(e.ok()) << entry.path() << ": " << e.status().ToString();
    ++seeds;
  }
  EXPECT_GE(seeds, static_cast<int>(Seeds().size()));
}

}  // namespace
}  // namespace flotilla::expr
