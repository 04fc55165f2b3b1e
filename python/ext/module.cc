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
#include "flotilla/columnar/table_printer.h"
#include "flotilla/common/logging.h"
#include "flotilla/compute/concat.h"
#include "flotilla/expr/function_registry.h"
#include "flotilla/io/dataset/dataset_writer.h"
#include "flotilla/io/format_writer.h"
#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/stream.h"
#include "flotilla/dataframe/dataframe.h"
#include "flotilla/exec/memory/memory_manager.h"
#include "flotilla/common/thread_pool.h"
#include "flotilla/expr/rewrite.h"
#include "flotilla/sql/parser.h"
#include "flotilla/sql/session.h"

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
    if (bytes <= 0) throw py::value_error("memory_limit takes a size such as '8GiB', got '" + *memory_limit + "'");
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

// --- Results ---------------------------------------------------------------------------------

py::dict ToPyDict(const RecordBatch& batch) {
  py::dict out;
  for (int c = 0; c < batch.num_columns(); ++c)
    out[py::str(batch.schema()->field(c).name)] = ToList(batch.column(c));
  return out;
}

py::list SchemaFields(const Schema& schema) {
  py::list out;
  for (const Field& f : schema.fields())
    out.append(py::make_tuple(f.name, f.type->ToString(), f.nullable));
  return out;
}

namespace {

Result<RecordBatch> FromColumns(const std::vector<std::string>& names, const py::list& columns,
                                const py::list& types) {
  std::vector<Field> fields;
  std::vector<Array> arrays;
  int64_t rows = -1;
  for (size_t i = 0; i < names.size(); ++i) {
    TypePtr type;
    if (i < types.size() && !types[i].is_none()) type = TypeOf(types[i]);
    auto array = ToArray(columns[i], type);
    if (!array.ok()) return array.status().WithContext("column '" + names[i] + "'");
    if (rows >= 0 && array->length() != rows) {
      return Status::Invalid("column '" + names[i] + "' has " + std::to_string(array->length()) +
                             " values, the columns before it " + std::to_string(rows));
    }
    rows = array->length();
    fields.push_back({names[i], array->type(), true});
    arrays.push_back(std::move(*array));
  }
  return RecordBatch::Make(std::make_shared<Schema>(std::move(fields)), std::move(arrays),
                           std::max<int64_t>(rows, 0));
}

// --- Literals ----------------------------------------------------------------------------------

ExprPtr LiteralOf(const py::handle& v) {
  if (v.is_none()) return expr::NullLiteral(null());
  if (py::isinstance<py::bool_>(v)) return expr::Literal(v.cast<bool>());
  if (py::isinstance<py::int_>(v)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow) throw py::value_error("integer literal out of int64 range: " + py::repr(v).cast<std::string>());
    return expr::Literal(static_cast<int64_t>(x));
  }
  if (py::isinstance<py::float_>(v)) return expr::Literal(v.cast<double>());
  if (py::isinstance<py::str>(v)) return expr::Literal(v.cast<std::string>());
  py::list one;
  one.append(v);
  Array array = Check(ToArray(one));
  return expr::Literal(array);
}

std::vector<ExprPtr> Exprs(const std::vector<std::shared_ptr<expr::Expression>>& v) {
  return std::vector<ExprPtr>(v.begin(), v.end());
}

std::vector<SortBy> SortKeys(const std::vector<ExprPtr>& keys, const std::vector<bool>& descending,
                             const std::vector<std::optional<bool>>& nulls_first) {
  std::vector<SortBy> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    SortBy k{keys[i]};
    k.descending = i < descending.size() ? descending[i] : (descending.size() == 1 && descending[0]);
    if (i < nulls_first.size()) k.nulls_first = nulls_first[i];
    out.push_back(k);
  }
  return out;
}

expr::BinaryOp BinaryOpOf(const std::string& op) {
  static const std::map<std::string, expr::BinaryOp> ops = {
      {"add", expr::BinaryOp::kAdd},        {"sub", expr::BinaryOp::kSubtract},
      {"mul", expr::BinaryOp::kMultiply},   {"div", expr::BinaryOp::kDivide},
      {"floordiv", expr::BinaryOp::kIntDiv}, {"mod", expr::BinaryOp::kMod},
      {"eq", expr::BinaryOp::kEqual},       {"ne", expr::BinaryOp::kNotEqual},
      {"lt", expr::BinaryOp::kLess},        {"le", expr::BinaryOp::kLessEqual},
      {"gt", expr::BinaryOp::kGreater},     {"ge", expr::BinaryOp::kGreaterEqual},
      {"and", expr::BinaryOp::kAnd},        {"or", expr::BinaryOp::kOr},
  };
  auto it = ops.find(op);
  if (it == ops.end()) throw py::value_error("unknown operator " + op);
  return it->second;
}

}  // namespace
}  // namespace flotilla::python

PYBIND11_MODULE(_flotilla, m) {
  using namespace flotilla;
  using namespace flotilla::python;
  namespace py = pybind11;
  m.doc() = "Flotilla's engine (use the `flotilla` package)";

  // Expressions: immutable trees; the Python Expression class wraps one.
  py::class_<expr::Expression, std::shared_ptr<expr::Expression>>(m, "Expr")
      .def("__repr__", &expr::Expression::ToString)
      .def("name", [](const expr::Expression& e) {
        return e.kind() == expr::ExprKind::kColumn || e.kind() == expr::ExprKind::kAlias
                   ? e.name()
                   : e.ToString();
      })
      .def("columns", [](const std::shared_ptr<expr::Expression>& e) {
        auto names = expr::Columns(e);
        return std::vector<std::string>(names.begin(), names.end());
      });
  // Every expression the Python API builds: deeper trees than any pass may recurse on are
  // refused where they are made, with the chain still short enough to unwind.
  auto cast_expr = [](ExprPtr e) {
    Check(expr::CheckExpressionDepth(*e));
    return std::const_pointer_cast<expr::Expression>(e);
  };
  using E = std::shared_ptr<expr::Expression>;
  m.def("col", [=](const std::string& name) { return cast_expr(expr::Column(name)); });
  m.def("lit", [=](py::object v) { return cast_expr(LiteralOf(v)); });
  m.def("alias", [=](E e, const std::string& name) { return cast_expr(expr::Alias(e, name)); });
  m.def("cast", [=](E e, py::object type, bool try_cast) {
    TypePtr t = TypeOf(type);
    return cast_expr(try_cast ? expr::TryCast(e, t) : expr::Cast(e, t));
  });
  m.def("binary", [=](const std::string& op, E a, E b) {
    return cast_expr(expr::Binary(BinaryOpOf(op), a, b));
  });
  m.def("negate", [=](E e) { return cast_expr(expr::Negate(e)); });
  m.def("not_", [=](E e) { return cast_expr(expr::Not(e)); });
  m.def("call", [=](const std::string& name, std::vector<E> args) {
    return cast_expr(expr::Call(name, Exprs(args)));
  });
  m.def("aggregate", [=](const std::string& name, std::vector<E> args) {
    return cast_expr(expr::Aggregate(name, Exprs(args)));
  });
  m.def("is_null", [=](E e) { return cast_expr(expr::IsNull(e)); });
  m.def("not_null", [=](E e) { return cast_expr(expr::IsNotNull(e)); });
  m.def("is_in", [=](E e, py::list values) {
    std::vector<ExprPtr> lits;
    for (const py::handle v : values)
      lits.push_back(LiteralOf(v));
    return cast_expr(expr::IsIn(e, lits));
  });
  m.def("between", [=](E e, E lo, E hi) { return cast_expr(expr::Between(e, lo, hi)); });
  m.def("if_else", [=](E c, E a, E b) { return cast_expr(expr::IfElse(c, a, b)); });
  m.def("coalesce", [=](std::vector<E> args) { return cast_expr(expr::Coalesce(Exprs(args))); });

  // A column handed to a batch UDF.
  py::class_<Array>(m, "Column")
      .def("__len__", &Array::length)
      .def("to_pylist", [](const Array& a) { return ToList(a); })
      .def("to_numpy", [](const Array& a) { return ToNumpy(a); })
      .def_property_readonly("dtype", [](const Array& a) { return a.type()->ToString(); });

  // A query's rows.
  py::class_<RecordBatch>(m, "Batch")
      .def_property_readonly("num_rows", &RecordBatch::num_rows)
      .def_property_readonly("num_columns", [](const RecordBatch& b) {
        return b.schema() == nullptr ? 0 : b.num_columns();  // none: a statement without rows
      })
      .def("schema", [](const RecordBatch& b) { return SchemaFields(*b.schema()); })
      .def("to_pydict", [](const RecordBatch& b) { return ToPyDict(b); })
      .def("column", [](const RecordBatch& b, int i) { return b.column(i); })
      .def("slice", &RecordBatch::Slice, py::arg("offset"), py::arg("length"))
      .def("to_numpy", [](const RecordBatch& b, int i) { return ToNumpy(b.column(i)); })
      .def("__repr__", [](const RecordBatch& b) { return FormatTable(b); })
      .def("to_string", [](const RecordBatch& b, int max_rows, int max_width, bool first_rows_only) {
        TablePrintOptions o;
        o.max_rows = max_rows;
        o.max_column_width = max_width;
        o.first_rows_only = first_rows_only;
        return FormatTable(b, o);
      }, py::arg("max_rows"), py::arg("max_width"), py::arg("first_rows_only") = false)
      // The rows as a csv or json file's text, as the engine writes them.
      .def("to_text", [](const RecordBatch& b, const std::string& format) {
        auto stream = std::make_unique<io::BufferOutputStream>();
        io::BufferOutputStream* out = stream.get();
        io::DatasetWriteOptions o;
        o.format = Check(io::ParseFileFormat(format));
        auto writer = Check(io::OpenFormatWriter(std::move(stream), b.schema(), o));
        Check(writer->Write(b));
        Check(writer->Close());
        return py::bytes(out->bytes());
      });

  py::class_<DataFrame>(m, "DataFrame")
      .def("schema", [](const DataFrame& d) { return SchemaFields(*d.schema()); })
      .def("column_names", &DataFrame::column_names)
      .def("select", [](const DataFrame& d, std::vector<E> c) { return Check(d.Select(Exprs(c))); })
      .def("where", [](const DataFrame& d, E p) { return Check(d.Where(p)); })
      .def("agg", [](const DataFrame& d, std::vector<E> a) { return Check(d.Agg(Exprs(a))); })
      .def("groupby_agg", [](const DataFrame& d, std::vector<E> keys, std::vector<E> a) {
        return Check(d.GroupBy(Exprs(keys)).Agg(Exprs(a)));
      })
      .def("join", [](const DataFrame& d, const DataFrame& right, std::vector<E> left_on,
                      std::vector<E> right_on, const std::string& how, const std::string& strategy) {
        if (how == "cross") return Check(d.CrossJoin(right));
        return Check(d.Join(right, Exprs(left_on), Exprs(right_on), how, strategy));
      })
      .def("sort", [](const DataFrame& d, std::vector<E> keys, std::vector<bool> desc,
                      std::vector<std::optional<bool>> nulls_first) {
        return Check(d.Sort(SortKeys(Exprs(keys), desc, nulls_first)));
      })
      .def("limit", [](const DataFrame& d, int64_t n) { return Check(d.Limit(n)); })
      .def("offset", [](const DataFrame& d, int64_t n) { return Check(d.Offset(n)); })
      .def("distinct", [](const DataFrame& d, std::vector<std::string> c) { return Check(d.Distinct(c)); })
      .def("explode", [](const DataFrame& d, std::vector<std::string> c) { return Check(d.Explode(c)); })
      .def("unpivot", [](const DataFrame& d, std::vector<std::string> ids, std::vector<std::string> values,
                         std::string var, std::string val) {
        return Check(d.Unpivot(ids, values, var, val));
      })
      .def("pivot", [](const DataFrame& d, std::vector<E> group_by, E pivot, E value,
                       std::string fn, std::vector<std::string> names) {
        return Check(d.Pivot(Exprs(group_by), pivot, value, fn, names));
      })
      .def("sample_fraction", [](const DataFrame& d, double f, bool repl, uint64_t seed) {
        return Check(d.SampleFraction(f, repl, seed));
      })
      .def("sample_size", [](const DataFrame& d, int64_t n, bool repl, uint64_t seed) {
        return Check(d.SampleSize(n, repl, seed));
      })
      .def("concat", [](const DataFrame& d, const DataFrame& o) { return Check(d.Concat(o)); })
      .def("into_partitions", [](const DataFrame& d, int n) { return Check(d.IntoPartitions(n)); })
      .def("repartition", [](const DataFrame& d, int n, std::vector<E> keys) {
        return Check(d.Repartition(n, Exprs(keys)));
      })
      .def("with_monotonic_id", [](const DataFrame& d, std::string name) {
        return Check(d.WithMonotonicId(name));
      })
      .def("window", [](const DataFrame& d, std::vector<E> partition_by, std::vector<E> order_by,
                        std::vector<bool> desc, std::vector<std::optional<bool>> nulls_first,
                        std::vector<std::tuple<std::string, std::vector<E>, std::string,
                                               std::optional<std::tuple<bool, int, int64_t, int, int64_t>>>>
                            functions) {
        std::vector<exec::WindowExpression> fns;
        for (auto& [name, args, output, frame] : functions) {
          exec::WindowExpression w{name, Exprs(args), std::nullopt, output};
          if (frame) {
            auto [rows, sk, so, ek, eo] = *frame;
            exec::WindowFrame f;
            f.type = rows ? exec::WindowFrame::kRows : exec::WindowFrame::kRange;
            f.start = {static_cast<exec::FrameBound::Kind>(sk), so};
            f.end = {static_cast<exec::FrameBound::Kind>(ek), eo};
            w.frame = f;
          }
          fns.push_back(std::move(w));
        }
        return Check(d.WithWindow(Exprs(partition_by), SortKeys(Exprs(order_by), desc, nulls_first), fns));
      })
      .def("udf_project", [](const DataFrame& d, const std::string& name, py::object fn,
                             std::vector<E> args, std::vector<std::string> passthrough,
                             const std::string& output, py::object return_type,
                             int concurrency) {
        TypePtr type = TypeOf(return_type);
        return DataFrame(Check(exec::MakeUdfProject(d.plan(), name, PythonBatchFunction(fn, type),
                                                    Exprs(args), passthrough, output, type,
                                                    concurrency)));
      })
      .def("explain", [](const DataFrame& d, bool analyze) {
        exec::ExecOptions o = Options();
        py::gil_scoped_release release;
        return Check(d.Explain(analyze, o));
      })
      .def("collect", [](const DataFrame& d) {
        exec::ExecOptions o = Options();
        py::gil_scoped_release release;
        return Check(d.ToBatch(o));
      })
      .def("partitions", [](const DataFrame& d) {
        exec::ExecOptions o = Options();
        exec::QueryResult result;
        {
          py::gil_scoped_release release;
          result = Check(d.Collect(o));
        }
        std::vector<RecordBatch> out;
        for (const MicroPartition& p : result.partitions) {
          std::vector<RecordBatch> batches(p.batches().begin(), p.batches().end());
          out.push_back(Check(compute::ConcatBatches(result.schema, batches)));
        }
        return out;
      })
      .def("count_rows", [](const DataFrame& d) {
        exec::ExecOptions o = Options();
        py::gil_scoped_release release;
        return Check(d.CountRows(o));
      })
      .def("write", [](const DataFrame& d, const std::string& root, const std::string& format,
                       std::vector<std::string> partition_by, std::optional<std::string> compression) {
        io::DatasetWriteOptions w;
        w.format = Check(io::ParseFileFormat(format));
        w.partition_by = partition_by;
        if (compression) w.parquet.codec = Check(io::parquet::ParseCodec(*compression));
        exec::ExecOptions o = Options();
        py::gil_scoped_release release;
        return Check(d.Write(root, w, o));
      });

  m.def("read_parquet", [](std::vector<std::string> paths) { return Check(DataFrame::ReadParquet(paths)); });
  m.def("read_csv", [](std::vector<std::string> paths, bool header, std::string delimiter,
                       std::optional<std::vector<std::pair<std::string, py::object>>> schema) {
    io::csv::CsvReadOptions o;
    o.parse.has_header = header;
    if (delimiter.size() != 1) throw py::value_error("delimiter must be one character");
    o.parse.delimiter = delimiter[0];
    if (schema) {
      // Column names and SQL type names: nothing is inferred.
      std::vector<Field> fields;
      for (const auto& [name, type] : *schema)
        fields.push_back({name, TypeOf(type), true});
      o.schema = std::make_shared<Schema>(std::move(fields));
    }
    return Check(DataFrame::ReadCsv(paths, o));
  });
  m.def("read_json", [](std::vector<std::string> paths) { return Check(DataFrame::ReadJson(paths)); });
  m.def("from_columns", [](std::vector<std::string> names, py::list columns,
                           py::list types) {
    RecordBatch batch = Check(FromColumns(names, columns, types));
    return Check(DataFrame::FromBatches(batch.schema(), {batch}));
  });

  py::class_<sql::Session>(m, "Session")
      .def(py::init<>())
      .def("register", [](sql::Session& s, const std::string& name, const DataFrame& d) {
        Check(s.catalog().Add(name, sql::Catalog::Kind::kView, d.plan(), true));
      })
      .def("plan", [](sql::Session& s, const std::string& query) {
        return DataFrame(Check(s.PlanSql(query)));
      })
      // Every statement of `text`; the last one's result as (rows, text): text when the rows
      // are lines to print as they are (EXPLAIN).
      .def("execute", [](sql::Session& s, const std::string& text) {
        sql::StatementResult r;
        {
          py::gil_scoped_release release;
          r = Check(s.Execute(text));
        }
        return py::make_tuple(r.batch, r.text);
      })
      .def("set", [](sql::Session& s, const std::string& n, const std::string& v) { Check(s.Set(n, v)); })
      .def("register_directory", [](sql::Session& s, const std::string& dir) {
        Check(s.RegisterDirectory(dir));
      })
      // fn(DataFrame) -> Batch runs the session's plans (sql::Session::SetPlanRunner).
      .def("set_plan_runner", [](sql::Session& s, py::object fn) {
        s.SetPlanRunner([fn](const exec::PlanPtr& plan) -> Result<RecordBatch> {
          py::gil_scoped_acquire gil;
          try {
            return fn(DataFrame(plan)).cast<RecordBatch>();
          } catch (py::error_already_set& e) {
            return Status::Invalid(e.what());
          }
        });
      });

  BindTypes(m);
  BindDistributed(m);

  // Every log line of this process carries `tag` (a worker's id).
  m.def("set_log_tag", [](const std::string& tag) { log::SetTag(tag); });
  m.def("concat_batches", [](std::vector<RecordBatch> batches) { return Check(compute::ConcatBatches(batches)); });

  m.def("set_execution_config", &SetExecutionConfig, py::arg("num_threads") = py::none(),
        py::arg("default_morsel_size") = py::none(), py::arg("memory_limit") = py::none(),
        py::arg("maintain_order") = py::none(), py::arg("progress") = py::none());
}
