#include "flotilla/io/stream.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace flotilla::io {
namespace {

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/flotilla_stream_" + std::to_string(::getpid()) + "_" + name;
}

TEST(Streams, FileWriteThenReadAndMap) {
  const std::string path = TempPath("data.bin");
  std::string expected;
  {
    auto out = FileOutputStream::Open(path);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (int i = 0; i < 1000; ++i) {
      std::string piece = std::to_string(i) + ",";
      expected += piece;
      ASSERT_TRUE((*out)->Write(piece.data(), static_cast<int64_t>(piece.size())).ok());
    }
    std::string big(3 << 20, 'x');  // larger than the write buffer
    expected += big;
    ASSERT_TRUE((*out)->Write(big.data(), static_cast<int64_t>(big.size())).ok());
    EXPECT_EQ((*out)->Tell(), static_cast<int64_t>(expected.size()));
    ASSERT_TRUE((*out)->Close().ok());
  }
  auto mapped = MapFile(path);
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_EQ((*mapped)->view(), expected);
  EXPECT_FALSE((*mapped)->is_owned());
  auto read = ReadFile(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ((*read)->view(), expected);

  auto in = FileInputStream::Open(path);
  ASSERT_TRUE(in.ok());
  auto first = (*in)->Read(4);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)->view(), expected.substr(0, 4));
  auto rest = (*in)->Read(1LL << 40);  // far more than the file: returns what is there
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ((*rest)->view(), expected.substr(4));
  EXPECT_EQ((*in)->Tell(), static_cast<int64_t>(expected.size()));
  ::unlink(path.c_str());
}

TEST(Streams, ErrorsNameThePath) {
  auto missing = MapFile("/nonexistent/flotilla/file");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIOError);
  EXPECT_NE(missing.status().message().find("/nonexistent/flotilla/file"), std::string::npos);
  EXPECT_NE(missing.status().message().find("No such file"), std::string::npos);
  EXPECT_FALSE(FileOutputStream::Open("/nonexistent/dir/x").ok());
  EXPECT_FALSE(FileInputStream::Open("/nonexistent/dir/x").ok());
}

TEST(Streams, EmptyFileMaps) {
  const std::string path = TempPath("empty.bin");
  ASSERT_TRUE((*FileOutputStream::Open(path))->Close().ok());
  auto mapped = MapFile(path);
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ((*mapped)->size(), 0);
  ::unlink(path.c_str());
}

TEST(Streams, BufferReaderIsZeroCopyAndClamps) {
  BufferOutputStream out;
  ASSERT_TRUE(out.Write("hello world", 11).ok());
  auto buffer = out.Finish();
  ASSERT_TRUE(buffer.ok());
  BufferReader reader(*buffer);
  auto a = reader.Read(5);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ((*a)->view(), "hello");
  EXPECT_EQ((*a)->data(), (*buffer)->data());
  auto b = reader.Read(100);
  EXPECT_EQ((*b)->view(), " world");
  EXPECT_EQ((*reader.Read(1))->size(), 0);
  EXPECT_EQ((*reader.ReadAt(6, 100))->view(), "world");
  EXPECT_EQ((*reader.ReadAt(600, 1))->size(), 0);
  EXPECT_FALSE(reader.ReadAt(-1, 1).ok());
}

}  // namespace
}  // namespace flotilla::io
