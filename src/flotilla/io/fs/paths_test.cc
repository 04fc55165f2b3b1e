// Expanding paths: a directory's files, hidden ones skipped, and symlinks to directories followed
// once each, so a link back up the tree neither counts files again nor loops.
#include "flotilla/io/fs/paths.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace flotilla::io {
namespace {

namespace fs = std::filesystem;

class PathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("paths_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
    std::ofstream(dir_ / "a.csv") << "x\n1\n";
    std::ofstream(dir_ / "sub" / "b.csv") << "x\n2\n";
    std::ofstream(dir_ / "_hidden.csv") << "x\n3\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> Names(const std::string& pattern) {
    auto files = ExpandPaths({pattern});
    EXPECT_TRUE(files.ok()) << files.status().ToString();
    std::vector<std::string> out;
    if (files.ok())
      for (const FileEntry& f : *files)
        out.push_back(fs::relative(f.path, dir_).string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
};

TEST_F(PathsTest, SymlinkCyclesAreWalkedOnce) {
  fs::create_directory_symlink(dir_, dir_ / "sub" / "up");    // back to the top
  fs::create_directory_symlink(dir_, dir_ / "again");         // and a second way there
  fs::create_directory_symlink(dir_ / "sub", dir_ / "side");  // another name for sub
  std::vector<std::string> got = Names(dir_.string());
  // sub and side are the same directory: one of the two names lists b.csv.
  ASSERT_EQ(got.size(), 2u) << ::testing::PrintToString(got);
  EXPECT_EQ(got[0], "a.csv");
  EXPECT_TRUE(got[1] == "side/b.csv" || got[1] == "sub/b.csv") << got[1];
  // A glob names files itself (_hidden.csv matches *.csv); the cycle still adds nothing.
  got = Names((dir_ / "**" / "*.csv").string());
  EXPECT_EQ(got.size(), 3u) << ::testing::PrintToString(got);
}

TEST_F(PathsTest, HiddenFilesAndDirectoriesAreSkipped) {
  fs::create_directories(dir_ / ".cache");
  std::ofstream(dir_ / ".cache" / "c.csv") << "x\n4\n";
  EXPECT_EQ(Names(dir_.string()), (std::vector<std::string>{"a.csv", "sub/b.csv"}));
}

}  // namespace
}  // namespace flotilla::io
