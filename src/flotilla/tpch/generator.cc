#include "flotilla/tpch/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <future>
#include <thread>

#include "flotilla/common/thread_pool.h"
#include "flotilla/io/fs/atomic_write.h"
#include "flotilla/io/parquet/writer.h"

namespace flotilla::tpch {

namespace {

namespace fs = std::filesystem;

/// Units generated per task: about 100,000 rows.
int64_t ChunkUnits(Table table) {
  switch (table) {
    case Table::kPartSupp:
    case Table::kOrders:
    case Table::kLineitem:
      return 25000;
    default:
      return 100000;
  }
}

/// Writes units [begin, end) of `table` to one Parquet file, generating up to `window` chunks
/// ahead on `pool` while this thread hands finished chunks to the writer in order.
Status WriteFile(ThreadPool& pool, Table table, const Scale& scale, int64_t begin, int64_t end,
                 const std::string& path, const io::parquet::ParquetWriteOptions& write_options,
                 int64_t* rows) {
  const int64_t chunk = ChunkUnits(table);
  const int window = 2 * pool.num_threads();
  return io::WriteFileAtomically(path, [&](std::unique_ptr<io::OutputStream> out) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(auto writer, io::parquet::ParquetFileWriter::Open(
                                               std::move(out), TableSchema(table), write_options));
    std::deque<std::future<Result<RecordBatch>>> pending;
    int64_t next = begin;
    auto submit = [&] {
      const int64_t from = next;
      const int64_t to = std::min(end, next + chunk);
      next = to;
      auto task = std::make_shared<std::packaged_task<Result<RecordBatch>()>>(
          [table, &scale, from, to] { return GenerateRows(table, scale, from, to); });
      pending.push_back(task->get_future());
      pool.Submit([task] { (*task)(); });
    };
    Status status;
    while (next < end && static_cast<int>(pending.size()) < window)
      submit();
    while (!pending.empty()) {
      Result<RecordBatch> batch = pending.front().get();
      pending.pop_front();
      if (!status.ok()) continue;  // drain the tasks still referring to this frame
      if (!batch.ok()) {
        status = batch.status();
        continue;
      }
      *rows += batch->num_rows();
      status = writer->Write(*batch);
      if (status.ok() && next < end) submit();
    }
    FLOTILLA_RETURN_NOT_OK(status);
    return writer->Close();
  });
}

Status CheckLayout(const std::string& dir, Table table, bool as_directory) {
  const fs::path file = fs::path(dir) / (std::string(TableName(table)) + ".parquet");
  const fs::path folder = fs::path(dir) / TableName(table);
  std::error_code ec;
  if (as_directory && fs::exists(file, ec)) {
    return Status::Invalid(fmt::format(
        "'{}' exists, and this run writes {} as a directory of files: remove it or write to "
        "another directory",
        file.string(), TableName(table)));
  }
  if (!as_directory && fs::is_directory(folder, ec)) {
    return Status::Invalid(fmt::format(
        "'{}/' exists, and this run writes {} as one file: remove it or write to another "
        "directory",
        folder.string(), TableName(table)));
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<GeneratedTable>> GenerateTables(const GenerateOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(const Scale scale, Scale::Of(options.scale_factor));
  if (options.out_dir.empty()) return Status::Invalid("no output directory given");
  if (options.files_per_table < 1) {
    return Status::Invalid(
        fmt::format("files per table must be at least 1, got {}", options.files_per_table));
  }
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  ThreadPool pool(threads);
  io::parquet::ParquetWriteOptions write_options;
  write_options.encode_threads = threads;
  write_options.row_group_rows = options.row_group_rows;

  std::vector<Table> tables = options.tables;
  if (tables.empty()) tables.assign(std::begin(kAllTables), std::end(kAllTables));
  const bool as_directory = options.files_per_table > 1;
  for (Table table : tables)
    FLOTILLA_RETURN_NOT_OK(CheckLayout(options.out_dir, table, as_directory));

  std::vector<GeneratedTable> written;
  for (Table table : tables) {
    const auto start = std::chrono::steady_clock::now();
    GeneratedTable result{table};
    const int64_t units = TableUnits(table, scale);
    const int64_t files = std::min<int64_t>(options.files_per_table, units);
    for (int64_t f = 0; f < files; ++f) {
      const std::string path =
          as_directory ? fmt::format("{}/{}/part-{}.parquet", options.out_dir, TableName(table), f)
                       : fmt::format("{}/{}.parquet", options.out_dir, TableName(table));
      FLOTILLA_RETURN_NOT_OK(WriteFile(pool, table, scale, units * f / files,
                                       units * (f + 1) / files, path, write_options, &result.rows));
      std::error_code ec;
      result.bytes += static_cast<int64_t>(fs::file_size(path, ec));
      ++result.files;
    }
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    written.push_back(result);
  }
  return written;
}

}  // namespace flotilla::tpch
