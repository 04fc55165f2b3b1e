// The Flotilla half of the Arrow IPC interop checks (tests/interop/run.sh drives it).
//
//   ipc_interop_tool write DIR         writes our cases: DIR/NAME.arrows (stream format) or
//                                      DIR/NAME.arrow (file format) and DIR/NAME.json, the
//                                      canonical JSON of the batches we wrote
//   ipc_interop_tool read FILE OUT     reads an IPC file or stream with our readers and writes
//                                      its canonical JSON to OUT
//
// Exit codes: 0 ok, 1 a clean error (e.g. the reader rejected the input), 2 usage.

#include <fmt/format.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/stream.h"
#include "tests/support/canonical_json.h"
#include "tests/support/random_data.h"

namespace flotilla {
namespace {

using testing::CanonicalJson;
using testing::RandomArray;
using testing::RandomBatchOfAllTypes;
using testing::RandomOptions;

struct ToolError {
  std::string message;
};

template <typename T>
T Unwrap(Result<T> r, const std::string& what) {
  if (!r.ok()) throw ToolError{what + ": " + r.status().ToString()};
  return std::move(r).ValueOrDie();
}
void Check(const Status& s, const std::string& what) {
  if (!s.ok()) throw ToolError{what + ": " + s.ToString()};
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f.good()) throw ToolError{"cannot write " + path};
}

// ---- write --------------------------------------------------------------------------------------

enum class Format { kStream, kFile };

int cases_written = 0;
int cases_failed = 0;

void WriteCase(const std::string& dir, const std::string& name, Format format,
               ipc::Compression compression, const SchemaPtr& schema,
               const std::vector<RecordBatch>& batches, ipc::WriteOptions options = {}) {
  options.compression = compression;
  const std::string path = dir + "/" + name + (format == Format::kFile ? ".arrow" : ".arrows");
  try {
    if (format == Format::kFile) {
      Check(ipc::WriteFile(path, schema, batches, options), "writing " + path);
    } else {
      Check(ipc::WriteStreamFile(path, schema, batches, options), "writing " + path);
    }
    WriteText(dir + "/" + name + ".json", CanonicalJson(*schema, batches));
    ++cases_written;
  } catch (const ToolError& e) {
    // Report and go on with the other cases; run.sh turns each such line into a failure.
    std::remove(path.c_str());
    std::fprintf(stderr, "case-failed %s: %s\n", name.c_str(), e.message.c_str());
    ++cases_failed;
  }
}

const char* CompressionName(ipc::Compression c) {
  switch (c) {
    case ipc::Compression::kNone:
      return "none";
    case ipc::Compression::kLz4Frame:
      return "lz4";
    case ipc::Compression::kZstd:
      return "zstd";
  }
  return "?";
}

BufferPtr BytesBuffer(const void* data, size_t size) {
  return Unwrap(Buffer::CopyOf({static_cast<const char*>(data), size}), "buffer");
}

// A validity bitmap of `n` bits where every `every`-th bit (from `first`) is 0.
BufferPtr Bitmap(int64_t n, int64_t first, int64_t every) {
  std::vector<uint8_t> bits(static_cast<size_t>((n + 7) / 8), 0xFF);
  for (int64_t i = first; i < n; i += every)
    bits[i / 8] &= static_cast<uint8_t>(~(1u << (i % 8)));
  return BytesBuffer(bits.data(), bits.size());
}

Array StringArray(const std::vector<const char*>& values) {
  StringBuilder b(utf8());
  for (const char* v : values)
    Check(v ? b.Append(v) : b.AppendNull(), "string builder");
  return Unwrap(b.Finish(), "string builder");
}

Array Int32Array(const std::vector<int>& values) {  // -1 = null
  Int32Builder b(int32());
  for (int v : values)
    Check(v < 0 ? b.AppendNull() : b.Append(v), "int32 builder");
  return Unwrap(b.Finish(), "int32 builder");
}

RecordBatch MakeBatch(const SchemaPtr& schema, std::vector<Array> columns) {
  return Unwrap(RecordBatch::Make(schema, std::move(columns)), "batch");
}

// Nested arrays whose children have their own non-zero offsets (not reachable through builders
// and Slice alone): the writer must honour the child's offset, not just the parent's.
std::vector<Array> NestedWithChildOffsets() {
  std::vector<Array> out;
  {  // list<int16> at offset 3, child sliced at 5
    Array child = RandomArray(int16(), 100, 501).Slice(5, 80);
    std::vector<int32_t> offsets;
    for (int32_t i = 0, o = 0; i <= 44; ++i, o += (i % 4))
      offsets.push_back(std::min(o, 80));
    auto d = std::make_shared<ArrayData>();
    d->type = list(int16());
    d->offset = 3;
    d->length = 40;
    d->null_count = -1;
    d->buffers = {Bitmap(44, 2, 5), BytesBuffer(offsets.data(), offsets.size() * sizeof(int32_t))};
    d->children = {child.data()};
    out.push_back(Unwrap(Array::Make(d), "list with child offset"));
  }
  {  // struct<a: int64, b: utf8> at offset 2; children at offsets 3 and 7
    auto d = std::make_shared<ArrayData>();
    d->type = struct_({Field{"a", int64()}, Field{"b", utf8()}});
    d->offset = 2;
    d->length = 40;
    d->null_count = -1;
    d->buffers = {Bitmap(42, 1, 6)};
    d->children = {RandomArray(int64(), 100, 502).Slice(3, 50).data(),
                   RandomArray(utf8(), 100, 503).Slice(7, 50).data()};
    out.push_back(Unwrap(Array::Make(d), "struct with child offsets"));
  }
  {  // fixed_size_list<int32>[3] at offset 3; child sliced at 11
    auto d = std::make_shared<ArrayData>();
    d->type = fixed_size_list(int32(), 3);
    d->offset = 3;
    d->length = 40;
    d->null_count = -1;
    d->buffers = {Bitmap(43, 0, 7)};
    d->children = {RandomArray(int32(), 200, 504).Slice(11, 150).data()};
    out.push_back(Unwrap(Array::Make(d), "fixed_size_list with child offset"));
  }
  {  // string at offset 9 with an all-valid (absent) bitmap
    out.push_back(RandomArray(utf8(), 60, 505, RandomOptions{.null_probability = 0}).Slice(9, 40));
  }
  return out;
}

template <typename Builder, typename T>
Array Numbers(TypePtr type, const std::vector<T>& values, int null_at = -1) {
  Builder b(std::move(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if (static_cast<int>(i) == null_at) Check(b.AppendNull(), "builder");
    Check(b.Append(values[i]), "builder");
  }
  return Unwrap(b.Finish(), "builder");
}

// Extreme and special values: NaNs with payloads, -0, infinities, subnormals, integer limits,
// the largest decimal128(38, 0) magnitudes, extreme timestamps.
RecordBatch SpecialValues() {
  using L64 = std::numeric_limits<int64_t>;
  const std::vector<float> f32 = {std::bit_cast<float>(0x7fc00000u),
                                  std::bit_cast<float>(0x7fc00001u),
                                  std::bit_cast<float>(0xffc12345u),
                                  std::bit_cast<float>(0x7f800001u),
                                  -0.0f,
                                  0.0f,
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::denorm_min(),
                                  std::numeric_limits<float>::max()};
  const std::vector<double> f64 = {std::bit_cast<double>(0x7ff8000000000000ull),
                                   std::bit_cast<double>(0x7ff8dead0000beefull),
                                   std::bit_cast<double>(0xfff0000000000001ull),
                                   std::bit_cast<double>(0x7ff0000000000001ull),
                                   -0.0,
                                   0.0,
                                   std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(),
                                   std::numeric_limits<double>::denorm_min(),
                                   std::numeric_limits<double>::lowest()};
  const std::vector<int64_t> i64 = {
      L64::min(),       L64::max(),       -1, 0, 1, L64::min() + 1, 4294967296, -4294967297,
      9007199254740993, -9007199254740993};
  const std::vector<uint64_t> u64 = {0,
                                     std::numeric_limits<uint64_t>::max(),
                                     1ull << 63,
                                     (1ull << 63) - 1,
                                     9007199254740993ull,
                                     1,
                                     2,
                                     3,
                                     4,
                                     5};
  const std::vector<int8_t> i8 = {-128, 127, -1, 0, 1, 2, 3, 4, 5, 6};
  const std::vector<uint32_t> u32 = {0, 4294967295u, 2147483648u, 1, 2, 3, 4, 5, 6, 7};
  Int128 max38 = 1;
  for (int i = 0; i < 38; ++i)
    max38 *= 10;
  max38 -= 1;
  FixedSizeBinaryBuilder dec(decimal128(38, 0));
  for (Int128 v : {max38, -max38, Int128{0}, Int128{-1}, Int128{1}, static_cast<Int128>(L64::min()),
                   static_cast<Int128>(L64::max()) + 1, -(static_cast<Int128>(1) << 100),
                   static_cast<Int128>(1) << 100, Int128{42}}) {
    Check(dec.AppendDecimal(v), "decimal builder");
  }
  auto ts = [&](TypePtr t) { return Numbers<Int64Builder>(std::move(t), i64, 4); };
  std::vector<std::pair<std::string, Array>> cols = {
      {"f32", Numbers<FloatBuilder>(float32(), f32)},
      {"f64", Numbers<DoubleBuilder>(float64(), f64, 7)},
      {"i64", Numbers<Int64Builder>(int64(), i64)},
      {"u64", Numbers<UInt64Builder>(uint64(), u64)},
      {"i8", Numbers<Int8Builder>(int8(), i8)},
      {"u32", Numbers<UInt32Builder>(uint32(), u32)},
      {"dec38", Unwrap(dec.Finish(), "decimal builder")},
      {"ts_ns_tz", ts(timestamp(TimeUnit::kNano, "Asia/Kolkata"))},
      {"dur_s", ts(duration(TimeUnit::kSecond))},
  };
  // The columns with a null inserted have 11 rows: trim them all to 10.
  for (auto& [name, array] : cols)
    array = array.Slice(0, 10);
  return Unwrap(RecordBatch::FromColumns(cols), "special values batch");
}

void WriteAll(const std::string& dir) {
  const ipc::Compression kCompressions[] = {ipc::Compression::kNone, ipc::Compression::kLz4Frame,
                                            ipc::Compression::kZstd};

  // Every type, with nulls; slices of one batch (so dictionaries are shared, as the file format
  // requires) at offsets 0, 100 (empty), 137 and 261 (odd, not multiples of 8).
  RecordBatch big = RandomBatchOfAllTypes(400, 1);
  SchemaPtr schema = big.schema();
  std::vector<RecordBatch> sliced = {big.Slice(0, 100), big.Slice(100, 0), big.Slice(137, 123),
                                     big.Slice(261, 1)};
  for (Format format : {Format::kStream, Format::kFile}) {
    for (ipc::Compression c : kCompressions) {
      WriteCase(dir,
                fmt::format("cpp_all_types_{}_{}", format == Format::kFile ? "file" : "stream",
                            CompressionName(c)),
                format, c, schema, sliced);
    }
  }

  // Independently generated batches: each has its own dictionary, so the stream carries
  // replacement dictionaries.
  std::vector<RecordBatch> fresh = {RandomBatchOfAllTypes(50, 2), RandomBatchOfAllTypes(0, 3),
                                    RandomBatchOfAllTypes(200, 4).Slice(77, 99),
                                    RandomBatchOfAllTypes(31, 5)};
  WriteCase(dir, "cpp_all_types_fresh_stream_none", Format::kStream, ipc::Compression::kNone,
            schema, fresh);
  WriteCase(dir, "cpp_all_types_fresh_stream_zstd", Format::kStream, ipc::Compression::kZstd,
            schema, fresh);

  // Every column at its own odd offset within one batch.
  {
    std::vector<Array> cols;
    auto types = AllTypesForTesting();
    for (size_t i = 0; i < types.size(); ++i) {
      cols.push_back(
          RandomArray(types[i], 300, 600 + i).Slice(2 * static_cast<int64_t>(i) + 1, 57));
    }
    RecordBatch b = MakeBatch(schema, cols);
    WriteCase(dir, "cpp_mixed_offsets_stream", Format::kStream, ipc::Compression::kNone, schema,
              {b});
    WriteCase(dir, "cpp_mixed_offsets_file_lz4", Format::kFile, ipc::Compression::kLz4Frame, schema,
              {b});
  }

  // No nulls (no validity bitmaps) and only nulls.
  WriteCase(dir, "cpp_no_nulls_file", Format::kFile, ipc::Compression::kNone, schema,
            {RandomBatchOfAllTypes(70, 7, RandomOptions{.null_probability = 0})});
  WriteCase(dir, "cpp_all_nulls_stream_zstd", Format::kStream, ipc::Compression::kZstd, schema,
            {RandomBatchOfAllTypes(19, 8, RandomOptions{.null_probability = 1})});

  // Schema only; nothing but empty batches.
  WriteCase(dir, "cpp_empty_stream", Format::kStream, ipc::Compression::kNone, schema, {});
  WriteCase(dir, "cpp_empty_file", Format::kFile, ipc::Compression::kNone, schema, {});
  WriteCase(dir, "cpp_empty_batches_stream_zstd", Format::kStream, ipc::Compression::kZstd, schema,
            {RandomBatchOfAllTypes(0, 9), RandomBatchOfAllTypes(0, 10)});
  WriteCase(dir, "cpp_empty_batches_file_lz4", Format::kFile, ipc::Compression::kLz4Frame, schema,
            {big.Slice(399, 0), big.Slice(5, 0)});

  // A larger, compressible batch; small buffers left uncompressed (length -1).
  {
    ipc::WriteOptions options;
    options.zstd_level = 3;
    options.min_compress_bytes = 256;
    RecordBatch b = RandomBatchOfAllTypes(
        5000, 11, RandomOptions{.null_probability = 0.05, .distinct_values = 16});
    WriteCase(dir, "cpp_large_file_zstd_mixed", Format::kFile, ipc::Compression::kZstd, schema, {b},
              options);
    WriteCase(dir, "cpp_large_stream_lz4_mixed", Format::kStream, ipc::Compression::kLz4Frame,
              schema, {b.Slice(1001, 2999)}, options);
  }

  // Nested arrays whose children carry their own offsets.
  {
    std::vector<Array> cols = NestedWithChildOffsets();
    std::vector<std::pair<std::string, Array>> named;
    for (size_t i = 0; i < cols.size(); ++i)
      named.emplace_back(fmt::format("n{}", i), cols[i]);
    RecordBatch b = Unwrap(RecordBatch::FromColumns(named), "nested batch");
    for (ipc::Compression c : {ipc::Compression::kNone, ipc::Compression::kZstd}) {
      WriteCase(dir, fmt::format("cpp_child_offsets_stream_{}", CompressionName(c)),
                Format::kStream, c, b.schema(), {b, b.Slice(7, 25)});
      WriteCase(dir, fmt::format("cpp_child_offsets_file_{}", CompressionName(c)), Format::kFile, c,
                b.schema(), {b.Slice(1, 39), b});
    }
  }

  // Special values.
  {
    RecordBatch b = SpecialValues();
    WriteCase(dir, "cpp_special_values_stream", Format::kStream, ipc::Compression::kNone,
              b.schema(), {b, b.Slice(3, 5)});
    WriteCase(dir, "cpp_special_values_file_zstd", Format::kFile, ipc::Compression::kZstd,
              b.schema(), {b.Slice(1, 9), b});
  }

  // Dictionary-encoded strings: a dictionary shared by two batches, then a different one (a
  // replacement, stream only), a slice, and a dictionary that is itself a slice.
  {
    Array dict_a = StringArray({"alpha", "beta", nullptr, "gamma", "Zürich 東京"});
    Array dict_b = StringArray({"omega", "psi", "chi", "phi"}).Slice(1, 2);  // psi, chi
    auto dict_type = dictionary(int32(), utf8());
    auto dschema =
        std::make_shared<Schema>(std::vector<Field>{Field{"d", dict_type}, Field{"n", int32()}});
    auto batch = [&](const std::vector<int>& idx, const Array& dict, uint64_t seed) {
      Array d = Unwrap(MakeDictionaryArray(Int32Array(idx), dict), "dictionary array");
      return MakeBatch(dschema, {d, RandomArray(int32(), static_cast<int64_t>(idx.size()), seed)});
    };
    RecordBatch b1 = batch({0, 1, -1, 3, 2, 4, 0, 0, 1}, dict_a, 701);
    RecordBatch b2 = batch({4, 4, 3, -1, 0}, dict_a, 702);
    RecordBatch b3 = batch({1, 0, -1, 1, 1, 0, 0}, dict_b, 703);
    WriteCase(dir, "cpp_dict_stream", Format::kStream, ipc::Compression::kNone, dschema,
              {b1, b2, b3, b3.Slice(3, 3), b1.Slice(1, 0)});
    WriteCase(dir, "cpp_dict_stream_lz4", Format::kStream, ipc::Compression::kLz4Frame, dschema,
              {b1, b2, b3, b3.Slice(3, 3)});
    WriteCase(dir, "cpp_dict_file", Format::kFile, ipc::Compression::kNone, dschema,
              {b1, b2, b1.Slice(3, 5)});
    WriteCase(dir, "cpp_dict_file_zstd", Format::kFile, ipc::Compression::kZstd, dschema,
              {b3.Slice(1, 5), b3});
  }

  std::printf("%d flotilla cases written, %d failed\n", cases_written, cases_failed);
  if (cases_failed > 0) throw ToolError{fmt::format("{} cases could not be written", cases_failed)};
}

// ---- read ---------------------------------------------------------------------------------------

bool IsFileFormat(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char magic[6] = {};
  f.read(magic, 6);
  return f.gcount() == 6 && std::memcmp(magic, "ARROW1", 6) == 0;
}

void ReadOne(const std::string& path, const std::string& out) {
  SchemaPtr schema;
  std::vector<RecordBatch> batches;
  if (IsFileFormat(path)) {
    // Random access over the mapped file.
    auto reader = Unwrap(ipc::FileReader::Open(path), "opening " + path);
    schema = reader->schema();
    for (int i = 0; i < reader->num_batches(); ++i) {
      batches.push_back(
          Unwrap(reader->ReadBatch(i), fmt::format("reading batch {} of {}", i, path)));
    }
  } else {
    // Message by message from a sequential file stream.
    auto input = Unwrap(io::FileInputStream::Open(path), "opening " + path);
    auto reader = Unwrap(ipc::StreamReader::Open(std::move(input)), "opening stream " + path);
    schema = reader->schema();
    for (;;) {
      auto next =
          Unwrap(reader->Next(), fmt::format("reading batch {} of {}", batches.size(), path));
      if (!next) break;
      batches.push_back(std::move(*next));
    }
  }
  WriteText(out, CanonicalJson(*schema, batches));
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 2 && args[0] == "write") {
      WriteAll(args[1]);
      return 0;
    }
    if (args.size() == 3 && args[0] == "read") {
      ReadOne(args[1], args[2]);
      return 0;
    }
  } catch (const ToolError& e) {
    std::fprintf(stderr, "ipc_interop_tool: %s\n", e.message.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipc_interop_tool: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: ipc_interop_tool write DIR | read FILE OUT.json\n");
  return 2;
}

}  // namespace
}  // namespace flotilla

int main(int argc, char** argv) {
  return flotilla::Main(argc, argv);
}
