#include "flotilla/io/text/line_locator.h"

#include <algorithm>

namespace flotilla::io::text {

std::string LineLocator::Describe(int64_t offset) const {
  offset = std::clamp<int64_t>(offset, 0, static_cast<int64_t>(chunk_.size()));
  int64_t line = 1 + std::count(chunk_.begin(), chunk_.begin() + offset, '\n');
  bool known = true;
  if (base_ > 0) {
    auto prefix = file_->ReadAt(0, base_);
    if (prefix.ok()) {
      const char* p = reinterpret_cast<const char*>((*prefix)->data());
      line += std::count(p, p + base_, '\n');
    } else {
      known = false;
    }
  }
  std::string where = known ? "line " + std::to_string(line) + " (byte " : "byte ";
  where += std::to_string(base_ + offset);
  if (known) where += ")";
  return where + " of '" + file_->name() + "'";
}

}  // namespace flotilla::io::text
