// The parts of an HTTP message as web archives store it (a WARC response record's payload is
// the status line, the header fields and the body): http_header(message, name) and
// http_body(message), the body with a chunked transfer coding undone.

#include <charconv>
#include <string>
#include <vector>

#include "flotilla/common/ascii.h"
#include "flotilla/common/utf8.h"
#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

struct HttpMessage {
  std::string_view head;  // the start line and the header fields
  std::string_view body;
};

// False when the message has no end of its header (not an HTTP message, or cut short).
bool Split(std::string_view message, HttpMessage* out) {
  const size_t crlf = message.find("\r\n\r\n");
  const size_t lf = message.find("\n\n");
  if (crlf == std::string_view::npos && lf == std::string_view::npos) return false;
  if (crlf != std::string_view::npos && (lf == std::string_view::npos || crlf < lf)) {
    out->head = message.substr(0, crlf);
    out->body = message.substr(crlf + 4);
  } else {
    out->head = message.substr(0, lf);
    out->body = message.substr(lf + 2);
  }
  return true;
}

// The value of the first field named `name` (any case), trimmed; false when there is none.
bool FindHeader(std::string_view head, std::string_view name, std::string_view* value) {
  size_t start = head.find('\n');  // skip the start line
  while (start != std::string_view::npos && start < head.size()) {
    const size_t end = head.find('\n', start + 1);
    std::string_view line = head.substr(
        start + 1, end == std::string_view::npos ? std::string_view::npos : end - start - 1);
    start = end;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t'))
      key.remove_suffix(1);
    if (!AsciiEqualsIgnoreCase(key, name)) continue;
    std::string_view v = line.substr(colon + 1);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
      v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r'))
      v.remove_suffix(1);
    *value = v;
    return true;
  }
  return false;
}

// Undoes the chunked transfer coding; a malformed or cut-short stream keeps what decoded.
void Dechunk(std::string_view body, std::string* out) {
  out->clear();
  size_t at = 0;
  while (at < body.size()) {
    const size_t line_end = body.find('\n', at);
    if (line_end == std::string_view::npos) return;
    size_t size = 0;
    const auto [end, ec] = std::from_chars(body.data() + at, body.data() + line_end, size, 16);
    if (ec != std::errc() || end == body.data() + at) return;
    at = line_end + 1;
    if (size == 0) return;
    const size_t take = std::min(size, body.size() - at);
    out->append(body.substr(at, take));
    at += take;
    if (at < body.size() && body[at] == '\r') ++at;
    if (at < body.size() && body[at] == '\n') ++at;
  }
}

Result<TypePtr> ResolveMessage(const char* function, const Types& t, TypePtr result) {
  const DataType& type = *t[0];
  if (!IsStringOrNull(type) && !IsBinaryOrNull(type))
    return ArgumentTypeError(function, 0, "a string or binary value", t[0]);
  if (t.size() > 1) FLOTILLA_RETURN_NOT_OK(ExpectString(function, t, 1));
  return result;
}

Result<Datum> HttpBodyExec(const Args& args, int64_t num_rows) {
  StringBuilder builder(binary());
  std::string dechunked;
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    HttpMessage message;
    if (!Split(ViewAt(args[0], row), &message)) return builder.AppendNull();
    std::string_view coding;
    if (FindHeader(message.head, "Transfer-Encoding", &coding) &&
        AsciiEqualsIgnoreCase(coding, "chunked")) {
      Dechunk(message.body, &dechunked);
      return builder.Append(dechunked);
    }
    return builder.Append(message.body);
  });
}

Result<Datum> HttpHeaderExec(const Args& args, int64_t num_rows) {
  StringBuilder builder(utf8());
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    HttpMessage message;
    std::string_view value;
    if (!Split(ViewAt(args[0], row), &message) ||
        !FindHeader(message.head, ViewAt(args[1], row), &value)) {
      return builder.AppendNull();
    }
    return builder.Append(ToValidUtf8(value));
  });
}

}  // namespace

Status RegisterHttpFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"http_body",
              "The body of an HTTP message (bytes after the header; a chunked transfer coding is "
              "undone), as binary. Null for null or when the message has no complete header.",
              1, 1, [](const Types& t) { return ResolveMessage("http_body", t, binary()); },
              HttpBodyExec}));
  return r->Add({"http_header",
                 "The value of the named header field of an HTTP message (the first one, any "
                 "case). Null when absent.",
                 2, 2, [](const Types& t) { return ResolveMessage("http_header", t, utf8()); },
                 HttpHeaderExec});
}

}  // namespace flotilla::expr::functions
