// SQL sessions: statements, settings, and the plan runner a distributed runner installs.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"
#include "flotilla/dataframe/dataframe.h"
#include "flotilla/sql/session.h"

namespace flotilla::python {

void BindSession(py::module_& m) {
  py::class_<sql::Session>(m, "Session")
      .def(py::init<>())
      .def("register",
           [](sql::Session& s, const std::string& name, const DataFrame& d) {
             Check(s.catalog().Add(name, sql::Catalog::Kind::kView, d.plan(), true));
           })
      .def("plan", [](sql::Session& s,
                      const std::string& query) { return DataFrame(Check(s.PlanSql(query))); })
      // Every statement of `text`; the last one's result as (rows, text): text when the rows
      // are lines to print as they are (EXPLAIN).
      .def("execute",
           [](sql::Session& s, const std::string& text) {
             sql::StatementResult r;
             {
               py::gil_scoped_release release;
               r = Check(s.Execute(text));
             }
             return py::make_tuple(r.batch, r.text);
           })
      .def("set",
           [](sql::Session& s, const std::string& n, const std::string& v) { Check(s.Set(n, v)); })
      .def("register_directory",
           [](sql::Session& s, const std::string& dir) { Check(s.RegisterDirectory(dir)); })
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
}

}  // namespace flotilla::python
