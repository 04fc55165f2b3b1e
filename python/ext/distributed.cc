// The distributed runner's pieces, driven by python/flotilla/dask_runner.py: the worker runtime
// each Dask worker hosts, the query driver, and the query loop run over a Python backend (the
// Dask actors), so that the loop is the same C++ the in-process cluster runs.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <optional>

#include "bindings.h"
#include "convert.h"
#include "flotilla/compute/concat.h"
#include "flotilla/dataframe/dataframe.h"
#include "flotilla/distributed/chrome_trace.h"
#include "flotilla/distributed/flight_task_backend.h"
#include "flotilla/distributed/local_query_events.h"
#include "flotilla/distributed/query_loop.h"
#include "flotilla/distributed/worker_runtime.h"
#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/parquet/reader_cache.h"
#include "flotilla/sql/parser.h"

namespace flotilla::python {
namespace {

// Task events to Python callables, as dicts: one dict per event, handed to each in turn (one
// GIL acquisition for all of them). The driver may call from a loop that released the GIL; a
// subscriber that raises does not stop the query.
struct PyEventSubscriber final : distributed::EventSubscriber {
  std::vector<py::function> fns;
  void OnEvent(const distributed::TaskEvent& e) override {
    py::gil_scoped_acquire gil;
    py::dict event(
        py::arg("event") = distributed::TaskEventKindName(e.kind), py::arg("query") = e.query_id,
        py::arg("task") = e.task_id, py::arg("node") = e.node_id,
        py::arg("node_name") = e.node_name, py::arg("worker") = e.worker,
        py::arg("attempt") = e.attempt, py::arg("seconds") = e.seconds, py::arg("rows") = e.rows,
        py::arg("bytes") = e.bytes, py::arg("message") = e.message, py::arg("time") = e.time);
    if (e.kind == distributed::TaskEventKind::kCompleted) {
      event["cpu_seconds"] = e.cpu_seconds;
      event["peak_memory"] = e.peak_memory;
      event["spilled_bytes"] = e.spilled_bytes;
      py::list operators;
      for (const distributed::TaskOperator& op : e.operators) {
        operators.append(py::dict(py::arg("name") = op.name, py::arg("depth") = op.depth,
                                  py::arg("rows_out") = op.rows_out,
                                  py::arg("cpu_seconds") = op.cpu_seconds,
                                  py::arg("start") = op.start, py::arg("end") = op.end));
      }
      event["operators"] = std::move(operators);
    }
    if (e.kind == distributed::TaskEventKind::kQueryStarted) event["plan"] = e.plan;
    if (e.kind == distributed::TaskEventKind::kNodeStarted) event["inputs"] = e.inputs;
    if (e.kind == distributed::TaskEventKind::kWorkerSample) {
      const distributed::WorkerResources& r = e.resources;
      event["resources"] = py::dict(
          py::arg("cpu_percent") = r.cpu_percent, py::arg("cpu_seconds") = r.cpu_seconds,
          py::arg("rss_bytes") = r.rss_bytes, py::arg("store_memory_bytes") = r.store_memory_bytes,
          py::arg("store_spilled_bytes") = r.store_spilled_bytes,
          py::arg("disk_free_bytes") = r.disk_free_bytes,
          py::arg("flight_bytes_served") = r.flight_bytes_served,
          py::arg("running_tasks") = r.running_tasks);
    }
    Send(event);
  }
  void OnQueryFinished(const distributed::QueryEnd& e) override {
    py::gil_scoped_acquire gil;
    Send(py::dict(py::arg("event") = "query_finished", py::arg("query") = e.query_id,
                  py::arg("status") = e.status.ok() ? std::string("ok") : e.status.ToString(),
                  py::arg("seconds") = e.seconds, py::arg("tasks") = e.tasks,
                  py::arg("attempts") = e.attempts, py::arg("rows") = e.rows,
                  py::arg("bytes") = e.bytes, py::arg("cpu_seconds") = e.cpu_seconds));
  }
  void Send(const py::dict& event) {
    for (py::function& fn : fns) {
      try {
        fn(event);
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("a distributed query's event subscriber");
      }
    }
  }
};

// An event log, a trace and Python callables as the subscribers of a query.
std::vector<std::shared_ptr<distributed::EventSubscriber>> Subscribers(
    const std::optional<std::string>& event_log, const std::optional<std::string>& trace,
    std::vector<py::function> fns) {
  std::vector<std::shared_ptr<distributed::EventSubscriber>> out;
  if (event_log) out.push_back(Check(distributed::JsonLinesEventLog::Open(*event_log)));
  if (trace) out.push_back(Check(distributed::ChromeTrace::Open(*trace)));
  if (!fns.empty()) {
    auto sub = std::make_shared<PyEventSubscriber>();
    sub->fns = std::move(fns);
    out.push_back(std::move(sub));
  }
  return out;
}

// Per pipeline node (explain analyze): {node, name, tasks, attempts, rows, seconds, output_bytes,
// spilled_bytes, read_local_bytes, read_remote_bytes, operators:
// [{name, detail, depth, rows_in, rows_out, bytes_in, bytes_out, cpu_seconds, peak_memory,
// spilled_bytes, wall_seconds, tasks}]}.
py::list AnalysisToPython(const std::vector<distributed::NodeAnalysis>& nodes) {
  py::list out;
  for (const distributed::NodeAnalysis& n : nodes) {
    py::list operators;
    for (size_t i = 0; i < n.operators.size(); ++i) {
      const distributed::OperatorInfo& op = n.operators[i];
      const distributed::OperatorFigures& f = n.totals[i];
      operators.append(py::dict(
          py::arg("name") = op.name, py::arg("detail") = op.detail, py::arg("depth") = op.depth,
          py::arg("rows_in") = f.rows_in, py::arg("rows_out") = f.rows_out,
          py::arg("bytes_in") = f.bytes_in, py::arg("bytes_out") = f.bytes_out,
          py::arg("cpu_seconds") = static_cast<double>(f.cpu_nanos) / 1e9,
          py::arg("peak_memory") = f.peak_memory, py::arg("spilled_bytes") = f.spilled_bytes,
          py::arg("wall_seconds") = static_cast<double>(f.wall_nanos) / 1e9,
          py::arg("tasks") = f.tasks));
    }
    out.append(py::dict(
        py::arg("node") = n.node, py::arg("name") = n.name, py::arg("tasks") = n.tasks,
        py::arg("attempts") = n.attempts, py::arg("rows") = n.rows, py::arg("seconds") = n.seconds,
        py::arg("output_bytes") = n.output_bytes, py::arg("spilled_bytes") = n.spilled_bytes,
        py::arg("read_local_bytes") = n.read_local_bytes,
        py::arg("read_remote_bytes") = n.read_remote_bytes,
        py::arg("operators") = std::move(operators)));
  }
  return out;
}

// The query loop's backend, implemented by a Python object with
//   submit(worker, task_id, task: bytes) -> bool (False: the worker is gone)
//   cancel(worker, task_id)
//   release(worker, keys: [str])  (drop stored outputs no task reads any more; best effort)
//   request_sample(worker)  (ask for WorkerRuntime.sample(); not waited for)
//   wait(timeout) -> (finished [(task_id, worker, result bytes)], lost [worker],
//                     joined [(worker, cpus, pool[, memory bytes])],
//                     samples [(worker, sample bytes)])
//   interrupt()  (makes a wait in progress, or the next, return now)
//   forget(worker)  (the loop wrote the worker off)
// A Python exception in any of them fails the queries of that moment (with its message); the
// session goes on serving later ones.
class PyBackend final : public distributed::ClusterBackend {
 public:
  explicit PyBackend(py::object object) : object_(std::move(object)) {}

  void Interrupt() override {
    (void)Call([&] {
      object_.attr("interrupt")();
      return Status::OK();
    });
  }

  void Forget(const std::string& worker) override {
    (void)Call([&] {
      object_.attr("forget")(worker);
      return Status::OK();
    });
  }

  Status Submit(const std::string& worker, int64_t task_id, std::string bytes) override {
    return Call([&] {
      const bool taken = object_.attr("submit")(worker, task_id, py::bytes(bytes)).cast<bool>();
      return taken ? Status::OK() : Status::IOError("worker " + worker + " is gone");
    });
  }

  void Cancel(const std::string& worker, int64_t task_id) override {
    (void)Call([&] {
      object_.attr("cancel")(worker, task_id);
      return Status::OK();
    });
  }

  void Release(const std::string& worker, const std::vector<std::string>& keys) override {
    (void)Call([&] {
      object_.attr("release")(worker, keys);
      return Status::OK();
    });
  }

  void RequestSample(const std::string& worker) override {
    (void)Call([&] {
      object_.attr("request_sample")(worker);
      return Status::OK();
    });
  }

  Result<distributed::BackendEvents> Wait(double timeout_seconds) override {
    distributed::BackendEvents events;
    FLOTILLA_RETURN_NOT_OK(Call([&] {
      py::tuple got = object_.attr("wait")(timeout_seconds);
      for (py::handle f : got[0]) {
        auto t = f.cast<py::tuple>();
        events.finished.push_back(
            {t[0].cast<int64_t>(), t[1].cast<std::string>(), t[2].cast<std::string>()});
      }
      for (py::handle w : got[1])
        events.lost.push_back(w.cast<std::string>());
      for (py::handle j : got[2]) {
        auto t = j.cast<py::tuple>();
        const int64_t memory = t.size() > 3 ? t[3].cast<int64_t>() : 0;
        events.joined.push_back(
            {t[0].cast<std::string>(), {t[1].cast<double>(), 0, memory}, t[2].cast<std::string>()});
      }
      for (py::handle j : got[3]) {
        auto t = j.cast<py::tuple>();
        events.samples.emplace_back(t[0].cast<std::string>(), t[1].cast<std::string>());
      }
      return Status::OK();
    }));
    return events;
  }

  // Runs `fn` holding the GIL; a Python exception becomes the Status.
  Status Call(const std::function<Status()>& fn) {
    py::gil_scoped_acquire gil;
    try {
      return fn();
    } catch (py::error_already_set& e) {
      Status st = Status::Cancelled("the cluster's backend failed: " + PythonError(e));
      e.discard_as_unraisable("the cluster session's backend");
      return st;
    } catch (const std::exception& e) {
      return Status::Invalid(std::string("the cluster's backend: ") + e.what());
    }
  }

 private:
  py::object object_;
};

// The Dask runner's cluster session: one thread driving every query of the runner, with one
// scheduler (distributed::ClusterSession). Tasks go straight to the workers' Flight servers
// once their addresses are known; the Python backend deploys workers and says who is there.
class PySession {
 public:
  PySession(py::object backend, std::string token)
      : backend_(std::move(backend)), tasks_(backend_, std::move(token)), session_(tasks_) {}
  ~PySession() { Close(); }
  distributed::ClusterSession& session() { return session_; }
  distributed::FlightTaskBackend& tasks() { return tasks_; }
  void Close() {
    py::gil_scoped_release release;  // its threads may be waiting to call the backend
    session_.Close();
    tasks_.Close();
  }

 private:
  PyBackend backend_;
  distributed::FlightTaskBackend tasks_;
  distributed::ClusterSession session_;
};

// A Python callable that may be called, copied and dropped on a thread without the GIL.
std::function<void(int64_t)> TaskCallback(py::object fn, const char* what) {
  if (fn.is_none()) return nullptr;
  auto held = std::shared_ptr<py::object>(new py::object(std::move(fn)), [](py::object* o) {
    py::gil_scoped_acquire gil;
    delete o;
  });
  return [held, what](int64_t task) {
    py::gil_scoped_acquire gil;
    try {
      (*held)(task);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable(what);
    }
  };
}

// A partition as one batch (an empty one with its schema when it has no rows).
RecordBatch AsBatch(const distributed::StoredPartition& p) {
  if (p.batches.empty()) return Check(RecordBatch::MakeEmpty(p.schema));
  return Check(compute::ConcatBatches(p.batches));
}

}  // namespace

void BindDistributed(py::module_& m) {
  // A query as bytes, for a runner in another process (session_server.py): the plan, then
  // rebuilt with the UDFs it names, {name: (batch function, return type)}.
  m.def("serialize_plan",
        [](const DataFrame& df) { return py::bytes(Check(exec::SerializePlan(df.plan()))); });
  m.def("deserialize_plan", [](py::bytes bytes, py::dict udfs) {
    exec::PlanResolver resolver;
    distributed::RegisterFileScanTasks(&resolver);
    for (const auto& [name, spec] : udfs) {
      auto pair = spec.cast<py::tuple>();
      resolver.udfs[name.cast<std::string>()] =
          PythonBatchFunction(pair[0], TypeOf(py::reinterpret_borrow<py::object>(pair[1])));
    }
    const std::string text = bytes;
    return DataFrame(Check(exec::DeserializePlan(text, resolver)));
  });
  // A result as Arrow IPC stream bytes, and back.
  m.def("batch_to_ipc", [](const RecordBatch& batch) {
    BufferPtr bytes = Check(ipc::WriteStreamToBuffer(batch.schema(), {batch}));
    return py::bytes(std::string((*bytes).view()));
  });
  m.def("batch_from_ipc", [](py::bytes bytes) {
    const std::string text = bytes;
    SchemaPtr schema;
    std::vector<RecordBatch> batches = Check(ipc::ReadStream(Check(Buffer::CopyOf(text)), &schema));
    if (batches.empty()) return Check(RecordBatch::MakeEmpty(schema));
    return Check(compute::ConcatBatches(batches));
  });
  py::class_<distributed::WorkerRuntime>(m, "WorkerRuntime")
      .def(py::init([](const std::string& id, const std::string& token, const std::string& host,
                       int64_t store_memory_bytes) {
             distributed::WorkerOptions o;
             o.id = id;
             o.token = token;
             o.host = host;
             o.store_memory_bytes = store_memory_bytes;
             o.exec = Options();
             return Check(distributed::WorkerRuntime::Start(o));
           }),
           py::arg("id"), py::arg("token"), py::arg("host") = "127.0.0.1",
           py::arg("store_memory_bytes") = distributed::WorkerOptions{}.store_memory_bytes)
      .def_property_readonly("id", &distributed::WorkerRuntime::id)
      .def_property_readonly("address", &distributed::WorkerRuntime::address)
      .def("register_udf",
           [](distributed::WorkerRuntime& w, const std::string& name, py::object fn,
              py::object return_type) {
             w.RegisterUdf(name, PythonBatchFunction(fn, TypeOf(return_type)));
           })
      .def("run_task",
           [](distributed::WorkerRuntime& w, py::bytes task) {
             std::string bytes = task;
             std::string result;
             {
               py::gil_scoped_release release;
               result = w.RunTask(bytes);
             }
             return py::bytes(result);
           })
      .def("drop_query", &distributed::WorkerRuntime::DropQuery)
      .def("drop_task_outputs", &distributed::WorkerRuntime::DropTaskOutputs)
      .def("cancel_task", &distributed::WorkerRuntime::CancelTask)
      // The store and the data plane so far: entries, bytes in memory and on disk, spill files
      // written, Flight calls and bytes served.
      .def("sample", [](distributed::WorkerRuntime& w) { return py::bytes(w.SampleBytes()); })
      .def("stats", [](distributed::WorkerRuntime& w) {
        const distributed::PartitionStoreStats s = w.store().stats();
        py::dict d;
        d["entries"] = s.partitions;
        d["memory_bytes"] = s.memory_bytes;
        d["spilled_bytes"] = s.spilled_bytes;
        d["spills"] = s.spills;
        d["flight_calls"] = w.flight_calls_served();
        d["flight_bytes"] = w.flight_bytes_served();
        // The worker process's Parquet footers: read (misses) and reused (hits).
        const io::parquet::FooterCacheStats footers = io::parquet::FooterCacheCounts();
        d["footers_read"] = footers.misses;
        d["footers_reused"] = footers.hits;
        return d;
      });

  py::class_<distributed::QueryDriver>(m, "QueryDriver")
      .def(py::init([](const DataFrame& d, int64_t query_id, std::optional<std::string> write_root,
                       const std::string& format, std::vector<std::string> partition_by,
                       std::optional<std::string> compression, std::optional<std::string> event_log,
                       std::optional<std::string> trace, int progress, int64_t scan_min,
                       int64_t scan_max, int min_source_tasks, int64_t broadcast_join_bytes,
                       int64_t broadcast_max_bytes, int64_t gather_sort_rows,
                       const std::string& shuffle_algorithm, const std::string& shuffle_compression,
                       std::vector<py::function> subscribers, PySession* session, double task_cpus,
                       int64_t task_memory_bytes, int64_t reduce_task_bytes) {
             distributed::DriverOptions o;
             o.task_request = {task_cpus, 0, task_memory_bytes};
             if (session != nullptr) o.scheduler = session->session().scheduler();
             o.query_id = query_id;
             o.progress = progress;
             o.scan_task_min_bytes = scan_min;
             o.scan_task_max_bytes = scan_max;
             o.min_source_tasks = min_source_tasks;
             o.plan.broadcast_join_bytes = broadcast_join_bytes;
             o.plan.broadcast_max_bytes = broadcast_max_bytes;
             o.plan.gather_sort_rows = gather_sort_rows;
             o.shuffle_algorithm = shuffle_algorithm;
             o.shuffle_compression = shuffle_compression;
             o.reduce_task_bytes = reduce_task_bytes;
             if (write_root) {
               o.write = distributed::WriteSpec{*write_root, format, partition_by,
                                                compression.value_or("")};
             }
             o.subscribers = Subscribers(event_log, trace, std::move(subscribers));
             exec::PlanPtr plan = Check(d.OptimizedPlan());
             return Check(distributed::QueryDriver::Make(plan, std::move(o)));
           }),
           py::arg("df"), py::arg("query_id"), py::arg("write_root") = py::none(),
           py::arg("format") = "parquet", py::arg("partition_by") = std::vector<std::string>{},
           py::arg("compression") = py::none(), py::arg("event_log") = py::none(),
           py::arg("trace") = py::none(), py::arg("progress") = -1,
           py::arg("scan_task_min_bytes") = distributed::DriverOptions{}.scan_task_min_bytes,
           py::arg("scan_task_max_bytes") = distributed::DriverOptions{}.scan_task_max_bytes,
           py::arg("min_source_tasks") = 1,
           py::arg("broadcast_join_bytes") =
               distributed::DistributedPlanOptions{}.broadcast_join_bytes,
           py::arg("broadcast_max_bytes") =
               distributed::DistributedPlanOptions{}.broadcast_max_bytes,
           py::arg("gather_sort_rows") = distributed::DistributedPlanOptions{}.gather_sort_rows,
           py::arg("shuffle_algorithm") = distributed::DriverOptions{}.shuffle_algorithm,
           py::arg("shuffle_compression") = distributed::DriverOptions{}.shuffle_compression,
           py::arg("subscribers") = std::vector<py::function>{}, py::arg("session") = py::none(),
           py::arg("task_cpus") = 1.0, py::arg("task_memory_bytes") = 0,
           py::arg("reduce_task_bytes") = distributed::DriverOptions{}.reduce_task_bytes)
      .def("pools", &distributed::QueryDriver::pools)
      .def(
          "add_worker",
          [](distributed::QueryDriver& q, const std::string& id, double cpus,
             const std::string& pool, const std::string& host) {
            Check(q.AddWorker({id, {cpus, 0, 0}, pool, host}));
          },
          py::arg("id"), py::arg("cpus"), py::arg("pool"), py::arg("host") = "")
      .def_property_readonly("query_id", &distributed::QueryDriver::query_id)
      // The result's rows, from its partitions' metadata (after a run without fetching).
      .def("result_rows",
           [](distributed::QueryDriver& q) {
             int64_t n = 0;
             for (const distributed::PartitionRef& r : q.ResultOrder())
               n += r.num_rows;
             return n;
           })
      // What the tasks measured per pipeline node (explain analyze), as dicts and as text.
      .def("analysis", [](distributed::QueryDriver& q) { return AnalysisToPython(q.Analysis()); })
      .def("analysis_text",
           [](distributed::QueryDriver& q) {
             return distributed::RenderClusterAnalysis(q.Analysis());
           })
      .def("empty_result",
           [](distributed::QueryDriver& q) { return Check(RecordBatch::MakeEmpty(q.schema())); });

  // The runner's cluster session over `backend` (see PyBackend): queries from any thread run at
  // once on its one thread and scheduler, the older query's tasks placed first.
  py::class_<PySession>(m, "ClusterSession")
      .def(py::init<py::object, std::string>(), py::arg("backend"), py::arg("token"))
      // Where a worker's Flight server listens: its tasks go there, not through its actor.
      .def("set_address", [](PySession& s, const std::string& worker,
                             const std::string& address) { s.tasks().SetAddress(worker, address); })
      .def(
          "add_worker",
          [](PySession& s, const std::string& id, double cpus, int64_t memory_bytes, double gpus) {
            py::gil_scoped_release release;
            s.session().AddWorker({id, {cpus, gpus, memory_bytes}, ""});
          },
          py::arg("id"), py::arg("cpus"), py::arg("memory_bytes") = 0, py::arg("gpus") = 0.0)
      .def("remove_worker",
           [](PySession& s, const std::string& id) {
             py::gil_scoped_release release;
             s.session().RemoveWorker(id);
           })
      .def("workers", [](PySession& s) { return s.session().workers(); })
      .def(
          "cancel",
          [](PySession& s, int64_t query_id, const std::string& why) {
            py::gil_scoped_release release;
            s.session().Cancel(query_id, why);
          },
          py::arg("query_id"), py::arg("why") = "cancelled")
      .def("close", &PySession::Close)
      // Runs the driver's query (made with session=this) to its end; returns the result
      // partitions as batches, in order (none without fetch_results). The GIL is released while
      // it waits; Ctrl-C cancels the query's tasks, then raises.
      .def(
          "run",
          [](PySession& s, distributed::QueryDriver& driver, const std::string& token,
             bool fetch_results, double stall_seconds, py::object on_result) {
            distributed::QueryLoopOptions o;
            o.token = token;
            o.fetch_results = fetch_results;
            o.stall_seconds = stall_seconds;
            o.on_result = TaskCallback(std::move(on_result), "a distributed query's on_result");
            const int64_t id = driver.query_id();
            Status started = [&] {
              py::gil_scoped_release release;
              return s.session().Start(driver, std::move(o));
            }();
            Check(std::move(started));
            std::optional<distributed::QueryOutput> out;
            std::optional<py::error_already_set> interrupted;
            while (!out) {
              {
                py::gil_scoped_release release;
                out = s.session().Wait(id, 0.2);
              }
              if (!out && !interrupted && PyErr_CheckSignals() != 0) {
                interrupted.emplace();  // (takes the pending exception)
                py::gil_scoped_release release;
                s.session().Cancel(id, "interrupted");
              }
            }
            if (interrupted) throw std::move(*interrupted);
            py::list batches;
            for (const distributed::StoredPartition& p : Check(std::move(*out)))
              batches.append(AsBatch(p));
            return batches;
          },
          py::arg("driver"), py::arg("token"), py::arg("fetch_results") = true,
          py::arg("stall_seconds") = distributed::QueryLoopOptions{}.stall_seconds,
          py::arg("on_result") = py::none());
  // Runs `df` on the local engine reporting the distributed schema's events (its pipelines as
  // nodes) to an event log, a trace and Python callables; returns its partitions as batches.
  m.def(
      "run_local_with_events",
      [](const DataFrame& d, int64_t query_id, std::optional<std::string> event_log,
         std::optional<std::string> trace, std::vector<py::function> subscribers) {
        const auto subs = Subscribers(event_log, trace, std::move(subscribers));
        exec::PlanPtr plan = Check(d.OptimizedPlan());
        exec::ExecOptions o = Options();
        Result<exec::QueryResult> result = [&] {
          py::gil_scoped_release release;
          return distributed::RunLocalWithEvents(plan, o, query_id, subs);
        }();
        exec::QueryResult r = Check(std::move(result));
        std::vector<RecordBatch> out;
        for (const MicroPartition& p : r.partitions) {
          std::vector<RecordBatch> batches(p.batches().begin(), p.batches().end());
          out.push_back(Check(compute::ConcatBatches(r.schema, batches)));
        }
        return out;
      },
      py::arg("df"), py::arg("query_id"), py::arg("event_log") = py::none(),
      py::arg("trace") = py::none(), py::arg("subscribers") = std::vector<py::function>{});
  // A scan's description without its task list (what a node's tasks share).
  m.def("operator_label", &distributed::OperatorLabel);
  // The pipeline nodes the distributed runner would run the query as (explain).
  // The pipeline nodes a runner with these settings runs `df` as (unset: the defaults).
  m.def(
      "explain_distributed",
      [](const DataFrame& d, std::optional<int64_t> broadcast_join_bytes,
         std::optional<int64_t> gather_sort_rows, std::optional<int64_t> scan_task_min_bytes,
         std::optional<int64_t> scan_task_max_bytes, int workers) {
        distributed::DistributedPlanOptions o;
        if (broadcast_join_bytes) o.broadcast_join_bytes = *broadcast_join_bytes;
        if (gather_sort_rows) o.gather_sort_rows = *gather_sort_rows;
        distributed::ScanGrouping grouping;
        if (scan_task_min_bytes) grouping.min_bytes = *scan_task_min_bytes;
        if (scan_task_max_bytes) grouping.max_bytes = *scan_task_max_bytes;
        grouping.min_tasks = std::max(1, workers);
        o.concurrent_tasks = grouping.min_tasks;
        return distributed::DistributedPlanToString(
            Check(distributed::PlanDistributed(Check(d.OptimizedPlan()), o)), &grouping);
      },
      py::arg("df"), py::arg("broadcast_join_bytes") = py::none(),
      py::arg("gather_sort_rows") = py::none(), py::arg("scan_task_min_bytes") = py::none(),
      py::arg("scan_task_max_bytes") = py::none(), py::arg("workers") = 1);
}

}  // namespace flotilla::python
