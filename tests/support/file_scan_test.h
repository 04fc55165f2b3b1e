#pragma once
// A test fixture for the file readers: a scratch directory per test process, files written into
// it, and a planned scan run through the engine into one batch.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/io/file_scan.h"

namespace flotilla::testing {

class FileScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string suite =
        ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name();
    dir_ = std::filesystem::temp_directory_path() /
           ("flotilla_" + suite + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Writes `bytes` to `name` in the scratch directory; returns its path.
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  static Result<RecordBatch> Scan(const io::FileScan& scan, io::ScanPushdowns pushdowns = {}) {
    FLOTILLA_ASSIGN_OR_RETURN(exec::PlanPtr plan,
                              exec::MakeScan(scan.schema, scan.tasks, std::move(pushdowns)));
    FLOTILLA_ASSIGN_OR_RETURN(exec::QueryResult result, exec::Run(plan));
    return result.ToBatch();
  }

  std::filesystem::path dir_;
};

}  // namespace flotilla::testing
