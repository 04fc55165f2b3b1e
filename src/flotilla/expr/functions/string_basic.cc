// Character-level string kernels: length, case, trimming, slicing, padding, concatenation.

#include <utf8proc.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "flotilla/columnar/value_size.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"
#include "flotilla/expr/functions/utf8_text.h"

namespace flotilla::expr::functions {

Result<std::unique_ptr<ArrayBuilder>> MakeStringResultBuilder(const std::vector<Datum>& args,
                                                              size_t first, size_t end) {
  for (size_t i = first; i < args.size() && i < end; ++i) {
    if (args[i].type()->id() == TypeId::kLargeString) return MakeBuilder(large_utf8());
  }
  return MakeBuilder(utf8());
}

namespace {

/// A string -> string kernel: `fn(value, &out)` fills out for each non-null row.
template <typename Fn>
Result<Datum> MapStrings(const std::vector<Datum>& args, int64_t num_rows, Fn&& fn) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeStringResultBuilder(args));
  StringAppender out(builder.get());
  std::string buffer;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    buffer.clear();
    FLOTILLA_RETURN_NOT_OK(fn(args, row, &buffer));
    return out.Append(buffer);
  });
}

template <typename Fn>
Result<Datum> MapToBool(const std::vector<Datum>& args, int64_t num_rows, Fn&& fn) {
  BooleanBuilder builder;
  return MapRows(args, num_rows, &builder, [&](int64_t row) { return builder.Append(fn(row)); });
}

// Simple (one-to-one) case mappings, so the character count never changes: upper('ß') is 'ẞ',
// not 'SS'.
Status MapCase(std::string_view s, bool upper, std::string* out) {
  size_t pos = 0;
  while (pos < s.size()) {
    Utf8Char c = DecodeAt(s, pos);
    if (c.code_point == kInvalidCodePoint) {
      out->push_back(s[pos]);
    } else {
      AppendCodePoint(upper ? utf8proc_toupper(c.code_point) : utf8proc_tolower(c.code_point), out);
    }
    pos += static_cast<size_t>(c.length);
  }
  return Status::OK();
}

enum class TrimSide { kLeft, kRight, kBoth };

// Characters compare by their bytes, so an invalid byte only trims an identical invalid byte.
Status Trim(std::string_view s, const std::string_view* chars, TrimSide side, std::string* out) {
  std::vector<size_t> bounds;
  CharBoundaries(s, &bounds);
  std::vector<std::string_view> set;
  if (chars != nullptr) {
    std::vector<size_t> cb;
    CharBoundaries(*chars, &cb);
    for (size_t i = 0; i + 1 < cb.size(); ++i)
      set.push_back(chars->substr(cb[i], cb[i + 1] - cb[i]));
  }
  auto trimmable = [&](size_t i) {
    std::string_view c = s.substr(bounds[i], bounds[i + 1] - bounds[i]);
    if (chars == nullptr) return IsUnicodeWhitespace(DecodeAt(c, 0).code_point);
    return std::find(set.begin(), set.end(), c) != set.end();
  };
  size_t begin = 0;
  size_t end = bounds.size() - 1;  // in characters
  if (side != TrimSide::kRight) {
    while (begin < end && trimmable(begin))
      ++begin;
  }
  if (side != TrimSide::kLeft) {
    while (end > begin && trimmable(end - 1))
      --end;
  }
  out->append(s.substr(bounds[begin], bounds[end] - bounds[begin]));
  return Status::OK();
}

/// Characters [first, last) of `s` (0-based, clamped), whose length in characters is `chars`.
void AppendCharRange(std::string_view s, int64_t chars, int64_t first, int64_t last,
                     std::string* out) {
  first = std::clamp<int64_t>(first, 0, chars);
  last = std::clamp<int64_t>(last, first, chars);
  if (chars == static_cast<int64_t>(s.size())) {  // ASCII: a character is a byte
    out->append(s.substr(static_cast<size_t>(first), static_cast<size_t>(last - first)));
    return;
  }
  // Reused across rows: one allocation per thread, not one per value.
  thread_local std::vector<size_t> bounds;
  CharBoundaries(s, &bounds);
  const auto n = static_cast<int64_t>(bounds.size()) - 1;
  first = std::min(first, n);
  last = std::min(last, n);
  out->append(s.substr(bounds[first], bounds[last] - bounds[first]));
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return r;
}

// SQL substring: positions are 1-based; a negative start counts from the end (-1 is the last
// character); the window [start, start + length) is clipped to the string, so start 0 with
// length 3 yields two characters, as in SQLite and DuckDB.
Status Substr(const std::vector<Datum>& args, int64_t row, std::string* out) {
  std::string_view s = ViewAt(args[0], row);
  FLOTILLA_ASSIGN_OR_RETURN(int64_t start, IntegerAt(args[1], row, "substr"));
  int64_t end = std::numeric_limits<int64_t>::max();
  if (args.size() > 2) {
    FLOTILLA_ASSIGN_OR_RETURN(int64_t length, IntegerAt(args[2], row, "substr"));
    if (length < 0) {
      return Status::Invalid("substr() length must not be negative, got " + std::to_string(length) +
                             " at row " + std::to_string(row));
    }
    end = length;  // relative until start is known
  }
  const int64_t n = CountChars(s);
  if (start < 0) start = SaturatingAdd(n + 1, start);
  if (args.size() > 2) end = SaturatingAdd(start, end);
  AppendCharRange(s, n, SaturatingAdd(start, -1), SaturatingAdd(end, -1), out);
  return Status::OK();
}

// left/right with a negative count drop that many characters from the other end (PostgreSQL).
Status LeftRight(const std::vector<Datum>& args, int64_t row, bool left, std::string* out) {
  std::string_view s = ViewAt(args[0], row);
  const int64_t n = CountChars(s);
  FLOTILLA_ASSIGN_OR_RETURN(int64_t k, IntegerAt(args[1], row, left ? "left" : "right"));
  int64_t keep = k >= 0 ? std::min(k, n) : std::max<int64_t>(0, SaturatingAdd(n, k));
  if (left) {
    AppendCharRange(s, n, 0, keep, out);
  } else {
    AppendCharRange(s, n, n - keep, n, out);
  }
  return Status::OK();
}

// Pads (or truncates) to `length` characters, cycling through the fill characters.
Status Pad(const std::vector<Datum>& args, int64_t row, bool left, std::string* out) {
  std::string_view s = ViewAt(args[0], row);
  FLOTILLA_ASSIGN_OR_RETURN(int64_t length, IntegerAt(args[1], row, left ? "lpad" : "rpad"));
  std::string_view fill = args.size() > 2 ? ViewAt(args[2], row) : std::string_view(" ");
  if (length <= 0) return Status::OK();
  std::vector<size_t> bounds;
  CharBoundaries(s, &bounds);
  const int64_t n = static_cast<int64_t>(bounds.size()) - 1;
  if (n >= length || fill.empty()) {
    out->append(s.substr(0, bounds[std::min(n, length)]));
    return Status::OK();
  }
  std::vector<size_t> fb;
  CharBoundaries(fill, &fb);
  const int64_t fill_chars = static_cast<int64_t>(fb.size()) - 1;
  const int64_t missing = length - n;
  // Each missing character is one of the fill's, at most fill.size() bytes.
  FLOTILLA_RETURN_NOT_OK(CheckValueSize(std::string(left ? "lpad" : "rpad") + "() to " +
                                            std::to_string(length) + " characters at row " +
                                            std::to_string(row),
                                        static_cast<uint64_t>(missing), fill.size()));
  std::string padding;
  for (int64_t i = 0; i < missing; ++i) {
    int64_t c = i % fill_chars;
    padding.append(fill.substr(fb[c], fb[c + 1] - fb[c]));
  }
  if (left) out->append(padding);
  out->append(s);
  if (!left) out->append(padding);
  return Status::OK();
}

// By grapheme cluster, so a base letter keeps its combining marks ("e\u0301" stays "é").
Status Reverse(std::string_view s, std::string* out) {
  std::vector<std::string_view> clusters;
  utf8proc_int32_t state = 0;
  int32_t previous = kInvalidCodePoint;
  size_t pos = 0;
  size_t cluster_start = 0;
  while (pos < s.size()) {
    Utf8Char c = DecodeAt(s, pos);
    bool boundary = pos == 0 || previous == kInvalidCodePoint ||
                    c.code_point == kInvalidCodePoint ||
                    utf8proc_grapheme_break_stateful(previous, c.code_point, &state);
    if (boundary && pos > 0) {
      clusters.push_back(s.substr(cluster_start, pos - cluster_start));
      cluster_start = pos;
    }
    if (c.code_point == kInvalidCodePoint) state = 0;
    previous = c.code_point;
    pos += static_cast<size_t>(c.length);
  }
  if (pos > cluster_start) clusters.push_back(s.substr(cluster_start));
  for (auto it = clusters.rbegin(); it != clusters.rend(); ++it)
    out->append(*it);
  return Status::OK();
}

Result<Datum> ConcatWs(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeStringResultBuilder(args));
  StringAppender out(builder.get());
  const int64_t n = OutputRows(args, num_rows);
  std::string buffer;
  for (int64_t row = 0; row < n; ++row) {
    if (args[0].IsNull(row)) {
      FLOTILLA_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    std::string_view sep = ViewAt(args[0], row);
    buffer.clear();
    bool first = true;
    for (size_t i = 1; i < args.size(); ++i) {
      if (args[i].IsNull(row)) continue;
      if (!first) buffer.append(sep);
      buffer.append(ViewAt(args[i], row));
      first = false;
    }
    FLOTILLA_RETURN_NOT_OK(out.Append(buffer));
  }
  return FinishDatum(builder.get(), args);
}

Result<Datum> Repeat(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeStringResultBuilder(args));
  StringAppender out(builder.get());
  std::string buffer;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    std::string_view s = ViewAt(args[0], row);
    FLOTILLA_ASSIGN_OR_RETURN(int64_t times, IntegerAt(args[1], row, "repeat"));
    times = std::max<int64_t>(0, times);
    FLOTILLA_RETURN_NOT_OK(
        CheckValueSize("repeat() at row " + std::to_string(row), times, s.size()));
    buffer.clear();
    for (int64_t i = 0; i < times; ++i)
      buffer.append(s);
    return out.Append(buffer);
  });
}

Status Replace(const std::vector<Datum>& args, int64_t row, std::string* out) {
  std::string_view s = ViewAt(args[0], row);
  std::string_view from = ViewAt(args[1], row);
  std::string_view to = ViewAt(args[2], row);
  if (from.empty()) {
    out->append(s);
    return Status::OK();
  }
  size_t pos = 0;
  for (size_t hit; (hit = s.find(from, pos)) != std::string_view::npos; pos = hit + from.size()) {
    out->append(s.substr(pos, hit - pos));
    out->append(to);
  }
  out->append(s.substr(pos));
  return Status::OK();
}

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

template <TrimSide kSide>
Result<Datum> TrimExec(const Args& a, int64_t n) {
  return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
    std::string_view chars = x.size() > 1 ? ViewAt(x[1], row) : std::string_view();
    return Trim(ViewAt(x[0], row), x.size() > 1 ? &chars : nullptr, kSide, out);
  });
}

std::string TrimDoc(TrimSide side) {
  return std::string("Removes the given characters (default: Unicode white space) from the ") +
         (side == TrimSide::kBoth   ? "both ends"
          : side == TrimSide::kLeft ? "start"
                                    : "end") +
         " of the string; null if any argument is null.";
}

template <typename Offset>
Result<Datum> ColumnLengths(const Args& a, int64_t n) {
  const Array& s = a[0].array();
  const Offset* offsets = s.data()->buffers[1]->data_as<Offset>() + s.offset();
  const BufferPtr& data = s.data()->buffers[2];
  const char* bytes = data ? reinterpret_cast<const char*>(data->data()) : "";
  // One pass over the column's bytes: when they are all ASCII (as most text is), every
  // character is one byte.
  if (IsAscii(bytes + offsets[0], static_cast<int64_t>(offsets[n] - offsets[0]))) {
    return MapValues<int64_t>(a, n, int64(), [&](int64_t row) {
      return static_cast<int64_t>(offsets[row + 1] - offsets[row]);
    });
  }
  return MapValues<int64_t>(a, n, int64(), [&](int64_t row) {
    return CountChars(std::string_view(bytes + offsets[row],
                                       static_cast<size_t>(offsets[row + 1] - offsets[row])));
  });
}

// length(): characters per row.
Result<Datum> Lengths(const Args& a, int64_t n) {
  const DataType& type = *a[0].type();
  if (a[0].is_scalar() || type.id() == TypeId::kNull || a[0].array().length() == 0) {
    return MapValues<int64_t>(a, n, int64(),
                              [&](int64_t row) { return CountChars(ViewAt(a[0], row)); });
  }
  return type.has_large_offsets() ? ColumnLengths<int64_t>(a, n) : ColumnLengths<int32_t>(a, n);
}

// Binary string predicates compare bytes, which for valid UTF-8 is the same as characters.
template <typename Pred>
Result<Datum> StringPredicate(const Args& a, int64_t n, Pred pred) {
  return MapToBool(a, n, [&](int64_t row) { return pred(ViewAt(a[0], row), ViewAt(a[1], row)); });
}

}  // namespace

Status RegisterBasicStringFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"length",
              "Number of characters (Unicode code points) in the string, or of elements in a "
              "list (as list_length); null for null.",
              1, 1,
              [](const Types& t) -> Result<TypePtr> {
                if (IsList(*t[0])) return int64();
                return ResolveSignature("length", t, "s", int64());
              },
              [](const Args& a, int64_t n) -> Result<Datum> {
                if (IsList(*a[0].type())) {
                  FLOTILLA_ASSIGN_OR_RETURN(const ScalarFunction* f,
                                            DefaultRegistry().Find("list_length"));
                  return f->exec(a, n);
                }
                return Lengths(a, n);
              }}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"strpos",
       "1-based character position of the first occurrence of the substring, 0 when absent "
       "(SQL's position(sub IN s)); null if any argument is null.",
       2, 2, [](const Types& t) { return ResolveSignature("strpos", t, "ss", int64()); },
       [](const Args& a, int64_t n) {
         return MapValues<int64_t>(a, n, int64(), [&](int64_t row) {
           const std::string_view s = ViewAt(a[0], row);
           const size_t at = s.find(ViewAt(a[1], row));
           return at == std::string_view::npos ? int64_t{0} : CountChars(s.substr(0, at)) + 1;
         });
       }}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"split_part",
       "Field n (1-based; negative counts from the end) of the string split at the delimiter, "
       "'' when there is no such field; null if any argument is null.",
       3, 3, [](const Types& t) { return ResolveSignature("split_part", t, "ssi"); },
       [](const Args& a, int64_t n) {
         return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
           const std::string_view s = ViewAt(x[0], row);
           const std::string_view delim = ViewAt(x[1], row);
           FLOTILLA_ASSIGN_OR_RETURN(const int64_t k, IntegerAt(x[2], row, "split_part"));
           std::vector<std::string_view> parts;
           if (delim.empty()) {
             parts.push_back(s);
           } else {
             size_t start = 0;
             while (true) {
               const size_t at = s.find(delim, start);
               parts.push_back(s.substr(
                   start, at == std::string_view::npos ? std::string_view::npos : at - start));
               if (at == std::string_view::npos) break;
               start = at + delim.size();
             }
           }
           const int64_t count = static_cast<int64_t>(parts.size());
           const int64_t index = k > 0 ? k - 1 : count + k;
           if (k != 0 && index >= 0 && index < count)
             out->append(parts[static_cast<size_t>(index)]);
           return Status::OK();
         });
       }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"ascii", "Code point of the first character, 0 for an empty string; null for null.",
              1, 1, [](const Types& t) { return ResolveSignature("ascii", t, "s", int64()); },
              [](const Args& a, int64_t n) {
                return MapValues<int64_t>(a, n, int64(), [&](int64_t row) {
                  const std::string_view s = ViewAt(a[0], row);
                  return s.empty() ? int64_t{0} : static_cast<int64_t>(DecodeAt(s, 0).code_point);
                });
              }}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"chr", "The character with the code point; null for null.", 1, 1,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ExpectInteger("chr", t, 0));
         return utf8();
       },
       [](const Args& a, int64_t n) {
         return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
           FLOTILLA_ASSIGN_OR_RETURN(const int64_t c, IntegerAt(x[0], row, "chr"));
           if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
             return Status::Invalid("chr(): " + std::to_string(c) + " is not a Unicode code point");
           }
           AppendCodePoint(static_cast<int32_t>(c), out);
           return Status::OK();
         });
       }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"octet_length", "Number of bytes in the UTF-8 string; null for null.", 1, 1,
              [](const Types& t) { return ResolveSignature("octet_length", t, "s", int64()); },
              [](const Args& a, int64_t n) {
                return MapValues<int64_t>(a, n, int64(), [&](int64_t row) {
                  return static_cast<int64_t>(ViewAt(a[0], row).size());
                });
              }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"lower", "The string in lower case (Unicode simple case mapping); null for null.", 1,
              1, [](const Types& t) { return ResolveSignature("lower", t, "s"); },
              [](const Args& a, int64_t n) {
                return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
                  return MapCase(ViewAt(x[0], row), false, out);
                });
              }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"upper", "The string in upper case (Unicode simple case mapping); null for null.", 1,
              1, [](const Types& t) { return ResolveSignature("upper", t, "s"); },
              [](const Args& a, int64_t n) {
                return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
                  return MapCase(ViewAt(x[0], row), true, out);
                });
              }}));
  FLOTILLA_RETURN_NOT_OK(r->Add({"trim", TrimDoc(TrimSide::kBoth), 1, 2,
                                 [](const Types& t) { return ResolveSignature("trim", t, "s"); },
                                 TrimExec<TrimSide::kBoth>}));
  FLOTILLA_RETURN_NOT_OK(r->Add({"ltrim", TrimDoc(TrimSide::kLeft), 1, 2,
                                 [](const Types& t) { return ResolveSignature("ltrim", t, "s"); },
                                 TrimExec<TrimSide::kLeft>}));
  FLOTILLA_RETURN_NOT_OK(r->Add({"rtrim", TrimDoc(TrimSide::kRight), 1, 2,
                                 [](const Types& t) { return ResolveSignature("rtrim", t, "s"); },
                                 TrimExec<TrimSide::kRight>}));
  FLOTILLA_RETURN_NOT_OK(r->Add({"lstrip", TrimDoc(TrimSide::kLeft), 1, 2,
                                 [](const Types& t) { return ResolveSignature("lstrip", t, "s"); },
                                 TrimExec<TrimSide::kLeft>}));
  FLOTILLA_RETURN_NOT_OK(r->Add({"rstrip", TrimDoc(TrimSide::kRight), 1, 2,
                                 [](const Types& t) { return ResolveSignature("rstrip", t, "s"); },
                                 TrimExec<TrimSide::kRight>}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"substr",
       "Characters from 1-based `start` (negative counts from the end) for `length` characters "
       "(default: to the end); null if any argument is null.",
       2, 3, [](const Types& t) { return ResolveSignature("substr", t, "sii"); },
       [](const Args& a, int64_t n) { return MapStrings(a, n, Substr); }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"left", "The first n characters (n < 0: all but the last -n); null if any is null.",
              2, 2, [](const Types& t) { return ResolveSignature("left", t, "si"); },
              [](const Args& a, int64_t n) {
                return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
                  return LeftRight(x, row, true, out);
                });
              }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"right", "The last n characters (n < 0: all but the first -n); null if any is null.",
              2, 2, [](const Types& t) { return ResolveSignature("right", t, "si"); },
              [](const Args& a, int64_t n) {
                return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
                  return LeftRight(x, row, false, out);
                });
              }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"concat", "The arguments joined end to end; null if any argument is null.", 1, -1,
              [](const Types& t) { return ResolveSignature("concat", t, "s"); },
              [](const Args& a, int64_t n) -> Result<Datum> {
                FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeStringResultBuilder(a));
                StringAppender out(builder.get());
                std::string buffer;
                return MapRows(a, n, builder.get(), [&](int64_t row) {
                  buffer.clear();
                  for (const Datum& d : a)
                    buffer.append(ViewAt(d, row));
                  return out.Append(buffer);
                });
              }}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"concat_ws",
       "The arguments after the first joined with the first as separator, skipping nulls; null "
       "only when the separator is null.",
       2, -1, [](const Types& t) { return ResolveSignature("concat_ws", t, "s"); }, ConcatWs}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"contains", "Whether the string contains the substring; null if any argument is null.", 2, 2,
       [](const Types& t) { return ResolveSignature("contains", t, "s", boolean()); },
       [](const Args& a, int64_t n) {
         return StringPredicate(a, n, [](std::string_view s, std::string_view p) {
           return s.find(p) != std::string_view::npos;
         });
       }}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"starts_with", "Whether the string begins with the prefix; null if any argument is null.", 2,
       2, [](const Types& t) { return ResolveSignature("starts_with", t, "s", boolean()); },
       [](const Args& a, int64_t n) {
         return StringPredicate(
             a, n, [](std::string_view s, std::string_view p) { return s.starts_with(p); });
       }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"ends_with", "Whether the string ends with the suffix; null if any argument is null.",
              2, 2, [](const Types& t) { return ResolveSignature("ends_with", t, "s", boolean()); },
              [](const Args& a, int64_t n) {
                return StringPredicate(
                    a, n, [](std::string_view s, std::string_view p) { return s.ends_with(p); });
              }}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"replace", "Every occurrence of `from` replaced by `to`; null if any argument is null.", 3,
       3, [](const Types& t) { return ResolveSignature("replace", t, "s"); },
       [](const Args& a, int64_t n) { return MapStrings(a, n, Replace); }}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"reverse",
       "The string with its characters (grapheme clusters, so accents stay on their letter) in "
       "reverse order; null for null.",
       1, 1, [](const Types& t) { return ResolveSignature("reverse", t, "s"); },
       [](const Args& a, int64_t n) {
         return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
           return Reverse(ViewAt(x[0], row), out);
         });
       }}));
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"repeat", "The string repeated n times (empty for n <= 0); null if any is null.", 2,
              2, [](const Types& t) { return ResolveSignature("repeat", t, "si"); }, Repeat}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"lpad",
       "The string left-padded with the fill characters (default ' ') to `length` characters, or "
       "truncated to it; null if any argument is null.",
       2, 3, [](const Types& t) { return ResolveSignature("lpad", t, "sis"); },
       [](const Args& a, int64_t n) {
         return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
           return Pad(x, row, true, out);
         });
       }}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"rpad",
       "The string right-padded with the fill characters (default ' ') to `length` characters, "
       "or truncated to it; null if any argument is null.",
       2, 3, [](const Types& t) { return ResolveSignature("rpad", t, "sis"); },
       [](const Args& a, int64_t n) {
         return MapStrings(a, n, [](const Args& x, int64_t row, std::string* out) {
           return Pad(x, row, false, out);
         });
       }}));
  return Status::OK();
}

}  // namespace flotilla::expr::functions
