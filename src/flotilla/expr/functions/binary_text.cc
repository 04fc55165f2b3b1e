// Between bytes and text: encode(string) -> blob, decode(blob) -> string as DuckDB's (invalid
// UTF-8 is an error naming the row), and decode(blob, 'replace'), which turns each invalid byte
// into U+FFFD instead, for payloads that do not promise UTF-8 (web archives).

#include <string>
#include <vector>

#include "flotilla/common/utf8.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

Result<TypePtr> ResolveDecode(const Types& t) {
  if (!IsBinaryOrNull(*t[0])) return ArgumentTypeError("decode", 0, "a blob", t[0]);
  if (t.size() > 1) FLOTILLA_RETURN_NOT_OK(ExpectString("decode", t, 1));
  return utf8();
}

Result<Datum> DecodeExec(const Args& args, int64_t num_rows) {
  StringBuilder builder(utf8());
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    const std::string_view bytes = ViewAt(args[0], row);
    if (IsValidUtf8(bytes.data(), bytes.size())) return builder.Append(bytes);
    if (args.size() > 1) {
      const std::string_view errors = ViewAt(args[1], row);
      if (errors == "replace") return builder.Append(ToValidUtf8(bytes));
      if (errors != "strict") {
        return Status::Invalid("decode(): errors must be 'strict' or 'replace', got '" +
                               std::string(errors) + "'");
      }
    }
    return Status::Invalid("decode(): row " + std::to_string(row) +
                           " is not valid UTF-8 (decode(x, 'replace') replaces the bad bytes)");
  });
}

Result<TypePtr> ResolveEncode(const Types& t) {
  FLOTILLA_RETURN_NOT_OK(ExpectString("encode", t, 0));
  return binary();
}

Result<Datum> EncodeExec(const Args& args, int64_t num_rows) {
  StringBuilder builder(binary());
  return MapRows(args, num_rows, &builder,
                 [&](int64_t row) { return builder.Append(ViewAt(args[0], row)); });
}

}  // namespace

Status RegisterBinaryTextFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"decode",
              "A blob's bytes as a string; invalid UTF-8 is an error, or with 'replace' as the "
              "second argument each invalid byte becomes U+FFFD. Null for null.",
              1, 2, ResolveDecode, DecodeExec}));
  return r->Add({"encode", "A string's UTF-8 bytes as a blob. Null for null.", 1, 1, ResolveEncode,
                 EncodeExec});
}

}  // namespace flotilla::expr::functions
