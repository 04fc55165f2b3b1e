// Cryptographic digests of strings and binary values as lower-case hex text (md5, sha256), as
// DuckDB's functions of those names; computed by OpenSSL's libcrypto.

#include <openssl/evp.h>

#include <string>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

Result<TypePtr> ResolveDigest(const char* name, const Types& t) {
  const DataType& type = *t[0];
  if (!IsStringOrNull(type) && !IsBinaryOrNull(type)) {
    return ArgumentTypeError(name, 0, "a string or binary value", t[0]);
  }
  return utf8();
}

template <const EVP_MD* (*kAlgorithm)()>
Result<Datum> DigestExec(const Args& args, int64_t num_rows) {
  StringBuilder builder(utf8());
  std::string hex;
  unsigned char digest[EVP_MAX_MD_SIZE];
  static constexpr char kDigits[] = "0123456789abcdef";
  return MapRows(args, num_rows, &builder, [&](int64_t row) -> Status {
    const std::string_view value = ViewAt(args[0], row);
    unsigned int size = 0;
    if (EVP_Digest(value.data(), value.size(), digest, &size, kAlgorithm(), nullptr) != 1) {
      return Status::Internal("the digest library failed");
    }
    hex.resize(2 * size);
    for (unsigned int i = 0; i < size; ++i) {
      hex[2 * i] = kDigits[digest[i] >> 4];
      hex[2 * i + 1] = kDigits[digest[i] & 15];
    }
    return builder.Append(hex);
  });
}

}  // namespace

Status RegisterDigestFunctions(FunctionRegistry* r) {
  FLOTILLA_RETURN_NOT_OK(
      r->Add({"md5",
              "The MD5 digest of the string's bytes as 32 hex digits; null for "
              "null.",
              1, 1, [](const Types& t) { return ResolveDigest("md5", t); }, DigestExec<EVP_md5>}));
  return r->Add(
      {"sha256", "The SHA-256 digest of the string's bytes as 64 hex digits; null for null.", 1, 1,
       [](const Types& t) { return ResolveDigest("sha256", t); }, DigestExec<EVP_sha256>});
}

}  // namespace flotilla::expr::functions
