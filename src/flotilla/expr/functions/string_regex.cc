// Regular expression kernels on RE2 (linear time, no backtracking blow-up on user patterns).
// Patterns are RE2 syntax over UTF-8; a match is searched anywhere in the string unless the
// pattern anchors itself.

#include <re2/re2.h>

#include <memory>
#include <string>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"
#include "flotilla/expr/functions/utf8_text.h"

namespace flotilla::expr::functions {
namespace {

/// Compiles a pattern once and keeps it while the next rows ask for the same one, so a literal
/// pattern compiles once per batch and a pattern column recompiles only when it changes.
class PatternCache {
 public:
  explicit PatternCache(std::string_view function) : function_(function) {}

  Result<const RE2*> Get(std::string_view pattern, bool case_insensitive = false) {
    if (re_ && pattern == pattern_ && case_insensitive == case_insensitive_) return re_.get();
    RE2::Options options;
    options.set_log_errors(false);
    options.set_case_sensitive(!case_insensitive);
    auto re = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
    if (!re->ok()) {
      return Status::Invalid(std::string(function_) + "(): invalid regular expression '" +
                             std::string(pattern) + "': " + re->error());
    }
    re_ = std::move(re);
    pattern_.assign(pattern);
    case_insensitive_ = case_insensitive;
    return re_.get();
  }

  /// Compiles a literal pattern up front so an invalid one fails even on an empty batch.
  Status Prepare(const Datum& pattern) {
    if (pattern.is_scalar() && !pattern.IsNull(0)) return Get(ViewAt(pattern, 0)).status();
    return Status::OK();
  }

 private:
  std::string_view function_;
  std::unique_ptr<RE2> re_;
  std::string pattern_;
  bool case_insensitive_ = false;
};

std::string_view ToView(const re2::StringPiece& p) {
  return {p.data(), p.size()};
}

Status CheckGroup(std::string_view function, const RE2& re, int64_t group) {
  if (group >= 0 && group <= re.NumberOfCapturingGroups()) return Status::OK();
  return Status::Invalid(std::string(function) + "(): group " + std::to_string(group) +
                         " does not exist; pattern '" + re.pattern() + "' has " +
                         std::to_string(re.NumberOfCapturingGroups()) + " capturing group(s)");
}

// regexp_matches: a match anywhere; regexp_full_match (SQL's SIMILAR TO): the whole string.
template <bool kFull>
Result<Datum> MatchesExec(const std::vector<Datum>& args, int64_t num_rows) {
  PatternCache cache(kFull ? "regexp_full_match" : "regexp_matches");
  FLOTILLA_RETURN_NOT_OK(cache.Prepare(args[1]));
  BooleanBuilder builder;
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(const RE2* re, cache.Get(ViewAt(args[1], row)));
    const std::string_view text = ViewAt(args[0], row);
    return builder.Append(kFull ? RE2::FullMatch(text, *re) : RE2::PartialMatch(text, *re));
  });
}

// A GLOB pattern as an RE2 pattern for a full match: * any run of characters, ? one character,
// [abc] / [a-z] a class, [!abc] or [^abc] its complement; an unclosed [ is itself.
std::string GlobToRegex(std::string_view glob) {
  std::string out;
  for (size_t i = 0; i < glob.size(); ++i) {
    const char c = glob[i];
    if (c == '*') {
      out += "(?s:.*)";
    } else if (c == '?') {
      out += "(?s:.)";
    } else if (c == '[') {
      size_t j = i + 1;
      if (j < glob.size() && (glob[j] == '!' || glob[j] == '^')) ++j;
      if (j < glob.size() && glob[j] == ']') ++j;  // a leading ] is a member
      while (j < glob.size() && glob[j] != ']')
        ++j;
      if (j >= glob.size()) {
        out += "\\[";
        continue;
      }
      std::string_view members = glob.substr(i + 1, j - i - 1);
      out += '[';
      if (!members.empty() && (members[0] == '!' || members[0] == '^')) {
        out += '^';
        members.remove_prefix(1);
      }
      for (char m : members) {
        if (m == '\\' || m == ']' || m == '[' || m == '^') out += '\\';
        out += m;
      }
      out += ']';
      i = j;
    } else {
      out += RE2::QuoteMeta(re2::StringPiece(&glob[i], 1));
    }
  }
  return out;
}

Result<Datum> GlobExec(const std::vector<Datum>& args, int64_t num_rows) {
  PatternCache cache("glob");
  BooleanBuilder builder;
  std::string last_glob, regex;
  bool converted = false;
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    const std::string_view glob = ViewAt(args[1], row);
    if (!converted || glob != last_glob) {
      regex = GlobToRegex(glob);
      last_glob.assign(glob);
      converted = true;
    }
    FLOTILLA_ASSIGN_OR_RETURN(const RE2* re, cache.Get(regex));
    return builder.Append(RE2::FullMatch(ViewAt(args[0], row), *re));
  });
}

// No match, or a group that did not take part in the match, gives null.
Result<Datum> ExtractExec(const std::vector<Datum>& args, int64_t num_rows) {
  PatternCache cache("regexp_extract");
  FLOTILLA_RETURN_NOT_OK(cache.Prepare(args[1]));
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeStringResultBuilder(args, 0, 1));
  StringAppender out(builder.get());
  std::vector<re2::StringPiece> groups;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(const RE2* re, cache.Get(ViewAt(args[1], row)));
    int64_t group = 0;
    if (args.size() > 2) {
      FLOTILLA_ASSIGN_OR_RETURN(group, IntegerAt(args[2], row, "regexp_extract"));
    }
    FLOTILLA_RETURN_NOT_OK(CheckGroup("regexp_extract", *re, group));
    groups.assign(static_cast<size_t>(group) + 1, re2::StringPiece());
    std::string_view s = ViewAt(args[0], row);
    if (!re->Match(s, 0, s.size(), RE2::UNANCHORED, groups.data(), static_cast<int>(group) + 1) ||
        groups[group].data() == nullptr) {
      return out.AppendNull();
    }
    return out.Append(ToView(groups[group]));
  });
}

/// Calls visit(match) for each non-overlapping match of `re` in `s` (`groups` sized by caller;
/// groups[0] is the whole match). After an empty match the search resumes one character later.
template <typename Visit>
Status ForEachMatch(const RE2& re, std::string_view s, std::vector<re2::StringPiece>* groups,
                    Visit&& visit) {
  size_t pos = 0;
  while (pos <= s.size() && re.Match(s, pos, s.size(), RE2::UNANCHORED, groups->data(),
                                     static_cast<int>(groups->size()))) {
    FLOTILLA_RETURN_NOT_OK(visit(*groups));
    size_t end = static_cast<size_t>((*groups)[0].data() - s.data()) + (*groups)[0].size();
    if ((*groups)[0].empty()) {
      if (end >= s.size()) break;
      end += static_cast<size_t>(DecodeAt(s, end).length);
    }
    pos = end;
  }
  return Status::OK();
}

TypePtr StringListOf(const Datum& d) {
  return list(d.type()->id() == TypeId::kLargeString ? large_utf8() : utf8());
}

Result<Datum> ExtractAllExec(const std::vector<Datum>& args, int64_t num_rows) {
  PatternCache cache("regexp_extract_all");
  FLOTILLA_RETURN_NOT_OK(cache.Prepare(args[1]));
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(StringListOf(args[0])));
  auto* lists = static_cast<ListBuilder*>(builder.get());
  StringAppender out(lists->value_builder());
  std::vector<re2::StringPiece> groups;
  return MapRows(args, num_rows, lists, [&](int64_t row) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(const RE2* re, cache.Get(ViewAt(args[1], row)));
    int64_t group = 0;
    if (args.size() > 2) {
      FLOTILLA_ASSIGN_OR_RETURN(group, IntegerAt(args[2], row, "regexp_extract_all"));
    }
    FLOTILLA_RETURN_NOT_OK(CheckGroup("regexp_extract_all", *re, group));
    groups.assign(static_cast<size_t>(group) + 1, re2::StringPiece());
    FLOTILLA_RETURN_NOT_OK(lists->Append());
    return ForEachMatch(*re, ViewAt(args[0], row), &groups, [&](const auto& g) {
      return g[group].data() == nullptr ? out.AppendNull() : out.Append(ToView(g[group]));
    });
  });
}

// Empty matches do not split, so regexp_split('abc', 'x*') is ['abc'].
Result<Datum> SplitExec(const std::vector<Datum>& args, int64_t num_rows) {
  PatternCache cache("regexp_split");
  FLOTILLA_RETURN_NOT_OK(cache.Prepare(args[1]));
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(StringListOf(args[0])));
  auto* lists = static_cast<ListBuilder*>(builder.get());
  StringAppender out(lists->value_builder());
  std::vector<re2::StringPiece> groups(1);
  return MapRows(args, num_rows, lists, [&](int64_t row) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(const RE2* re, cache.Get(ViewAt(args[1], row)));
    std::string_view s = ViewAt(args[0], row);
    FLOTILLA_RETURN_NOT_OK(lists->Append());
    size_t piece_start = 0;
    FLOTILLA_RETURN_NOT_OK(ForEachMatch(*re, s, &groups, [&](const auto& g) -> Status {
      if (g[0].empty()) return Status::OK();
      size_t begin = static_cast<size_t>(g[0].data() - s.data());
      FLOTILLA_RETURN_NOT_OK(out.Append(s.substr(piece_start, begin - piece_start)));
      piece_start = begin + g[0].size();
      return Status::OK();
    }));
    return out.Append(s.substr(piece_start));
  });
}

// Flags: 'g' replaces every match (default: the first only, as in PostgreSQL), 'i' ignores
// case. The replacement may refer to groups as \1 .. \9 (\0 is the whole match).
Result<Datum> ReplaceExec(const std::vector<Datum>& args, int64_t num_rows) {
  PatternCache cache("regexp_replace");
  FLOTILLA_RETURN_NOT_OK(cache.Prepare(args[1]));
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeStringResultBuilder(args, 0, 1));
  StringAppender out(builder.get());
  std::string buffer;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    bool global = false, fold = false;
    if (args.size() > 3) {
      for (char flag : ViewAt(args[3], row)) {
        if (flag == 'g') {
          global = true;
        } else if (flag == 'i') {
          fold = true;
        } else {
          return Status::Invalid("regexp_replace(): unknown flag '" + std::string(1, flag) +
                                 "' at row " + std::to_string(row) + "; expected 'g' or 'i'");
        }
      }
    }
    FLOTILLA_ASSIGN_OR_RETURN(const RE2* re, cache.Get(ViewAt(args[1], row), fold));
    std::string_view rewrite = ViewAt(args[2], row);
    std::string error;
    if (!re->CheckRewriteString(re2::StringPiece(rewrite.data(), rewrite.size()), &error)) {
      return Status::Invalid("regexp_replace(): invalid replacement '" + std::string(rewrite) +
                             "' for pattern '" + re->pattern() + "': " + error);
    }
    buffer.assign(ViewAt(args[0], row));
    re2::StringPiece rw(rewrite.data(), rewrite.size());
    if (global) {
      RE2::GlobalReplace(&buffer, *re, rw);
    } else {
      RE2::Replace(&buffer, *re, rw);
    }
    return out.Append(buffer);
  });
}

}  // namespace

Status RegisterRegexFunctions(FunctionRegistry* r) {
  using Types = std::vector<TypePtr>;
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"regexp_matches",
       "Whether the regular expression (RE2 syntax) matches anywhere in the string; null if any "
       "argument is null.",
       2, 2, [](const Types& t) { return ResolveSignature("regexp_matches", t, "s", boolean()); },
       MatchesExec<false>}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"regexp_full_match",
       "Whether the regular expression (RE2 syntax) matches the whole string (SQL's SIMILAR TO); "
       "null if any argument is null.",
       2, 2,
       [](const Types& t) { return ResolveSignature("regexp_full_match", t, "s", boolean()); },
       MatchesExec<true>}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"glob",
       "Whether the string matches the GLOB pattern as a whole (* any characters, ? one, [a-z] "
       "a class, [!a-z] its complement; case-sensitive); null if any argument is null.",
       2, 2, [](const Types& t) { return ResolveSignature("glob", t, "s", boolean()); },
       GlobExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"regexp_extract",
       "The text of capturing group `group` (default 0, the whole match) in the first match; "
       "null when nothing matches or any argument is null.",
       2, 3,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ResolveSignature("regexp_extract", t, "ssi"));
         return StringResultType(t, 0, 1);
       },
       ExtractExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"regexp_extract_all",
       "The text of group `group` (default 0) in every non-overlapping match, as a list; null if "
       "any argument is null.",
       2, 3,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ResolveSignature("regexp_extract_all", t, "ssi"));
         return list(StringResultType(t, 0, 1));
       },
       ExtractAllExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"regexp_replace",
       "The string with the first match (every match with flag 'g'; 'i' ignores case) replaced; "
       "\\1 in the replacement inserts group 1. Null if any argument is null.",
       3, 4,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ResolveSignature("regexp_replace", t, "s"));
         return StringResultType(t, 0, 1);
       },
       ReplaceExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"regexp_split",
       "The parts of the string between matches of the regular expression, as a list; null if "
       "any argument is null.",
       2, 2,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ResolveSignature("regexp_split", t, "s"));
         return list(StringResultType(t, 0, 1));
       },
       SplitExec}));
  return Status::OK();
}

}  // namespace flotilla::expr::functions
