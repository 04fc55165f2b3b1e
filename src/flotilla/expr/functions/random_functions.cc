// Values drawn at random for every row: random() and uuid(). They are volatile: the binder never
// folds them into a constant, so each row (and each call) gets its own value.

#include <random>
#include <string>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/function_registry.h"

namespace flotilla::expr {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

std::mt19937_64& Generator() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return generator;
}

Result<Datum> RandomExec(const Args&, int64_t num_rows) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  DoubleBuilder builder(float64());
  FLOTILLA_RETURN_NOT_OK(builder.Reserve(num_rows));
  for (int64_t row = 0; row < num_rows; ++row) {
    FLOTILLA_RETURN_NOT_OK(builder.Append(uniform(Generator())));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array out, builder.Finish());
  return Datum::Column(std::move(out));
}

// RFC 4122 version 4: 122 random bits, the version nibble 4 and the variant bits 10.
Result<Datum> UuidExec(const Args&, int64_t num_rows) {
  static constexpr char kDigits[] = "0123456789abcdef";
  StringBuilder builder(utf8());
  FLOTILLA_RETURN_NOT_OK(builder.Reserve(num_rows));
  std::string text(36, '-');
  for (int64_t row = 0; row < num_rows; ++row) {
    uint64_t high = Generator()(), low = Generator()();
    high = (high & ~(uint64_t{0xF} << 12)) | (uint64_t{4} << 12);
    low = (low & ~(uint64_t{3} << 62)) | (uint64_t{2} << 62);
    size_t pos = 0;
    for (int nibble = 0; nibble < 32; ++nibble) {
      if (pos == 8 || pos == 13 || pos == 18 || pos == 23) ++pos;
      const uint64_t word = nibble < 16 ? high : low;
      text[pos++] = kDigits[(word >> (60 - 4 * (nibble % 16))) & 0xF];
    }
    FLOTILLA_RETURN_NOT_OK(builder.Append(text));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array out, builder.Finish());
  return Datum::Column(std::move(out));
}

}  // namespace

Status RegisterRandomFunctions(FunctionRegistry* r) {
  ScalarFunction random{
      "random", "A float64 drawn uniformly from [0, 1), a new one for every row.", 0,
      0,        [](const Types&) -> Result<TypePtr> { return float64(); },         RandomExec};
  random.is_volatile = true;
  FLOTILLA_RETURN_NOT_OK(r->Add(std::move(random)));
  for (const char* name : {"uuid", "gen_random_uuid"}) {
    ScalarFunction uuid{name,
                        "A random (version 4) UUID as text, "
                        "xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx, a new one for every row.",
                        0,
                        0,
                        [](const Types&) -> Result<TypePtr> { return utf8(); },
                        UuidExec};
    uuid.is_volatile = true;
    FLOTILLA_RETURN_NOT_OK(r->Add(std::move(uuid)));
  }
  return Status::OK();
}

}  // namespace flotilla::expr
