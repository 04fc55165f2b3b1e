// Byte-level checks against the format specification, input from other writers (legacy framing),
// and robustness against truncated, corrupted and hand-made malicious input.

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "flotilla/columnar/builder.h"
#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/ipc/ipc_round_trip.h"
#include "flotilla/io/ipc/metadata.h"
#include "tests/support/random_data.h"

namespace flotilla::ipc {
namespace {

using flotilla::testing::WalkValues;

int32_t LoadI32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

BufferPtr Bytes(const std::string& s) {
  return Buffer::CopyOf(s).ValueOrDie();
}

RecordBatch Int32Batch(std::vector<int32_t> values, bool nullable = false) {
  Int32Builder b(int32());
  for (int32_t v : values)
    b.Append(v).Check();
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field{"a", int32(), nullable}});
  return RecordBatch::Make(schema, {b.Finish().ValueOrDie()}).ValueOrDie();
}

TEST(IpcGolden, TinyStreamLayout) {
  RecordBatch batch = Int32Batch({1, 2, 3});
  BufferPtr out = WriteStreamToBuffer(batch.schema(), {batch}).ValueOrDie();
  const uint8_t* p = out->data();
  const int64_t n = out->size();

  // Message 1: schema. Continuation marker, then a metadata length keeping 8-byte alignment.
  ASSERT_GE(n, 8);
  EXPECT_EQ(LoadI32(p), -1);
  const int32_t schema_len = LoadI32(p + 4);
  EXPECT_EQ((8 + schema_len) % 8, 0);
  const fb::Message* schema_msg = fb::GetMessage(p + 8);
  EXPECT_EQ(schema_msg->version(), fb::MetadataVersion::V5);
  EXPECT_EQ(schema_msg->header_type(), fb::MessageHeader::Schema);
  EXPECT_EQ(schema_msg->bodyLength(), 0);
  ASSERT_EQ(schema_msg->header_as_Schema()->fields()->size(), 1u);
  EXPECT_EQ(schema_msg->header_as_Schema()->fields()->Get(0)->name()->str(), "a");

  // Message 2: the record batch.
  const uint8_t* m = p + 8 + schema_len;
  EXPECT_EQ(LoadI32(m), -1);
  const int32_t batch_len = LoadI32(m + 4);
  EXPECT_EQ((8 + batch_len) % 8, 0);
  const fb::Message* batch_msg = fb::GetMessage(m + 8);
  ASSERT_EQ(batch_msg->header_type(), fb::MessageHeader::RecordBatch);
  const fb::RecordBatch* rb = batch_msg->header_as_RecordBatch();
  EXPECT_EQ(rb->length(), 3);
  ASSERT_EQ(rb->nodes()->size(), 1u);
  EXPECT_EQ(rb->nodes()->Get(0)->length(), 3);
  EXPECT_EQ(rb->nodes()->Get(0)->null_count(), 0);
  ASSERT_EQ(rb->buffers()->size(), 2u);  // validity (absent: length 0), values
  EXPECT_EQ(rb->buffers()->Get(0)->length(), 0);
  EXPECT_EQ(rb->buffers()->Get(1)->offset(), 0);
  EXPECT_EQ(rb->buffers()->Get(1)->length(), 12);
  EXPECT_EQ(batch_msg->bodyLength(), 16);  // 12 bytes padded to 8
  const uint8_t* body = m + 8 + batch_len;
  const uint8_t expected_body[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(body, expected_body, 16), 0);

  // End of stream: 0xFFFFFFFF 0x00000000, and nothing after it.
  const uint8_t* eos = body + 16;
  ASSERT_EQ(eos + 8, p + n);
  const uint8_t expected_eos[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(eos, expected_eos, 8), 0);
}

TEST(IpcGolden, FileLayout) {
  RecordBatch batch = Int32Batch({7});
  BufferPtr stream = WriteStreamToBuffer(batch.schema(), {batch}).ValueOrDie();
  BufferPtr file = WriteFileToBuffer(batch.schema(), {batch}).ValueOrDie();
  const uint8_t* p = file->data();
  const int64_t n = file->size();
  EXPECT_EQ(std::memcmp(p, "ARROW1\0\0", 8), 0);
  // The stream (with its end marker) follows the padded magic unchanged.
  EXPECT_EQ(std::memcmp(p + 8, stream->data(), stream->size()), 0);
  EXPECT_EQ(std::memcmp(p + n - 6, "ARROW1", 6), 0);
  const int32_t footer_len = LoadI32(p + n - 10);
  EXPECT_EQ(8 + stream->size() + footer_len + 4 + 6, n);
  const fb::Footer* footer = fb::GetFooter(p + n - 10 - footer_len);
  ASSERT_EQ(footer->recordBatches()->size(), 1u);
  const fb::Block* block = footer->recordBatches()->Get(0);
  const int32_t schema_len = LoadI32(p + 12);
  EXPECT_EQ(block->offset(), 8 + 8 + schema_len);  // right after the schema message
  EXPECT_EQ(block->bodyLength(), 8);
  EXPECT_EQ(block->metaDataLength() % 8, 0);
  EXPECT_EQ(LoadI32(p + block->offset()), -1);
}

// Rewrites a stream in the framing used before Arrow 0.15: no continuation marker, the length
// padded so that 4 + length is a multiple of 8.
std::string ToLegacyFraming(const BufferPtr& stream) {
  std::string out;
  const uint8_t* p = stream->data();
  int64_t pos = 0;
  while (pos + 8 <= stream->size()) {
    const int32_t len = LoadI32(p + pos + 4);
    if (len == 0) break;
    const fb::Message* msg = fb::GetMessage(p + pos + 8);
    const int32_t legacy_len = len + 4;
    out.append(reinterpret_cast<const char*>(&legacy_len), 4);
    out.append(reinterpret_cast<const char*>(p + pos + 8), static_cast<size_t>(len));
    out.append(4, '\0');
    out.append(reinterpret_cast<const char*>(p + pos + 8 + len),
               static_cast<size_t>(msg->bodyLength()));
    pos += 8 + len + msg->bodyLength();
  }
  out.append(4, '\0');  // legacy end of stream
  return out;
}

TEST(IpcCompat, ReadsLegacyFramingWithoutContinuationMarker) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(40, 21);
  BufferPtr stream = WriteStreamToBuffer(batch.schema(), {batch, batch.Slice(3, 9)}).ValueOrDie();
  std::string legacy = ToLegacyFraming(stream);
  EXPECT_NE(legacy.size(), static_cast<size_t>(stream->size()));
  // Copy into an aligned buffer (as a file read would give) and read it back.
  auto out = ReadStream(Bytes(legacy));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_TRUE((*out)[0].Equals(batch));
  EXPECT_TRUE((*out)[1].Equals(batch.Slice(3, 9)));
}

TEST(IpcCompat, StreamWithoutEndMarkerEndsCleanly) {
  RecordBatch batch = Int32Batch({1, 2});
  BufferPtr stream = WriteStreamToBuffer(batch.schema(), {batch}).ValueOrDie();
  auto out = ReadStream(Bytes(std::string(stream->view().substr(0, stream->size() - 8))));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->size(), 1u);
}

// Every prefix of a valid input must give an error or fewer batches, never a crash.
void CheckTruncations(const BufferPtr& full, bool file, size_t expected_batches) {
  for (int64_t len = 0; len <= full->size(); ++len) {
    BufferPtr prefix = Bytes(std::string(full->view().substr(0, static_cast<size_t>(len))));
    if (file) {
      auto reader = FileReader::Open(prefix);
      if (!reader.ok()) continue;
      ASSERT_EQ(len, full->size()) << "a truncated file opened";
      continue;
    }
    auto out = ReadStream(prefix);
    if (!out.ok()) {
      EXPECT_FALSE(out.status().message().empty());
      continue;
    }
    EXPECT_LE(out->size(), expected_batches) << "at length " << len;
    for (const RecordBatch& b : *out)
      WalkValues(b);
  }
}

TEST(IpcRobustness, TruncationAtEveryByte) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(6, 31);
  for (Compression c : {Compression::kNone, Compression::kLz4Frame, Compression::kZstd}) {
    WriteOptions o{.compression = c};
    CheckTruncations(WriteStreamToBuffer(batch.schema(), {batch, batch}, o).ValueOrDie(), false, 2);
    CheckTruncations(WriteFileToBuffer(batch.schema(), {batch}, o).ValueOrDie(), true, 1);
  }
}

void ReadEverything(const BufferPtr& input) {
  auto stream = ReadStream(input);
  if (stream.ok()) {
    for (const RecordBatch& b : *stream)
      WalkValues(b);
  }
  auto reader = FileReader::Open(input);
  if (!reader.ok()) return;
  for (int i = 0; i < (*reader)->num_batches(); ++i) {
    auto b = (*reader)->ReadBatch(i);
    if (b.ok()) WalkValues(*b);
  }
}

TEST(IpcRobustness, RandomByteFlips) {
  RecordBatch batch = flotilla::testing::RandomBatchOfAllTypes(5, 41);
  std::vector<BufferPtr> inputs;
  for (Compression c : {Compression::kNone, Compression::kLz4Frame, Compression::kZstd}) {
    WriteOptions o{.compression = c};
    inputs.push_back(WriteStreamToBuffer(batch.schema(), {batch}, o).ValueOrDie());
    inputs.push_back(WriteFileToBuffer(batch.schema(), {batch}, o).ValueOrDie());
  }
  std::mt19937_64 rng(12345);
  for (int iter = 0; iter < 3000; ++iter) {
    const BufferPtr& original = inputs[iter % inputs.size()];
    std::string bytes(original->view());
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      size_t pos = rng() % bytes.size();
      bytes[pos] = static_cast<char>(rng() % 3 == 0 ? 0xFF : rng());
    }
    ReadEverything(Bytes(bytes));
  }
}

// --- hand-made malicious messages -----------------------------------------------------------

std::string Frame(const flatbuffers::FlatBufferBuilder& fbb, const std::string& body) {
  std::string out = "\xFF\xFF\xFF\xFF";
  std::string meta(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  meta.resize(static_cast<size_t>((meta.size() + 7) / 8 * 8), '\0');
  const auto len = static_cast<int32_t>(meta.size());
  out.append(reinterpret_cast<const char*>(&len), 4);
  return out + meta + body;
}

std::string SchemaMessage(const Schema& schema) {
  flatbuffers::FlatBufferBuilder fbb;
  auto s = SchemaToFlatbuffer(&fbb, schema, AssignDictionaryIds(schema)).ValueOrDie();
  fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::Schema, s.Union()));
  return Frame(fbb, "");
}

std::string BatchMessage(int64_t length, std::vector<fb::FieldNode> nodes,
                         std::vector<fb::Buffer> buffers, const std::string& body) {
  flatbuffers::FlatBufferBuilder fbb;
  auto rb = fb::CreateRecordBatch(fbb, length, fbb.CreateVectorOfStructs(nodes),
                                  fbb.CreateVectorOfStructs(buffers));
  fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch,
                               rb.Union(), static_cast<int64_t>(body.size())));
  return Frame(fbb, body);
}

Status ReadHandMade(const std::string& bytes) {
  return ReadStream(Bytes(bytes)).status();
}

TEST(IpcRobustness, ErrorsSayWhatAndWhere) {
  Schema schema({Field{"a", int32()}, Field{"s", utf8()}});
  const std::string head = SchemaMessage(schema);
  const std::string body(32, '\0');

  // Offsets buffer too short for 2 strings.
  Status st = ReadHandMade(
      head + BatchMessage(2, {{2, 0}, {2, 0}}, {{0, 0}, {0, 8}, {0, 0}, {8, 4}, {24, 0}}, body));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("message 1"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("field 's'"), std::string::npos) << st.message();

  st = ReadHandMade(
      head + BatchMessage(2, {{2, 0}, {2, 0}}, {{0, 0}, {0, 8}, {0, 0}, {8, 12}, {24, 100}}, body));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("buffer 4"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("outside the body"), std::string::npos) << st.message();

  st = ReadHandMade(head + BatchMessage(2, {{2, 0}}, {{0, 0}, {0, 8}}, body));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("field nodes"), std::string::npos) << st.message();

  st = ReadHandMade(
      head + BatchMessage(2, {{2, 1}, {2, 0}}, {{0, 0}, {0, 8}, {0, 0}, {8, 12}, {24, 0}}, body));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("validity"), std::string::npos) << st.message();

  st = ReadHandMade(head + BatchMessage(1LL << 40, {{1LL << 40, 0}, {2, 0}}, {}, body));
  ASSERT_FALSE(st.ok());

  // A valid hand-made batch, to show the above fail for the reasons they claim.
  std::string good_body(24, '\0');
  const int32_t values[2] = {5, 6};
  const int32_t offsets[3] = {0, 1, 3};
  std::memcpy(good_body.data(), values, 8);
  std::memcpy(good_body.data() + 8, offsets, 12);
  std::memcpy(good_body.data() + 20, "xyz", 3);
  auto ok =
      ReadStream(Bytes(head + BatchMessage(2, {{2, 0}, {2, 0}},
                                           {{0, 0}, {0, 8}, {0, 0}, {8, 12}, {20, 3}}, good_body)));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].column(1).ToString(), "[x, yz]");
}

TEST(IpcRobustness, DeeplyNestedSchemaIsRejected) {
  flatbuffers::FlatBufferBuilder fbb;
  auto field = fb::CreateField(fbb, fbb.CreateString("leaf"), true, fb::Type::Int,
                               fb::CreateInt(fbb, 32, true).Union());
  for (int i = 0; i < 200; ++i) {
    std::vector<flatbuffers::Offset<fb::Field>> children = {field};
    field = fb::CreateField(fbb, fbb.CreateString("l"), true, fb::Type::List,
                            fb::CreateList(fbb).Union(), 0, fbb.CreateVector(children));
  }
  std::vector<flatbuffers::Offset<fb::Field>> fields = {field};
  auto schema = fb::CreateSchema(fbb, fb::Endianness::Little, fbb.CreateVector(fields));
  fbb.Finish(
      fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::Schema, schema.Union()));
  Status st = ReadHandMade(Frame(fbb, ""));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
}

TEST(IpcRobustness, UnsupportedTypesAreNotImplemented) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Field>> fields = {fb::CreateField(
      fbb, fbb.CreateString("t"), true, fb::Type::Time, fb::CreateTime(fbb).Union())};
  auto schema = fb::CreateSchema(fbb, fb::Endianness::Little, fbb.CreateVector(fields));
  fbb.Finish(
      fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::Schema, schema.Union()));
  Status st = ReadHandMade(Frame(fbb, ""));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kNotImplemented);
  EXPECT_NE(st.message().find("time32[ms] is not supported"), std::string::npos) << st.message();
}

TEST(IpcRobustness, GarbageIsRejected) {
  for (const std::string& s : {std::string(), std::string("ARROW1"), std::string(100, '\xFF'),
                               std::string("\xFF\xFF\xFF\xFF\x08\x00\x00\x00garbage!", 16)}) {
    EXPECT_FALSE(ReadStream(Bytes(s)).ok());
    EXPECT_FALSE(FileReader::Open(Bytes(s)).ok());
  }
}

}  // namespace
}  // namespace flotilla::ipc
