// Newline-delimited JSON: inference of nested structs and lists (widening, conflicts named with
// the line), missing keys as nulls, errors naming file, line and column, chunked parsing equal to
// one chunk, several files unified by name, and the writer -> reader round trip of every type
// JSON holds.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "flotilla/columnar/builder.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/io/json/scan_task.h"
#include "flotilla/io/json/writer.h"
#include "tests/support/file_scan_test.h"
#include "tests/support/random_data.h"

namespace flotilla::io::json {
namespace {

namespace fs = std::filesystem;

class JsonTest : public testing::FileScanTest {
 protected:
  static Result<RecordBatch> Read(const std::vector<std::string>& paths,
                                  const JsonReadOptions& options = {}) {
    FLOTILLA_ASSIGN_OR_RETURN(io::FileScan scan, PlanJsonScan(paths, options));
    return Scan(scan);
  }
};

TEST_F(JsonTest, InfersNestedTypesAndWidens) {
  const std::string path =
      Write("t.json",
            "{\"a\": 1, \"b\": {\"x\": [1, 2], \"y\": \"s\"}, \"d\": \"2024-01-02\"}\n"
            "\n"
            "{\"a\": 2.5, \"b\": {\"x\": [], \"z\": true}, \"e\": null, \"f\": \"NaN\"}\n"
            "{\"b\": null, \"d\": \"2024-01-02 03:04:05\", \"f\": 1}\n");
  auto batch = Read({path});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->schema()->ToString(),
            "a: float64\nb: struct<x: list<int64>, y: string, z: bool>\nd: timestamp[us]\n"
            "e: string\nf: float64\n");
  ASSERT_EQ(batch->num_rows(), 3);
  EXPECT_EQ(batch->column(0).ToString(), "[1, 2.5, null]");
  EXPECT_TRUE(batch->column(1).IsNull(2));
  EXPECT_EQ(batch->column(1).field(0).ToString(), "[[1, 2], [], null]");
  EXPECT_EQ(batch->column(1).field(2).ToString(), "[null, true, null]");
  EXPECT_TRUE(std::isnan(batch->column(4).values<double>()[1]));
}

// Integers past int64 keep every digit: uint64 while none is negative, a 38-digit decimal with
// negative ones beside them; a fraction anywhere makes the column float64.
TEST_F(JsonTest, IntegersBeyondInt64StayExact) {
  auto batch = Read({Write("u.json",
                           "{\"u\": 1, \"w\": -1, \"f\": 18446744073709551615}\n"
                           "{\"u\": 18446744073709551615, \"w\": 9223372036854775809, \"f\": 0.5}\n"
                           "{\"u\": 9223372036854775808, \"w\": null, \"f\": 2}\n")});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->schema()->ToString(), "u: uint64\nw: decimal128(38, 0)\nf: float64\n");
  EXPECT_EQ(batch->column(0).ToString(), "[1, 18446744073709551615, 9223372036854775808]");
  EXPECT_EQ(batch->column(1).ToString(), "[-1, 9223372036854775809, null]");
}

// A UTF-8 byte-order mark before the first object is skipped.
TEST_F(JsonTest, ByteOrderMarkIsSkipped) {
  auto batch = Read({Write("bom.json",
                           "\xEF\xBB\xBF"
                           "{\"a\": 1}\n{\"a\": 2}\n")});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->schema()->ToString(), "a: int64\n");
  EXPECT_EQ(batch->column(0).ToString(), "[1, 2]");
}

// A first record longer than the 8 MiB sample is read whole, and 100,000 keys stay linear.
TEST_F(JsonTest, WideAndLongFirstRecords) {
  const std::string big(9 << 20, 'x');
  auto batch =
      Read({Write("long.json", "{\"a\": \"" + big + "\", \"b\": 1}\n{\"a\": \"y\", \"b\": 2}\n")});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->schema()->ToString(), "a: string\nb: int64\n");
  EXPECT_EQ(batch->column(1).ToString(), "[1, 2]");
  constexpr int kKeys = 100000;
  std::string a = "{", b = "{";
  for (int k = 0; k < kKeys; ++k) {
    a += (k ? ", \"k" : "\"k") + std::to_string(k) + "\": " + std::to_string(k);
    // The second row names the keys in the other order.
    b += (k ? ", \"k" : "\"k") + std::to_string(kKeys - 1 - k) + "\": 1";
  }
  batch = Read({Write("wide.json", a + "}\n" + b + "}\n")});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->num_columns(), kKeys);
  EXPECT_EQ(batch->schema()->field(kKeys - 1).name, "k" + std::to_string(kKeys - 1));
  EXPECT_EQ(batch->column(kKeys - 1).ToString(), "[" + std::to_string(kKeys - 1) + ", 1]");
}

TEST_F(JsonTest, ConflictsAndBadLinesNameTheLine) {
  auto bad = Read({Write("c.json", "{\"a\": 1}\n{\"a\": {\"b\": 1}}\n")});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("column 'a' holds both int64 and struct<b: int64>"),
            std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos);

  bad = Read({Write("s.json", "{\"a\": 1}\n{\"a\": 1,}\n")});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("invalid JSON at line 2"), std::string::npos)
      << bad.status().message();

  bad = Read({Write("arr.json", "[1, 2]\n")});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("expected a JSON object at line 1"), std::string::npos);

  JsonReadOptions options;
  options.schema = std::make_shared<Schema>(std::vector<Field>{{"a", int8()}});
  bad = Read({Write("r.json", "{\"a\": 1}\n{\"a\": 300}\n")}, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cannot read 300 as int8 in column 'a' at line 2"),
            std::string::npos)
      << bad.status().message();
}

TEST_F(JsonTest, ExplicitSchemaKeepsAnyValueAsTextAndIgnoresOtherKeys) {
  JsonReadOptions options;
  options.schema = std::make_shared<Schema>(std::vector<Field>{{"v", utf8()}, {"n", int64()}});
  auto batch = Read({Write("t.json",
                           "{\"v\": {\"k\": [1, \"x\"]}, \"other\": 1}\n"
                           "{\"n\": 5, \"v\": 7, \"n\": 6}\n")},
                    options);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->column(0).GetView(0), "{\"k\":[1,\"x\"]}");
  EXPECT_EQ(batch->column(0).GetView(1), "7");
  EXPECT_EQ(batch->column(1).ToString(), "[null, 5]");  // the first of duplicate keys
}

// The DOM holds numbers as doubles; decimals read the number as written.
TEST_F(JsonTest, WideDecimalsKeepEveryDigit) {
  JsonReadOptions options;
  options.schema = std::make_shared<Schema>(std::vector<Field>{
      {"d", decimal128(38, 10)}, {"s", struct_({Field{"l", list(decimal128(38, 10))}})}});
  auto batch = Read({Write("d.json",
                           "{\"d\": 12345678901234567890.0000000001, \"s\": {\"l\": [1, "
                           "-9999999999999999999999999999.9999999999]}}\n"
                           "{\"s\": {\"l\": [0.1]}, \"d\": -0.0000000001}\n")},
                    options);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->column(0).ToString(), "[12345678901234567890.0000000001, -0.0000000001]");
  EXPECT_EQ(batch->column(1).field(0).ToString(),
            "[[1.0000000000, -9999999999999999999999999999.9999999999], [0.1000000000]]");
}

TEST_F(JsonTest, SeveralFilesUnifyByName) {
  Write("a.json", "{\"k\": 1, \"v\": 1}\n");
  Write("b.json", "{\"w\": \"x\", \"k\": 2.5}\n");
  auto batch = Read({(dir_ / "*.json").string()});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->schema()->ToString(), "k: float64\nv: int64\nw: string\n");
  EXPECT_EQ(batch->column(1).ToString(), "[1, null]");

  Write("c.json", "{\"k\": \"text\"}\n");
  auto bad = Read({(dir_ / "*.json").string()});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("a.json' and '" + (dir_ / "c.json").string()),
            std::string::npos)
      << bad.status().message();
}

TEST_F(JsonTest, WriterRoundTripsEveryType) {
  testing::RandomOptions random;
  random.null_probability = 0.2;
  RecordBatch all = testing::RandomBatchOfAllTypes(2000, 11, random);
  std::vector<std::pair<std::string, Array>> columns;
  for (int c = 0; c < all.num_columns(); ++c) {
    const DataType& t = *all.column(c).type();
    if (t.id() == TypeId::kBinary || t.id() == TypeId::kLargeBinary ||
        t.id() == TypeId::kFixedSizeBinary || t.id() == TypeId::kTimestamp)
      continue;
    columns.emplace_back(all.schema()->field(c).name, all.column(c));
  }
  for (TimeUnit unit : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    Int64Builder ts(timestamp(unit, unit == TimeUnit::kMicro ? "UTC" : ""));
    const int64_t span = int64_t{90000000000} / (unit == TimeUnit::kNano ? 100 : 1);
    for (int64_t i = 0; i < 2000; ++i)
      ASSERT_TRUE(
          (i % 9 == 0 ? ts.AppendNull() : ts.Append((i * 7919 * 104729) % span - span / 2)).ok());
    columns.emplace_back(std::string("ts_") + TimeUnitName(unit), *ts.Finish());
  }
  columns.emplace_back("time_us", testing::RandomArray(time64(TimeUnit::kMicro), 2000, 8, random));
  StringBuilder tricky(utf8());
  const char* pieces[] = {"", "quote \" and \\ back", "two\nlines\ttab", "\x01\x1f", "日本🚀"};
  for (int64_t i = 0; i < 2000; ++i)
    ASSERT_TRUE(tricky.Append(pieces[i % 5]).ok());
  columns.emplace_back("tricky", *tricky.Finish());
  auto batch = RecordBatch::FromColumns(columns);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();

  const std::string path = (dir_ / "all.json").string();
  ASSERT_TRUE(
      WriteJsonFile(path, batch->schema(), {batch->Slice(0, 700), batch->Slice(700, 1300)}).ok());
  JsonReadOptions options;
  options.schema = batch->schema();
  options.chunk_bytes = 30000;
  auto scan = PlanJsonScan({path}, options);
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  EXPECT_GT(scan->tasks.size(), 5u);
  auto back = Scan(*scan);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->num_rows(), 2000);
  for (int c = 0; c < batch->num_columns(); ++c) {
    EXPECT_TRUE(back->column(c).Equals(batch->column(c)))
        << batch->schema()->field(c).ToString() << "\n"
        << back->column(c).Slice(0, 6).ToString() << "\n"
        << batch->column(c).Slice(0, 6).ToString();
  }

  // Serialized tasks read the same rows.
  auto plan = exec::MakeScan(scan->schema, scan->tasks, {});
  ASSERT_TRUE(plan.ok());
  auto bytes = exec::SerializePlan(*plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  exec::PlanResolver resolver;
  RegisterJsonScanTasks(&resolver.scan_tasks);
  auto again = exec::DeserializePlan(*bytes, resolver);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  auto result = exec::Run(*again);
  ASSERT_TRUE(result.ok());
  auto reread = result->ToBatch();
  ASSERT_TRUE(reread.ok());
  EXPECT_TRUE(reread->Equals(*back));
}

}  // namespace
}  // namespace flotilla::io::json
