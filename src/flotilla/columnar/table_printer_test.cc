#include "flotilla/columnar/table_printer.h"

#include <gtest/gtest.h>

#include "flotilla/columnar/builder.h"

namespace flotilla {
namespace {

RecordBatch SmallBatch() {
  Int64Builder ids(int64());
  StringBuilder names(utf8());
  for (int i = 1; i <= 3; ++i)
    EXPECT_TRUE(ids.Append(i * 10).ok());
  EXPECT_TRUE(names.Append("alpha").ok());
  EXPECT_TRUE(names.AppendNull().ok());
  EXPECT_TRUE(names.Append("a much longer value than fits").ok());
  return RecordBatch::FromColumns(
             {{"id", ids.Finish().ValueOrDie()}, {"name", names.Finish().ValueOrDie()}})
      .ValueOrDie();
}

TEST(TablePrinterTest, AlignsColumnsAndShowsTypes) {
  TablePrintOptions options;
  options.max_column_width = 12;
  std::string expected =
      "┌───────┬──────────────┐\n"
      "│ id    │ name         │\n"
      "│ int64 │ string       │\n"
      "├───────┼──────────────┤\n"
      "│    10 │ alpha        │\n"
      "│    20 │ null         │\n"
      "│    30 │ a much long… │\n"
      "└───────┴──────────────┘\n"
      "3 rows\n";
  EXPECT_EQ(FormatTable(SmallBatch(), options), expected);
}

TEST(TablePrinterTest, ElidesMiddleRows) {
  Int32Builder b(int32());
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(b.Append(i).ok());
  auto batch = RecordBatch::FromColumns({{"n", b.Finish().ValueOrDie()}}).ValueOrDie();
  TablePrintOptions options;
  options.max_rows = 4;
  std::string out = FormatTable(batch, options);
  EXPECT_NE(out.find("│     0 │\n│     1 │\n│ …     │\n│     8 │\n│     9 │\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("10 rows (4 shown)"), std::string::npos) << out;
}

TEST(TablePrinterTest, WideCharactersCountTwoCells) {
  EXPECT_EQ(DisplayWidth("abc"), 3);
  EXPECT_EQ(DisplayWidth("日本"), 4);
  EXPECT_EQ(DisplayWidth("é"), 1);
  EXPECT_EQ(DisplayWidth("e\xCC\x81"), 1);  // e + combining acute
}

TEST(TablePrinterTest, DropsColumnsBeyondWidthBudget) {
  TablePrintOptions options;
  options.max_width = 12;
  std::string out = FormatTable(SmallBatch(), options);
  EXPECT_NE(out.find("1 of 2 columns shown"), std::string::npos) << out;
  EXPECT_EQ(out.find("name"), std::string::npos) << out;
}

TEST(TablePrinterTest, EmptyResult) {
  auto batch = SmallBatch().Slice(0, 0);
  std::string out = FormatTable(batch);
  EXPECT_NE(out.find("0 rows"), std::string::npos);
  EXPECT_NE(out.find("│ id    │ name   │"), std::string::npos) << out;
}

TEST(TablePrinterTest, ControlCharactersDoNotBreakTheTable) {
  StringBuilder s(utf8());
  ASSERT_TRUE(s.Append("two\nlines").ok());
  auto batch = RecordBatch::FromColumns({{"s", s.Finish().ValueOrDie()}}).ValueOrDie();
  EXPECT_NE(FormatTable(batch).find("│ two lines │"), std::string::npos) << FormatTable(batch);
}

}  // namespace
}  // namespace flotilla
