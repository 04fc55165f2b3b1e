#include "flotilla/distributed/worker_runtime.h"

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <filesystem>

#include "flotilla/columnar/builder.h"
#include "flotilla/common/logging.h"
#include "flotilla/distributed/proto/task.pb.h"
#include "flotilla/distributed/ref_proto.h"
#include "flotilla/distributed/shuffle_writer.h"
#include "flotilla/distributed/task_stats.h"
#include "flotilla/exec/memory/batch_size.h"
#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/exec/plan/plan_serde.h"
#include "flotilla/exec/plan/range_scan.h"
#include "flotilla/io/csv/scan_task.h"
#include "flotilla/io/dataset/dataset_writer.h"
#include "flotilla/io/dataset/hive_partitions.h"
#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/json/scan_task.h"
#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/parquet/scan_task.h"
#include "flotilla/io/warc/scan_task.h"

namespace flotilla::distributed {
namespace {

std::string QueryPrefix(int64_t query_id) {
  return "q" + std::to_string(query_id) + "/";
}

// The task's output: the files a WRITE task wrote, or the files a COMMIT moved into place.
Status CommitFiles(const proto::TaskOutput& output, const std::vector<RecordBatch>& tables,
                   std::vector<RecordBatch>* committed) {
  namespace fs = std::filesystem;
  const std::string root = output.root();
  const std::string staging = output.staging();
  for (const RecordBatch& table : tables) {
    int path_col = table.schema()->GetFieldIndex("path");
    if (path_col < 0) return Status::Invalid("commit: a staged files table has no 'path' column");
    const Array& paths = table.column(path_col);
    FLOTILLA_ASSIGN_OR_RETURN(std::unique_ptr<ArrayBuilder> builder, MakeBuilder(paths.type()));
    if (paths.type()->id() != TypeId::kString)
      return Status::Invalid("commit: the path column is not a string");
    auto* strings = static_cast<StringBuilder*>(builder.get());
    for (int64_t i = 0; i < table.num_rows(); ++i) {
      std::string path(paths.GetView(i));
      if (path.compare(0, staging.size() + 1, staging + "/") != 0) {
        return Status::Invalid("commit: staged file '" + path + "' is not under '" + staging + "'");
      }
      // staging/t<task>/[col=v/...]file -> root/[col=v/...]t<task>-file: names stay unique.
      std::string rel = path.substr(staging.size() + 1);
      size_t slash = rel.find('/');
      std::string task_dir = rel.substr(0, slash);
      fs::path rest(rel.substr(slash + 1));
      fs::path dest =
          fs::path(root) / rest.parent_path() / (task_dir + "-" + rest.filename().string());
      std::error_code ec;
      fs::create_directories(dest.parent_path(), ec);
      fs::rename(path, dest, ec);
      if (ec) {
        return Status::IOError("commit: cannot move '" + path + "' to '" + dest.string() +
                               "': " + ec.message());
      }
      FLOTILLA_RETURN_NOT_OK(strings->Append(dest.string()));
    }
    std::vector<Array> columns = table.columns();
    FLOTILLA_ASSIGN_OR_RETURN(columns[path_col], builder->Finish());
    FLOTILLA_ASSIGN_OR_RETURN(
        RecordBatch moved, RecordBatch::Make(table.schema(), std::move(columns), table.num_rows()));
    committed->push_back(std::move(moved));
  }
  std::error_code ec;
  fs::remove_all(staging, ec);
  return Status::OK();
}

Result<std::vector<RecordBatch>> WriteStaged(const proto::TaskOutput& output,
                                             const exec::QueryResult& result) {
  io::DatasetWriteOptions options;
  FLOTILLA_ASSIGN_OR_RETURN(options.format, io::ParseFileFormat(output.format()));
  for (const std::string& c : output.partition_by())
    options.partition_by.push_back(c);
  if (!output.compression().empty()) {
    FLOTILLA_ASSIGN_OR_RETURN(options.parquet.codec, io::parquet::ParseCodec(output.compression()));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto writer,
                            io::DatasetWriter::Open(output.staging(), result.schema, options));
  for (const MicroPartition& p : result.partitions) {
    for (const RecordBatch& b : p.batches()) {
      if (Status s = writer->Write(b); !s.ok()) {
        writer->Abort();
        return s;
      }
    }
  }
  FLOTILLA_ASSIGN_OR_RETURN(RecordBatch files, writer->Finish());
  return std::vector<RecordBatch>{std::move(files)};
}

}  // namespace

Result<std::unique_ptr<WorkerRuntime>> WorkerRuntime::Start(WorkerOptions options) {
  std::unique_ptr<WorkerRuntime> w(new WorkerRuntime());
  w->options_ = options;
  w->spill_dir_ = options.spill_dir;
  if (w->spill_dir_.empty()) {
    static std::atomic<int> counter{0};
    std::error_code error;
    const std::filesystem::path tmp = std::filesystem::temp_directory_path(error);
    if (error) {
      return Status::IOError(
          "worker: no directory for stored partitions: the temporary "
          "directory (TMPDIR) is not usable: " +
          error.message() + "; set TMPDIR or the worker's spill_dir");
    }
    w->spill_dir_ = (tmp / ("flotilla-worker-" + std::to_string(::getpid()) + "-" +
                            std::to_string(counter.fetch_add(1))))
                        .string();
    w->owns_spill_dir_ = true;
  }
  w->store_ = std::make_unique<PartitionStore>(options.store_memory_bytes, w->spill_dir_);
  PartitionStore* store = w->store_.get();
  FLOTILLA_ASSIGN_OR_RETURN(
      w->flight_, FlightServer::Start(
                      options.host, options.port, options.token,
                      [store](const std::string& ticket) -> Result<std::vector<ServedPartition>> {
                        // One id, or several one per line (MultiPartitionTicket).
                        std::vector<ServedPartition> out;
                        size_t start = 0;
                        while (start <= ticket.size()) {
                          size_t end = ticket.find('\n', start);
                          if (end == std::string::npos) end = ticket.size();
                          FLOTILLA_ASSIGN_OR_RETURN(
                              ServedPartition p, store->Locate(ticket.substr(start, end - start)));
                          out.push_back(std::move(p));
                          start = end + 1;
                        }
                        return out;
                      },
                      [store](const std::string& prefix) { return store->List(prefix); },
                      [self = w.get()](const std::string& type,
                                       const std::string& body) -> Result<std::string> {
                        // The driver's calls, straight to the worker (no Dask actor call).
                        if (type == "run_task") return self->RunTask(body);
                        if (type == "cancel_task") {
                          int64_t task = 0;
                          auto [end, error] =
                              std::from_chars(body.data(), body.data() + body.size(), task);
                          if (error != std::errc() || end != body.data() + body.size()) {
                            return Status::Invalid("cancel_task: not a task id: " + body);
                          }
                          self->CancelTask(task);
                          return std::string();
                        }
                        return Status::KeyError("no action '" + type + "'");
                      }));
  w->address_ = w->flight_->address();
  w->id_ = options.id.empty() ? w->address_ : options.id;
  return w;
}

WorkerRuntime::~WorkerRuntime() {
  flight_.reset();
  store_.reset();
  if (owns_spill_dir_) {
    std::error_code ec;
    std::filesystem::remove_all(spill_dir_, ec);
  }
}

void WorkerRuntime::RegisterUdf(const std::string& name, exec::BatchFunction function) {
  std::lock_guard lock(udfs_mutex_);
  udfs_[name] = std::move(function);
}

void WorkerRuntime::CancelTask(int64_t task_id) {
  std::lock_guard lock(running_mutex_);
  cancelled_.insert(task_id);
  auto it = running_.find(task_id);
  if (it != running_.end()) it->second->Cancel();
}

namespace {

// A hash shuffle's map task: the plan ends in a hash repartition and has no other (its writer
// would take the partitions of whichever ran).
bool HashRepartitionsOnlyAtRoot(const exec::PlanNode& plan) {
  if (plan.kind() != exec::PlanKind::kRepartition ||
      static_cast<const exec::RepartitionNode&>(plan).scheme != exec::PartitionScheme::kHash) {
    return false;
  }
  std::vector<const exec::PlanNode*> stack;
  for (const exec::PlanPtr& c : plan.children())
    stack.push_back(c.get());
  while (!stack.empty()) {
    const exec::PlanNode* node = stack.back();
    stack.pop_back();
    if (node->kind() == exec::PlanKind::kRepartition) return false;
    for (const exec::PlanPtr& c : node->children())
      stack.push_back(c.get());
  }
  return true;
}

}  // namespace

// exec::Run, but the stream is registered so CancelTask can stop it.
Result<exec::QueryResult> WorkerRuntime::Execute(int64_t task_id, const exec::PlanPtr& plan,
                                                 int64_t start_nanos, proto::TaskResult* out,
                                                 exec::PartitionWriter* writer) {
  exec::ExecOptions options = options_.exec;
  options.progress = 0;
  options.partition_writer = writer;
  FLOTILLA_ASSIGN_OR_RETURN(std::unique_ptr<exec::ResultStream> stream,
                            exec::Execute(plan, options));
  {
    std::lock_guard lock(running_mutex_);
    if (cancelled_.erase(task_id) > 0)
      return Status::Cancelled("task " + std::to_string(task_id) + " was cancelled");
    running_[task_id] = stream.get();
  }
  Result<exec::QueryResult> result = exec::CollectPartitions(stream.get());
  if (result.ok()) StatsToProto(stream->stats(), start_nanos, out);
  std::lock_guard lock(running_mutex_);
  running_.erase(task_id);
  if (cancelled_.erase(task_id) > 0 && !result.ok()) {
    return Status::Cancelled("task " + std::to_string(task_id) + " was cancelled");
  }
  return result;
}

void WorkerRuntime::DropQuery(int64_t query_id) {
  store_->DropPrefix(QueryPrefix(query_id));
  // Task ids carry their query id in the high 32 bits (query_driver.cc).
  std::lock_guard lock(running_mutex_);
  std::erase_if(cancelled_, [&](int64_t task) { return (task >> 32) == query_id; });
}

void WorkerRuntime::DropTaskOutputs(const std::vector<std::string>& keys) {
  for (const std::string& key : keys)
    store_->DropTask(key);
}

void WorkerRuntime::Sample(proto::WorkerSample* out) {
  out->set_time(
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    out->set_cpu_seconds(seconds(usage.ru_utime) + seconds(usage.ru_stime));
  }
  // statm's second field: resident pages.
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    long long size = 0, resident = 0;
    if (std::fscanf(f, "%lld %lld", &size, &resident) == 2) {
      out->set_rss_bytes(resident * sysconf(_SC_PAGESIZE));
    }
    std::fclose(f);
  }
  const PartitionStoreStats store = store_->stats();
  out->set_store_memory_bytes(store.memory_bytes);
  out->set_store_spilled_bytes(store.spilled_bytes);
  // The spill directory is made at the first spill: until then, its nearest existing parent.
  std::filesystem::path dir = spill_dir_;
  std::error_code ec;
  while (!dir.empty() && dir != dir.root_path() && !std::filesystem::exists(dir, ec))
    dir = dir.parent_path();
  struct statvfs disk {};
  if (!dir.empty() && statvfs(dir.c_str(), &disk) == 0) {
    out->set_disk_free_bytes(static_cast<int64_t>(disk.f_bavail) *
                             static_cast<int64_t>(disk.f_frsize));
  }
  out->set_flight_bytes_served(flight_bytes_served());
  for (const auto& [key, bytes] : store_->TakeSpilled()) {
    // Keys are TaskOutputKey(query, task, attempt), or PartitionKey: "q1/t42.1[/p0]".
    const size_t t = key.find("/t");
    if (t == std::string::npos) continue;
    proto::SpilledOutput* spilled = out->add_spilled();
    spilled->set_task_id(std::strtoll(key.c_str() + t + 2, nullptr, 10));
    spilled->set_bytes(bytes);
  }
  std::lock_guard lock(running_mutex_);
  out->set_running_tasks(static_cast<int32_t>(running_.size()));
}

std::string WorkerRuntime::SampleBytes() {
  proto::WorkerSample sample;
  Sample(&sample);
  return sample.SerializeAsString();
}

int64_t WorkerRuntime::flight_calls_served() const {
  return flight_ == nullptr ? 0 : flight_->calls_served();
}

int64_t WorkerRuntime::flight_bytes_served() const {
  return flight_ == nullptr ? 0 : flight_->bytes_served();
}

void WorkerRuntime::Stop() {
  flight_.reset();
  store_->DropPrefix("");
}

Result<std::vector<StoredPartition>> WorkerRuntime::Fetch(
    const std::vector<PartitionRef>& refs, bool keep, std::atomic<int64_t>* local_bytes,
    std::atomic<int64_t>* remote_bytes) const {
  auto count = [](const std::vector<StoredPartition>& parts, std::atomic<int64_t>* into) {
    if (into == nullptr) return;
    int64_t bytes = 0;
    for (const StoredPartition& p : parts)
      bytes += PartitionBytes(p.batches);
    into->fetch_add(bytes, std::memory_order_relaxed);
  };
  if (refs.empty()) return std::vector<StoredPartition>{};
  // A kept copy (under the same id: ids name one attempt's output, so a copy is never stale)
  // is read like local data.
  const bool kept = keep && std::all_of(refs.begin(), refs.end(), [&](const PartitionRef& r) {
                      return store_->Contains(r.id);
                    });
  if (refs[0].worker != id_ && !kept) {
    FLOTILLA_ASSIGN_OR_RETURN(
        std::vector<StoredPartition> pulled,
        FlightGetMany(refs[0].address, options_.token, MultiPartitionTicket(refs),
                      static_cast<int>(refs.size())));
    if (keep) {
      for (size_t i = 0; i < refs.size(); ++i)
        FLOTILLA_RETURN_NOT_OK(store_->Put(refs[i].id, pulled[i]));
    }
    count(pulled, remote_bytes);
    return pulled;
  }
  // Local data skips gRPC.
  std::vector<StoredPartition> out;
  for (const PartitionRef& r : refs) {
    FLOTILLA_ASSIGN_OR_RETURN(StoredPartition p, store_->Get(r.id));
    out.push_back(std::move(p));
  }
  count(out, local_bytes);
  return out;
}

Status WorkerRuntime::FetchEach(const std::vector<PartitionRef>& refs, bool keep,
                                std::atomic<int64_t>* local_bytes,
                                std::atomic<int64_t>* remote_bytes,
                                const std::function<Status(int, RecordBatch)>& each,
                                const PartitionRunFn& each_run) const {
  if (refs.empty()) return Status::OK();
  if (refs[0].worker != id_ && !keep) {
    auto count = [&](const RecordBatch& b) {
      if (remote_bytes != nullptr) {
        remote_bytes->fetch_add(exec::SliceBytes(b), std::memory_order_relaxed);
      }
    };
    PartitionRunFn counted_run;
    if (each_run != nullptr) {
      counted_run = [&](const std::vector<PartitionRows>& parts, RecordBatch b) {
        count(b);
        return each_run(parts, std::move(b));
      };
    }
    return FlightGetEach(
        refs[0].address, options_.token, MultiPartitionTicket(refs), static_cast<int>(refs.size()),
        [&](int i, RecordBatch b) {
          count(b);
          return each(i, std::move(b));
        },
        nullptr, counted_run);
  }
  if (refs[0].worker != id_) {
    // A kept copy is stored whole.
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<StoredPartition> parts,
                              Fetch(refs, keep, local_bytes, remote_bytes));
    for (size_t i = 0; i < parts.size(); ++i) {
      for (const RecordBatch& b : parts[i].batches)
        FLOTILLA_RETURN_NOT_OK(each(static_cast<int>(i), b));
    }
    return Status::OK();
  }
  // Local pieces one at a time: a spilled one is read back when its turn comes, so a reducer
  // holds one piece of what it reads here, not all of them.
  for (size_t i = 0; i < refs.size(); ++i) {
    FLOTILLA_ASSIGN_OR_RETURN(StoredPartition p, store_->Get(refs[i].id));
    if (local_bytes != nullptr) {
      local_bytes->fetch_add(PartitionBytes(p.batches), std::memory_order_relaxed);
    }
    for (RecordBatch& b : p.batches)
      FLOTILLA_RETURN_NOT_OK(each(static_cast<int>(i), std::move(b)));
  }
  return Status::OK();
}

void RegisterFileScanTasks(exec::PlanResolver* resolver) {
  io::parquet::RegisterParquetScanTasks(&resolver->scan_tasks);
  io::csv::RegisterCsvScanTasks(&resolver->scan_tasks);
  io::json::RegisterJsonScanTasks(&resolver->scan_tasks);
  io::warc::RegisterWarcScanTasks(&resolver->scan_tasks);
  io::RegisterHivePartitionTasks(&resolver->scan_tasks);
  exec::RegisterRangeScanTasks(&resolver->scan_tasks);
}

std::string WorkerRuntime::RunTask(std::string_view task_bytes) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t start_nanos = exec::SteadyNanos();
  proto::TaskResult out;
  out.set_worker(id_);
  proto::Task task;
  if (!task.ParseFromArray(task_bytes.data(), static_cast<int>(task_bytes.size()))) {
    out.set_error("worker " + id_ + ": malformed task message");
    return out.SerializeAsString();
  }
  // Its threads' log lines name it, and travel back with its result.
  const std::string context = "q" + std::to_string(task.query_id()) + " t" +
                              std::to_string(task.task_id()) + "." + std::to_string(task.attempt());
  log::ScopedContext scoped_context(std::make_shared<const std::string>(context));
  log::StartCapture(context);
  auto serialize = [&] {
    for (std::string& line : log::TakeCapture(context))
      out.add_log_lines(std::move(line));
    return out.SerializeAsString();
  };
  // The worker an input could not be read from (scan tasks read on several threads).
  std::mutex lost_mutex;
  std::string lost_worker;
  bool input_lost = false;
  auto note_lost = [&](const std::string& worker) {
    std::lock_guard lock(lost_mutex);
    if (!input_lost) lost_worker = worker;
    input_lost = true;
  };
  auto fail = [&](const Status& s) {
    out.set_error("task " + std::to_string(task.task_id()) + " (" + task.node_name() +
                  ") on worker " + id_ + ": " + s.ToString());
    std::lock_guard lock(lost_mutex);
    // Out of memory may be this worker's load, not the task's own need: worth another try.
    out.set_retryable(input_lost || s.code() == StatusCode::kOutOfMemory);
    out.set_lost_worker(lost_worker);
    out.set_code(static_cast<int32_t>(s.code()));
    log::Warn("[worker {}] {}", id_, out.error());
    return serialize();
  };

  exec::PlanResolver resolver;
  RegisterFileScanTasks(&resolver);
  std::atomic<int64_t> read_local{0}, read_remote{0};
  RegisterPartitionScanTasks(
      &resolver.scan_tasks, [&, this](const std::vector<PartitionRef>& refs, bool keep,
                                      const std::function<Status(int, RecordBatch)>& each,
                                      const PartitionRunFn& each_run) {
        Status consumer;  // the reading task's own errors name no lost worker
        PartitionRunFn run;
        if (each_run != nullptr) {
          run = [&](const std::vector<PartitionRows>& parts, RecordBatch b) {
            consumer = each_run(parts, std::move(b));
            return consumer;
          };
        }
        Status fetched = FetchEach(
            refs, keep, &read_local, &read_remote,
            [&](int i, RecordBatch b) {
              consumer = each(i, std::move(b));
              return consumer;
            },
            run);
        if (!fetched.ok() && consumer.ok() &&
            (fetched.code() == StatusCode::kIOError || fetched.code() == StatusCode::kKeyError)) {
          note_lost(refs[0].worker);
        }
        return fetched;
      });
  {
    std::lock_guard lock(udfs_mutex_);
    resolver.udfs = udfs_;
  }
  log::Debug("[worker {}] task {} attempt {}: {}", id_, task.task_id(), task.attempt(),
             task.node_name());
  std::vector<std::pair<SchemaPtr, std::vector<RecordBatch>>> outputs;
  std::unique_ptr<ShuffleWriter> shuffle_writer;  // a hash shuffle's map side
  const proto::TaskOutput& output = task.output();
  if (output.kind() == proto::TaskOutput::COMMIT) {
    // The inputs are the files tables of the WRITE tasks: no plan to run.
    std::vector<RecordBatch> staged, tables;
    SchemaPtr schema;
    for (const proto::PartitionRef& r : task.inputs()) {
      Result<std::vector<StoredPartition>> p =
          Fetch({RefFromProto(r)}, false, &read_local, &read_remote);
      if (!p.ok()) {
        note_lost(r.worker());
        return fail(p.status());
      }
      schema = (*p)[0].schema;
      staged.insert(staged.end(), (*p)[0].batches.begin(), (*p)[0].batches.end());
    }
    if (Status s = CommitFiles(output, staged, &tables); !s.ok()) return fail(s);
    outputs.emplace_back(schema, std::move(tables));
  } else {
    Result<exec::PlanPtr> plan = exec::DeserializePlan(task.plan(), resolver);
    if (!plan.ok()) return fail(plan.status());
    if (!output.shuffle_compression().empty() && HashRepartitionsOnlyAtRoot(**plan)) {
      Result<ipc::Compression> codec = ipc::ParseCompression(output.shuffle_compression());
      if (!codec.ok()) return fail(codec.status());
      const auto& root = static_cast<const exec::RepartitionNode&>(**plan);
      shuffle_writer = std::make_unique<ShuffleWriter>(
          store_.get(), root.schema(), root.num_partitions, *codec,
          options_.shuffle_flush_bytes > 0 ? options_.shuffle_flush_bytes : kShuffleFlushBytes);
    }
    Result<exec::QueryResult> result =
        Execute(task.task_id(), *plan, start_nanos, &out, shuffle_writer.get());
    if (!result.ok()) return fail(result.status());
    if (shuffle_writer != nullptr) {
      // The partitions went to the writer as they were split.
    } else if (output.kind() == proto::TaskOutput::INLINE) {
      std::vector<RecordBatch> rows;
      for (const MicroPartition& p : result->partitions) {
        rows.insert(rows.end(), p.batches().begin(), p.batches().end());
      }
      Result<BufferPtr> ipc = ipc::WriteStreamToBuffer(result->schema, rows);
      if (!ipc.ok()) return fail(ipc.status());
      out.set_inline_rows(std::string((*ipc)->view()));
      for (const RecordBatch& b : rows)
        out.set_rows(out.rows() + b.num_rows());
    } else if (output.kind() == proto::TaskOutput::WRITE) {
      Result<std::vector<RecordBatch>> written = WriteStaged(output, *result);
      if (!written.ok()) return fail(written.status());
      SchemaPtr schema = (*written).empty() ? result->schema : (*written)[0].schema();
      outputs.emplace_back(schema, written.MoveValueUnsafe());
    } else {
      for (const MicroPartition& p : result->partitions) {
        outputs.emplace_back(result->schema, p.batches());
      }
      // A shuffle's map side always offers every partition, empty or not.
      while (static_cast<int>(outputs.size()) < std::max(task.num_outputs(), 1)) {
        outputs.emplace_back(result->schema, std::vector<RecordBatch>{});
      }
    }
  }

  int64_t rows = 0, bytes = 0;
  out.set_address(address_);
  auto add_ref = [&](int i, int64_t num_rows, int64_t size_bytes) {
    out.add_output_rows(num_rows);
    out.add_output_bytes(size_bytes);
    rows += num_rows;
    bytes += size_bytes;
    return PartitionKey(task.query_id(), task.task_id(), task.attempt(), i);
  };
  if (shuffle_writer != nullptr) {
    const std::string key = TaskOutputKey(task.query_id(), task.task_id(), task.attempt());
    if (Status s = shuffle_writer->Finish(key); !s.ok()) return fail(s);
    for (size_t i = 0; i < shuffle_writer->rows().size(); ++i) {
      add_ref(static_cast<int>(i), shuffle_writer->rows()[i], shuffle_writer->bytes()[i]);
    }
    // What the writer held and wrote is the repartition's (the plan's root, its first operator).
    if (out.operators_size() > 0) {
      proto::OperatorStats* root = out.mutable_operators(0);
      root->set_peak_memory(std::max(root->peak_memory(), shuffle_writer->peak_bytes()));
      root->set_spilled_bytes(root->spilled_bytes() + shuffle_writer->file_bytes());
      out.set_peak_memory(std::max(out.peak_memory(), root->peak_memory()));
      out.set_spilled_bytes(out.spilled_bytes() + shuffle_writer->file_bytes());
    }
  } else if (!output.shuffle_compression().empty()) {
    // A shuffle's map side: its partitions as one entry ("<key>/p<i>", one spill file).
    Result<ipc::Compression> codec = ipc::ParseCompression(output.shuffle_compression());
    if (!codec.ok()) return fail(codec.status());
    SchemaPtr schema = outputs.empty() ? nullptr : outputs[0].first;
    std::vector<std::vector<RecordBatch>> partitions;
    for (auto& [_, batches] : outputs) {
      StoredPartition p{schema, std::move(batches)};
      add_ref(static_cast<int>(partitions.size()), p.num_rows(), PartitionBytes(p.batches));
      partitions.push_back(std::move(p.batches));
    }
    if (Status s = store_->PutGroup(TaskOutputKey(task.query_id(), task.task_id(), task.attempt()),
                                    std::move(schema), std::move(partitions), *codec);
        !s.ok()) {
      return fail(s);
    }
  } else {
    for (size_t i = 0; i < outputs.size(); ++i) {
      StoredPartition p{outputs[i].first, std::move(outputs[i].second)};
      std::string id = add_ref(static_cast<int>(i), p.num_rows(), PartitionBytes(p.batches));
      if (Status s = store_->Put(id, std::move(p)); !s.ok()) return fail(s);
    }
  }
  out.set_rows(out.rows() + rows);  // an inline result counted its rows already
  out.set_bytes(bytes);
  out.set_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  out.set_read_local_bytes(read_local.load());
  out.set_read_remote_bytes(read_remote.load());
  Sample(out.mutable_sample());
  return serialize();
}

}  // namespace flotilla::distributed
