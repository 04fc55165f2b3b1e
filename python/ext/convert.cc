#include "convert.h"

#include <pybind11/numpy.h>

#include <cstring>

#include "flotilla/columnar/builder.h"
#include "flotilla/columnar/decimal.h"

namespace flotilla::python {
namespace {

// Kept for the life of the process and never released: destroying Python objects from static
// destructors would run after the interpreter has finalized.
py::module_& Datetime() {
  static auto* m = new py::module_(py::module_::import("datetime"));
  return *m;
}
py::module_& DecimalModule() {
  static auto* m = new py::module_(py::module_::import("decimal"));
  return *m;
}

bool IsDate(const py::handle& v) {
  return py::isinstance(v, Datetime().attr("date")) &&
         !py::isinstance(v, Datetime().attr("datetime"));
}
bool IsDatetime(const py::handle& v) {
  return py::isinstance(v, Datetime().attr("datetime"));
}
bool IsDecimal(const py::handle& v) {
  return py::isinstance(v, DecimalModule().attr("Decimal"));
}

int32_t DecimalScale(const py::handle& v) {
  const py::object exponent = v.attr("as_tuple")().attr("exponent");
  if (!py::isinstance<py::int_>(exponent)) return 0;  // NaN / Infinity: rejected when appended
  return std::max(0, -exponent.cast<int>());
}

Result<TypePtr> InferType(const py::handle& values) {
  TypePtr found;
  int32_t scale = 0;
  bool decimal = false;
  for (const py::handle v : values) {
    if (v.is_none()) continue;
    if (IsDecimal(v)) {
      decimal = true;
      scale = std::max(scale, DecimalScale(v));
      continue;
    }
    if (found) continue;
    if (py::isinstance<py::bool_>(v)) {
      found = boolean();
    } else if (py::isinstance<py::int_>(v)) {
      found = int64();
    } else if (py::isinstance<py::float_>(v)) {
      found = float64();
    } else if (py::isinstance<py::str>(v)) {
      found = utf8();
    } else if (py::isinstance<py::bytes>(v)) {
      found = binary();
    } else if (IsDatetime(v)) {
      const bool aware = !v.attr("tzinfo").is_none();
      found = timestamp(TimeUnit::kMicro, aware ? "UTC" : "");
    } else if (IsDate(v)) {
      found = date32();
    } else if (py::isinstance<py::dict>(v)) {
      std::vector<Field> fields;
      for (auto item : v.cast<py::dict>()) {
        py::list column;
        for (const py::handle row : values)
          column.append(row.is_none() ? py::none() : row.cast<py::dict>().attr("get")(item.first));
        FLOTILLA_ASSIGN_OR_RETURN(TypePtr t, InferType(column));
        fields.push_back({py::str(item.first).cast<std::string>(), t, true});
      }
      found = struct_(std::move(fields));
    } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
      py::list all;
      for (const py::handle row : values)
        if (!row.is_none())
          for (const py::handle e : row)
            all.append(e);
      FLOTILLA_ASSIGN_OR_RETURN(TypePtr element, InferType(all));
      found = list(element);
    } else if (py::hasattr(v, "dtype") && py::hasattr(v, "item")) {  // a numpy scalar
      return InferType(
          py::list(py::module_::import("numpy").attr("asarray")(values).attr("tolist")()));
    } else {
      return Status::TypeError("cannot convert a Python " +
                               py::str(py::type::of(v).attr("__name__")).cast<std::string>() +
                               " to a column value");
    }
  }
  if (decimal) {
    if (found) return Status::TypeError("a column mixes decimal.Decimal with other values");
    return decimal128(38, scale);
  }
  return found ? found : null();
}

int64_t DaysOf(const py::handle& date) {
  static const auto* epoch = new py::object(Datetime().attr("date")(1970, 1, 1));
  return date.attr("__sub__")(*epoch).attr("days").cast<int64_t>();
}

int64_t MicrosOf(const py::handle& dt) {
  py::object value = py::reinterpret_borrow<py::object>(dt);
  if (!value.attr("tzinfo").is_none()) {
    value = value.attr("astimezone")(Datetime().attr("timezone").attr("utc"))
                .attr("replace")(py::arg("tzinfo") = py::none());
  }
  static const auto* epoch = new py::object(Datetime().attr("datetime")(1970, 1, 1));
  const py::object delta = value.attr("__sub__")(*epoch);
  return delta.attr("days").cast<int64_t>() * 86400000000LL +
         delta.attr("seconds").cast<int64_t>() * 1000000LL +
         delta.attr("microseconds").cast<int64_t>();
}

Status TypeMismatch(const py::handle& v, const TypePtr& type) {
  return Status::TypeError("cannot store the Python value " + py::repr(v).cast<std::string>() +
                           " in a column of type " + type->ToString());
}

template <typename T>
Status AppendNumber(ArrayBuilder* b, const py::handle& v, const TypePtr& type) {
  auto* nb = static_cast<NumericBuilder<T>*>(b);
  if constexpr (std::is_floating_point_v<T>) {
    if (!py::isinstance<py::float_>(v) && !py::isinstance<py::int_>(v) &&
        !py::hasattr(v, "__float__")) {
      return TypeMismatch(v, type);
    }
    return nb->Append(static_cast<T>(v.cast<double>()));
  } else {
    if (py::isinstance<py::bool_>(v) || py::isinstance<py::float_>(v) ||
        !py::hasattr(v, "__index__")) {
      return TypeMismatch(v, type);
    }
    const py::int_ i = py::reinterpret_borrow<py::object>(v.attr("__index__")());
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow != 0 || (std::is_unsigned_v<T> && x < 0) ||
        (sizeof(T) < 8 && (x < static_cast<long long>(std::numeric_limits<T>::min()) ||
                           x > static_cast<long long>(std::numeric_limits<T>::max())))) {
      return Status::Invalid("the integer " + py::repr(v).cast<std::string>() +
                             " does not fit in " + type->ToString());
    }
    return nb->Append(static_cast<T>(x));
  }
}

Status Append(ArrayBuilder* b, const TypePtr& type, const py::handle& v) {
  if (v.is_none()) return b->AppendNull();
  if (py::isinstance<py::float_>(v) && std::isnan(v.cast<double>()) && !type->is_floating()) {
    return b->AppendNull();  // pandas writes missing values as NaN
  }
  switch (type->id()) {
    case TypeId::kNull:
      return b->AppendNull();
    case TypeId::kBool:
      if (!py::isinstance<py::bool_>(v) && !py::hasattr(v, "__bool__"))
        return TypeMismatch(v, type);
      return static_cast<BooleanBuilder*>(b)->Append(v.cast<bool>());
    case TypeId::kInt8:
      return AppendNumber<int8_t>(b, v, type);
    case TypeId::kInt16:
      return AppendNumber<int16_t>(b, v, type);
    case TypeId::kInt32:
      return AppendNumber<int32_t>(b, v, type);
    case TypeId::kInt64:
      return AppendNumber<int64_t>(b, v, type);
    case TypeId::kUInt8:
      return AppendNumber<uint8_t>(b, v, type);
    case TypeId::kUInt16:
      return AppendNumber<uint16_t>(b, v, type);
    case TypeId::kUInt32:
      return AppendNumber<uint32_t>(b, v, type);
    case TypeId::kUInt64:
      return AppendNumber<uint64_t>(b, v, type);
    case TypeId::kFloat32:
      return AppendNumber<float>(b, v, type);
    case TypeId::kFloat64:
      return AppendNumber<double>(b, v, type);
    case TypeId::kString:
    case TypeId::kLargeString:
      if (!py::isinstance<py::str>(v)) return TypeMismatch(v, type);
      if (type->id() == TypeId::kString)
        return static_cast<StringBuilder*>(b)->Append(v.cast<std::string>());
      return static_cast<LargeStringBuilder*>(b)->Append(v.cast<std::string>());
    case TypeId::kBinary:
      if (!py::isinstance<py::bytes>(v)) return TypeMismatch(v, type);
      return static_cast<BaseBinaryBuilder<int32_t>*>(b)->Append(v.cast<std::string>());
    case TypeId::kDate32:
      if (IsDatetime(v) || !IsDate(v)) return TypeMismatch(v, type);
      return static_cast<NumericBuilder<int32_t>*>(b)->Append(static_cast<int32_t>(DaysOf(v)));
    case TypeId::kTimestamp: {
      if (!IsDatetime(v)) return TypeMismatch(v, type);
      int64_t micros = MicrosOf(v);
      switch (type->unit()) {
        case TimeUnit::kSecond:
          micros /= 1000000;
          break;
        case TimeUnit::kMilli:
          micros /= 1000;
          break;
        case TimeUnit::kMicro:
          break;
        case TimeUnit::kNano:
          micros *= 1000;
          break;
      }
      return static_cast<NumericBuilder<int64_t>*>(b)->Append(micros);
    }
    case TypeId::kDecimal128: {
      if (!IsDecimal(v) && !py::isinstance<py::int_>(v)) return TypeMismatch(v, type);
      FLOTILLA_ASSIGN_OR_RETURN(Int128 x, DecimalFromString(py::str(v).cast<std::string>(),
                                                            type->precision(), type->scale()));
      return static_cast<FixedSizeBinaryBuilder*>(b)->AppendDecimal(x);
    }
    case TypeId::kList: {
      if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v) &&
          !py::hasattr(v, "tolist")) {
        return TypeMismatch(v, type);
      }
      auto* lb = static_cast<ListBuilder*>(b);
      py::object items =
          py::hasattr(v, "tolist") ? v.attr("tolist")() : py::reinterpret_borrow<py::object>(v);
      // The list starts before its values are appended.
      FLOTILLA_RETURN_NOT_OK(lb->Append());
      for (const py::handle e : items) {
        FLOTILLA_RETURN_NOT_OK(Append(lb->value_builder(), type->value_type(), e));
      }
      return Status::OK();
    }
    case TypeId::kStruct: {
      if (!py::isinstance<py::dict>(v)) return TypeMismatch(v, type);
      auto* sb = static_cast<StructBuilder*>(b);
      const py::dict d = py::reinterpret_borrow<py::dict>(v);
      for (size_t i = 0; i < type->fields().size(); ++i) {
        const Field& f = type->fields()[i];
        py::object e = d.attr("get")(f.name);
        FLOTILLA_RETURN_NOT_OK(Append(sb->field_builder(static_cast<int>(i)), f.type, e));
      }
      return sb->Append();
    }
    default:
      return Status::NotImplemented("converting Python values to " + type->ToString());
  }
}

// A numpy array of a plain numeric/bool dtype, copied in one go.
Result<Array> FromNumpy(const py::array& a) {
  const char kind = a.dtype().kind();
  const ssize_t n = a.size();
  if (a.ndim() != 1) return Status::Invalid("only one-dimensional numpy arrays become columns");
  TypePtr type;
  const int size = static_cast<int>(a.itemsize());
  if (kind == 'i') {
    type = size == 1 ? int8() : size == 2 ? int16() : size == 4 ? int32() : int64();
  } else if (kind == 'u') {
    type = size == 1 ? uint8() : size == 2 ? uint16() : size == 4 ? uint32() : uint64();
  } else if (kind == 'f' && (size == 4 || size == 8)) {
    type = size == 4 ? float32() : float64();
  } else if (kind == 'M') {
    // datetime64[unit]: the same int64 values.
    const std::string unit = py::str(a.dtype()).cast<std::string>();
    TimeUnit u = TimeUnit::kMicro;
    if (unit.find("[s]") != std::string::npos)
      u = TimeUnit::kSecond;
    else if (unit.find("[ms]") != std::string::npos)
      u = TimeUnit::kMilli;
    else if (unit.find("[ns]") != std::string::npos)
      u = TimeUnit::kNano;
    else if (unit.find("[us]") == std::string::npos) {
      return ToArray(a.attr("astype")("datetime64[us]"));
    }
    type = timestamp(u);
  } else {
    return Status::NotImplemented("");
  }
  const py::array contiguous = py::array::ensure(a, py::array::c_style);
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(n * size));
  std::memcpy(values->mutable_data(), contiguous.data(), static_cast<size_t>(n * size));
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = n;
  data->null_count = 0;
  data->buffers = {nullptr, values};
  if (kind == 'M') {
    // NaT is null.
    const int64_t* v = reinterpret_cast<const int64_t*>(values->data());
    bool any = false;
    for (ssize_t i = 0; i < n && !any; ++i)
      any = v[i] == std::numeric_limits<int64_t>::min();
    if (any) {
      FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(type));
      auto* nb = static_cast<NumericBuilder<int64_t>*>(builder.get());
      for (ssize_t i = 0; i < n; ++i) {
        FLOTILLA_RETURN_NOT_OK(v[i] == std::numeric_limits<int64_t>::min() ? nb->AppendNull()
                                                                           : nb->Append(v[i]));
      }
      return builder->Finish();
    }
  }
  return Array::Make(data);
}

}  // namespace

Result<Array> ToArray(const py::handle& values, TypePtr type) {
  if (py::isinstance<py::array>(values)) {
    const py::array a = py::reinterpret_borrow<py::array>(values);
    if (!type) {
      const char kind = a.dtype().kind();
      if (kind == 'b') {
        return ToArray(a.attr("tolist")(), boolean());
      }
      if (kind == 'i' || kind == 'u' || kind == 'f' || kind == 'M') {
        auto array = FromNumpy(a);
        if (array.ok() || array.status().code() != StatusCode::kNotImplemented) return array;
      }
    }
    return ToArray(a.attr("tolist")(), type);
  }
  if (!py::isinstance<py::list>(values) && !py::isinstance<py::tuple>(values)) {
    if (py::hasattr(values, "to_numpy")) return ToArray(values.attr("to_numpy")(), type);  // pandas
    if (py::hasattr(values, "__iter__") && !py::isinstance<py::str>(values)) {
      return ToArray(
          py::reinterpret_borrow<py::list>(py::module_::import("builtins").attr("list")(values)),
          type);
    }
    return Status::TypeError("a column must be a list, a tuple or a numpy array, got " +
                             py::str(py::type::of(values).attr("__name__")).cast<std::string>());
  }
  if (!type) {
    FLOTILLA_ASSIGN_OR_RETURN(type, InferType(values));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(type));
  for (const py::handle v : values) {
    FLOTILLA_RETURN_NOT_OK(Append(builder.get(), type, v));
  }
  return builder->Finish();
}

py::object ToPython(const Array& a, int64_t i) {
  if (a.IsNull(i)) return py::none();
  const DataType& t = *a.type();
  switch (t.id()) {
    case TypeId::kBool:
      return py::bool_(a.BoolValue(i));
    case TypeId::kInt8:
      return py::int_(a.values<int8_t>()[i]);
    case TypeId::kInt16:
      return py::int_(a.values<int16_t>()[i]);
    case TypeId::kInt32:
      return py::int_(a.values<int32_t>()[i]);
    case TypeId::kInt64:
      return py::int_(a.values<int64_t>()[i]);
    case TypeId::kUInt8:
      return py::int_(a.values<uint8_t>()[i]);
    case TypeId::kUInt16:
      return py::int_(a.values<uint16_t>()[i]);
    case TypeId::kUInt32:
      return py::int_(a.values<uint32_t>()[i]);
    case TypeId::kUInt64:
      return py::int_(a.values<uint64_t>()[i]);
    case TypeId::kFloat32:
      return py::float_(a.values<float>()[i]);
    case TypeId::kFloat64:
      return py::float_(a.values<double>()[i]);
    case TypeId::kString:
    case TypeId::kLargeString: {
      const std::string_view v = a.GetView(i);
      return py::str(v.data(), v.size());
    }
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary: {
      const std::string_view v = a.GetView(i);
      return py::bytes(v.data(), v.size());
    }
    case TypeId::kDecimal128: {
      Int128 v;
      std::memcpy(&v, a.GetView(i).data(), sizeof(v));
      return DecimalModule().attr("Decimal")(DecimalToString(v, t.scale()));
    }
    case TypeId::kDate32:
      return Datetime().attr("date").attr("fromordinal")(a.values<int32_t>()[i] + 719163);
    case TypeId::kTimestamp:
    case TypeId::kDuration: {
      int64_t v = a.values<int64_t>()[i];
      int64_t micros = v;
      switch (t.unit()) {
        case TimeUnit::kSecond:
          micros = v * 1000000;
          break;
        case TimeUnit::kMilli:
          micros = v * 1000;
          break;
        case TimeUnit::kMicro:
          break;
        case TimeUnit::kNano:
          micros = v / 1000;
          break;
      }
      py::object delta = Datetime().attr("timedelta")(py::arg("microseconds") = micros);
      if (t.id() == TypeId::kDuration) return delta;
      py::object epoch =
          t.timezone().empty()
              ? Datetime().attr("datetime")(1970, 1, 1)
              : Datetime().attr("datetime")(
                    1970, 1, 1, py::arg("tzinfo") = Datetime().attr("timezone").attr("utc"));
      return epoch.attr("__add__")(delta);
    }
    case TypeId::kList:
    case TypeId::kFixedSizeList:
      return ToList(a.ListValues(i));
    case TypeId::kStruct: {
      py::dict d;
      for (size_t f = 0; f < t.fields().size(); ++f)
        d[py::str(t.fields()[f].name)] = ToPython(a.field(static_cast<int>(f)), i);
      return d;
    }
    case TypeId::kDictionary:
      return ToPython(a.dictionary(), a.DictionaryIndex(i));
    default:
      return py::str(a.ValueToString(i));
  }
}

py::list ToList(const Array& array) {
  py::list out(array.length());
  for (int64_t i = 0; i < array.length(); ++i)
    out[static_cast<size_t>(i)] = ToPython(array, i);
  return out;
}

py::object ToNumpy(const Array& a) {
  py::module_ np = py::module_::import("numpy");
  const DataType& t = *a.type();
  std::string dtype;
  switch (t.id()) {
    case TypeId::kInt8:
      dtype = "int8";
      break;
    case TypeId::kInt16:
      dtype = "int16";
      break;
    case TypeId::kInt32:
      dtype = "int32";
      break;
    case TypeId::kInt64:
      dtype = "int64";
      break;
    case TypeId::kUInt8:
      dtype = "uint8";
      break;
    case TypeId::kUInt16:
      dtype = "uint16";
      break;
    case TypeId::kUInt32:
      dtype = "uint32";
      break;
    case TypeId::kUInt64:
      dtype = "uint64";
      break;
    case TypeId::kFloat32:
      dtype = "float32";
      break;
    case TypeId::kFloat64:
      dtype = "float64";
      break;
    case TypeId::kTimestamp:
      dtype = t.unit() == TimeUnit::kSecond  ? "datetime64[s]"
              : t.unit() == TimeUnit::kMilli ? "datetime64[ms]"
              : t.unit() == TimeUnit::kMicro ? "datetime64[us]"
                                             : "datetime64[ns]";
      break;
    default:
      break;
  }
  if (!dtype.empty() && a.null_count() == 0) {
    // Shares the Arrow buffer; the capsule keeps it alive as long as numpy needs it.
    auto* keep = new std::shared_ptr<ArrayData>(a.data());
    py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<ArrayData>*>(p); });
    const py::dtype dt(dtype);
    const char* start = reinterpret_cast<const char*>(a.raw_values()) + a.offset() * t.byte_width();
    py::array out(dt, {a.length()}, {static_cast<ssize_t>(t.byte_width())}, start, base);
    // Read-only: the buffer may be shared by other arrays of the result.
    out.attr("setflags")(py::arg("write") = false);
    return out;
  }
  // Fixed-size lists of numbers (embeddings, signatures, tensors) as a 2-D array over the same
  // values: one row per list.
  if (t.id() == TypeId::kFixedSizeList && a.null_count() == 0) {
    const int64_t size = t.fixed_size();
    Array values = a.child(0).Slice(a.offset() * size, a.length() * size);
    if (values.type()->is_numeric() && values.null_count() == 0) {
      return ToNumpy(values).attr("reshape")(a.length(), size);
    }
  }
  if (t.is_floating()) {
    py::array_t<double> out(a.length());
    auto m = out.mutable_unchecked<1>();
    for (int64_t i = 0; i < a.length(); ++i)
      m(i) = a.IsNull(i)
                 ? std::nan("")
                 : (t.id() == TypeId::kFloat32 ? a.values<float>()[i] : a.values<double>()[i]);
    return out;
  }
  if (t.id() == TypeId::kBool && a.null_count() == 0) {
    py::array_t<bool> out(a.length());
    auto m = out.mutable_unchecked<1>();
    for (int64_t i = 0; i < a.length(); ++i)
      m(i) = a.BoolValue(i);
    return out;
  }
  if (t.id() == TypeId::kDate32 && a.null_count() == 0) {
    py::array_t<int64_t> days(a.length());
    auto m = days.mutable_unchecked<1>();
    for (int64_t i = 0; i < a.length(); ++i)
      m(i) = a.values<int32_t>()[i];
    return days.attr("astype")("datetime64[D]");
  }
  return np.attr("array")(ToList(a), py::arg("dtype") = "object");
}

void Raise(const Status& status) {
  const std::string& message = status.message();
  switch (status.code()) {
    case StatusCode::kTypeError:
      throw py::type_error(message);
    case StatusCode::kIOError:
      PyErr_SetString(PyExc_OSError, message.c_str());
      throw py::error_already_set();
    case StatusCode::kNotImplemented:
      PyErr_SetString(PyExc_NotImplementedError, message.c_str());
      throw py::error_already_set();
    case StatusCode::kIndexError:
      throw py::index_error(message);
    default:
      throw py::value_error(message);
  }
}

}  // namespace flotilla::python
