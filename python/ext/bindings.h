#pragma once
// What the extension's binding files share: the process's execution settings, Python callables
// as engine functions, and the binding groups module.cc assembles.
#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "flotilla/exec/pipeline/executor.h"
#include "flotilla/expr/expression.h"
#include "flotilla/types/schema.h"

namespace flotilla::python {

namespace py = pybind11;

/// The execution options every query of this process runs with (set_execution_config).
exec::ExecOptions Options();

/// "TypeName: message" of a Python exception.
std::string PythonError(py::error_already_set& e);

/// `function(*columns)` on a batch, its result converted to `return_type`; callable from any
/// thread (it takes the GIL).
exec::BatchFunction PythonBatchFunction(py::object function, TypePtr return_type);

/// A schema as [(name, type, nullable)].
py::list SchemaFields(const Schema& schema);

/// A column type from Python: a SQL type name or a flotilla.DataType's spec tuple
/// (type_spec.cc); a bad one raises ValueError / TypeError.
TypePtr TypeOf(const py::handle& type);

/// Python's expression arguments as the engine's.
std::vector<expr::ExprPtr> Exprs(const std::vector<std::shared_ptr<expr::Expression>>& v);

/// The binding groups module.cc assembles: Expr and its constructors (expression_bindings.cc);
/// Column and Batch, DataFrame and the readers (dataframe_bindings.cc); Session
/// (session_bindings.cc); parse_sql_type (type_spec.cc).
void BindExpressions(py::module_& m);
void BindBatches(py::module_& m);
void BindDataFrame(py::module_& m);
void BindSession(py::module_& m);
void BindTypes(py::module_& m);

/// The distributed runner's pieces (distributed.cc).
void BindDistributed(py::module_& m);

}  // namespace flotilla::python
