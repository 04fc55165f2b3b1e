// Our writer and reader on random data of every type (nested, nulls, several row groups and
// pages), every codec; and what corrupt or truncated files do to the reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/cast.h"
#include "flotilla/io/parquet/reader.h"
#include "flotilla/io/parquet/writer.h"
#include "tests/support/canonical_json.h"
#include "tests/support/random_data.h"

namespace flotilla::io::parquet {
namespace {

Result<BufferPtr> WriteToBuffer(const RecordBatch& batch, const ParquetWriteOptions& options) {
  auto sink = std::make_unique<io::BufferOutputStream>();
  io::BufferOutputStream* raw = sink.get();
  FLOTILLA_ASSIGN_OR_RETURN(auto writer,
                            ParquetFileWriter::Open(std::move(sink), batch.schema(), options));
  // Written in uneven slices, so row groups and batches do not line up.
  for (int64_t at = 0; at < batch.num_rows(); at += 333)
    FLOTILLA_RETURN_NOT_OK(
        writer->Write(batch.Slice(at, std::min<int64_t>(333, batch.num_rows() - at))));
  FLOTILLA_RETURN_NOT_OK(writer->Close());
  return raw->Finish();
}

Result<std::vector<RecordBatch>> ReadAll(const BufferPtr& bytes) {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader,
                            ParquetFileReader::Open(io::MemoryFile(bytes, "test.parquet")));
  FLOTILLA_ASSIGN_OR_RETURN(auto fields, reader->FieldIndices(std::nullopt));
  std::vector<RecordBatch> out;
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch b, reader->ReadRowGroup(g, fields));
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<std::string> Rows(const std::vector<RecordBatch>& batches) {
  std::vector<std::string> rows;
  for (const RecordBatch& b : batches)
    for (std::string& r : testing::CanonicalRows(b))
      rows.push_back(std::move(r));
  return rows;
}

// Parquet has no duration type (the writer refuses it, see below).
RecordBatch WithoutDurations(const RecordBatch& batch) {
  std::vector<int> keep;
  for (int c = 0; c < batch.num_columns(); ++c)
    if (batch.column(c).type_id() != TypeId::kDuration) keep.push_back(c);
  return batch.SelectColumns(keep).ValueOrDie();
}

TEST(ParquetRoundTrip, EveryTypeAndCodecReadsBackTheWrittenValues) {
  testing::RandomOptions random;
  random.distinct_values = 50;  // duplicates: the dictionary path
  RecordBatch batch = WithoutDurations(testing::RandomBatchOfAllTypes(2500, 11, random));
  for (Codec codec : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kBrotli,
                      Codec::kZstd, Codec::kLz4Raw, Codec::kLz4}) {
    for (bool dictionary : {true, false}) {
      SCOPED_TRACE(std::string(CodecName(codec)) + (dictionary ? " dictionary" : " plain"));
      ParquetWriteOptions options;
      options.codec = codec;
      options.dictionary = dictionary;
      options.row_group_rows = 1000;
      options.page_bytes = 2000;
      auto bytes = WriteToBuffer(batch, options);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      auto back = ReadAll(*bytes);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      ASSERT_EQ(back->size(), 3u);
      // The types Parquet has no exact place for come back as their documented equivalents:
      // compare the original converted to them.
      const SchemaPtr& read_schema = (*back)[0].schema();
      std::vector<Array> expected;
      std::vector<Field> fields;
      for (int c = 0; c < batch.num_columns(); ++c) {
        const TypePtr& want = read_schema->field(c).type;
        // Large offsets and fixed list sizes (written as plain lists) do not change the values
        // the canonical rows show.
        const TypeId id = batch.column(c).type_id();
        if (batch.column(c).type()->Equals(*want) ||
            (batch.column(c).type()->has_large_offsets() && want->is_binary_like()) ||
            (id == TypeId::kFixedSizeList && want->id() == TypeId::kList)) {
          expected.push_back(batch.column(c));
          fields.push_back(batch.schema()->field(c));
          continue;
        }
        fields.push_back(read_schema->field(c));
        auto cast = compute::Cast(batch.column(c), want);
        ASSERT_TRUE(cast.ok()) << batch.schema()->field(c).ToString() << " read as "
                               << want->ToString() << ": " << cast.status().ToString();
        expected.push_back(*cast);
      }
      auto want = RecordBatch::Make(std::make_shared<Schema>(fields), expected, batch.num_rows());
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      EXPECT_EQ(Rows(*back), Rows({*want}));
    }
  }
}

// Times of day (not among AllTypesForTesting): TIME(MICROS) and TIME(NANOS), nullable and in a
// list, read back as the same time64 columns.
// Each chunk's encoding is chosen as well-tuned writers do: a dictionary for repeated values,
// PLAIN for (nearly) unique ones, where a dictionary would be larger and only slow readers down.
TEST(ParquetWriter, DictionaryOnlyWhereItIsSmallerThanPlainValues) {
  Int64Builder unique_ints(int64()), repeated_ints(int64());
  StringBuilder unique_strings(utf8()), repeated_strings(utf8());
  for (int64_t i = 0; i < 5000; ++i) {
    unique_ints.Append(i * 7919).Check();
    repeated_ints.Append(i % 10).Check();
    unique_strings.Append("comment number " + std::to_string(i)).Check();
    repeated_strings.Append(i % 3 == 0 ? "Lisbon" : "Porto").Check();
  }
  const RecordBatch batch =
      RecordBatch::FromColumns({{"unique_ints", unique_ints.Finish().ValueOrDie()},
                                {"repeated_ints", repeated_ints.Finish().ValueOrDie()},
                                {"unique_strings", unique_strings.Finish().ValueOrDie()},
                                {"repeated_strings", repeated_strings.Finish().ValueOrDie()}})
          .ValueOrDie();
  const BufferPtr bytes = WriteToBuffer(batch, ParquetWriteOptions{}).ValueOrDie();
  auto reader = ParquetFileReader::Open(io::MemoryFile(bytes, "test.parquet")).ValueOrDie();
  const std::vector<bool> dictionary = {false, true, false, true};
  for (const RowGroup& group : reader->metadata().row_groups) {
    for (size_t c = 0; c < group.columns.size(); ++c) {
      const ColumnMetaData& meta = *group.columns[c].meta_data;
      const bool has = std::find(meta.encodings.begin(), meta.encodings.end(),
                                 Encoding::kRleDictionary) != meta.encodings.end();
      EXPECT_EQ(has, dictionary[c]) << batch.schema()->field(static_cast<int>(c)).name;
      EXPECT_EQ(meta.dictionary_page_offset.has_value(), dictionary[c]);
    }
  }
  EXPECT_EQ(Rows(ReadAll(bytes).ValueOrDie()), testing::CanonicalRows(batch));
}

TEST(ParquetRoundTrip, TimesOfDay) {
  auto batch = RecordBatch::FromColumns(
      {{"us", testing::RandomArray(time64(TimeUnit::kMicro), 3000, 1)},
       {"ns", testing::RandomArray(time64(TimeUnit::kNano), 3000, 2)},
       {"l", testing::RandomArray(list(time64(TimeUnit::kMicro)), 3000, 3)}});
  ASSERT_TRUE(batch.ok());
  auto bytes = WriteToBuffer(*batch, {});
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = ReadAll(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_TRUE((*back)[0].schema()->Equals(*batch->schema())) << (*back)[0].schema()->ToString();
  EXPECT_EQ(Rows(*back), Rows({*batch}));
  EXPECT_EQ(time64(TimeUnit::kMicro)->ToString(), "time64[us]");
  Int64Builder one(time64(TimeUnit::kMicro));
  ASSERT_TRUE(one.Append(int64_t{3723} * 1000000 + 500).ok());
  EXPECT_EQ(one.Finish()->ValueToString(0), "01:02:03.0005");
}

TEST(ParquetReader, TruncatedAndCorruptFilesGiveErrorsNotCrashes) {
  RecordBatch batch = WithoutDurations(testing::RandomBatchOfAllTypes(300, 5));
  ParquetWriteOptions options;
  options.row_group_rows = 100;
  auto bytes = WriteToBuffer(batch, options);
  ASSERT_TRUE(bytes.ok());
  const std::string good((*bytes)->view());
  auto read = [](const std::string& data) {
    auto buffer = Buffer::CopyOf(data);
    return ReadAll(*buffer);
  };
  ASSERT_TRUE(read(good).ok());
  for (size_t cut = 0; cut < good.size(); cut += 97) {
    auto r = read(good.substr(0, cut));
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_NE(r.status().ToString().find("test.parquet"), std::string::npos)
        << r.status().ToString();
  }
  // Flipped bytes anywhere: an error naming the file, or (where the byte is only data) a read.
  std::mt19937 rng(1);
  int errors = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string bad = good;
    bad[rng() % bad.size()] ^= static_cast<char>(1 + rng() % 255);
    auto r = read(bad);
    if (!r.ok()) {
      ++errors;
      EXPECT_NE(r.status().ToString().find("test.parquet"), std::string::npos)
          << r.status().ToString();
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(ParquetWriter, FailedWriteLeavesNoFileAndTypeMismatchIsNamed) {
  const auto dir = std::filesystem::temp_directory_path() / "flotilla_parquet_writer_test";
  std::filesystem::create_directories(dir);
  RecordBatch batch = testing::RandomBatchOfAllTypes(10, 2);
  RecordBatch other = testing::RandomBatchOfAllTypes(10, 3);
  auto swapped = other.SelectColumns({1, 0});
  ASSERT_TRUE(swapped.ok());
  const std::string path = (dir / "x.parquet").string();
  auto two = batch.SelectColumns({0, 1});
  ASSERT_TRUE(two.ok());
  Status st = WriteParquetFile(path, two->schema(), {*two, *swapped});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("x.parquet"), std::string::npos) << st.ToString();
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_TRUE(WriteParquetFile(path, two->schema(), {*two}).ok());
  EXPECT_TRUE(std::filesystem::exists(path));
  auto reader = ParquetFileReader::Open(path);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->num_rows(), 10);
  std::filesystem::remove_all(dir);
}

TEST(ParquetReader, InvalidUtf8InAStringColumnIsAnErrorNamingTheColumn) {
  // "\xd7" then "\xb2" is one valid character when concatenated: each value alone is not.
  for (const std::vector<std::string>& values :
       std::vector<std::vector<std::string>>{{"ok", "caf\xc3", "x"}, {"a", "\xd7", "\xb2"}}) {
    for (bool dictionary : {true, false}) {
      StringBuilder b(utf8());
      for (const std::string& v : values)
        ASSERT_TRUE(b.Append(v).ok());
      auto batch = RecordBatch::FromColumns({{"name", *b.Finish()}});
      ASSERT_TRUE(batch.ok());
      ParquetWriteOptions options;
      options.dictionary = dictionary;
      auto bytes = WriteToBuffer(*batch, options);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      auto read = ReadAll(*bytes);
      ASSERT_FALSE(read.ok()) << values[1] << (dictionary ? " dictionary" : " plain");
      const std::string message = read.status().ToString();
      EXPECT_NE(message.find("not valid UTF-8"), std::string::npos) << message;
      EXPECT_NE(message.find("column 'name'"), std::string::npos) << message;
      EXPECT_NE(message.find("test.parquet"), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace flotilla::io::parquet
