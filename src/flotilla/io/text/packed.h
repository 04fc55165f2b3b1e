#pragma once
// Length-prefixed lists of byte strings: how the text formats' scan tasks travel in plans.
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/common/result.h"

namespace flotilla::io::text {

std::string Pack(const std::vector<std::string>& parts);
/// The parts Pack wrote.
Result<std::vector<std::string>> UnpackAll(std::string_view bytes);
/// The parts Pack wrote; an error unless there are exactly `count`.
Result<std::vector<std::string>> Unpack(std::string_view bytes, size_t count);

}  // namespace flotilla::io::text
