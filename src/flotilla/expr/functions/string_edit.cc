// Character mapping and edit distances: translate, levenshtein, hamming. The distances count
// bytes, as DuckDB's do ('é' to 'e' is 2 edits), so answers match DuckDB's on any text.

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"
#include "flotilla/expr/functions/utf8_text.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

std::vector<std::string_view> Characters(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t pos = 0; pos < s.size();) {
    const size_t length = DecodeAt(s, pos).length;
    out.push_back(s.substr(pos, length));
    pos += length;
  }
  return out;
}

// Each character of `from` becomes the character at the same position of `to`, or is removed
// when `to` is shorter; the first occurrence in `from` decides.
Result<Datum> TranslateExec(const Args& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeStringResultBuilder(args, 0, 1));
  StringAppender out(builder.get());
  std::string buffer;
  std::unordered_map<std::string_view, std::string_view> map;
  std::vector<std::string_view> removed;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    const std::vector<std::string_view> from = Characters(ViewAt(args[1], row));
    const std::vector<std::string_view> to = Characters(ViewAt(args[2], row));
    map.clear();
    removed.clear();
    for (size_t i = 0; i < from.size(); ++i) {
      if (map.count(from[i]) != 0 ||
          std::find(removed.begin(), removed.end(), from[i]) != removed.end()) {
        continue;
      }
      if (i < to.size()) {
        map.emplace(from[i], to[i]);
      } else {
        removed.push_back(from[i]);
      }
    }
    buffer.clear();
    for (std::string_view c : Characters(ViewAt(args[0], row))) {
      auto it = map.find(c);
      if (it != map.end()) {
        buffer.append(it->second);
      } else if (std::find(removed.begin(), removed.end(), c) == removed.end()) {
        buffer.append(c);
      }
    }
    return out.Append(buffer);
  });
}

Result<Datum> LevenshteinExec(const Args& args, int64_t num_rows) {
  std::vector<int64_t> previous, current;
  return MapValues<int64_t>(args, num_rows, int64(), [&](int64_t row) {
    std::string_view a = ViewAt(args[0], row), b = ViewAt(args[1], row);
    if (a.size() < b.size()) std::swap(a, b);  // the shorter one indexes the rows kept
    previous.resize(b.size() + 1);
    current.resize(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
      previous[j] = static_cast<int64_t>(j);
    for (size_t i = 1; i <= a.size(); ++i) {
      current[0] = static_cast<int64_t>(i);
      for (size_t j = 1; j <= b.size(); ++j) {
        const int64_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
        current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      }
      std::swap(previous, current);
    }
    return previous[b.size()];
  });
}

Result<Datum> HammingExec(const Args& args, int64_t num_rows) {
  const int64_t n = OutputRows(args, num_rows);
  for (int64_t row = 0; row < n; ++row) {
    if (!AnyNull(args, row) && ViewAt(args[0], row).size() != ViewAt(args[1], row).size()) {
      return Status::Invalid("hamming() compares strings of equal length, got '" +
                             std::string(ViewAt(args[0], row)) + "' and '" +
                             std::string(ViewAt(args[1], row)) + "'");
    }
  }
  return MapValues<int64_t>(args, num_rows, int64(), [&](int64_t row) {
    const std::string_view a = ViewAt(args[0], row), b = ViewAt(args[1], row);
    int64_t differ = 0;
    for (size_t i = 0; i < a.size(); ++i)
      differ += a[i] != b[i];
    return differ;
  });
}

}  // namespace

Status RegisterEditFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"translate",
       "translate(s, from, to): each character of `from` in s replaced by the character at the "
       "same position of `to`, or removed when `to` is shorter; null if any argument is null.",
       3, 3, [](const Types& t) { return ResolveSignature("translate", t, "s"); }, TranslateExec}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"levenshtein",
              "The least number of single-byte insertions, deletions and substitutions turning one "
              "string into the other (bytes, as DuckDB's); null if either is null.",
              2, 2, [](const Types& t) { return ResolveSignature("levenshtein", t, "s", int64()); },
              LevenshteinExec}));
  return r->Add({"hamming",
                 "The number of byte positions at which two strings of equal length differ; an "
                 "error for different lengths, null if either is null.",
                 2, 2, [](const Types& t) { return ResolveSignature("hamming", t, "s", int64()); },
                 HammingExec});
}

}  // namespace flotilla::expr::functions
