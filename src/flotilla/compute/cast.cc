#include "flotilla/compute/cast.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "flotilla/columnar/builder.h"
#include "flotilla/columnar/decimal.h"
#include "flotilla/compute/arithmetic.h"
#include "flotilla/compute/dictionary_view.h"
#include "flotilla/compute/elementwise.h"
#include "flotilla/compute/parse.h"
#include "flotilla/compute/take.h"
#include "flotilla/types/type_dispatch.h"

namespace flotilla::compute {
namespace {

constexpr int64_t kSecondsPerDay = 86400;

// Calls f(T{}) with the C type of a numeric type id.
template <typename F>
Result<Array> VisitNumeric(TypeId id, F&& f) {
  return VisitNumericType(id, f, []() -> Result<Array> {
    return Status::Internal("VisitNumeric on a non-numeric type");
  });
}

template <typename Out>
bool FitsInteger(Int128 v, Out* out) {
  if (v < static_cast<Int128>(std::numeric_limits<Out>::min()) ||
      v > static_cast<Int128>(std::numeric_limits<Out>::max())) {
    return false;
  }
  *out = static_cast<Out>(v);
  return true;
}

template <typename Out>
bool RoundFloat(double d, Out* out) {
  if (!std::isfinite(d)) return false;
  // To the nearest integer, ties to even (2.5 -> 2, 3.5 -> 4), as PostgreSQL and DuckDB cast
  // floats; decimals and text round ties away from zero instead.
  const double t = std::nearbyint(d);
  // [min, 2^digits) is exactly representable at both ends, unlike max().
  const double lo = static_cast<double>(std::numeric_limits<Out>::min());
  const double hi = std::ldexp(1.0, std::numeric_limits<Out>::digits);
  if (t < lo || t >= hi) return false;
  *out = static_cast<Out>(t);
  return true;
}

Int128 RoundToScale(Int128 v, int32_t drop_digits) {
  if (drop_digits <= 0) return v;
  const Int128 f = PowerOfTen(drop_digits);
  Int128 q = v / f, r = v % f;
  if (r < 0) r = -r;
  if (r >= f - r) q += v < 0 ? -1 : 1;
  return q;
}

bool DecimalFits(Int128 v, int32_t precision) {
  const Int128 max = MaxDecimalForPrecision(precision);
  return v <= max && v >= -max;
}

// Rescales an unscaled decimal from scale `from` to `to` (rounding) and checks `precision`.
bool RescaleDecimal(Int128 v, int32_t from, int32_t to, int32_t precision, Int128* out) {
  if (to >= from) {
    if (__builtin_mul_overflow(v, PowerOfTen(to - from), &v)) return false;
  } else {
    v = RoundToScale(v, from - to);
  }
  *out = v;
  return DecimalFits(v, precision);
}

bool FloatToDecimal(double d, int32_t precision, int32_t scale, Int128* out) {
  if (!std::isfinite(d)) return false;
  // Scaled in double precision, as DuckDB does (PostgreSQL goes through the shortest decimal
  // text, to the same effect): -0.725, stored just above -0.725, becomes -0.73 at scale 2, as
  // its reader expects. Wider scales, where the double product stops being exact for whole
  // numbers, scale in long double.
  const long double scaled = scale <= 15
                                 ? static_cast<long double>(std::round(d * std::pow(10.0, scale)))
                                 : std::round(static_cast<long double>(d) * std::pow(10.0L, scale));
  if (std::fabs(scaled) >= std::pow(10.0L, precision)) return false;
  *out = static_cast<Int128>(scaled);
  return true;
}

double DecimalToDouble(Int128 v, int32_t scale) {
  return static_cast<double>(static_cast<long double>(v) / std::pow(10.0L, scale));
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// The shared loop of every cast into a fixed-width type. `convert(row, &out)` returns false for
// a value that does not convert; nulls are skipped.
template <typename Out, typename Convert>
Result<Array> CastLoop(const Array& in, const TypePtr& to, const CastOptions& options,
                       Convert convert) {
  const int64_t n = in.length();
  constexpr bool kBool = std::is_same_v<Out, bool>;
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr values,
                            kBool ? AllocateBitmap(n) : AllocateValues(n, sizeof(Out)));
  BufferPtr validity;
  int64_t null_count = in.null_count();
  if (null_count > 0) {
    FLOTILLA_ASSIGN_OR_RETURN(validity, AllocateBitmap(n));
    bit_util::CopyBitmap(in.validity(), in.offset(), n, validity->mutable_data(), 0);
  }
  const bool has_nulls = null_count > 0;
  for (int64_t i = 0; i < n; ++i) {
    if (has_nulls && in.IsNull(i)) continue;
    Out v{};
    if (convert(i, &v)) {
      if constexpr (kBool) {
        if (v) bit_util::SetBit(values->mutable_data(), i);
      } else {
        reinterpret_cast<Out*>(values->mutable_data())[i] = v;
      }
      continue;
    }
    if (options.safe) {
      const bool quote = in.type()->is_string();
      const std::string text = quote ? "'" + in.ValueToString(i) + "'" : in.ValueToString(i);
      return Status::Invalid("cannot cast " + in.type()->ToString() + " value " + text + " (row " +
                             std::to_string(i) + ") to " + to->ToString());
    }
    FLOTILLA_RETURN_NOT_OK(SetNull(&validity, i, n, &null_count));
  }
  return MakeFixedWidthArray(to, n, std::move(validity), null_count, std::move(values));
}

// Integer, float, decimal or bool `in` read as Int128 (integers, bool) / double (floats) /
// unscaled Int128 (decimals), into the integer or float type Out.
template <typename Out>
Result<Array> CastToNumber(const Array& in, const TypePtr& to, const CastOptions& options) {
  const DataType& from = *in.type();
  if (from.id() == TypeId::kBool) {
    return CastLoop<Out>(in, to, options, [&](int64_t i, Out* o) {
      *o = static_cast<Out>(in.BoolValue(i) ? 1 : 0);
      return true;
    });
  }
  if (from.id() == TypeId::kDecimal128) {
    const Int128* v = in.values<Int128>();
    const int32_t scale = from.scale();
    return CastLoop<Out>(in, to, options, [&](int64_t i, Out* o) {
      if constexpr (std::is_floating_point_v<Out>) {
        *o = static_cast<Out>(DecimalToDouble(v[i], scale));
        return true;
      } else {
        return FitsInteger(RoundToScale(v[i], scale), o);
      }
    });
  }
  if (from.is_string()) {
    return CastLoop<Out>(in, to, options, [&](int64_t i, Out* o) {
      if constexpr (std::is_floating_point_v<Out>) {
        double d;
        if (!ParseDouble(in.GetView(i), &d)) return false;
        *o = static_cast<Out>(d);
        return true;
      } else {
        Int128 v;
        // Decimal and exponent notation round to the nearest integer ('2.5' -> 3, '1e3' ->
        // 1000), as DuckDB casts them.
        const std::string_view text = in.GetView(i);
        return (ParseInteger(text, &v) || ParseDecimal(text, 38, 0, &v)) && FitsInteger(v, o);
      }
    });
  }
  return VisitNumeric(from.id(), [&](auto tag) -> Result<Array> {
    using In = decltype(tag);
    const In* v = in.values<In>();
    return CastLoop<Out>(in, to, options, [&](int64_t i, Out* o) {
      if constexpr (std::is_floating_point_v<Out>) {
        *o = static_cast<Out>(v[i]);
        return true;
      } else if constexpr (std::is_floating_point_v<In>) {
        return RoundFloat(static_cast<double>(v[i]), o);
      } else {
        return FitsInteger(static_cast<Int128>(v[i]), o);
      }
    });
  });
}

Result<Array> CastToDecimal(const Array& in, const TypePtr& to, const CastOptions& options) {
  const DataType& from = *in.type();
  const int32_t p = to->precision(), s = to->scale();
  if (from.id() == TypeId::kDecimal128) {
    const Int128* v = in.values<Int128>();
    return CastLoop<Int128>(in, to, options, [&](int64_t i, Int128* o) {
      return RescaleDecimal(v[i], from.scale(), s, p, o);
    });
  }
  if (from.is_string()) {
    return CastLoop<Int128>(in, to, options, [&](int64_t i, Int128* o) {
      return ParseDecimal(in.GetView(i), p, s, o);
    });
  }
  return VisitNumeric(from.id(), [&](auto tag) -> Result<Array> {
    using In = decltype(tag);
    const In* v = in.values<In>();
    return CastLoop<Int128>(in, to, options, [&](int64_t i, Int128* o) {
      if constexpr (std::is_floating_point_v<In>) {
        return FloatToDecimal(static_cast<double>(v[i]), p, s, o);
      } else {
        return RescaleDecimal(static_cast<Int128>(v[i]), 0, s, p, o);
      }
    });
  });
}

Result<Array> CastToBool(const Array& in, const TypePtr& to, const CastOptions& options) {
  if (in.type()->is_string()) {
    return CastLoop<bool>(in, to, options,
                          [&](int64_t i, bool* o) { return ParseBool(in.GetView(i), o); });
  }
  return VisitNumeric(in.type_id(), [&](auto tag) -> Result<Array> {
    using In = decltype(tag);
    const In* v = in.values<In>();
    return CastLoop<bool>(in, to, options, [&](int64_t i, bool* o) {
      *o = v[i] != 0;
      return true;
    });
  });
}

Result<Array> CastToDate(const Array& in, const TypePtr& to, const CastOptions& options) {
  if (in.type()->is_string()) {
    return CastLoop<int32_t>(in, to, options,
                             [&](int64_t i, int32_t* o) { return ParseDate32(in.GetView(i), o); });
  }
  const int64_t per_day = kSecondsPerDay * TicksPerSecond(in.type()->unit());
  const int64_t* v = in.values<int64_t>();
  return CastLoop<int32_t>(in, to, options, [&](int64_t i, int32_t* o) {
    return FitsInteger(static_cast<Int128>(FloorDiv(v[i], per_day)), o);
  });
}

Result<Array> CastToTimestamp(const Array& in, const TypePtr& to, const CastOptions& options) {
  const TimeUnit unit = to->unit();
  if (in.type()->is_string()) {
    return CastLoop<int64_t>(in, to, options, [&](int64_t i, int64_t* o) {
      return ParseTimestamp(in.GetView(i), unit, o);
    });
  }
  if (in.type_id() == TypeId::kDate32) {
    const int64_t per_day = kSecondsPerDay * TicksPerSecond(unit);
    const int32_t* v = in.values<int32_t>();
    return CastLoop<int64_t>(in, to, options, [&](int64_t i, int64_t* o) {
      return !__builtin_mul_overflow(int64_t{v[i]}, per_day, o);
    });
  }
  const int64_t from_ticks = TicksPerSecond(in.type()->unit()), to_ticks = TicksPerSecond(unit);
  const int64_t* v = in.values<int64_t>();
  return CastLoop<int64_t>(in, to, options, [&](int64_t i, int64_t* o) {
    if (to_ticks >= from_ticks) return !__builtin_mul_overflow(v[i], to_ticks / from_ticks, o);
    *o = FloorDiv(v[i], from_ticks / to_ticks);
    return true;
  });
}

bool IsNested(const DataType& t) {
  return t.id() == TypeId::kList || t.id() == TypeId::kFixedSizeList || t.id() == TypeId::kStruct;
}

// A string inside a list or struct is quoted, as DuckDB's casts quote it, when it could be
// misread: empty, "null" in any case, with a separator or quote, or space at either end.
void AppendNestedString(std::string_view s, std::string* out) {
  const bool quote = s.empty() ||
                     (s.size() == 4 && (s[0] | 32) == 'n' && (s[1] | 32) == 'u' &&
                      (s[2] | 32) == 'l' && (s[3] | 32) == 'l') ||
                     s.find_first_of(",[]{}:'\"") != std::string_view::npos ||
                     std::isspace(static_cast<unsigned char>(s.front())) ||
                     std::isspace(static_cast<unsigned char>(s.back()));
  if (!quote) {
    out->append(s);
    return;
  }
  out->push_back('\'');
  for (char c : s) {
    if (c == '\'') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('\'');
}

// Value i of `in` as text: strings as they are, whole floats with ".0" ("5.0", as DuckDB and
// Python print them), lists as [a, b, NULL] and structs as {'name': value}, as DuckDB's casts.
void AppendText(const Array& in, int64_t i, std::string* out, bool nested = false) {
  const DataType& t = *in.type();
  if (in.IsNull(i)) {
    out->append("NULL");
  } else if (t.is_string() && nested) {
    AppendNestedString(in.GetView(i), out);
  } else if (t.is_string()) {
    out->append(in.GetView(i));
  } else if (t.id() == TypeId::kList || t.id() == TypeId::kFixedSizeList) {
    const Array values = in.child(0);
    const int64_t size = t.id() == TypeId::kFixedSizeList ? t.fixed_size() : 0;
    const int64_t first = size ? (in.offset() + i) * size : in.ValueOffset(i);
    const int64_t end = size ? first + size : in.ValueOffset(i + 1);
    out->push_back('[');
    for (int64_t j = first; j < end; ++j) {
      if (j > first) out->append(", ");
      AppendText(values, j, out, true);
    }
    out->push_back(']');
  } else if (t.id() == TypeId::kStruct) {
    out->push_back('{');
    for (int f = 0; f < static_cast<int>(t.fields().size()); ++f) {
      if (f > 0) out->append(", ");
      out->append("'" + t.fields()[f].name + "': ");
      AppendText(in.field(f), i, out, true);
    }
    out->push_back('}');
  } else {
    std::string text = in.ValueToString(i);
    if (t.is_floating() && text.find_first_not_of("-0123456789") == std::string::npos) {
      text += ".0";
    }
    out->append(text);
  }
}

// list<a> to list<b>: the elements cast, the offsets and validity kept.
Result<Array> CastList(const Array& in, const TypePtr& to, const CastOptions& options) {
  FLOTILLA_ASSIGN_OR_RETURN(Array values, Cast(in.child(0), to->fields()[0].type, options));
  auto data = std::make_shared<ArrayData>(*in.data());
  data->type = to;
  data->children = {values.data()};
  return Array(std::move(data));
}

Result<Array> CastToString(const Array& in, const TypePtr& to) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(to));
  FLOTILLA_RETURN_NOT_OK(builder->Reserve(in.length()));
  std::string text;
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    text.clear();
    AppendText(in, i, &text);
    if (to->id() == TypeId::kLargeString) {
      FLOTILLA_RETURN_NOT_OK(static_cast<LargeStringBuilder*>(builder.get())->Append(text));
    } else {
      FLOTILLA_RETURN_NOT_OK(static_cast<StringBuilder*>(builder.get())->Append(text));
    }
  }
  return builder->Finish();
}

// The dictionary's values gathered by the indices. Take reads only 32- and 64-bit indices, so
// narrower ones are widened first; a null index, or an index to a null entry, is a null row.
Result<Array> DecodeDictionary(const Array& values) {
  Array indices = internal::DictionaryIndices(values);
  if (indices.type()->byte_width() < 4) {
    FLOTILLA_ASSIGN_OR_RETURN(indices, CastToNumber<int32_t>(indices, int32(), CastOptions{}));
  }
  return Take(values.dictionary(), indices);
}

}  // namespace

bool CanCast(const DataType& from, const DataType& to) {
  if (from.Equals(to) || from.id() == TypeId::kNull) return true;
  if (from.id() == TypeId::kDictionary) {
    return from.value_type()->Equals(to) || CanCast(*from.value_type(), to);
  }
  const bool from_number = from.is_numeric() || from.id() == TypeId::kDecimal128;
  const bool from_string = from.is_string();
  switch (to.id()) {
    case TypeId::kList:
      return from.id() == TypeId::kList && CanCast(*from.fields()[0].type, *to.fields()[0].type);
    case TypeId::kString:
    case TypeId::kLargeString:
      return from_number || from_string || from.id() == TypeId::kBool || IsNested(from) ||
             from.id() == TypeId::kDate32 || from.id() == TypeId::kTimestamp ||
             from.id() == TypeId::kDuration || from.id() == TypeId::kTime64;
    case TypeId::kBool:
      return from.is_numeric() || from_string;
    case TypeId::kDecimal128:
      return from_number || from_string;
    case TypeId::kDate32:
      return from_string || from.id() == TypeId::kTimestamp;
    case TypeId::kTimestamp:
      return from_string || from.id() == TypeId::kDate32 || from.id() == TypeId::kTimestamp;
    default:
      return to.is_numeric() && (from_number || from_string || from.id() == TypeId::kBool);
  }
}

Result<Array> Cast(const Array& values, const TypePtr& to, const CastOptions& options) {
  const DataType& from = *values.type();
  if (from.Equals(*to)) return values;
  if (!CanCast(from, *to)) {
    return Status::TypeError("cannot cast " + from.ToString() + " to " + to->ToString());
  }
  if (from.id() == TypeId::kNull) return Array::MakeNull(to, values.length());
  if (from.id() == TypeId::kDictionary) {
    FLOTILLA_ASSIGN_OR_RETURN(Array decoded, DecodeDictionary(values));
    return Cast(decoded, to, options);
  }
  switch (to->id()) {
    case TypeId::kList:
      return CastList(values, to, options);
    case TypeId::kString:
    case TypeId::kLargeString:
      return CastToString(values, to);
    case TypeId::kBool:
      return CastToBool(values, to, options);
    case TypeId::kDecimal128:
      return CastToDecimal(values, to, options);
    case TypeId::kDate32:
      return CastToDate(values, to, options);
    case TypeId::kTimestamp:
      return CastToTimestamp(values, to, options);
    default:
      return VisitNumeric(to->id(), [&](auto tag) -> Result<Array> {
        return CastToNumber<decltype(tag)>(values, to, options);
      });
  }
}

}  // namespace flotilla::compute
