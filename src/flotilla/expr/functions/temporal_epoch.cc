// The instant as a number since 1970-01-01 00:00:00 UTC, as DuckDB's functions of these names:
// epoch in seconds (float64, with the fraction), epoch_ms and epoch_us (int64, floored).

#include <cmath>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/temporal_calendar.h"
#include "flotilla/expr/functions/temporal_kernels.h"

namespace flotilla::expr::temporal {
namespace {

using functions::MapValues;
using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

Result<TypePtr> ResolveEpoch(const char* name, const Types& t, TypePtr result) {
  if (t[0]->id() != TypeId::kDate32 && t[0]->id() != TypeId::kTimestamp &&
      t[0]->id() != TypeId::kNull) {
    return functions::ArgumentTypeError(name, 0, "a date or timestamp", t[0]);
  }
  return result;
}

// The value in nanoseconds since the epoch, as a 128-bit integer (no unit overflows).
__int128 EpochNanos(const Array& a, int64_t i) {
  if (a.type_id() == TypeId::kDate32) {
    return static_cast<__int128>(a.values<int32_t>()[i]) * kNanosPerDay;
  }
  return static_cast<__int128>(a.values<int64_t>()[i]) * NanosPerUnit(a.type()->unit());
}

int64_t FloorDiv(__int128 a, int64_t b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return static_cast<int64_t>(q);
}

template <int64_t kNanosPerUnit>
Result<Datum> EpochIntegerExec(const Args& args, int64_t num_rows) {
  const Array& a = args[0].array();
  return MapValues<int64_t>(args, num_rows, int64(), [&](int64_t row) {
    return FloorDiv(EpochNanos(a, args[0].index(row)), kNanosPerUnit);
  });
}

Result<Datum> EpochSecondsExec(const Args& args, int64_t num_rows) {
  const Array& a = args[0].array();
  return MapValues<double>(args, num_rows, float64(), [&](int64_t row) {
    const __int128 nanos = EpochNanos(a, args[0].index(row));
    const int64_t seconds = FloorDiv(nanos, kNanosPerSecond);
    const __int128 rest = nanos - static_cast<__int128>(seconds) * kNanosPerSecond;
    return static_cast<double>(seconds) + static_cast<double>(rest) / 1e9;
  });
}

}  // namespace

Status RegisterEpochFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"epoch",
              "Seconds since 1970-01-01 00:00:00 UTC of a date or timestamp, with the fraction "
              "(float64); null for null.",
              1, 1, [](const Types& t) { return ResolveEpoch("epoch", t, float64()); },
              EpochSecondsExec}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"epoch_ms",
              "Milliseconds since 1970-01-01 00:00:00 UTC of a date or timestamp (int64, "
              "floored); null for null.",
              1, 1, [](const Types& t) { return ResolveEpoch("epoch_ms", t, int64()); },
              EpochIntegerExec<1'000'000>}));
  return r->Add({"epoch_us",
                 "Microseconds since 1970-01-01 00:00:00 UTC of a date or timestamp (int64, "
                 "floored); null for null.",
                 1, 1, [](const Types& t) { return ResolveEpoch("epoch_us", t, int64()); },
                 EpochIntegerExec<1'000>});
}

}  // namespace flotilla::expr::temporal
