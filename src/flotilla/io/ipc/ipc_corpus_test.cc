// Writes the fuzzing seed corpus when FLOTILLA_WRITE_IPC_CORPUS names a directory:
//   FLOTILLA_WRITE_IPC_CORPUS=fuzz/corpus/ipc ./build/io_test --gtest_filter='IpcCorpus.*'
// Without it the test only checks that each seed reads back.

#include <gtest/gtest.h>

#include <cstdlib>

#include "flotilla/columnar/builder.h"
#include "flotilla/io/ipc/ipc.h"
#include "tests/support/random_data.h"

namespace flotilla::ipc {
namespace {

TEST(IpcCorpus, Seeds) {
  std::vector<std::pair<std::string, BufferPtr>> seeds;
  auto schema_of = [](std::vector<TypePtr> types) {
    std::vector<Field> fields;
    for (size_t i = 0; i < types.size(); ++i)
      fields.push_back({"f" + std::to_string(i), types[i]});
    return std::make_shared<Schema>(std::move(fields));
  };
  auto batch_of = [](const SchemaPtr& schema, int64_t rows, uint64_t seed) {
    std::vector<Array> columns;
    for (const Field& f : schema->fields()) {
      columns.push_back(
          flotilla::testing::RandomArray(f.type, rows, seed, {.null_probability = 0.3}));
    }
    return RecordBatch::Make(schema, columns).ValueOrDie();
  };
  const std::vector<std::pair<std::string, std::vector<TypePtr>>> groups = {
      {"primitive", {int32(), float64(), boolean(), null()}},
      {"binary", {utf8(), large_binary(), fixed_size_binary(3)}},
      {"nested", {list(int16()), fixed_size_list(int8(), 2), struct_({Field{"a", utf8()}})}},
      {"dict", {dictionary(int8(), utf8()), list(dictionary(int16(), binary()))}},
      {"temporal",
       {decimal128(10, 2), date32(), timestamp(TimeUnit::kMicro, "UTC"),
        duration(TimeUnit::kSecond)}},
  };
  for (const auto& [name, types] : groups) {
    SchemaPtr schema = schema_of(types);
    RecordBatch b = batch_of(schema, 5, 1);
    for (auto [cname, c] :
         {std::pair{"", Compression::kNone}, std::pair{"_lz4", Compression::kLz4Frame},
          std::pair{"_zstd", Compression::kZstd}}) {
      if (c != Compression::kNone && name != "primitive" && name != "binary") continue;
      WriteOptions o{.compression = c};
      seeds.emplace_back(name + cname + ".stream",
                         WriteStreamToBuffer(schema, {b, b.Slice(1, 3)}, o).ValueOrDie());
      seeds.emplace_back(name + cname + ".file", WriteFileToBuffer(schema, {b}, o).ValueOrDie());
    }
  }
  const char* dir = std::getenv("FLOTILLA_WRITE_IPC_CORPUS");
  for (const auto& [name, bytes] : seeds) {
    EXPECT_LT(bytes->size(), 4096) << name;
    if (name.ends_with(".stream")) {
      EXPECT_TRUE(ReadStream(bytes).ok()) << name;
    } else {
      EXPECT_TRUE(FileReader::Open(bytes).ok()) << name;
    }
    if (dir != nullptr) {
      auto out = io::FileOutputStream::Open(std::string(dir) + "/" + name);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ASSERT_TRUE((*out)->Write(bytes->data(), bytes->size()).ok());
      ASSERT_TRUE((*out)->Close().ok());
    }
  }
}

}  // namespace
}  // namespace flotilla::ipc
