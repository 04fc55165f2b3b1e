#include "flotilla/io/text/utf8.h"

#include <simdjson.h>

namespace flotilla::io::text {

bool IsValidUtf8(const char* data, size_t size) {
  return simdjson::validate_utf8(data, size);
}

}  // namespace flotilla::io::text
