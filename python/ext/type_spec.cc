// Column types from Python: a SQL type name ("bigint", "decimal(15, 2)", "varchar[]") or the
// nested tuple a flotilla.DataType builds, ("list", ("int64",)), which reaches types SQL has no
// words for (structs, fixed-size lists, time zones, units).
#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"
#include "flotilla/sql/parser.h"

namespace flotilla::python {

namespace {

TimeUnit UnitOf(const std::string& unit) {
  if (unit == "s") return TimeUnit::kSecond;
  if (unit == "ms") return TimeUnit::kMilli;
  if (unit == "us") return TimeUnit::kMicro;
  if (unit == "ns") return TimeUnit::kNano;
  throw py::value_error("unknown time unit '" + unit + "'; use s, ms, us or ns");
}

TypePtr PrimitiveOf(const std::string& kind) {
  static const std::map<std::string, TypePtr (*)()> types = {
      {"null", &null},     {"bool", &boolean},  {"int8", &int8},       {"int16", &int16},
      {"int32", &int32},   {"int64", &int64},   {"uint8", &uint8},     {"uint16", &uint16},
      {"uint32", &uint32}, {"uint64", &uint64}, {"float32", &float32}, {"float64", &float64},
      {"string", &utf8},   {"binary", &binary}, {"date32", &date32},
  };
  auto it = types.find(kind);
  return it == types.end() ? nullptr : it->second();
}

TypePtr SpecType(const py::tuple& spec) {
  if (spec.empty()) throw py::value_error("an empty type spec");
  const auto kind = spec[0].cast<std::string>();
  if (TypePtr t = PrimitiveOf(kind)) return t;
  if (kind == "timestamp")
    return timestamp(UnitOf(spec[1].cast<std::string>()), spec[2].cast<std::string>());
  if (kind == "duration") return duration(UnitOf(spec[1].cast<std::string>()));
  if (kind == "decimal128") return decimal128(spec[1].cast<int32_t>(), spec[2].cast<int32_t>());
  if (kind == "list") return list(TypeOf(spec[1]));
  if (kind == "fixed_size_list") return fixed_size_list(TypeOf(spec[1]), spec[2].cast<int32_t>());
  if (kind == "struct") {
    std::vector<Field> fields;
    for (const py::handle f : spec[1].cast<py::list>()) {
      auto pair = f.cast<py::tuple>();
      fields.push_back({pair[0].cast<std::string>(), TypeOf(pair[1]), true});
    }
    return struct_(std::move(fields));
  }
  throw py::value_error("the engine has no column type '" + kind + "'");
}

}  // namespace

TypePtr TypeOf(const py::handle& type) {
  if (py::isinstance<py::str>(type)) return Check(sql::ParseTypeName(type.cast<std::string>()));
  if (py::isinstance<py::tuple>(type)) return SpecType(type.cast<py::tuple>());
  throw py::type_error("a column type is a SQL type name or a flotilla.DataType, got " +
                       py::repr(type).cast<std::string>());
}

void BindTypes(py::module_& m) {
  // The engine's name for a SQL type name: what flotilla.DataType.from_sql reads back.
  m.def("parse_sql_type",
        [](const std::string& name) { return Check(sql::ParseTypeName(name))->ToString(); });
}

}  // namespace flotilla::python
