// _flotilla: the extension module under the `flotilla` Python package. It exposes the engine's
// building blocks (expressions, DataFrames, SQL sessions, results); the Daft-like API is
// written in Python on top of them (python/flotilla/).
//
// The GIL is released while a query runs; Python UDFs take it back for each batch they handle.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mutex>

#include "bindings.h"
#include "convert.h"
#include "flotilla/common/logging.h"
#include "flotilla/common/thread_pool.h"
#include "flotilla/compute/concat.h"
#include "flotilla/exec/memory/memory_manager.h"

namespace flotilla::python {

using expr::ExprPtr;

// --- Execution settings shared by every query of the process -----------------------------------

namespace {

struct Config {
  std::mutex mu;
  exec::ExecOptions options;
  // Replaced pools and budgets are kept: a query started before the change still uses them.
  std::vector<std::unique_ptr<flotilla::ThreadPool>> pools;
  std::vector<std::unique_ptr<exec::MemoryManager>> memories;
};

Config& GlobalConfig() {
  static Config* config = new Config();  // never destroyed: pool threads outlive module unload
  return *config;
}

}  // namespace

exec::ExecOptions Options() {
  std::lock_guard<std::mutex> lock(GlobalConfig().mu);
  exec::ExecOptions o = GlobalConfig().options;
  return o;
}

void SetExecutionConfig(std::optional<int> num_threads, std::optional<int64_t> morsel_size,
                        std::optional<std::string> memory_limit, std::optional<bool> maintain_order,
                        std::optional<bool> progress) {
  Config& c = GlobalConfig();
  std::lock_guard<std::mutex> lock(c.mu);
  if (num_threads) {
    if (*num_threads < 1) throw py::value_error("num_threads must be at least 1");
    // Replaced pools stay alive (a running query may hold one), so a pool of the size asked
    // for already is kept: a long-lived process (a Dask worker serving runner after runner)
    // would otherwise gain threads with every call.
    if (c.options.pool == nullptr || c.options.pool->num_threads() != *num_threads) {
      c.pools.push_back(std::make_unique<flotilla::ThreadPool>(*num_threads));
      c.options.pool = c.pools.back().get();
    }
  }
  if (morsel_size) {
    if (*morsel_size < 1) throw py::value_error("default_morsel_size must be positive");
    c.options.morsel_size = *morsel_size;
  }
  if (memory_limit) {
    const int64_t bytes = exec::ParseByteSize(memory_limit->c_str());
    if (bytes <= 0)
      throw py::value_error("memory_limit takes a size such as '8GiB', got '" + *memory_limit +
                            "'");
    c.memories.push_back(std::make_unique<exec::MemoryManager>(bytes));
    c.options.memory = c.memories.back().get();
  }
  if (maintain_order) c.options.maintain_order = *maintain_order;
  if (progress) c.options.progress = *progress ? 1 : 0;
}

// --- Python objects kept alive by the engine -----------------------------------------------------

namespace {

// A Python object the engine may copy and drop on any thread: the GIL is taken to release it.
struct PyRef {
  py::object object;
  explicit PyRef(py::object o) : object(std::move(o)) {}
  ~PyRef() {
    if (!Py_IsInitialized()) {
      object.release();  // the interpreter is gone: nothing left to release it to
      return;
    }
    py::gil_scoped_acquire gil;
    object = py::object();
  }
};

}  // namespace

std::string PythonError(py::error_already_set& e) {
  std::string type = py::str(e.type().attr("__name__")).cast<std::string>();
  return type + ": " + py::str(e.value()).cast<std::string>();
}

// `function(*columns)` on a batch; the result converted to `return_type`.
exec::BatchFunction PythonBatchFunction(py::object function, TypePtr return_type) {
  auto ref = std::make_shared<PyRef>(std::move(function));
  return [ref, return_type](const std::vector<Array>& arguments) -> Result<Array> {
    py::gil_scoped_acquire gil;
    try {
      py::tuple args(arguments.size());
      for (size_t i = 0; i < arguments.size(); ++i)
        args[i] = py::cast(arguments[i]);
      py::object out = ref->object(*args);
      return ToArray(out, return_type);
    } catch (py::error_already_set& e) {
      return Status::Invalid(PythonError(e));
    }
  };
}

// --- Shared by the binding files ----------------------------------------------------------------

py::list SchemaFields(const Schema& schema) {
  py::list out;
  for (const Field& f : schema.fields())
    out.append(py::make_tuple(f.name, f.type->ToString(), f.nullable));
  return out;
}

std::vector<ExprPtr> Exprs(const std::vector<std::shared_ptr<expr::Expression>>& v) {
  return std::vector<ExprPtr>(v.begin(), v.end());
}

}  // namespace flotilla::python

PYBIND11_MODULE(_flotilla, m) {
  using namespace flotilla;
  using namespace flotilla::python;
  namespace py = pybind11;
  m.doc() = "Flotilla's engine (use the `flotilla` package)";

  BindExpressions(m);
  BindBatches(m);
  BindDataFrame(m);
  BindSession(m);
  BindTypes(m);
  BindDistributed(m);

  // Every log line of this process carries `tag` (a worker's id).
  m.def("set_log_tag", [](const std::string& tag) { log::SetTag(tag); });
  m.def("concat_batches",
        [](std::vector<RecordBatch> batches) { return Check(compute::ConcatBatches(batches)); });

  m.def("set_execution_config", &SetExecutionConfig, py::arg("num_threads") = py::none(),
        py::arg("default_morsel_size") = py::none(), py::arg("memory_limit") = py::none(),
        py::arg("maintain_order") = py::none(), py::arg("progress") = py::none());
}
