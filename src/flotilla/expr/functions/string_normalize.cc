// Unicode normalisation: normalize() for the four standard forms and normalize_text(), the
// canonical form used to find near-duplicate documents.

#include <utf8proc.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"
#include "flotilla/expr/functions/utf8_text.h"

namespace flotilla::expr::functions {
namespace {

/// utf8proc_map into `out`; false when utf8proc rejects the input (invalid UTF-8).
bool MapUnicode(std::string_view s, int options, std::string* out) {
  utf8proc_uint8_t* mapped = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                    static_cast<utf8proc_ssize_t>(s.size()), &mapped,
                                    static_cast<utf8proc_option_t>(options));
  if (n < 0) return false;
  out->assign(reinterpret_cast<const char*>(mapped), static_cast<size_t>(n));
  std::free(mapped);  // utf8proc allocates with malloc
  return true;
}

Result<int> FormOptions(std::string_view form) {
  std::string upper;
  for (char c : form)
    upper.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c);
  if (upper == "NFC") return UTF8PROC_STABLE | UTF8PROC_COMPOSE;
  if (upper == "NFD") return UTF8PROC_STABLE | UTF8PROC_DECOMPOSE;
  if (upper == "NFKC") return UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
  if (upper == "NFKD") return UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
  return Status::Invalid("normalize(): unknown form '" + std::string(form) +
                         "'; expected 'NFC', 'NFD', 'NFKC' or 'NFKD'");
}

Result<Datum> NormalizeExec(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeStringResultBuilder(args, 0, 1));
  StringAppender out(builder.get());
  std::string buffer;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(int options,
                              FormOptions(args.size() > 1 ? ViewAt(args[1], row) : "NFC"));
    if (!MapUnicode(ViewAt(args[0], row), options, &buffer)) {
      return Status::Invalid("normalize(): invalid UTF-8 in row " + std::to_string(row));
    }
    return out.Append(buffer);
  });
}

bool IsPunctuation(int32_t cp) {
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
      return true;
    default:
      return false;
  }
}

struct TextOptions {
  bool lowercase = true;
  bool remove_punct = true;
  bool nfkc = true;
  bool collapse_whitespace = true;
};

// Steps, in order: drop invalid UTF-8 bytes; NFKC; case-fold (full folding, so "Straße" and
// "STRASSE" agree); delete punctuation (Unicode category P*, so "don't" -> "dont"); replace each
// run of white space by one space and trim both ends.
void NormalizeText(std::string_view s, const TextOptions& o, std::string* scratch,
                   std::string* out) {
  scratch->clear();
  for (size_t pos = 0; pos < s.size();) {
    Utf8Char c = DecodeAt(s, pos);
    if (c.code_point != kInvalidCodePoint) scratch->append(s.substr(pos, c.length));
    pos += static_cast<size_t>(c.length);
  }
  int options = (o.nfkc ? UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT : 0) |
                (o.lowercase ? UTF8PROC_CASEFOLD : 0);
  std::string mapped;
  // The input is valid UTF-8 by now, so mapping cannot fail; keep the text if it somehow does.
  if (options == 0 || !MapUnicode(*scratch, options, &mapped)) mapped = *scratch;
  out->clear();
  bool pending_space = false;
  for (size_t pos = 0; pos < mapped.size();) {
    Utf8Char c = DecodeAt(mapped, pos);
    std::string_view bytes(mapped.data() + pos, static_cast<size_t>(c.length));
    pos += static_cast<size_t>(c.length);
    if (o.remove_punct && IsPunctuation(c.code_point)) continue;
    if (o.collapse_whitespace && IsUnicodeWhitespace(c.code_point)) {
      pending_space = !out->empty();
      continue;
    }
    if (pending_space) out->push_back(' ');
    pending_space = false;
    out->append(bytes);
  }
}

Result<Datum> NormalizeTextExec(const std::vector<Datum>& args, int64_t num_rows) {
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeStringResultBuilder(args, 0, 1));
  StringAppender out(builder.get());
  std::string scratch, buffer;
  return MapRows(args, num_rows, builder.get(), [&](int64_t row) -> Status {
    TextOptions o;
    bool* flags[] = {&o.lowercase, &o.remove_punct, &o.nfkc, &o.collapse_whitespace};
    for (size_t i = 1; i < args.size(); ++i)
      *flags[i - 1] = BoolAt(args[i], row);
    NormalizeText(ViewAt(args[0], row), o, &scratch, &buffer);
    return out.Append(buffer);
  });
}

}  // namespace

Status RegisterNormalizeFunctions(FunctionRegistry* r) {
  using Types = std::vector<TypePtr>;
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"normalize",
              "The string in Unicode normalisation form 'NFC' (default), 'NFD', 'NFKC' or 'NFKD'; "
              "invalid UTF-8 is an error. Null if any argument is null.",
              1, 2,
              [](const Types& t) -> Result<TypePtr> {
                FLOTILLA_RETURN_NOT_OK(ResolveSignature("normalize", t, "s"));
                return StringResultType(t, 0, 1);
              },
              NormalizeExec}));
  FLOTILLA_RETURN_NOT_OK(r->Add(
      {"normalize_text",
       "Canonical text for de-duplication: normalize_text(s, lowercase=true, remove_punct=true, "
       "nfkc=true, collapse_whitespace=true) drops invalid UTF-8, applies NFKC, case-folds, "
       "deletes punctuation and collapses white space. Null if any argument is null.",
       1, 5,
       [](const Types& t) -> Result<TypePtr> {
         FLOTILLA_RETURN_NOT_OK(ResolveSignature("normalize_text", t, "sb"));
         return StringResultType(t, 0, 1);
       },
       NormalizeTextExec}));
  return Status::OK();
}

}  // namespace flotilla::expr::functions
