// The fuzzing seed corpora replayed through the readers: every seed reads or fails with an
// error (under the sanitizers in `make test`), and the seeds kept from findings fail the way
// their fixes decided.
#include <gtest/gtest.h>

#include <filesystem>

#include "flotilla/io/csv/scan_task.h"
#include "flotilla/io/json/scan_task.h"
#include "flotilla/io/parquet/reader.h"

namespace flotilla::io {
namespace {

namespace fs = std::filesystem;

// fuzz/corpus/<format> of the source tree (this file is src/flotilla/io/fuzz_corpus_test.cc).
fs::path Corpus(const std::string& format) {
  return fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path() / "fuzz" /
         "corpus" / format;
}

std::vector<fs::path> Seeds(const std::string& format) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(Corpus(format)))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Every row group of every column; the first error, if any.
Status ReadParquet(const fs::path& path) {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, parquet::ParquetFileReader::Open(path.string()));
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<int> fields, reader->FieldIndices(std::nullopt));
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, reader->ReadRowGroup(g, fields));
  }
  return Status::OK();
}

template <typename Plan>
Status ReadAll(const Plan& plan) {
  FLOTILLA_ASSIGN_OR_RETURN(FileScan scan, plan);
  for (const auto& task : scan.tasks) {
    FLOTILLA_ASSIGN_OR_RETURN(auto batches, task->Read({}));
  }
  return Status::OK();
}

TEST(FuzzCorpus, ParquetSeeds) {
  const auto seeds = Seeds("parquet");
  ASSERT_FALSE(seeds.empty());
  for (const fs::path& seed : seeds) {
    const Status st = ReadParquet(seed);
    // A page claiming more byte arrays than its bytes can hold once sized a 3 GiB allocation.
    if (seed.filename() == "plain-byte-array-count-beyond-page.parquet") {
      ASSERT_FALSE(st.ok());
      EXPECT_NE(st.message().find("byte arrays in"), std::string::npos) << st.ToString();
    }
  }
}

TEST(FuzzCorpus, CsvAndJsonSeeds) {
  // The CSV seeds start with the fuzz target's dialect byte; read as plain CSV they still must
  // read or fail cleanly.
  for (const fs::path& seed : Seeds("csv")) {
    const Status st = ReadAll(csv::PlanCsvScan({seed.string()}));
    if (seed.filename() == "utf8-split-across-values.csv") {
      EXPECT_FALSE(st.ok());
      EXPECT_NE(st.message().find("invalid UTF-8"), std::string::npos) << st.ToString();
    }
  }
  for (const fs::path& seed : Seeds("json")) EXPECT_TRUE(ReadAll(json::PlanJsonScan({seed.string()})).ok()) << seed;
}

}  // namespace
}  // namespace flotilla::io
