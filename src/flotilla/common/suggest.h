#pragma once
// "Did you mean ...?" for names the user mistyped.

#include <string>
#include <string_view>
#include <vector>

namespace flotilla {

/// Levenshtein distance, case-insensitive.
size_t EditDistance(std::string_view a, std::string_view b);

/// The candidate closest to `name`, or "" when none is close enough to be a likely typo.
std::string ClosestMatch(std::string_view name, const std::vector<std::string>& candidates);

/// "column 'l_qty' not found; did you mean 'l_quantity'?" (the hint only when one is close).
std::string NotFoundMessage(std::string_view what, std::string_view name,
                            const std::vector<std::string>& candidates);

}  // namespace flotilla
