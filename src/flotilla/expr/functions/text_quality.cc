// Signals of a web document's text quality, the language-agnostic ones of the Gopher rules
// (Rae et al., 2021) that web-corpus pipelines filter on: how many words, how long they are,
// how many are made of letters, how much is symbols, how much is repeated lines. A word is a
// maximal run of characters that are not Unicode white space.

#include <utf8proc.h>

#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"
#include "flotilla/expr/functions/utf8_text.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

struct WordStats {
  int64_t words = 0;
  int64_t word_chars = 0;
  int64_t alpha_words = 0;  // words with at least one letter
  int64_t symbols = 0;      // '#', "..." and U+2026 (the ellipsis)
};

bool IsLetter(int32_t code_point) {
  switch (utf8proc_category(code_point)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
      return true;
    default:
      return false;
  }
}

WordStats CountWords(std::string_view s) {
  WordStats stats;
  bool in_word = false, word_has_letter = false;
  int dots = 0;
  for (size_t i = 0; i < s.size();) {
    const Utf8Char c = DecodeAt(s, i);
    i += static_cast<size_t>(c.length);
    const int32_t cp = c.code_point;
    if (cp == '.') {
      if (++dots == 3) {
        ++stats.symbols;
        dots = 0;
      }
    } else {
      dots = 0;
    }
    if (cp == '#' || cp == 0x2026) ++stats.symbols;
    if (cp != kInvalidCodePoint && IsUnicodeWhitespace(cp)) {
      if (in_word && word_has_letter) ++stats.alpha_words;
      in_word = word_has_letter = false;
      continue;
    }
    if (!in_word) ++stats.words;
    in_word = true;
    ++stats.word_chars;
    if (cp != kInvalidCodePoint &&
        (cp < 0x80 ? ((cp | 32) >= 'a' && (cp | 32) <= 'z') : IsLetter(cp)))
      word_has_letter = true;
  }
  if (in_word && word_has_letter) ++stats.alpha_words;
  return stats;
}

double Ratio(int64_t part, int64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// Non-empty lines (after trimming ASCII white space) equal to an earlier line, over all
// non-empty lines.
double DuplicateLineFraction(std::string_view s, std::unordered_set<std::string_view>* seen) {
  seen->clear();
  int64_t lines = 0, repeated = 0;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view line = s.substr(start, end - start);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t' || line.front() == '\r'))
      line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.remove_suffix(1);
    if (!line.empty()) {
      ++lines;
      if (!seen->insert(line).second) ++repeated;
    }
    start = end + 1;
  }
  return Ratio(repeated, lines);
}

int64_t WordCount(std::string_view s) {
  return CountWords(s).words;
}
double MeanWordLength(std::string_view s) {
  const WordStats w = CountWords(s);
  return Ratio(w.word_chars, w.words);
}
double AlphaWordRatio(std::string_view s) {
  const WordStats w = CountWords(s);
  return Ratio(w.alpha_words, w.words);
}
double SymbolRatio(std::string_view s) {
  const WordStats w = CountWords(s);
  return Ratio(w.symbols, w.words);
}
double DuplicateLines(std::string_view s) {
  std::unordered_set<std::string_view> seen;
  return DuplicateLineFraction(s, &seen);
}

// A one-string-argument function computing `kSignal` of each value (an int64 or a double).
template <const char* kName, auto kSignal>
ScalarFunction Signal(const char* doc) {
  using T = decltype(kSignal(std::string_view()));
  return {kName,
          doc,
          1,
          1,
          [](const Types& t) -> Result<TypePtr> {
            FLOTILLA_RETURN_NOT_OK(ExpectString(kName, t, 0));
            return std::is_same_v<T, int64_t> ? int64() : float64();
          },
          [](const Args& args, int64_t num_rows) -> Result<Datum> {
            return MapValues<T>(args, num_rows, std::is_same_v<T, int64_t> ? int64() : float64(),
                                [&](int64_t row) { return kSignal(ViewAt(args[0], row)); });
          }};
}

constexpr char kWordCount[] = "text_word_count";
constexpr char kMeanWordLength[] = "text_mean_word_length";
constexpr char kAlphaWordRatio[] = "text_alpha_word_ratio";
constexpr char kSymbolRatio[] = "text_symbol_ratio";
constexpr char kDuplicateLines[] = "text_duplicate_line_fraction";

}  // namespace

Status RegisterTextQualityFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(r->Add(Signal<kWordCount, WordCount>(
      "The number of words (runs of non-white-space characters). Null for null.")));
  FLOTILLA_RETURN_NOT_OK(r->Add(Signal<kMeanWordLength, MeanWordLength>(
      "The mean length of the words in characters; 0 without words.")));
  FLOTILLA_RETURN_NOT_OK(r->Add(Signal<kAlphaWordRatio, AlphaWordRatio>(
      "The fraction of words that contain a letter (any script); 0 without words.")));
  FLOTILLA_RETURN_NOT_OK(r->Add(Signal<kSymbolRatio, SymbolRatio>(
      "Symbols ('#', '...' and the ellipsis character) per word; 0 without words.")));
  return r->Add(Signal<kDuplicateLines, DuplicateLines>(
      "The fraction of non-empty lines that repeat an earlier line of the text; 0 without "
      "lines."));
}

}  // namespace flotilla::expr::functions
