// CSV: tokenizing (quotes, escapes, quoted newlines, line endings), inference, conversion errors
// naming line and column, chunked parallel parsing equal to one chunk, multi-file schemas, the
// writer -> reader round trip of every type CSV holds, and scan task serialization.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/cast.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/io/csv/reader.h"
#include "flotilla/io/csv/scan_task.h"
#include "flotilla/io/csv/tokenizer.h"
#include "flotilla/io/csv/writer.h"
#include "flotilla/io/fs/atomic_write.h"
#include "tests/support/file_scan_test.h"
#include "tests/support/random_data.h"

namespace flotilla::io::csv {
namespace {

namespace fs = std::filesystem;

class CsvTest : public testing::FileScanTest {
 protected:
  static Result<RecordBatch> Read(const std::vector<std::string>& paths,
                                  const CsvReadOptions& options = {}) {
    FLOTILLA_ASSIGN_OR_RETURN(io::FileScan scan, PlanCsvScan(paths, options));
    return Scan(scan);
  }
};

std::vector<std::vector<std::string>> Tokens(std::string_view data, CsvParseOptions options = {}) {
  auto file = io::MemoryFile(nullptr, "t.csv");
  text::LineLocator where(file.get(), 0, data);
  CsvRows rows;
  Status st = Tokenize(data, options, {}, where, &rows);
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::vector<std::vector<std::string>> out;
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    out.emplace_back();
    for (int c = 0; c < rows.num_columns(); ++c)
      out.back().emplace_back(rows.field(r, c));
  }
  return out;
}

Status TokenizeError(std::string_view data, CsvParseOptions options = {}) {
  auto file = io::MemoryFile(nullptr, "t.csv");
  text::LineLocator where(file.get(), 0, data);
  CsvRows rows;
  return Tokenize(data, options, {}, where, &rows);
}

using Rows = std::vector<std::vector<std::string>>;

TEST(CsvTokenizer, QuotesEscapesAndLineEndings) {
  EXPECT_EQ(Tokens("a,b\n1,2\n"), (Rows{{"a", "b"}, {"1", "2"}}));
  EXPECT_EQ(Tokens("a,b\r\n1,2"), (Rows{{"a", "b"}, {"1", "2"}}));  // CRLF, no final newline
  EXPECT_EQ(Tokens("a,b\r1,2\r"), (Rows{{"a", "b"}, {"1", "2"}}));  // old Mac CR
  EXPECT_EQ(Tokens("\"x,y\",\"say \"\"hi\"\"\"\n"), (Rows{{"x,y", "say \"hi\""}}));
  EXPECT_EQ(Tokens("\"two\nlines\",z\n"), (Rows{{"two\nlines", "z"}}));
  EXPECT_EQ(Tokens("a,,\n,b,\n"), (Rows{{"a", "", ""}, {"", "b", ""}}));
  EXPECT_EQ(Tokens("a,b\n\n\n1,2\n\n"), (Rows{{"a", "b"}, {"1", "2"}}));  // blank lines skipped
  EXPECT_EQ(Tokens("5\" pipe,x\n"), (Rows{{"5\" pipe", "x"}}));  // a quote inside a bare field
  CsvParseOptions backslash;
  backslash.escape = '\\';
  EXPECT_EQ(Tokens("\"a\\\"b\",\"c\\\\d\"\n", backslash), (Rows{{"a\"b", "c\\d"}}));
  CsvParseOptions tabs;
  tabs.delimiter = '\t';
  tabs.quote = '\0';
  EXPECT_EQ(Tokens("\"a\"\tb,c\n", tabs), (Rows{{"\"a\"", "b,c"}}));
}

TEST(CsvTokenizer, ErrorsNameTheLine) {
  Status st = TokenizeError("a,b\n1,2\n3\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("expected 2 fields, found 1 at line 3"), std::string::npos)
      << st.message();
  st = TokenizeError("a,b\n\"open,2\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("unterminated quoted field starting at line 2"), std::string::npos)
      << st.message();
  st = TokenizeError("\"a\"x,b\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("after a closing quote"), std::string::npos) << st.message();
}

TEST(CsvTokenizer, SplitRowsRespectsQuotedNewlines) {
  std::string data;
  for (int i = 0; i < 200; ++i)
    data += std::to_string(i) + ",\"line\nbreak " + std::to_string(i) + "\"\n";
  auto file = io::MemoryFile(nullptr, "t.csv");
  text::LineLocator where(file.get(), 0, data);
  auto starts = SplitRows(data, 0, {}, 100, where);
  ASSERT_TRUE(starts.ok()) << starts.status().ToString();
  ASSERT_GT(starts->size(), 10u);
  int64_t rows = 0;
  for (size_t k = 0; k + 1 < starts->size(); ++k) {
    const std::string_view chunk =
        std::string_view(data).substr((*starts)[k], (*starts)[k + 1] - (*starts)[k]);
    CsvRows parsed;
    TokenizeOptions how;
    how.expected_columns = 2;
    ASSERT_TRUE(Tokenize(chunk, {}, how, where, &parsed).ok());
    for (int64_t r = 0; r < parsed.num_rows(); ++r, ++rows) {
      EXPECT_EQ(parsed.field(r, 0), std::to_string(rows));
      EXPECT_EQ(parsed.field(r, 1), "line\nbreak " + std::to_string(rows));
    }
  }
  EXPECT_EQ(rows, 200);
}

// A UTF-8 byte-order mark is skipped, with a header and without one.
TEST_F(CsvTest, ByteOrderMarkIsNotPartOfTheFirstName) {
  auto batch = Read({Write("bom.csv",
                           "\xEF\xBB\xBF"
                           "a,b\n1,x\n2,y\n")});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->schema()->ToString(), "a: int64\nb: string\n");
  EXPECT_EQ(batch->column(0).ToString(), "[1, 2]");
  CsvReadOptions headerless;
  headerless.parse.has_header = false;
  batch = Read({Write("bom2.csv",
                      "\xEF\xBB\xBF"
                      "7,x\n")},
               headerless);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->column(0).ToString(), "[7]");
}

// Wide files stay linear: 100,000 columns of one name get unique names (a, a_1, ...), and a
// header longer than the 8 MiB sample is still read whole.
TEST_F(CsvTest, WideHeadersOfOneNameAndLongerThanTheSample) {
  constexpr int kColumns = 100000;
  std::string header, row;
  for (int c = 0; c < kColumns; ++c) {
    header += c ? ",a" : "a";
    row += c ? ",1" : "1";
  }
  auto batch = Read({Write("same.csv", header + "\n" + row + "\n")});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->num_columns(), kColumns);
  EXPECT_EQ(batch->schema()->field(0).name, "a");
  EXPECT_EQ(batch->schema()->field(1).name, "a_1");
  EXPECT_EQ(batch->schema()->field(kColumns - 1).name, "a_" + std::to_string(kColumns - 1));
  const std::string long_name(9 << 20, 'n');
  batch = Read({Write("long.csv", long_name + ",b\n1,2\n")});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->num_columns(), 2);
  EXPECT_EQ(batch->schema()->field(0).name.size(), long_name.size());
  EXPECT_EQ(batch->column(1).ToString(), "[2]");
}

TEST_F(CsvTest, InfersTypesFromTheValues) {
  const std::string path =
      Write("t.csv",
            "i,f,b,d,ts,tz,s,mixed,empty,big,zip,t\n"
            "1,1.5,true,2024-02-29,2024-01-01 "
            "10:00:00,2024-01-01T10:00:00Z,x,1,,9223372036854775808,02134,10:00:00\n"
            "-2,2,FALSE,1969-12-31,2024-01-01 10:00:00.25,2024-01-01 "
            "12:00:00+02:00,\"\",a,,1,10001,23:59:59.5\n"
            ",nan,,,,,,,,,,\n");
  auto batch = Read({path});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  const Schema& s = *batch->schema();
  EXPECT_EQ(s.ToString(),
            "i: int64\nf: float64\nb: bool\nd: date32\nts: timestamp[us]\n"
            "tz: timestamp[us, tz=UTC]\ns: string\nmixed: string\nempty: string\nbig: float64\n"
            "zip: string\nt: time64[us]\n");
  ASSERT_EQ(batch->num_rows(), 3);
  EXPECT_EQ(batch->column(0).ToString(), "[1, -2, null]");
  EXPECT_EQ(batch->column(2).ToString(), "[true, false, null]");
  EXPECT_EQ(batch->column(3).ToString(), "[2024-02-29, 1969-12-31, null]");
  // Both instants are 10:00 UTC.
  EXPECT_EQ(batch->column(5).values<int64_t>()[0], batch->column(5).values<int64_t>()[1]);
  EXPECT_EQ(batch->column(4).values<int64_t>()[1] - batch->column(4).values<int64_t>()[0], 250000);
  // A quoted empty field is an empty string, an unquoted one null.
  EXPECT_FALSE(batch->column(6).IsNull(1));
  EXPECT_EQ(batch->column(6).GetView(1), "");
  EXPECT_TRUE(batch->column(6).IsNull(2));
  EXPECT_TRUE(std::isnan(batch->column(1).values<double>()[2]));
}

TEST_F(CsvTest, HeaderlessFilesDuplicateNamesNullSpellingsAndSkippedRows) {
  CsvReadOptions options;
  options.parse.has_header = false;
  options.parse.null_values = {"NA", ""};
  auto batch = Read({Write("a.csv", "1,NA\n2,x\n")}, options);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->schema()->ToString(), "column0: int64\ncolumn1: string\n");
  EXPECT_TRUE(batch->column(1).IsNull(0));

  CsvReadOptions skip;
  skip.parse.skip_rows = 2;
  batch = Read({Write("b.csv", "# generated\n# by hand\nx,x,\n1,2,3\n")}, skip);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->schema()->field_names(), (std::vector<std::string>{"x", "x_1", "column2"}));
  EXPECT_EQ(batch->num_rows(), 1);
}

TEST_F(CsvTest, ConversionErrorsNameFileLineColumnAndValue) {
  CsvReadOptions options;
  options.schema = std::make_shared<Schema>(std::vector<Field>{{"a", int32()}, {"b", date32()}});
  auto batch = Read({Write("bad.csv", "a,b\n1,2024-01-01\n2,2024-13-01\n")}, options);
  ASSERT_FALSE(batch.ok());
  const std::string m = batch.status().message();
  EXPECT_NE(m.find("cannot read '2024-13-01' as date32 in column 'b' at line 3"), std::string::npos)
      << m;
  EXPECT_NE(m.find("bad.csv"), std::string::npos) << m;

  batch = Read({Write("wide.csv", "a,b\n99999999999,2024-01-01\n")}, options);
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.status().message().find("as int32 in column 'a' at line 2"), std::string::npos);

  batch = Read({Write("utf8.csv", "a\n\xff\xfe\n")});
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.status().message().find("invalid UTF-8 in column 'a' at line 2"),
            std::string::npos)
      << batch.status().message();

  // Each value is checked, not only their concatenation ("\xd7" + "\xb2" is one character).
  batch = Read({Write("split.csv", "a\nx\xd7\n\xb2y\n")});
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.status().message().find("invalid UTF-8 in column 'a' at line 2"),
            std::string::npos)
      << batch.status().message();

  batch = Read({Write("empty.csv", "")});
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.status().message().find("no rows"), std::string::npos);
}

TEST_F(CsvTest, SeveralFilesUnifyOrFailNamingBoth) {
  const std::string a = Write("a.csv", "k,v\n1,2\n");
  const std::string b = Write("b.csv", "k,v\n3,2.5\n");
  auto batch = Read({(dir_ / "*.csv").string()});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->schema()->ToString(), "k: int64\nv: float64\n");
  EXPECT_EQ(batch->column(1).ToString(), "[2, 2.5]");

  Write("c.csv", "k,w\n1,2\n");
  auto bad = Read({(dir_ / "*.csv").string()});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("different columns: (k, v) and (k, w)"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("c.csv"), std::string::npos);
}

TEST_F(CsvTest, ChunkedParsingEqualsOneChunkAndTasksSerialize) {
  std::string data = "id,text,x\n";
  for (int i = 0; i < 5000; ++i) {
    data += std::to_string(i) + ",";
    data += (i % 7 == 0) ? "\"multi\nline, \"\"quoted\"\"\"" : "plain" + std::to_string(i % 13);
    data += "," + std::to_string(i * 0.5) + "\n";
  }
  const std::string path = Write("big.csv", data);
  CsvReadOptions one;
  auto whole = Read({path}, one);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  CsvReadOptions small;
  small.chunk_bytes = 1000;
  auto scan = PlanCsvScan({path}, small);
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  EXPECT_GT(scan->tasks.size(), 50u);
  auto chunked = Scan(*scan);
  ASSERT_TRUE(chunked.ok()) << chunked.status().ToString();
  EXPECT_EQ(chunked->num_rows(), 5000);
  EXPECT_TRUE(chunked->Equals(*whole));

  // Through plan serialization, with a projection and a limit.
  io::ScanPushdowns pushdowns;
  pushdowns.columns = std::vector<std::string>{"text", "id"};
  auto plan = exec::MakeScan(scan->schema, scan->tasks, pushdowns);
  ASSERT_TRUE(plan.ok());
  auto bytes = exec::SerializePlan(*plan);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  exec::PlanResolver resolver;
  RegisterCsvScanTasks(&resolver.scan_tasks);
  auto back = exec::DeserializePlan(*bytes, resolver);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  auto result = exec::Run(*back);
  ASSERT_TRUE(result.ok());
  auto projected = result->ToBatch();
  ASSERT_TRUE(projected.ok());
  EXPECT_EQ(projected->schema()->field_names(), (std::vector<std::string>{"text", "id"}));
  EXPECT_TRUE(projected->column(0).Equals(whole->column(1)));
}

// Every type CSV holds, written by us and read back with the same schema, values equal.
TEST_F(CsvTest, WriterRoundTripsEveryFlatType) {
  testing::RandomOptions random;
  random.null_probability = 0.2;
  RecordBatch all = testing::RandomBatchOfAllTypes(3000, 7, random);
  std::vector<int> keep;
  for (int c = 0; c < all.num_columns(); ++c) {
    const DataType& t = *all.column(c).type();
    if (!t.is_nested() && t.id() != TypeId::kBinary && t.id() != TypeId::kLargeBinary &&
        t.id() != TypeId::kFixedSizeBinary && t.id() != TypeId::kTimestamp)
      keep.push_back(c);
  }
  auto flat = all.SelectColumns(keep);
  ASSERT_TRUE(flat.ok());
  // Timestamps within ±3000 years (the text form of every unit), and strings that need quoting.
  std::vector<std::pair<std::string, Array>> columns;
  for (int c = 0; c < flat->num_columns(); ++c)
    columns.emplace_back(flat->schema()->field(c).name, flat->column(c));
  for (TimeUnit unit : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    Int64Builder ts(timestamp(unit, unit == TimeUnit::kMilli ? "UTC" : ""));
    const int64_t span = int64_t{90000000000} / (unit == TimeUnit::kNano ? 100 : 1);
    for (int64_t i = 0; i < 3000; ++i)
      ASSERT_TRUE(
          (i % 9 == 0 ? ts.AppendNull() : ts.Append((i * 7919 * 104729) % span - span / 2)).ok());
    columns.emplace_back(std::string("ts_") + TimeUnitName(unit), *ts.Finish());
  }
  columns.emplace_back("time_us", testing::RandomArray(time64(TimeUnit::kMicro), 3000, 8, random));
  columns.emplace_back("time_ns", testing::RandomArray(time64(TimeUnit::kNano), 3000, 9, random));
  StringBuilder tricky(utf8());
  const char* pieces[] = {"",         "a,b",      "say \"hi\"", "two\nlines",
                          "cr\r\nlf", " padded ", "NA",         "日本"};
  for (int64_t i = 0; i < 3000; ++i)
    ASSERT_TRUE((i % 11 == 0 ? tricky.AppendNull() : tricky.Append(pieces[i % 8])).ok());
  columns.emplace_back("tricky", *tricky.Finish());
  auto batch = RecordBatch::FromColumns(columns);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();

  const std::string path = (dir_ / "all.csv").string();
  ASSERT_TRUE(
      WriteCsvFile(path, batch->schema(), {batch->Slice(0, 1000), batch->Slice(1000, 2000)}).ok());
  CsvReadOptions options;
  options.schema = batch->schema();
  options.chunk_bytes = 20000;  // several tasks
  auto back = Read({path}, options);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->num_rows(), 3000);
  for (int c = 0; c < batch->num_columns(); ++c) {
    Array expected = batch->column(c);
    EXPECT_TRUE(back->column(c).Equals(expected)) << batch->schema()->field(c).ToString() << "\n"
                                                  << back->column(c).Slice(0, 8).ToString() << "\n"
                                                  << expected.Slice(0, 8).ToString();
  }
  EXPECT_FALSE(fs::exists(io::TemporaryPathFor(path)));
}

TEST_F(CsvTest, WriterRefusesWhatCsvCannotHold) {
  auto batch = RecordBatch::FromColumns({{"b", testing::RandomArray(binary(), 3, 1)}});
  ASSERT_TRUE(batch.ok());
  Status st = WriteCsvFile((dir_ / "b.csv").string(), batch->schema(), {*batch});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("column 'b' of type binary cannot be written as CSV"),
            std::string::npos)
      << st.message();
  EXPECT_FALSE(fs::exists(dir_ / "b.csv"));
}

TEST_F(CsvTest, ListsAndStructsAreWrittenAsDuckDbWritesThem) {
  auto builder = MakeBuilder(list(int32()));
  ASSERT_TRUE(builder.ok());
  auto* lists = static_cast<ListBuilder*>(builder->get());
  auto* values = static_cast<NumericBuilder<int32_t>*>(lists->value_builder());
  ASSERT_TRUE(lists->Append().ok() && values->Append(1).ok() && values->AppendNull().ok());
  ASSERT_TRUE(lists->AppendNull().ok());
  ASSERT_TRUE(lists->Append().ok());
  auto l = lists->Finish();
  ASSERT_TRUE(l.ok());
  auto batch = RecordBatch::FromColumns({{"l", *l}});
  ASSERT_TRUE(batch.ok());
  const std::string path = (dir_ / "l.csv").string();
  ASSERT_TRUE(WriteCsvFile(path, batch->schema(), {*batch}).ok());
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "l\n\"[1, NULL]\"\n\n[]\n");
}

}  // namespace
}  // namespace flotilla::io::csv
