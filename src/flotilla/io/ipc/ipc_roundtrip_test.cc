#include <gtest/gtest.h>

#include "flotilla/columnar/builder.h"
#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/ipc/ipc_round_trip.h"
#include "tests/support/random_data.h"

namespace flotilla::ipc {
namespace {

using flotilla::testing::RoundTrip;
using flotilla::testing::TempPath;
using flotilla::testing::WalkValues;

struct Param {
  bool file;
  Compression compression;
};

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  std::string c = info.param.compression == Compression::kNone   ? "None"
                  : info.param.compression == Compression::kZstd ? "Zstd"
                                                                 : "Lz4";
  return std::string(info.param.file ? "File" : "Stream") + c;
}

class IpcRoundTrip : public ::testing::TestWithParam<Param> {
 protected:
  WriteOptions Options() const {
    WriteOptions o;
    o.compression = GetParam().compression;
    return o;
  }
  void ExpectRoundTrip(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                       WriteOptions options) {
    auto out = RoundTrip(schema, batches, GetParam().file, options);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->size(), batches.size());
    for (size_t i = 0; i < batches.size(); ++i) {
      EXPECT_TRUE((*out)[i].Equals(batches[i])) << "batch " << i;
      EXPECT_TRUE((*out)[i].schema()->Equals(*schema, /*check_metadata=*/true));
      WalkValues((*out)[i]);
    }
  }
  void ExpectRoundTrip(const SchemaPtr& schema, const std::vector<RecordBatch>& batches) {
    ExpectRoundTrip(schema, batches, Options());
  }
};

TEST_P(IpcRoundTrip, AllTypesWithNulls) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(300, 1);
  ExpectRoundTrip(batch.schema(), {batch});
}

TEST_P(IpcRoundTrip, AllTypesWithoutNulls) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(100, 2, {.null_probability = 0});
  ExpectRoundTrip(batch.schema(), {batch});
}

TEST_P(IpcRoundTrip, SeveralBatchesIncludingEmpty) {
  RecordBatch a = flotilla::testing::RandomBatchOfAllTypes(50, 3);
  RecordBatch b = flotilla::testing::RandomBatchOfAllTypes(0, 4);
  RecordBatch c = flotilla::testing::RandomBatchOfAllTypes(77, 5, {.null_probability = 0.5});
  if (GetParam().file) {
    // Independent random batches have unrelated dictionaries, which a file cannot hold; slices
    // of one batch share theirs.
    RecordBatch all = c;
    a = all.Slice(0, 50);
    b = all.Slice(50, 0);
    c = all.Slice(50, 27);
  }
  ExpectRoundTrip(a.schema(), {a, b, c, b});
}

TEST_P(IpcRoundTrip, SlicedBatches) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(260, 6, {.null_probability = 0.3});
  std::vector<RecordBatch> slices;
  for (auto [offset, length] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 260}, {1, 100}, {3, 5}, {8, 64}, {13, 200}, {63, 1}, {100, 0}, {259, 1}}) {
    slices.push_back(batch.Slice(offset, length));
  }
  ExpectRoundTrip(batch.schema(), slices);
}

TEST_P(IpcRoundTrip, SliceOfSlice) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(200, 7);
  ExpectRoundTrip(batch.schema(), {batch.Slice(5, 150).Slice(11, 90)});
}

TEST_P(IpcRoundTrip, ZeroFieldSchema) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{});
  RecordBatch empty = RecordBatch::Make(schema, {}, 5).ValueOrDie();
  ExpectRoundTrip(schema, {empty, RecordBatch::Make(schema, {}, 0).ValueOrDie()});
}

TEST_P(IpcRoundTrip, NoBatches) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(1, 8);
  ExpectRoundTrip(batch.schema(), {});
}

TEST_P(IpcRoundTrip, SchemaMetadataAndNullability) {
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field{"id", int64(), false},
                         Field{"ts", timestamp(TimeUnit::kNano, "Asia/Tokyo")},
                         Field{"d", decimal128(38, -3)}},
      Schema::Metadata{{"origin", "test"}, {"empty", ""}, {"ünïcode", "日本"}});
  std::vector<Array> columns;
  for (const Field& f : schema->fields()) {
    columns.push_back(flotilla::testing::RandomArray(f.type, 10, 9, {.null_probability = 0}));
  }
  ExpectRoundTrip(schema, {RecordBatch::Make(schema, columns).ValueOrDie()});
}

TEST_P(IpcRoundTrip, UncompressedBuffersMarkedMinusOne) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(64, 10);
  WriteOptions o = Options();
  o.min_compress_bytes = 1 << 30;  // every buffer stored raw with length -1
  ExpectRoundTrip(batch.schema(), {batch}, o);
}

TEST_P(IpcRoundTrip, NestedDictionaries) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      Field{"tags", list(dictionary(int16(), utf8()))},
      Field{"s", struct_({Field{"k", dictionary(int8(), binary())}, Field{"v", int32()}})},
      Field{"plain", dictionary(uint32(), large_utf8())}});
  std::vector<RecordBatch> batches;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    std::vector<Array> columns;
    for (const Field& f : schema->fields()) {
      columns.push_back(flotilla::testing::RandomArray(f.type, 40, seed * 7 + 1));
    }
    batches.push_back(RecordBatch::Make(schema, columns).ValueOrDie());
  }
  if (GetParam().file) {
    // Each random batch has its own dictionary: the file format cannot replace them.
    auto out = WriteFileToBuffer(schema, batches, Options());
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("file format"), std::string::npos);
    ExpectRoundTrip(schema, {batches[0].Slice(3, 30)});
  } else {
    ExpectRoundTrip(schema, batches);
  }
}

Array StringDictionary(const std::vector<std::string>& values) {
  StringBuilder b(utf8());
  for (const auto& v : values)
    b.Append(v).Check();
  return b.Finish().ValueOrDie();
}

Array Indices(const std::vector<int32_t>& values) {
  Int32Builder b(int32());
  for (int32_t v : values) {
    if (v < 0) {
      b.AppendNull().Check();
    } else {
      b.Append(v).Check();
    }
  }
  return b.Finish().ValueOrDie();
}

TEST_P(IpcRoundTrip, GrowingDictionaryIsSentAsDelta) {
  auto type = dictionary(int32(), utf8());
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field{"c", type}});
  Array d1 = MakeDictionaryArray(Indices({0, 1, -1, 1}), StringDictionary({"a", "b"})).ValueOrDie();
  Array d2 =
      MakeDictionaryArray(Indices({2, 0, 3}), StringDictionary({"a", "b", "c", "d"})).ValueOrDie();
  Array d3 = MakeDictionaryArray(Indices({3}), StringDictionary({"a", "b", "c", "d"})).ValueOrDie();
  std::vector<RecordBatch> batches;
  for (const Array& a : {d1, d2, d3, d1}) {
    batches.push_back(RecordBatch::Make(schema, {a}).ValueOrDie());
  }
  ExpectRoundTrip(schema, batches);
}

TEST_P(IpcRoundTrip, ReplacedDictionary) {
  auto schema =
      std::make_shared<Schema>(std::vector<Field>{Field{"c", dictionary(int32(), utf8())}});
  Array d1 = MakeDictionaryArray(Indices({0, 1}), StringDictionary({"x", "y"})).ValueOrDie();
  Array d2 = MakeDictionaryArray(Indices({1, 0}), StringDictionary({"z", "x"})).ValueOrDie();
  std::vector<RecordBatch> batches = {RecordBatch::Make(schema, {d1}).ValueOrDie(),
                                      RecordBatch::Make(schema, {d2}).ValueOrDie()};
  if (GetParam().file) {
    auto out = WriteFileToBuffer(schema, batches, Options());
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalid);
  } else {
    ExpectRoundTrip(schema, batches);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, IpcRoundTrip,
    ::testing::Values(Param{false, Compression::kNone}, Param{false, Compression::kLz4Frame},
                      Param{false, Compression::kZstd}, Param{true, Compression::kNone},
                      Param{true, Compression::kLz4Frame}, Param{true, Compression::kZstd}),
    ParamName);

// Checks that every buffer under `data` lies inside [begin, end). Decimal values are exempt:
// the format aligns buffers to 8 bytes, and __int128 loads need 16, so those may be copied.
void ExpectBuffersInside(const ArrayData& data, const uint8_t* begin, const uint8_t* end,
                         int* count) {
  for (size_t i = 0; i < data.buffers.size(); ++i) {
    const BufferPtr& b = data.buffers[i];
    if (!b || b->size() == 0) continue;
    if (i == 1 && data.type->id() == TypeId::kDecimal128) continue;
    EXPECT_GE(b->data(), begin);
    EXPECT_LE(b->data() + b->size(), end);
    ++*count;
  }
  for (const auto& c : data.children)
    ExpectBuffersInside(*c, begin, end, count);
  if (data.dictionary) ExpectBuffersInside(*data.dictionary, begin, end, count);
}

TEST(IpcZeroCopy, MappedFileBatchesViewTheMapping) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(500, 11);
  const std::string path = TempPath("zero_copy.arrow");
  ASSERT_TRUE(WriteFile(path, batch.schema(), {batch, batch.Slice(7, 300)}).ok());
  auto reader = FileReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const BufferPtr& source = (*reader)->source();
  ASSERT_FALSE(source->is_owned());
  ASSERT_EQ((*reader)->num_batches(), 2);
  for (int i = 0; i < 2; ++i) {
    auto b = (*reader)->ReadBatch(i);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_TRUE(b->Equals(i == 0 ? batch : batch.Slice(7, 300)));
    int count = 0;
    for (const Array& c : b->columns()) {
      ExpectBuffersInside(*c.data(), source->data(), source->data() + source->size(), &count);
    }
    EXPECT_GT(count, 50);
  }
  auto all = ReadFile(path);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), 2u);
  ::unlink(path.c_str());
}

TEST(IpcZeroCopy, StreamFromMemoryViewsTheBuffer) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(100, 12);
  BufferPtr bytes = WriteStreamToBuffer(batch.schema(), {batch}).ValueOrDie();
  auto out = ReadStream(bytes);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  int count = 0;
  for (const Array& c : (*out)[0].columns()) {
    ExpectBuffersInside(*c.data(), bytes->data(), bytes->data() + bytes->size(), &count);
  }
  EXPECT_GT(count, 50);
}

TEST(IpcFiles, StreamFileAndFileFormatDetection) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(30, 13);
  const std::string stream_path = TempPath("detect.arrows");
  const std::string file_path = TempPath("detect.arrow");
  ASSERT_TRUE(WriteStreamFile(stream_path, batch.schema(), {batch, batch}).ok());
  ASSERT_TRUE(
      WriteFile(file_path, batch.schema(), {batch}, {.compression = Compression::kZstd}).ok());
  for (const auto& [path, n] : {std::pair{stream_path, 2u}, std::pair{file_path, 1u}}) {
    SchemaPtr schema;
    auto out = ReadFile(path, &schema);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->size(), n);
    EXPECT_TRUE(schema->Equals(*batch.schema()));
    EXPECT_TRUE((*out)[0].Equals(batch));
  }
  // The stream also reads through the sequential file stream.
  auto in = io::FileInputStream::Open(stream_path);
  ASSERT_TRUE(in.ok());
  auto reader = StreamReader::Open(std::move(*in));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  int batches = 0;
  while (true) {
    auto next = (*reader)->Next();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!*next) break;
    EXPECT_TRUE((*next)->Equals(batch));
    ++batches;
  }
  EXPECT_EQ(batches, 2);
  auto missing = ReadFile(TempPath("does_not_exist"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIOError);
  ::unlink(stream_path.c_str());
  ::unlink(file_path.c_str());
}

TEST(IpcWriter, RejectsBatchOfAnotherSchema) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(3, 14);
  auto other = std::make_shared<Schema>(std::vector<Field>{Field{"x", int8()}});
  io::BufferOutputStream sink;
  auto writer = StreamWriter::Open(&sink, other);
  ASSERT_TRUE(writer.ok());
  EXPECT_FALSE((*writer)->WriteBatch(batch).ok());
}

TEST(IpcCompression, ParseNames) {
  EXPECT_EQ(*ParseCompression("lz4"), Compression::kLz4Frame);
  EXPECT_EQ(*ParseCompression("lz4_frame"), Compression::kLz4Frame);
  EXPECT_EQ(*ParseCompression("zstd"), Compression::kZstd);
  EXPECT_EQ(*ParseCompression("none"), Compression::kNone);
  EXPECT_FALSE(ParseCompression("gzip").ok());
}

TEST(IpcCompression, CompressesRepetitiveData) {
  Int64Builder b(int64());
  for (int i = 0; i < 100000; ++i)
    b.Append(i % 10).Check();
  RecordBatch batch = RecordBatch::FromColumns({{"x", b.Finish().ValueOrDie()}}).ValueOrDie();
  auto raw = WriteStreamToBuffer(batch.schema(), {batch}).ValueOrDie();
  for (Compression c : {Compression::kLz4Frame, Compression::kZstd}) {
    auto packed = WriteStreamToBuffer(batch.schema(), {batch}, {.compression = c}).ValueOrDie();
    EXPECT_LT(packed->size() * 10, raw->size());
    auto out = ReadStream(packed);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE((*out)[0].Equals(batch));
  }
}

}  // namespace
}  // namespace flotilla::ipc
