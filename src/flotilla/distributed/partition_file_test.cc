#include "flotilla/distributed/partition_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/plan_checks.h"

namespace flotilla::distributed {
namespace {

using namespace flotilla::testing;

RecordBatch Rows(int64_t first, int64_t n) {
  std::vector<std::optional<int64_t>> v;
  std::vector<std::optional<std::string>> s;
  for (int64_t i = first; i < first + n; ++i) {
    v.push_back(i);
    s.push_back(i % 5 == 0 ? std::nullopt : std::optional<std::string>("row " + std::to_string(i)));
  }
  return Batch({{"v", I64(v)}, {"s", Strs(s)}});
}

class PartitionFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("flotilla-partition-file-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

// Chunks of several partitions appended in any interleaving read back as each partition's own
// stream, in the order appended, with every codec.
TEST_F(PartitionFileTest, ChunksOfInterleavedPartitionsReadBackAsEachPartitionsStream) {
  for (ipc::Compression codec :
       {ipc::Compression::kNone, ipc::Compression::kLz4Frame, ipc::Compression::kZstd}) {
    const SchemaPtr schema = Rows(0, 1).schema();
    auto writer = PartitionFileWriter::Open(Path("f.arrows"), schema, 4, codec);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    std::vector<std::vector<RecordBatch>> want(4);
    auto append = [&](int p, std::vector<RecordBatch> batches) {
      ASSERT_TRUE((*writer)->Append(p, batches).ok());
      for (RecordBatch& b : batches)
        if (b.num_rows() > 0) want[static_cast<size_t>(p)].push_back(std::move(b));
    };
    append(0, {Rows(0, 100), Rows(100, 3)});
    append(2, {Rows(1000, 5000)});
    append(0, {Rows(103, 1)});
    append(3, {Rows(7, 0)});  // no rows: no chunk
    append(2, {Rows(6000, 10), Rows(6010, 20000)});
    auto index = (*writer)->Finish();
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    EXPECT_EQ(static_cast<int64_t>(std::filesystem::file_size(Path("f.arrows"))),
              index->FileBytes());
    EXPECT_EQ(index->chunks[0].size(), 2u);
    EXPECT_EQ(index->chunks[1].size(), 0u);
    EXPECT_EQ(index->chunks[3].size(), 0u);
    EXPECT_EQ(index->rows[2], 25010);
    for (int p = 0; p < 4; ++p) {
      auto stream = ReadPartitionStream(Path("f.arrows"), *index, p);
      ASSERT_TRUE(stream.ok()) << stream.status().ToString();
      EXPECT_EQ((*stream)->size(), index->StreamBytes(p));
      // An independent reader of the format, not the partition's own decoder.
      SchemaPtr read_schema;
      auto batches = ipc::ReadStream(*stream, &read_schema);
      ASSERT_TRUE(batches.ok()) << batches.status().ToString();
      ASSERT_NE(read_schema, nullptr);
      EXPECT_TRUE(read_schema->Equals(*schema));
      EXPECT_EQ(CanonicalJson(*schema, *batches),
                CanonicalJson(*schema, want[static_cast<size_t>(p)]))
          << "partition " << p;
    }
  }
}

TEST_F(PartitionFileTest, AFileCutShortIsAnErrorNamingIt) {
  auto writer = PartitionFileWriter::Open(Path("short.arrows"), Rows(0, 1).schema(), 1,
                                          ipc::Compression::kNone);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(0, {Rows(0, 1000)}).ok());
  auto index = (*writer)->Finish();
  ASSERT_TRUE(index.ok());
  std::filesystem::resize_file(Path("short.arrows"), 100);
  auto stream = ReadPartitionStream(Path("short.arrows"), *index, 0);
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.status().code(), StatusCode::kIOError);
  EXPECT_NE(stream.status().message().find("short.arrows"), std::string::npos)
      << stream.status().ToString();
  std::filesystem::remove(Path("short.arrows"));
  stream = ReadPartitionStream(Path("short.arrows"), *index, 0);
  ASSERT_FALSE(stream.ok());
  EXPECT_NE(stream.status().message().find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::distributed
