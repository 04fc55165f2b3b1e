#include "flotilla/common/suggest.h"

#include <algorithm>
#include <cctype>

namespace flotilla {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string ClosestMatch(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_score = SIZE_MAX;
  for (const auto& c : candidates) {
    size_t d = EditDistance(name, c);
    // A prefix or abbreviation ("l_qty" for "l_quantity") is a likely typo even when the edit
    // distance is large, so count the dropped characters at half weight when one contains the
    // other's letters in order.
    size_t k = 0;
    for (char ch : c) {
      if (k < name.size() && std::tolower(static_cast<unsigned char>(ch)) ==
                                 std::tolower(static_cast<unsigned char>(name[k]))) {
        ++k;
      }
    }
    if (k == name.size() && c.size() >= name.size()) d = std::min(d, (c.size() - name.size()) / 2);
    if (d < best_score) {
      best_score = d;
      best = c;
    }
  }
  size_t limit = std::max<size_t>(2, name.size() / 2);
  return best_score <= limit ? best : std::string();
}

std::string NotFoundMessage(std::string_view what, std::string_view name,
                            const std::vector<std::string>& candidates) {
  std::string msg;
  msg.append(what).append(" '").append(name).append("' not found");
  std::string hint = ClosestMatch(name, candidates);
  if (!hint.empty()) {
    msg.append("; did you mean '").append(hint).append("'?");
  } else if (!candidates.empty() && candidates.size() <= 12) {
    msg.append("; available: ");
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (i) msg.append(", ");
      msg.append(candidates[i]);
    }
  }
  return msg;
}

}  // namespace flotilla
