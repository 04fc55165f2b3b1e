#include "flotilla/io/text/packed.h"

#include <cstdint>
#include <cstring>

namespace flotilla::io::text {

std::string Pack(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    const uint64_t n = p.size();
    out.append(reinterpret_cast<const char*>(&n), sizeof(n));
    out += p;
  }
  return out;
}

Result<std::vector<std::string>> UnpackAll(std::string_view bytes) {
  std::vector<std::string> parts;
  while (!bytes.empty()) {
    uint64_t n;
    if (bytes.size() < sizeof(n)) return Status::Invalid("truncated packed scan task");
    std::memcpy(&n, bytes.data(), sizeof(n));
    bytes.remove_prefix(sizeof(n));
    if (n > bytes.size()) return Status::Invalid("truncated packed scan task");
    parts.emplace_back(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  return parts;
}

Result<std::vector<std::string>> Unpack(std::string_view bytes, size_t count) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<std::string> parts, UnpackAll(bytes));
  if (parts.size() != count)
    return Status::Invalid("packed scan task has " + std::to_string(parts.size()) +
                           " parts, expected " + std::to_string(count));
  return parts;
}

}  // namespace flotilla::io::text
