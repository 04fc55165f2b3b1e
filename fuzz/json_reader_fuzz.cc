// libFuzzer target: arbitrary bytes as newline-delimited JSON, read with the inferred schema
// (whole and in small line-aligned chunks, which must agree), with every column as text and with
// every column as decimal128(38, 10).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/io/json/reader.h"
#include "fuzz/walk.h"

using namespace flotilla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto buffer = Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!buffer.ok()) return 0;
  auto file = io::MemoryFile(*buffer, "fuzz.json");
  io::json::JsonReadOptions options;
  options.sample_rows = 50;
  auto inferred = io::json::InferJsonFile(file.get(), options);
  if (!inferred.ok()) return 0;
  std::vector<Field> fields, as_text, as_decimal;
  std::vector<int> all;
  for (size_t c = 0; c < inferred->names.size(); ++c) {
    fields.push_back({inferred->names[c], io::text::ToType(inferred->columns[c])});
    as_text.push_back({inferred->names[c], utf8()});
    as_decimal.push_back({inferred->names[c], decimal128(38, 10)});
    all.push_back(static_cast<int>(c));
  }
  auto schema = std::make_shared<Schema>(std::move(fields));
  auto whole = io::json::ReadJsonRange(file.get(), 0, file->size(), schema, all);
  if (whole.ok()) fuzz::Walk(*whole);
  int64_t rows = 0;
  bool ok = true;
  const std::vector<int64_t> starts = io::json::SplitLines((*buffer)->view(), 32);
  for (size_t k = 0; k + 1 < starts.size(); ++k) {
    auto part = io::json::ReadJsonRange(file.get(), starts[k], starts[k + 1], schema, all);
    if (!part.ok()) {
      ok = false;
      break;
    }
    fuzz::Walk(*part);
    rows += part->num_rows();
  }
  if (whole.ok() && (!ok || rows != whole->num_rows())) __builtin_trap();
  auto text = io::json::ReadJsonRange(file.get(), 0, file->size(),
                                      std::make_shared<Schema>(std::move(as_text)), all);
  if (text.ok()) fuzz::Walk(*text);
  // Decimals find each number's text again (the on-demand path).
  auto decimals = io::json::ReadJsonRange(file.get(), 0, file->size(),
                                          std::make_shared<Schema>(std::move(as_decimal)), all);
  if (decimals.ok()) fuzz::Walk(*decimals);
  return 0;
}
