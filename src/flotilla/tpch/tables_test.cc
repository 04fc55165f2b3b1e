// The generated tables against the rules of TPC-H clause 4.2.3, checked row by row.
#include "flotilla/tpch/tables.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "flotilla/columnar/decimal.h"
#include "flotilla/compute/concat.h"

namespace flotilla::tpch {
namespace {

RecordBatch Generate(Table table, const Scale& scale, int64_t begin, int64_t end) {
  auto batch = GenerateRows(table, scale, begin, end);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

RecordBatch All(Table table, const Scale& scale) {
  return Generate(table, scale, 0, TableUnits(table, scale));
}

Array Col(const RecordBatch& batch, const char* name) {
  return *batch.GetColumn(name);
}
int64_t I64(const RecordBatch& b, const char* name, int64_t row) {
  return Col(b, name).values<int64_t>()[row];
}
int32_t I32(const RecordBatch& b, const char* name, int64_t row) {
  return Col(b, name).values<int32_t>()[row];
}
Int128 Cents(const RecordBatch& b, const char* name, int64_t row) {
  return Col(b, name).values<Int128>()[row];
}
std::string Str(const RecordBatch& b, const char* name, int64_t row) {
  return std::string(Col(b, name).GetView(row));
}

const Scale& Small() {
  static const Scale scale = *Scale::Of(0.01);
  return scale;
}

TEST(TpchScale, RowCountsFollowTheScaleFactor) {
  auto one = Scale::Of(1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->suppliers, 10000);
  EXPECT_EQ(one->parts, 200000);
  EXPECT_EQ(one->customers, 150000);
  EXPECT_EQ(one->orders, 1500000);
  EXPECT_EQ(Small().orders, 15000);
  EXPECT_FALSE(Scale::Of(0).ok());
  EXPECT_FALSE(Scale::Of(-1).ok());
  EXPECT_FALSE(GenerateRows(Table::kPart, Small(), 0, Small().parts + 1).ok());
}

TEST(TpchTables, RowsDoNotDependOnTheRangesTheyAreGeneratedIn) {
  for (Table table : kAllTables) {
    const int64_t n = std::min<int64_t>(TableUnits(table, Small()), 700);
    RecordBatch whole = Generate(table, Small(), 0, n);
    auto pieces = compute::ConcatBatches(
        {Generate(table, Small(), 0, n / 3), Generate(table, Small(), n / 3, n)});
    ASSERT_TRUE(pieces.ok());
    EXPECT_TRUE(whole.Equals(*pieces)) << TableName(table);
    EXPECT_TRUE(whole.schema()->Equals(*TableSchema(table))) << TableName(table);
  }
}

TEST(TpchTables, FixedTablesHoldTheSpecificationsNationsAndRegions) {
  RecordBatch nation = All(Table::kNation, Small());
  ASSERT_EQ(nation.num_rows(), 25);
  EXPECT_EQ(Str(nation, "n_name", 0), "ALGERIA");
  EXPECT_EQ(Str(nation, "n_name", 24), "UNITED STATES");
  EXPECT_EQ(I64(nation, "n_regionkey", 24), 1);
  EXPECT_EQ(I64(nation, "n_regionkey", 6), 3);  // FRANCE in EUROPE
  RecordBatch region = All(Table::kRegion, Small());
  ASSERT_EQ(region.num_rows(), 5);
  EXPECT_EQ(Str(region, "r_name", 4), "MIDDLE EAST");
  for (int64_t r = 0; r < 5; ++r) {
    const size_t len = Str(region, "r_comment", r).size();
    EXPECT_GE(len, 31u);
    EXPECT_LE(len, 115u);
  }
}

TEST(TpchTables, PartsFollowTheirColumnRules) {
  RecordBatch part = All(Table::kPart, Small());
  ASSERT_EQ(part.num_rows(), 2000);
  for (int64_t r = 0; r < part.num_rows(); ++r) {
    const int64_t key = I64(part, "p_partkey", r);
    EXPECT_EQ(key, r + 1);
    // Five distinct colour words.
    std::set<std::string> words;
    std::string name = Str(part, "p_name", r);
    size_t start = 0;
    for (size_t space; (space = name.find(' ', start)) != std::string::npos; start = space + 1) {
      words.insert(name.substr(start, space - start));
    }
    words.insert(name.substr(start));
    EXPECT_EQ(words.size(), 5u) << name;
    const std::string mfgr = Str(part, "p_mfgr", r);
    const std::string brand = Str(part, "p_brand", r);
    ASSERT_EQ(mfgr.size(), 14u);
    ASSERT_EQ(brand.size(), 8u);
    EXPECT_EQ(brand[6], mfgr[13]) << "the brand's first digit is the manufacturer";
    const int32_t size = I32(part, "p_size", r);
    EXPECT_TRUE(size >= 1 && size <= 50);
    EXPECT_EQ(Cents(part, "p_retailprice", r), 90000 + (key / 10) % 20001 + 100 * (key % 1000));
  }
}

TEST(TpchTables, EveryLineItemNamesOneOfItsPartsFourSuppliers) {
  std::set<std::pair<int64_t, int64_t>> partsupp;
  RecordBatch ps = All(Table::kPartSupp, Small());
  ASSERT_EQ(ps.num_rows(), 4 * Small().parts);
  for (int64_t r = 0; r < ps.num_rows(); ++r) {
    const int64_t supp = I64(ps, "ps_suppkey", r);
    EXPECT_TRUE(supp >= 1 && supp <= Small().suppliers);
    partsupp.insert({I64(ps, "ps_partkey", r), supp});
  }
  EXPECT_EQ(static_cast<int64_t>(partsupp.size()), ps.num_rows()) << "(part, supplier) unique";
  RecordBatch line = All(Table::kLineitem, Small());
  for (int64_t r = 0; r < line.num_rows(); ++r) {
    EXPECT_TRUE(partsupp.count({I64(line, "l_partkey", r), I64(line, "l_suppkey", r)}))
        << "line " << r;
  }
}

TEST(TpchTables, OrdersAgreeWithTheirLineItems) {
  const int32_t current = DaysFromCivil(1995, 6, 17);
  RecordBatch orders = All(Table::kOrders, Small());
  RecordBatch line = All(Table::kLineitem, Small());
  ASSERT_EQ(orders.num_rows(), 15000);
  // 1 to 7 lines per order: about 4 on average.
  EXPECT_GT(line.num_rows(), 15000 * 3.8);
  EXPECT_LT(line.num_rows(), 15000 * 4.2);
  struct Totals {
    Int128 price = 0;
    int lines = 0, shipped = 0;
  };
  std::map<int64_t, Totals> by_order;
  for (int64_t r = 0; r < line.num_rows(); ++r) {
    Totals& t = by_order[I64(line, "l_orderkey", r)];
    ++t.lines;
    EXPECT_EQ(I32(line, "l_linenumber", r), t.lines);
    const Int128 quantity = Cents(line, "l_quantity", r);
    const Int128 discount = Cents(line, "l_discount", r);
    const Int128 tax = Cents(line, "l_tax", r);
    EXPECT_TRUE(quantity >= 100 && quantity <= 5000 && quantity % 100 == 0);
    EXPECT_TRUE(discount >= 0 && discount <= 10);
    EXPECT_TRUE(tax >= 0 && tax <= 8);
    const int64_t part = I64(line, "l_partkey", r);
    EXPECT_EQ(Cents(line, "l_extendedprice", r),
              quantity / 100 * (90000 + (part / 10) % 20001 + 100 * (part % 1000)));
    t.price += (Cents(line, "l_extendedprice", r) * (100 + tax) * (100 - discount) + 5000) / 10000;
    const int32_t ship = I32(line, "l_shipdate", r);
    const int32_t receipt = I32(line, "l_receiptdate", r);
    EXPECT_TRUE(receipt - ship >= 1 && receipt - ship <= 30);
    EXPECT_EQ(Str(line, "l_linestatus", r), ship > current ? "O" : "F");
    const std::string flag = Str(line, "l_returnflag", r);
    if (receipt <= current) {
      EXPECT_TRUE(flag == "R" || flag == "A");
    } else {
      EXPECT_EQ(flag, "N");
    }
    t.shipped += ship <= current;
  }
  for (int64_t r = 0; r < orders.num_rows(); ++r) {
    const int64_t key = I64(orders, "o_orderkey", r);
    EXPECT_LT((key - 1) % 32, 8) << "only the first 8 of every 32 keys";
    const int64_t customer = I64(orders, "o_custkey", r);
    EXPECT_NE(customer % 3, 0);
    EXPECT_TRUE(customer >= 1 && customer <= Small().customers);
    const int32_t date = I32(orders, "o_orderdate", r);
    EXPECT_TRUE(date >= DaysFromCivil(1992, 1, 1) && date <= DaysFromCivil(1998, 8, 2));
    const Totals& t = by_order.at(key);
    EXPECT_TRUE(t.lines >= 1 && t.lines <= 7);
    EXPECT_EQ(Cents(orders, "o_totalprice", r), t.price);
    const std::string status = Str(orders, "o_orderstatus", r);
    EXPECT_EQ(status, t.shipped == t.lines ? "F" : t.shipped == 0 ? "O" : "P");
  }
  EXPECT_EQ(by_order.size(), 15000u);
}

TEST(TpchTables, CustomersAndSuppliersHavePhonesOfTheirNation) {
  for (Table table : {Table::kCustomer, Table::kSupplier}) {
    RecordBatch b = All(table, Small());
    const char* nation = table == Table::kCustomer ? "c_nationkey" : "s_nationkey";
    const char* phone = table == Table::kCustomer ? "c_phone" : "s_phone";
    const char* balance = table == Table::kCustomer ? "c_acctbal" : "s_acctbal";
    for (int64_t r = 0; r < b.num_rows(); ++r) {
      const std::string p = Str(b, phone, r);
      ASSERT_EQ(p.size(), 15u) << p;
      EXPECT_EQ(std::stoi(p.substr(0, 2)), I64(b, nation, r) + 10);
      EXPECT_EQ(p[2], '-');
      EXPECT_TRUE(Cents(b, balance, r) >= -99999 && Cents(b, balance, r) <= 999999);
    }
  }
  RecordBatch customer = All(Table::kCustomer, Small());
  EXPECT_EQ(Str(customer, "c_name", 41), "Customer#000000042");
}

TEST(TpchTables, FivePerThousandSuppliersCarryComplaintsAndRecommendations) {
  const Scale sf1 = *Scale::Of(1);
  RecordBatch supplier = All(Table::kSupplier, sf1);
  int complaints = 0, recommends = 0;
  for (int64_t r = 0; r < supplier.num_rows(); ++r) {
    const std::string c = Str(supplier, "s_comment", r);
    const size_t customer = c.find("Customer");
    if (customer == std::string::npos) continue;
    complaints += c.find("Complaints", customer) != std::string::npos;
    recommends += c.find("Recommends", customer) != std::string::npos;
    EXPECT_GE(c.size(), 25u);
    EXPECT_LE(c.size(), 100u);
  }
  // SF * 5 of each (the text pool itself never says "Customer").
  EXPECT_EQ(complaints, 5);
  EXPECT_EQ(recommends, 5);
}

TEST(TpchTables, CommentsContainTheWordsQueriesLookFor) {
  // Q13 looks for '%special%requests%' in order comments: some but not most have it.
  RecordBatch orders = All(Table::kOrders, Small());
  int64_t matches = 0;
  for (int64_t r = 0; r < orders.num_rows(); ++r) {
    const std::string c = Str(orders, "o_comment", r);
    const size_t special = c.find("special");
    matches += special != std::string::npos && c.find("requests", special) != std::string::npos;
  }
  EXPECT_GT(matches, 0);
  EXPECT_LT(matches, orders.num_rows() / 10);
}

}  // namespace
}  // namespace flotilla::tpch
