// LIKE / ILIKE and split(): matching that needs no regular expression engine.

#include <utf8proc.h>

#include <optional>
#include <string>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"
#include "flotilla/expr/functions/utf8_text.h"

namespace flotilla::expr::functions {
namespace {

// Characters as integers; an invalid byte b becomes -1 - b so it only equals the same byte.
int32_t CharKey(std::string_view s, size_t pos, Utf8Char c, bool fold) {
  if (c.code_point == kInvalidCodePoint) return -1 - static_cast<unsigned char>(s[pos]);
  return fold ? utf8proc_tolower(c.code_point) : c.code_point;
}

void DecodeKeys(std::string_view s, bool fold, std::vector<int32_t>* out) {
  out->clear();
  for (size_t pos = 0; pos < s.size();) {
    Utf8Char c = DecodeAt(s, pos);
    out->push_back(CharKey(s, pos, c, fold));
    pos += static_cast<size_t>(c.length);
  }
}

// Compiled LIKE pattern: literal characters, kAnyOne (_) and kAnyRun (%).
constexpr int32_t kAnyOne = -1000;
constexpr int32_t kAnyRun = -1001;

Status CompileLike(std::string_view pattern, const std::vector<int32_t>& escape, bool fold,
                   std::vector<int32_t>* out) {
  std::vector<int32_t> raw;
  DecodeKeys(pattern, false, &raw);
  out->clear();
  for (size_t i = 0; i < raw.size(); ++i) {
    if (!escape.empty() && raw[i] == escape[0]) {
      if (i + 1 == raw.size()) {
        return Status::Invalid("LIKE pattern '" + std::string(pattern) +
                               "' ends with the escape character");
      }
      ++i;
      out->push_back(fold && raw[i] >= 0 ? utf8proc_tolower(raw[i]) : raw[i]);
    } else if (raw[i] == '%') {
      if (out->empty() || out->back() != kAnyRun) out->push_back(kAnyRun);
    } else if (raw[i] == '_') {
      out->push_back(kAnyOne);
    } else {
      out->push_back(fold && raw[i] >= 0 ? utf8proc_tolower(raw[i]) : raw[i]);
    }
  }
  return Status::OK();
}

// Greedy wildcard matching that backtracks only to the most recent %, which is enough because
// a later % can absorb anything an earlier one could: O(text * pattern) in the worst case.
bool MatchLike(const std::vector<int32_t>& text, const std::vector<int32_t>& pat) {
  size_t t = 0, p = 0;
  size_t star = SIZE_MAX, star_t = 0;
  while (t < text.size()) {
    if (p < pat.size() && (pat[p] == kAnyOne || pat[p] == text[t])) {
      ++t;
      ++p;
    } else if (p < pat.size() && pat[p] == kAnyRun) {
      star = p++;
      star_t = t;
    } else if (star != SIZE_MAX) {
      p = star + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == kAnyRun)
    ++p;
  return p == pat.size();
}

// A LIKE pattern of literal text and % only (no _, no escape, case-sensitive), matched on the
// bytes: the literal pieces must appear in order, the first at the start and the last at the
// end unless % stands there. Byte positions are character positions for UTF-8, since a valid
// UTF-8 sequence found in valid UTF-8 text starts on a character boundary.
struct BytePattern {
  std::vector<std::string> pieces;  // the text between %s
  bool open_start = false, open_end = false;

  static std::optional<BytePattern> Compile(std::string_view pattern) {
    if (pattern.find('_') != std::string_view::npos) return std::nullopt;
    BytePattern out;
    out.open_start = !pattern.empty() && pattern.front() == '%';
    out.open_end = !pattern.empty() && pattern.back() == '%';
    size_t start = 0;
    for (size_t pct; (pct = pattern.find('%', start)) != std::string_view::npos; start = pct + 1) {
      if (pct > start) out.pieces.emplace_back(pattern.substr(start, pct - start));
    }
    if (start < pattern.size()) out.pieces.emplace_back(pattern.substr(start));
    return out;
  }

  bool Match(std::string_view text) const {
    if (pieces.empty()) return open_start || text.empty();
    size_t pos = 0;
    size_t first = 0, last = pieces.size();
    if (!open_start) {
      if (text.substr(0, pieces[0].size()) != pieces[0]) return false;
      pos = pieces[0].size();
      first = 1;
    }
    if (!open_end) {
      const std::string& tail = pieces.back();
      if (last == first && first == 1) return text.size() == pos;  // one piece, no %
      if (text.size() < pos + tail.size() || text.substr(text.size() - tail.size()) != tail) {
        return false;
      }
      text = text.substr(0, text.size() - tail.size());
      --last;
    }
    for (size_t i = first; i < last; ++i) {
      const size_t hit = text.find(pieces[i], pos);
      if (hit == std::string_view::npos) return false;
      pos = hit + pieces[i].size();
    }
    return true;
  }
};

template <bool kFold>
Result<Datum> LikeExec(const std::vector<Datum>& args, int64_t num_rows) {
  BooleanBuilder builder;
  std::vector<int32_t> text, pattern, escape;
  // The compiled pattern is reused while pattern and escape stay the same (always, for literals).
  std::string last_pattern, last_escape;
  bool compiled = false;
  std::optional<BytePattern> bytes;
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    std::string_view p = ViewAt(args[1], row);
    std::string_view e = args.size() > 2 ? ViewAt(args[2], row) : std::string_view();
    if (!compiled || p != last_pattern || e != last_escape) {
      DecodeKeys(e, false, &escape);
      if (escape.size() > 1) {
        return Status::Invalid(std::string(kFold ? "ilike" : "like") +
                               "() escape must be one character, got '" + std::string(e) + "'");
      }
      FLOTILLA_RETURN_NOT_OK(CompileLike(p, escape, kFold, &pattern));
      last_pattern.assign(p);
      last_escape.assign(e);
      compiled = true;
      bytes = kFold || !e.empty() ? std::nullopt : BytePattern::Compile(p);
    }
    if (bytes) return builder.Append(bytes->Match(ViewAt(args[0], row)));
    DecodeKeys(ViewAt(args[0], row), kFold, &text);
    return builder.Append(MatchLike(text, pattern));
  });
}

// split(s, sep): an empty separator splits into characters; an empty string gives [""]
// whatever the separator (as DuckDB).
Result<Datum> SplitExec(const std::vector<Datum>& args, int64_t num_rows) {
  TypePtr element = args[0].type()->id() == TypeId::kLargeString ? large_utf8() : utf8();
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(list(element)));
  auto* lists = static_cast<ListBuilder*>(builder.get());
  StringAppender out(lists->value_builder());
  std::vector<size_t> bounds;
  return MapRows(args, num_rows, lists, [&](int64_t row) -> Status {
    std::string_view s = ViewAt(args[0], row);
    std::string_view sep = ViewAt(args[1], row);
    FLOTILLA_RETURN_NOT_OK(lists->Append());
    if (sep.empty()) {
      if (s.empty()) return out.Append(s);
      CharBoundaries(s, &bounds);
      for (size_t i = 0; i + 1 < bounds.size(); ++i) {
        FLOTILLA_RETURN_NOT_OK(out.Append(s.substr(bounds[i], bounds[i + 1] - bounds[i])));
      }
      return Status::OK();
    }
    size_t pos = 0;
    for (size_t hit; (hit = s.find(sep, pos)) != std::string_view::npos; pos = hit + sep.size()) {
      FLOTILLA_RETURN_NOT_OK(out.Append(s.substr(pos, hit - pos)));
    }
    return out.Append(s.substr(pos));
  });
}

}  // namespace

Status RegisterLikeFunctions(FunctionRegistry* r) {
  using Types = std::vector<TypePtr>;
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"like",
       "Whether the string matches the SQL pattern (% any run, _ one character); the optional "
       "third argument is the escape character (no escape by default). Null if any is null.",
       2, 3, [](const Types& t) { return ResolveSignature("like", t, "s", boolean()); },
       LikeExec<false>}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"ilike", "Like `like`, ignoring case (Unicode simple lower-case mapping).", 2, 3,
              [](const Types& t) { return ResolveSignature("ilike", t, "s", boolean()); },
              LikeExec<true>}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"split",
       "The parts of the string between occurrences of the separator, as a list of strings (an "
       "empty separator splits into characters); null if any argument is null.",
       2, 2,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ResolveSignature("split", t, "s"));
         return list(t[0]->id() == TypeId::kLargeString ? large_utf8() : utf8());
       },
       SplitExec}));
  return Status::OK();
}

}  // namespace flotilla::expr::functions
