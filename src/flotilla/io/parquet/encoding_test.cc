#include "flotilla/io/parquet/encoding.h"

#include <gtest/gtest.h>

#include <random>

#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/parquet/metadata.h"
#include "flotilla/io/parquet/thrift_compact.h"

namespace flotilla::io::parquet {
namespace {

std::vector<uint8_t> Bytes(std::initializer_list<int> v) {
  return std::vector<uint8_t>(v.begin(), v.end());
}

TEST(RleDecoder, DecodesTheSpecsBitPackedExample) {
  // The format spec's example: 0..7 bit-packed with width 3 is 10001000 11000110 11111010.
  auto data = Bytes({0x03, 0x88, 0xC6, 0xFA});
  RleDecoder decoder(data.data(), static_cast<int64_t>(data.size()), 3);
  uint32_t out[8];
  ASSERT_TRUE(decoder.Decode(out, 8).ok());
  for (uint32_t i = 0; i < 8; ++i)
    EXPECT_EQ(out[i], i);
}

TEST(RleDecoder, DecodesRepeatedRunsThenFailsWhenValuesRunOut) {
  // Run of 5 times 2 (header 5 << 1 = 10), then 3 times 1, width 2 (one byte per value).
  auto data = Bytes({10, 2, 6, 1});
  RleDecoder decoder(data.data(), static_cast<int64_t>(data.size()), 2);
  uint32_t out[9];
  ASSERT_TRUE(decoder.Decode(out, 8).ok());
  EXPECT_EQ(std::vector<uint32_t>(out, out + 8), (std::vector<uint32_t>{2, 2, 2, 2, 2, 1, 1, 1}));
  EXPECT_FALSE(decoder.Decode(out, 1).ok());
}

TEST(RleDecoder, RejectsValuesWiderThanTheBitWidth) {
  auto data = Bytes({2, 9});  // a run of one 9 with width 3
  RleDecoder decoder(data.data(), static_cast<int64_t>(data.size()), 3);
  uint32_t out[1];
  EXPECT_FALSE(decoder.Decode(out, 1).ok());
}

TEST(RleEncode, RoundTripsMixedRunsForEveryWidth) {
  std::mt19937 rng(7);
  for (int width = 1; width <= 20; ++width) {
    std::vector<uint32_t> values;
    while (values.size() < 3000) {
      const uint32_t v = rng() & ((1u << width) - 1);
      const int repeat = rng() % 3 == 0 ? 1 + static_cast<int>(rng() % 40) : 1;
      for (int k = 0; k < repeat; ++k)
        values.push_back(v);
    }
    std::string encoded;
    RleEncode(values.data(), static_cast<int64_t>(values.size()), width, &encoded);
    RleDecoder decoder(reinterpret_cast<const uint8_t*>(encoded.data()),
                       static_cast<int64_t>(encoded.size()), width);
    std::vector<uint32_t> back(values.size());
    // Decoded in uneven pieces, crossing run boundaries.
    int64_t done = 0;
    while (done < static_cast<int64_t>(values.size())) {
      const int64_t n = std::min<int64_t>(1 + rng() % 37, values.size() - done);
      ASSERT_TRUE(decoder.Decode(back.data() + done, n).ok()) << width;
      done += n;
    }
    EXPECT_EQ(back, values) << "width " << width;
  }
}

TEST(UnpackBits, MatchesABitByBitReadingForEveryWidthAndLength) {
  // The unrolled per-width path covers whole groups well inside the input, the generic path
  // the rest: every width, lengths around group and input boundaries.
  std::mt19937 rng(11);
  for (int width = 1; width <= 32; ++width) {
    for (int64_t count : {1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200, 1001}) {
      std::vector<uint8_t> packed(static_cast<size_t>((count * width + 7) / 8));
      for (uint8_t& b : packed)
        b = static_cast<uint8_t>(rng());
      std::vector<uint32_t> out(static_cast<size_t>(count));
      UnpackBits(packed.data(), width, count, out.data());
      for (int64_t i = 0; i < count; ++i) {
        uint32_t expected = 0;
        for (int b = 0; b < width; ++b) {
          const int64_t bit = i * width + b;
          expected |= static_cast<uint32_t>((packed[bit >> 3] >> (bit & 7)) & 1) << b;
        }
        ASSERT_EQ(out[i], expected) << "width " << width << " count " << count << " value " << i;
      }
    }
  }
}

TEST(RleDecoder, DecodesOneBitValuesIntoABitmapAtAnyOffset) {
  std::mt19937 rng(5);
  std::vector<uint32_t> values;
  while (values.size() < 5000) {
    const uint32_t v = rng() & 1;
    const int repeat = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 100) : 1;
    for (int k = 0; k < repeat; ++k)
      values.push_back(v);
  }
  std::string encoded;
  RleEncode(values.data(), static_cast<int64_t>(values.size()), 1, &encoded);
  RleDecoder decoder(reinterpret_cast<const uint8_t*>(encoded.data()),
                     static_cast<int64_t>(encoded.size()), 1);
  // Pieces of uneven length land at unaligned bit offsets, as pages do in a chunk's bitmap.
  std::vector<uint8_t> bits(values.size() / 8 + 1, 0xA5);
  int64_t done = 0, ones = 0;
  while (done < static_cast<int64_t>(values.size())) {
    const int64_t n = std::min<int64_t>(1 + rng() % 45, values.size() - done);
    auto set = decoder.DecodeBits(bits.data(), done, n);
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    ones += *set;
    done += n;
  }
  int64_t expected_ones = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ((bits[i >> 3] >> (i & 7)) & 1, values[i]) << "bit " << i;
    expected_ones += values[i];
  }
  EXPECT_EQ(ones, expected_ones);
  uint8_t more = 0;
  EXPECT_FALSE(decoder.DecodeBits(&more, 0, 1).ok());  // the runs are used up
}

TEST(DeltaBinaryPacked, DecodesAHandEncodedSequence) {
  // 1, 2, 3, 4, 5: block 128 (0x80 0x01), 4 miniblocks, 5 values, first 1 (zigzag 2); one block:
  // min delta 1 (zigzag 2), all four miniblock widths 0.
  auto data = Bytes({0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0});
  std::vector<int32_t> out;
  int64_t used = 0;
  ASSERT_TRUE(
      DeltaBinaryPackedDecode(data.data(), static_cast<int64_t>(data.size()), &out, &used).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(used, 10);
}

TEST(DeltaBinaryPacked, RoundTripsExtremesAndWrapsAround) {
  std::vector<int64_t> values = {0, INT64_MAX, INT64_MIN, -1, 1, 42, 42, 42, -7};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 1000; ++i)
    values.push_back(static_cast<int64_t>(rng() >> (i % 60)));
  std::string encoded;
  DeltaBinaryPackedEncode(values.data(), static_cast<int64_t>(values.size()), &encoded);
  std::vector<int64_t> back;
  int64_t used = 0;
  ASSERT_TRUE(DeltaBinaryPackedDecode(reinterpret_cast<const uint8_t*>(encoded.data()),
                                      static_cast<int64_t>(encoded.size()), &back, &used)
                  .ok());
  EXPECT_EQ(back, values);
  EXPECT_EQ(used, static_cast<int64_t>(encoded.size()));
}

TEST(DeltaBinaryPacked, RejectsTruncatedInput) {
  std::vector<int32_t> values(500);
  for (int i = 0; i < 500; ++i)
    values[i] = i * i;
  std::string encoded;
  DeltaBinaryPackedEncode(values.data(), 500, &encoded);
  for (size_t cut = 0; cut + 1 < encoded.size(); cut += 7) {
    std::vector<int32_t> back;
    EXPECT_FALSE(DeltaBinaryPackedDecode(reinterpret_cast<const uint8_t*>(encoded.data()),
                                         static_cast<int64_t>(cut), &back, nullptr)
                     .ok())
        << cut;
  }
}

TEST(DeltaByteArray, RebuildsValuesFromPrefixesAndSuffixes) {
  // "apple", "applesauce", "apply": prefixes 0, 5, 4; suffixes "apple", "sauce", "y".
  std::vector<int32_t> prefixes = {0, 5, 4}, lengths = {5, 5, 1};
  std::string data;
  DeltaBinaryPackedEncode(prefixes.data(), 3, &data);
  DeltaBinaryPackedEncode(lengths.data(), 3, &data);
  data += "applesaucey";
  ByteArrays out;
  ASSERT_TRUE(DeltaByteArrayDecode(reinterpret_cast<const uint8_t*>(data.data()),
                                   static_cast<int64_t>(data.size()), 3, &out)
                  .ok());
  EXPECT_EQ(out.data, "appleapplesauceapply");
  EXPECT_EQ(out.offsets, (std::vector<int64_t>{0, 5, 15, 20}));
  prefixes[1] = 6;  // longer than the previous value
  std::string bad;
  DeltaBinaryPackedEncode(prefixes.data(), 3, &bad);
  DeltaBinaryPackedEncode(lengths.data(), 3, &bad);
  bad += "applesaucey";
  ByteArrays ignored;
  EXPECT_FALSE(DeltaByteArrayDecode(reinterpret_cast<const uint8_t*>(bad.data()),
                                    static_cast<int64_t>(bad.size()), 3, &ignored)
                   .ok());
}

TEST(ByteStreamSplit, InterleavesBytesByPosition) {
  // Two 4-byte values 0x04030201 and 0x08070605 stored as streams 01 05 | 02 06 | 03 07 | 04 08.
  auto data = Bytes({1, 5, 2, 6, 3, 7, 4, 8});
  uint32_t out[2];
  ASSERT_TRUE(ByteStreamSplitDecode(data.data(), 8, 4, 2, reinterpret_cast<uint8_t*>(out)).ok());
  EXPECT_EQ(out[0], 0x04030201u);
  EXPECT_EQ(out[1], 0x08070605u);
  EXPECT_FALSE(ByteStreamSplitDecode(data.data(), 7, 4, 2, reinterpret_cast<uint8_t*>(out)).ok());
}

TEST(PageCodec, EveryCodecRoundTripsAndRejectsCorruptOrMissizedInput) {
  std::string input;
  for (int i = 0; i < 100000; ++i)
    input += std::to_string(i % 977) + ",";
  for (Codec codec : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kBrotli,
                      Codec::kZstd, Codec::kLz4Raw, Codec::kLz4}) {
    SCOPED_TRACE(CodecName(codec));
    auto c = PageCodec::Make(codec);
    ASSERT_TRUE(c.ok());
    std::string compressed;
    ASSERT_TRUE((*c)->Compress(reinterpret_cast<const uint8_t*>(input.data()),
                               static_cast<int64_t>(input.size()), &compressed)
                    .ok());
    std::string out(input.size(), '\0');
    ASSERT_TRUE((*c)->Decompress(reinterpret_cast<const uint8_t*>(compressed.data()),
                                 static_cast<int64_t>(compressed.size()),
                                 reinterpret_cast<uint8_t*>(out.data()),
                                 static_cast<int64_t>(out.size()))
                    .ok());
    EXPECT_EQ(out, input);
    // The header's size one byte off is an error, never a silent short read.
    EXPECT_FALSE((*c)->Decompress(reinterpret_cast<const uint8_t*>(compressed.data()),
                                  static_cast<int64_t>(compressed.size()),
                                  reinterpret_cast<uint8_t*>(out.data()),
                                  static_cast<int64_t>(out.size()) - 1)
                     .ok());
    if (codec == Codec::kUncompressed) continue;
    std::string corrupt = compressed.substr(0, compressed.size() / 2);
    EXPECT_FALSE((*c)->Decompress(reinterpret_cast<const uint8_t*>(corrupt.data()),
                                  static_cast<int64_t>(corrupt.size()),
                                  reinterpret_cast<uint8_t*>(out.data()),
                                  static_cast<int64_t>(out.size()))
                     .ok());
  }
  EXPECT_FALSE(PageCodec::Make(Codec::kLzo).ok());
}

TEST(CompactProtocol, EncodesFieldsAsTheSpecSays) {
  CompactWriter w;
  w.BeginStruct();
  w.I32Field(1, 5);       // delta 1, type i32 (5): 0x15, zigzag(5) = 10
  w.I64Field(20, -1);     // delta 19 > 15: type byte 0x06, zigzag field id 40, zigzag(-1) = 1
  w.BoolField(21, true);  // delta 1, type true (1): 0x11
  w.EndStruct();
  EXPECT_EQ(w.bytes(), std::string("\x15\x0a\x06\x28\x01\x11\x00", 7));
}

TEST(CompactProtocol, MetadataRoundTripsAndCorruptionIsAnError) {
  FileMetaData m;
  m.version = 2;
  m.num_rows = 3;
  m.schema.push_back({.name = "schema", .num_children = 1});
  SchemaElement leaf{
      .type = PhysicalType::kInt64, .repetition = Repetition::kOptional, .name = "x"};
  leaf.logical_type.kind = LogicalType::kTimestamp;
  leaf.logical_type.unit = LogicalType::kNanos;
  leaf.logical_type.adjusted_to_utc = true;
  m.schema.push_back(leaf);
  RowGroup rg;
  rg.num_rows = 3;
  ColumnChunk chunk;
  chunk.meta_data.emplace();
  chunk.meta_data->type = PhysicalType::kInt64;
  chunk.meta_data->path_in_schema = {"x"};
  chunk.meta_data->codec = Codec::kZstd;
  chunk.meta_data->encodings = {Encoding::kPlain, Encoding::kRle};
  chunk.meta_data->statistics = Statistics{.null_count = 1, .max_value = "max", .min_value = "min"};
  rg.columns.push_back(chunk);
  m.row_groups.push_back(rg);
  m.created_by = "flotilla";
  m.type_defined_order = {true};
  const std::string bytes = EncodeFileMetaData(m);
  auto back = DecodeFileMetaData(reinterpret_cast<const uint8_t*>(bytes.data()),
                                 static_cast<int64_t>(bytes.size()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->schema.size(), 2u);
  EXPECT_EQ(back->schema[1].logical_type.kind, LogicalType::kTimestamp);
  EXPECT_EQ(back->schema[1].logical_type.unit, LogicalType::kNanos);
  EXPECT_TRUE(back->schema[1].logical_type.adjusted_to_utc);
  EXPECT_EQ(back->row_groups[0].columns[0].meta_data->codec, Codec::kZstd);
  EXPECT_EQ(*back->row_groups[0].columns[0].meta_data->statistics->min_value, "min");
  EXPECT_EQ(*back->created_by, "flotilla");
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodeFileMetaData(reinterpret_cast<const uint8_t*>(bytes.data()),
                                    static_cast<int64_t>(cut))
                     .ok())
        << cut;
  }
  // A list claiming more elements than bytes left, and structs nested without end.
  std::string huge = "\x19\xfc\xff\xff\xff\x0f";
  EXPECT_FALSE(DecodeFileMetaData(reinterpret_cast<const uint8_t*>(huge.data()),
                                  static_cast<int64_t>(huge.size()))
                   .ok());
  std::string deep(10000, '\x1c');
  EXPECT_FALSE(DecodeFileMetaData(reinterpret_cast<const uint8_t*>(deep.data()),
                                  static_cast<int64_t>(deep.size()))
                   .ok());
}

}  // namespace
}  // namespace flotilla::io::parquet
