// libFuzzer target: arbitrary bytes as a serialized expression (the form tasks carry to workers,
// expr/serialize.h), deserialized; what deserializes is printed, bound against a schema of every
// common type and serialized again, which must give an expression that deserializes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/expr/binder.h"
#include "flotilla/expr/serialize.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto e = flotilla::expr::DeserializeExpression(
      std::string_view(reinterpret_cast<const char*>(data), size));
  if (!e.ok()) return 0;
  volatile size_t shown = (*e)->ToString().size();
  (void)shown;
  using namespace flotilla;
  static const Schema schema({{"a", int64()},
                              {"b", utf8()},
                              {"c", float64()},
                              {"d", date32()},
                              {"e", boolean()},
                              {"f", list(int32())},
                              {"g", decimal128(12, 2)}});
  (void)expr::Bind(*e, schema);
  auto again = expr::SerializeExpression(*e);
  if (!again.ok() || !expr::DeserializeExpression(*again).ok()) __builtin_trap();
  return 0;
}
