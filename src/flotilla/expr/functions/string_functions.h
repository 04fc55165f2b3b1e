#pragma once
// The string function family, registered by RegisterStringFunctions (register_string.cc) from
// the three kernel files below. Character positions and lengths count code points; invalid UTF-8
// follows the policy in utf8_text.h.

#include <memory>
#include <vector>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/function_registry.h"

namespace flotilla::expr::functions {

/// length, octet_length, lower, upper, trim/ltrim/rtrim (+ lstrip/rstrip), substr, left, right,
/// concat, concat_ws, contains, starts_with, ends_with, replace, reverse, repeat, lpad, rpad.
Status RegisterBasicStringFunctions(FunctionRegistry* registry);
/// like, ilike, split.
Status RegisterLikeFunctions(FunctionRegistry* registry);
/// regexp_matches, regexp_extract, regexp_extract_all, regexp_replace, regexp_split.
Status RegisterRegexFunctions(FunctionRegistry* registry);
/// normalize, normalize_text.
Status RegisterNormalizeFunctions(FunctionRegistry* registry);
/// md5, sha256.
Status RegisterDigestFunctions(FunctionRegistry* registry);
/// translate, levenshtein, hamming.
Status RegisterEditFunctions(FunctionRegistry* registry);
/// format, printf.
Status RegisterFormatFunctions(FunctionRegistry* registry);
/// html_to_text (html_text.cc).
Status RegisterHtmlFunctions(FunctionRegistry* registry);
/// decode, encode (binary_text.cc).
Status RegisterBinaryTextFunctions(FunctionRegistry* registry);
/// http_body, http_header (http_message.cc).
Status RegisterHttpFunctions(FunctionRegistry* registry);
/// text_word_count, text_mean_word_length, text_alpha_word_ratio, text_symbol_ratio,
/// text_duplicate_line_fraction (text_quality.cc).
Status RegisterTextQualityFunctions(FunctionRegistry* registry);
/// typeof (a string about any value).
Status RegisterTypeOfFunction(FunctionRegistry* registry);

/// A builder for a string result: large_string when any argument in [first, end) is one.
Result<std::unique_ptr<ArrayBuilder>> MakeStringResultBuilder(const std::vector<Datum>& args,
                                                              size_t first = 0,
                                                              size_t end = SIZE_MAX);

}  // namespace flotilla::expr::functions
