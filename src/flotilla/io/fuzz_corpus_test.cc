// The fuzzing seed corpora (fuzz/corpus/<format>, committed) replayed through the readers the way
// each fuzz target reads them: every seed is a valid file and must read whole, except the seeds
// kept from findings, which must fail the way their fixes decided. (Under the sanitizers in
// `make test`; the fuzz.burst.* tests then mutate these seeds for a few seconds.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "flotilla/io/csv/reader.h"
#include "flotilla/io/fs/file.h"
#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/json/scan_task.h"
#include "flotilla/io/parquet/reader.h"
#include "flotilla/io/text/infer.h"
#include "flotilla/io/warc/scan_task.h"
#include "fuzz/csv_dialect.h"

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

BufferPtr Bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return Buffer::CopyOf(bytes).ValueOrDie();
}

// Seeds kept from findings: file name -> what the error must say.
const std::map<std::string, std::string> kFindings = {
    // A page claiming more byte arrays than its bytes can hold once sized a 3 GiB allocation.
    {"plain-byte-array-count-beyond-page.parquet", "byte arrays in"},
    {"utf8-split-across-values.csv", "invalid UTF-8"},
};

// Every row group of every column; the first error, if any.
Status ReadParquet(const fs::path& path) {
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, parquet::ParquetFileReader::Open(path.string()));
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<int> fields, reader->FieldIndices(std::nullopt));
  if (reader->num_row_groups() == 0) return Status::Invalid("no row groups");
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, reader->ReadRowGroup(g, fields));
  }
  return Status::OK();
}

// As fuzz/csv_reader_fuzz.cc reads its input: the first byte the dialect, the rest the file.
Status ReadCsv(const fs::path& path) {
  BufferPtr bytes = Bytes(path);
  if (bytes->size() == 0) return Status::Invalid("empty seed");
  const csv::CsvReadOptions options = fuzz::CsvDialect(bytes->data()[0]);
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr rest, Buffer::CopyOf(bytes->view().substr(1)));
  auto file = MemoryFile(rest, path.filename().string());
  FLOTILLA_ASSIGN_OR_RETURN(csv::CsvFileInfo info, csv::InspectCsvFile(file.get(), options));
  std::vector<Field> fields;
  std::vector<int> all;
  for (size_t c = 0; c < info.columns.names.size(); ++c) {
    fields.push_back({info.columns.names[c], text::ToType(info.columns.columns[c])});
    all.push_back(static_cast<int>(c));
  }
  FLOTILLA_ASSIGN_OR_RETURN(
      RecordBatch batch,
      csv::ReadCsvRange(file.get(), info.data_offset, file->size(),
                        std::make_shared<Schema>(std::move(fields)), all, options.parse));
  if (batch.num_rows() == 0) return Status::Invalid("no rows");
  return Status::OK();
}

// Every task of a planned scan read, which must give rows.
Status ReadScan(Result<FileScan> planned) {
  FLOTILLA_ASSIGN_OR_RETURN(FileScan scan, std::move(planned));
  int64_t rows = 0;
  for (const auto& task : scan.tasks) {
    FLOTILLA_ASSIGN_OR_RETURN(auto batches, task->Read({}));
    for (const RecordBatch& b : batches)
      rows += b.num_rows();
  }
  if (rows == 0) return Status::Invalid("no rows");
  return Status::OK();
}

Status ReadJson(const fs::path& path) {
  return ReadScan(json::PlanJsonScan({path.string()}));
}

Status ReadWarc(const fs::path& path) {
  return ReadScan(warc::PlanWarcScan({path.string()}));
}

// A .stream seed through the stream reader, a .file seed through the file reader.
Status ReadIpc(const fs::path& path) {
  BufferPtr bytes = Bytes(path);
  if (path.extension() == ".stream") {
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, ipc::ReadStream(bytes));
    if (batches.empty()) return Status::Invalid("no batches");
    return Status::OK();
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto reader, ipc::FileReader::Open(bytes));
  if (reader->num_batches() == 0) return Status::Invalid("no batches");
  for (int i = 0; i < reader->num_batches(); ++i) {
    FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, reader->ReadBatch(i));
  }
  return Status::OK();
}

void ExpectSeeds(const std::string& format, Status (*read)(const fs::path&)) {
  const auto seeds = Seeds(format);
  ASSERT_FALSE(seeds.empty()) << format;
  for (const fs::path& seed : seeds) {
    const Status st = read(seed);
    auto finding = kFindings.find(seed.filename().string());
    if (finding == kFindings.end()) {
      EXPECT_TRUE(st.ok()) << seed << " is a valid seed and must read: " << st.ToString();
    } else {
      ASSERT_FALSE(st.ok()) << seed;
      EXPECT_NE(st.message().find(finding->second), std::string::npos) << st.ToString();
    }
  }
}

TEST(FuzzCorpus, ParquetSeeds) {
  ExpectSeeds("parquet", ReadParquet);
}
TEST(FuzzCorpus, CsvSeeds) {
  ExpectSeeds("csv", ReadCsv);
}
TEST(FuzzCorpus, JsonSeeds) {
  ExpectSeeds("json", ReadJson);
}
TEST(FuzzCorpus, WarcSeeds) {
  ExpectSeeds("warc", ReadWarc);
}
TEST(FuzzCorpus, CommittedIpcSeeds) {
  ExpectSeeds("ipc", ReadIpc);
}

}  // namespace
}  // namespace flotilla::io
