// Batches (a query's rows, a UDF's columns), DataFrames and the readers that start them.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <optional>
#include <thread>

#include "bindings.h"
#include "convert.h"
#include "flotilla/columnar/table_printer.h"
#include "flotilla/compute/concat.h"
#include "flotilla/dataframe/dataframe.h"
#include "flotilla/io/dataset/dataset_writer.h"
#include "flotilla/io/format_writer.h"
#include "flotilla/io/fs/file.h"
#include "flotilla/io/parquet/codec.h"
#include "flotilla/io/stream.h"

namespace flotilla::python {

using expr::ExprPtr;

namespace {

py::dict ToPyDict(const RecordBatch& batch) {
  py::dict out;
  for (int c = 0; c < batch.num_columns(); ++c)
    out[py::str(batch.schema()->field(c).name)] = ToList(batch.column(c));
  return out;
}

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

std::vector<SortBy> SortKeys(const std::vector<ExprPtr>& keys, const std::vector<bool>& descending,
                             const std::vector<std::optional<bool>>& nulls_first) {
  std::vector<SortBy> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    SortBy k{keys[i]};
    k.descending =
        i < descending.size() ? descending[i] : (descending.size() == 1 && descending[0]);
    if (i < nulls_first.size()) k.nulls_first = nulls_first[i];
    out.push_back(k);
  }
  return out;
}

}  // namespace

void BindBatches(py::module_& m) {
  // A column handed to a batch UDF.
  py::class_<Array>(m, "Column")
      .def("__len__", &Array::length)
      .def("to_pylist", [](const Array& a) { return ToList(a); })
      .def("to_numpy", [](const Array& a) { return ToNumpy(a); })
      .def_property_readonly("dtype", [](const Array& a) { return a.type()->ToString(); });

  // A query's rows.
  py::class_<RecordBatch>(m, "Batch")
      .def_property_readonly("num_rows", &RecordBatch::num_rows)
      .def_property_readonly(
          "num_columns",
          [](const RecordBatch& b) {
            return b.schema() == nullptr ? 0 : b.num_columns();  // none: a statement without rows
          })
      .def("schema", [](const RecordBatch& b) { return SchemaFields(*b.schema()); })
      .def("to_pydict", [](const RecordBatch& b) { return ToPyDict(b); })
      .def("column", [](const RecordBatch& b, int i) { return b.column(i); })
      .def("slice", &RecordBatch::Slice, py::arg("offset"), py::arg("length"))
      .def("to_numpy", [](const RecordBatch& b, int i) { return ToNumpy(b.column(i)); })
      .def("__repr__", [](const RecordBatch& b) { return FormatTable(b); })
      .def(
          "to_string",
          [](const RecordBatch& b, int max_rows, int max_width, bool first_rows_only) {
            TablePrintOptions o;
            o.max_rows = max_rows;
            o.max_column_width = max_width;
            o.first_rows_only = first_rows_only;
            return FormatTable(b, o);
          },
          py::arg("max_rows"), py::arg("max_width"), py::arg("first_rows_only") = false)
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
}

void BindDataFrame(py::module_& m) {
  using E = std::shared_ptr<expr::Expression>;
  py::class_<DataFrame>(m, "DataFrame")
      .def("schema", [](const DataFrame& d) { return SchemaFields(*d.schema()); })
      .def("column_names", &DataFrame::column_names)
      .def("select", [](const DataFrame& d, std::vector<E> c) { return Check(d.Select(Exprs(c))); })
      .def("where", [](const DataFrame& d, E p) { return Check(d.Where(p)); })
      .def("agg", [](const DataFrame& d, std::vector<E> a) { return Check(d.Agg(Exprs(a))); })
      .def("groupby_agg",
           [](const DataFrame& d, std::vector<E> keys, std::vector<E> a) {
             return Check(d.GroupBy(Exprs(keys)).Agg(Exprs(a)));
           })
      .def("join",
           [](const DataFrame& d, const DataFrame& right, std::vector<E> left_on,
              std::vector<E> right_on, const std::string& how, const std::string& strategy) {
             if (how == "cross") return Check(d.CrossJoin(right));
             return Check(d.Join(right, Exprs(left_on), Exprs(right_on), how, strategy));
           })
      .def("sort",
           [](const DataFrame& d, std::vector<E> keys, std::vector<bool> desc,
              std::vector<std::optional<bool>> nulls_first) {
             return Check(d.Sort(SortKeys(Exprs(keys), desc, nulls_first)));
           })
      .def("limit", [](const DataFrame& d, int64_t n) { return Check(d.Limit(n)); })
      .def("offset", [](const DataFrame& d, int64_t n) { return Check(d.Offset(n)); })
      .def("distinct",
           [](const DataFrame& d, std::vector<std::string> c) { return Check(d.Distinct(c)); })
      .def("explode",
           [](const DataFrame& d, std::vector<std::string> c) { return Check(d.Explode(c)); })
      .def("unpivot",
           [](const DataFrame& d, std::vector<std::string> ids, std::vector<std::string> values,
              std::string var, std::string val) { return Check(d.Unpivot(ids, values, var, val)); })
      .def("pivot",
           [](const DataFrame& d, std::vector<E> group_by, E pivot, E value, std::string fn,
              std::vector<std::string> names) {
             return Check(d.Pivot(Exprs(group_by), pivot, value, fn, names));
           })
      .def("sample_fraction", [](const DataFrame& d, double f, bool repl,
                                 uint64_t seed) { return Check(d.SampleFraction(f, repl, seed)); })
      .def("sample_size", [](const DataFrame& d, int64_t n, bool repl,
                             uint64_t seed) { return Check(d.SampleSize(n, repl, seed)); })
      .def("concat", [](const DataFrame& d, const DataFrame& o) { return Check(d.Concat(o)); })
      .def("into_partitions", [](const DataFrame& d, int n) { return Check(d.IntoPartitions(n)); })
      .def("repartition", [](const DataFrame& d, int n,
                             std::vector<E> keys) { return Check(d.Repartition(n, Exprs(keys))); })
      .def("with_monotonic_id",
           [](const DataFrame& d, std::string name) { return Check(d.WithMonotonicId(name)); })
      .def("window",
           [](const DataFrame& d, std::vector<E> partition_by, std::vector<E> order_by,
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
             return Check(d.WithWindow(Exprs(partition_by),
                                       SortKeys(Exprs(order_by), desc, nulls_first), fns));
           })
      .def("udf_project",
           [](const DataFrame& d, const std::string& name, py::object fn, std::vector<E> args,
              std::vector<std::string> passthrough, const std::string& output,
              py::object return_type, int concurrency) {
             TypePtr type = TypeOf(return_type);
             return DataFrame(
                 Check(exec::MakeUdfProject(d.plan(), name, PythonBatchFunction(fn, type),
                                            Exprs(args), passthrough, output, type, concurrency)));
           })
      .def("explain",
           [](const DataFrame& d, bool analyze) {
             exec::ExecOptions o = Options();
             py::gil_scoped_release release;
             return Check(d.Explain(analyze, o));
           })
      // Runs the query here; per operator its statistics (what explain analyze prints):
      // [{name, detail, depth, rows_in, rows_out, bytes_in, bytes_out, cpu_seconds}].
      .def("operator_stats",
           [](const DataFrame& d) {
             exec::ExecOptions o = Options();
             exec::PlanPtr plan = Check(d.OptimizedPlan());
             Result<exec::QueryResult> run = [&] {
               py::gil_scoped_release release;
               return exec::Run(plan, o);
             }();
             const std::shared_ptr<const exec::QueryStats> stats = Check(std::move(run)).stats;
             py::list out;
             for (const exec::OperatorStats* s : stats->InPlanOrder()) {
               out.append(py::dict(
                   py::arg("name") = s->name, py::arg("detail") = s->detail,
                   py::arg("depth") = s->depth, py::arg("rows_in") = s->rows_in.load(),
                   py::arg("rows_out") = s->rows_out.load(),
                   py::arg("bytes_in") = s->bytes_in.load(),
                   py::arg("bytes_out") = s->bytes_out.load(),
                   py::arg("cpu_seconds") = static_cast<double>(s->cpu_nanos.load()) / 1e9));
             }
             return out;
           })
      .def("collect",
           [](const DataFrame& d) {
             exec::ExecOptions o = Options();
             py::gil_scoped_release release;
             return Check(d.ToBatch(o));
           })
      .def("partitions",
           [](const DataFrame& d) {
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
      .def("count_rows",
           [](const DataFrame& d) {
             exec::ExecOptions o = Options();
             py::gil_scoped_release release;
             return Check(d.CountRows(o));
           })
      .def("write",
           [](const DataFrame& d, const std::string& root, const std::string& format,
              std::vector<std::string> partition_by, std::optional<std::string> compression) {
             io::DatasetWriteOptions w;
             w.format = Check(io::ParseFileFormat(format));
             w.partition_by = partition_by;
             if (compression) w.parquet.codec = Check(io::parquet::ParseCodec(*compression));
             exec::ExecOptions o = Options();
             py::gil_scoped_release release;
             return Check(d.Write(root, w, o));
           });

  m.def("read_parquet",
        [](std::vector<std::string> paths) { return Check(DataFrame::ReadParquet(paths)); });
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
  m.def("read_json",
        [](std::vector<std::string> paths) { return Check(DataFrame::ReadJson(paths)); });
  // url.download(): every URL's whole content (local paths, file://, http(s):// with the
  // engine's HTTP reader), at most `max_connections` at a time; a failure raises naming the URL,
  // or gives None when null_on_error.
  m.def("read_urls", [](std::vector<std::optional<std::string>> urls, int max_connections,
                        bool null_on_error) {
    const size_t n = urls.size();
    std::vector<std::optional<std::string>> bodies(n);
    std::vector<std::string> errors(n);
    {
      py::gil_scoped_release release;
      std::atomic<size_t> next{0};
      auto work = [&] {
        for (size_t i = next++; i < n; i = next++) {
          if (!urls[i]) continue;
          auto file = io::OpenFile(*urls[i]);
          Result<BufferPtr> bytes =
              file.ok() ? (*file)->ReadAt(0, (*file)->size()) : Result<BufferPtr>(file.status());
          if (bytes.ok()) {
            bodies[i] = std::string((*bytes)->view());
          } else {
            errors[i] = bytes.status().message();
          }
        }
      };
      std::vector<std::thread> threads;
      const size_t count = std::min<size_t>(n, static_cast<size_t>(std::max(1, max_connections)));
      for (size_t t = 0; t < count; ++t)
        threads.emplace_back(work);
      for (std::thread& t : threads)
        t.join();
    }
    py::list out;
    for (size_t i = 0; i < n; ++i) {
      if (!errors[i].empty() && !null_on_error) {
        throw py::value_error("url.download(): '" + *urls[i] + "': " + errors[i]);
      }
      out.append(bodies[i] ? py::object(py::bytes(*bodies[i])) : py::object(py::none()));
    }
    return out;
  });
  m.def("read_warc", [](std::vector<std::string> paths, bool ignore_errors) {
    io::warc::WarcReadOptions options;
    options.ignore_errors = ignore_errors;
    return Check(DataFrame::ReadWarc(paths, options));
  });
  // A query's result partitions as a source: collect() makes later queries start from them.
  m.def("from_partitions", [](const DataFrame& like, std::vector<RecordBatch> batches) {
    std::vector<MicroPartition> partitions;
    for (RecordBatch& b : batches)
      partitions.push_back(Check(MicroPartition::FromBatches(like.schema(), {std::move(b)})));
    return DataFrame(Check(exec::MakeInMemorySource(like.schema(), std::move(partitions))));
  });
  m.def("from_columns", [](std::vector<std::string> names, py::list columns, py::list types) {
    RecordBatch batch = Check(FromColumns(names, columns, types));
    return Check(DataFrame::FromBatches(batch.schema(), {batch}));
  });
}

}  // namespace flotilla::python
