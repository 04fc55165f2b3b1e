#include "flotilla/io/json/reader.h"

#include <simdjson.h>

#include <cstring>
#include <unordered_map>

#include "flotilla/common/utf8.h"
#include "flotilla/io/text/line_locator.h"
#include "flotilla/io/text/value_parse.h"

namespace flotilla::io::json {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

constexpr int64_t kSampleBytes = int64_t{8} << 20;

// Calls fn(line, offset) for every non-blank line of `data`; stops at the first error or when fn
// returns false through `more`.
template <typename Fn>
Status ForEachLine(std::string_view data, Fn&& fn) {
  size_t pos = 0;
  while (pos < data.size()) {
    const void* nl = std::memchr(data.data() + pos, '\n', data.size() - pos);
    const size_t end =
        nl ? static_cast<size_t>(static_cast<const char*>(nl) - data.data()) : data.size();
    std::string_view line = data.substr(pos, end - pos);
    bool blank = true;
    for (char c : line)
      if (c != ' ' && c != '\t' && c != '\r') {
        blank = false;
        break;
      }
    if (!blank) {
      bool more = true;
      FLOTILLA_RETURN_NOT_OK(fn(line, static_cast<int64_t>(pos), &more));
      if (!more) break;
    }
    pos = end + 1;
  }
  return Status::OK();
}

Status ParseError(simdjson::error_code error, const text::LineLocator& where, int64_t offset) {
  return Status::Invalid(std::string("invalid JSON at ") + where.Describe(offset) + ": " +
                         simdjson::error_message(error));
}

// Calls fn(object, line, offset, &more) for every non-blank line, each parsed and required to be
// a JSON object.
template <typename Fn>
Status ForEachObject(std::string_view data, const text::LineLocator& where,
                     simdjson::dom::parser* parser, Fn&& fn) {
  return ForEachLine(data, [&](std::string_view line, int64_t offset, bool* more) -> Status {
    element doc;
    auto error = parser->parse(line.data(), line.size(), false).get(doc);
    if (error) return ParseError(error, where, offset);
    if (doc.type() != element_type::OBJECT)
      return Status::Invalid("expected a JSON object at " + where.Describe(offset));
    return fn(doc, line, offset, more);
  });
}

text::Inferred Infer(element e) {
  using text::Inferred;
  using text::Kind;
  switch (e.type()) {
    case element_type::NULL_VALUE:
      return Inferred::Of(Kind::kNull, false);
    case element_type::BOOL:
      return Inferred::Of(Kind::kBool, false);
    case element_type::INT64: {
      Inferred out = Inferred::Of(Kind::kInt, false);
      out.negative = e.get_int64().value_unsafe() < 0;
      return out;
    }
    // simdjson reads an integer as UINT64 only above int64's range.
    case element_type::UINT64:
      return Inferred::Of(Kind::kUInt, false);
    case element_type::DOUBLE:
      return Inferred::Of(Kind::kFloat, false);
    case element_type::STRING:
      return text::InferJsonString(e.get_string().value_unsafe());
    case element_type::ARRAY: {
      Inferred out = Inferred::Of(Kind::kList, false);
      out.children.emplace_back();
      Status st;
      simdjson::dom::array arr = e.get_array().value_unsafe();
      for (element child : arr) {
        st = text::Join(&out.children[0], Infer(child), "");
        if (!st.ok()) {
          // A list mixing kinds that cannot meet: keep it as text.
          out.children[0] = Inferred::Of(Kind::kString, true);
          break;
        }
      }
      return out;
    }
    case element_type::OBJECT: {
      Inferred out = Inferred::Of(Kind::kStruct, false);
      simdjson::dom::object obj = e.get_object().value_unsafe();
      for (auto field : obj) {
        out.names.emplace_back(field.key);
        out.children.push_back(Infer(field.value));
      }
      return out;
    }
  }
  return Inferred{};
}

// Where a value sits in its line (keys and array positions), to find its text again: the DOM
// keeps numbers only as doubles, which hold 15 significant digits exactly, not 38.
struct ValuePath {
  struct Step {
    std::string_view key;
    size_t index = 0;
    bool is_key = true;
  };
  std::string_view line;  // inside a padded buffer
  std::vector<Step> steps;
};

// The number at `path` in its line as written, through simdjson's on-demand API (which keeps
// tokens); empty when it cannot be found.
std::string_view RawNumber(const ValuePath& path) {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (parser
          .iterate(path.line.data(), path.line.size(),
                   path.line.size() + simdjson::SIMDJSON_PADDING)
          .get(doc) != simdjson::SUCCESS)
    return {};
  simdjson::ondemand::value v;
  bool first = true;
  for (const ValuePath::Step& step : path.steps) {
    simdjson::error_code error;
    if (step.is_key) {
      error = first ? doc.find_field_unordered(step.key).get(v)
                    : v.find_field_unordered(step.key).get(v);
    } else {
      simdjson::ondemand::array arr;
      error = first ? doc.get_array().get(arr) : v.get_array().get(arr);
      size_t i = 0;
      bool found = false;
      for (auto item : arr) {
        if (i++ == step.index) {
          error = item.get(v);
          found = true;
          break;
        }
      }
      if (!found) return {};
    }
    if (error != simdjson::SUCCESS) return {};
    first = false;
  }
  std::string_view token;
  if (first) return {};
  token = v.raw_json_token();
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t' || token.back() == '\r' ||
                            token.back() == '\n'))
    token.remove_suffix(1);
  return token;
}

// Appends one JSON value to a builder of `type`; false when the value is not one of the type.
Result<bool> Append(ArrayBuilder* b, element e, ValuePath* path);

// The elements of a JSON array, each under its position in `path`.
Result<bool> AppendElements(simdjson::dom::array arr, ArrayBuilder* values, ValuePath* path) {
  size_t k = 0;
  for (element child : arr) {
    path->steps.push_back({{}, k++, false});
    FLOTILLA_ASSIGN_OR_RETURN(bool ok, Append(values, child, path));
    path->steps.pop_back();
    if (!ok) return false;
  }
  return true;
}

Result<bool> AppendStruct(ArrayBuilder* b, element e, ValuePath* path) {
  if (e.type() != element_type::OBJECT) return false;
  auto* sb = static_cast<StructBuilder*>(b);
  const std::vector<Field>& fields = b->type()->fields();
  FLOTILLA_RETURN_NOT_OK(sb->Append());
  simdjson::dom::object obj = e.get_object().value_unsafe();
  for (size_t f = 0; f < fields.size(); ++f) {
    element value;
    if (obj.at_key(fields[f].name).get(value) != simdjson::SUCCESS) {
      FLOTILLA_RETURN_NOT_OK(sb->field_builder(static_cast<int>(f))->AppendNull());
      continue;
    }
    path->steps.push_back({fields[f].name, 0, true});
    FLOTILLA_ASSIGN_OR_RETURN(bool ok, Append(sb->field_builder(static_cast<int>(f)), value, path));
    path->steps.pop_back();
    if (!ok) return false;
  }
  return true;
}

template <typename T>
Result<bool> AppendNumber(ArrayBuilder* b, T v) {
  FLOTILLA_RETURN_NOT_OK(static_cast<NumericBuilder<T>*>(b)->Append(v));
  return true;
}

template <typename T>
Result<bool> AppendInteger(ArrayBuilder* b, element e) {
  if (e.type() == element_type::INT64) {
    const int64_t v = e.get_int64().value_unsafe();
    if constexpr (std::is_signed_v<T>) {
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
    } else {
      if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max()) return false;
    }
    return AppendNumber<T>(b, static_cast<T>(v));
  }
  if (e.type() == element_type::UINT64) {
    const uint64_t v = e.get_uint64().value_unsafe();
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
    return AppendNumber<T>(b, static_cast<T>(v));
  }
  if (e.type() == element_type::STRING) return text::AppendParsed(b, e.get_string().value_unsafe());
  return false;
}

template <typename T>
Result<bool> AppendFloat(ArrayBuilder* b, element e) {
  switch (e.type()) {
    case element_type::INT64:
      return AppendNumber<T>(b, static_cast<T>(e.get_int64().value_unsafe()));
    case element_type::UINT64:
      return AppendNumber<T>(b, static_cast<T>(e.get_uint64().value_unsafe()));
    case element_type::DOUBLE:
      return AppendNumber<T>(b, static_cast<T>(e.get_double().value_unsafe()));
    case element_type::STRING:
      return text::AppendParsed(b, e.get_string().value_unsafe());
    default:
      return false;
  }
}

Result<bool> Append(ArrayBuilder* b, element e, ValuePath* path) {
  if (e.type() == element_type::NULL_VALUE) {
    FLOTILLA_RETURN_NOT_OK(b->AppendNull());
    return true;
  }
  const DataType& t = *b->type();
  switch (t.id()) {
    case TypeId::kBool:
      if (e.type() == element_type::BOOL) {
        FLOTILLA_RETURN_NOT_OK(
            static_cast<BooleanBuilder*>(b)->Append(e.get_bool().value_unsafe()));
        return true;
      }
      if (e.type() == element_type::STRING)
        return text::AppendParsed(b, e.get_string().value_unsafe());
      return false;
    case TypeId::kInt8:
      return AppendInteger<int8_t>(b, e);
    case TypeId::kInt16:
      return AppendInteger<int16_t>(b, e);
    case TypeId::kInt32:
      return AppendInteger<int32_t>(b, e);
    case TypeId::kInt64:
    case TypeId::kDuration:
      return AppendInteger<int64_t>(b, e);
    case TypeId::kUInt8:
      return AppendInteger<uint8_t>(b, e);
    case TypeId::kUInt16:
      return AppendInteger<uint16_t>(b, e);
    case TypeId::kUInt32:
      return AppendInteger<uint32_t>(b, e);
    case TypeId::kUInt64:
      return AppendInteger<uint64_t>(b, e);
    case TypeId::kFloat32:
      return AppendFloat<float>(b, e);
    case TypeId::kFloat64:
      return AppendFloat<double>(b, e);
    case TypeId::kDecimal128:
    case TypeId::kDate32:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
      // Numbers as their text (decimals), strings as written.
      if (e.type() == element_type::STRING)
        return text::AppendParsed(b, e.get_string().value_unsafe());
      if (t.id() == TypeId::kDecimal128 &&
          (e.type() == element_type::INT64 || e.type() == element_type::UINT64))
        return text::AppendParsed(b, simdjson::minify(e));
      if (t.id() == TypeId::kDecimal128 && e.type() == element_type::DOUBLE) {
        const std::string_view raw = RawNumber(*path);
        return text::AppendParsed(b, raw.empty() ? std::string_view(simdjson::minify(e)) : raw);
      }
      return false;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      // Anything else is kept as its JSON text.
      if (e.type() == element_type::STRING)
        return text::AppendParsed(b, e.get_string().value_unsafe());
      return text::AppendParsed(b, simdjson::minify(e));
    case TypeId::kList: {
      if (e.type() != element_type::ARRAY) return false;
      auto* lb = static_cast<ListBuilder*>(b);
      FLOTILLA_RETURN_NOT_OK(lb->Append());
      simdjson::dom::array arr = e.get_array().value_unsafe();
      return AppendElements(arr, lb->value_builder(), path);
    }
    case TypeId::kFixedSizeList: {
      if (e.type() != element_type::ARRAY) return false;
      simdjson::dom::array arr = e.get_array().value_unsafe();
      if (static_cast<int64_t>(arr.size()) != t.fixed_size()) return false;
      auto* lb = static_cast<FixedSizeListBuilder*>(b);
      FLOTILLA_RETURN_NOT_OK(lb->Append());
      return AppendElements(arr, lb->value_builder(), path);
    }
    case TypeId::kStruct:
      return AppendStruct(b, e, path);
    case TypeId::kDictionary:
      if (e.type() != element_type::STRING) return false;
      return text::AppendParsed(b, e.get_string().value_unsafe());
    default:
      return false;
  }
}

}  // namespace

Result<text::InferredSchema> InferJsonFile(io::RandomAccessFile* file,
                                           const JsonReadOptions& options) {
  int64_t size = std::min(file->size(), kSampleBytes);
  BufferPtr prefix;
  int64_t bom = 0;
  std::string_view bytes;
  // Whole lines of a prefix, and at least the first one however long (a wide first record can
  // be longer than the sample).
  while (true) {
    FLOTILLA_ASSIGN_OR_RETURN(prefix, file->ReadAt(0, size));
    bom = Utf8BomSize(prefix->view());
    bytes = prefix->view().substr(static_cast<size_t>(bom));
    if (size >= file->size()) break;
    const size_t last = bytes.rfind('\n');
    if (last != std::string_view::npos) {
      bytes = bytes.substr(0, last + 1);
      break;
    }
    size = std::min(file->size(), size * 2);
  }
  const simdjson::padded_string padded(bytes.data(), bytes.size());
  const std::string_view data(padded.data(), bytes.size());
  const text::LineLocator where(file, bom, data);
  simdjson::dom::parser parser;
  text::Inferred row = text::Inferred::Of(text::Kind::kStruct, false);
  int64_t rows = 0;
  FLOTILLA_RETURN_NOT_OK(ForEachObject(
      data, where, &parser, [&](element doc, std::string_view, int64_t offset, bool* more) {
        Status st = text::Join(&row, Infer(doc), "");
        if (!st.ok())
          return Status::TypeError(st.message() + " (at " + where.Describe(offset) +
                                   "; pass a schema to read it, a string column keeps any value)");
        *more = ++rows < options.sample_rows;
        return Status::OK();
      }));
  text::InferredSchema out;
  out.file = file->name();
  out.names = std::move(row.names);
  out.columns = std::move(row.children);
  return out;
}

Result<RecordBatch> ReadJsonRange(io::RandomAccessFile* file, int64_t begin, int64_t end,
                                  const SchemaPtr& schema, const std::vector<int>& fields,
                                  std::optional<int64_t> limit) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr chunk, file->ReadAt(begin, end - begin));
  // The file's first range starts after a byte-order mark.
  const int64_t bom = begin == 0 ? Utf8BomSize(chunk->view()) : 0;
  const size_t size = static_cast<size_t>(chunk->size() - bom);
  const simdjson::padded_string padded(reinterpret_cast<const char*>(chunk->data()) + bom, size);
  const std::string_view data(padded.data(), size);
  const text::LineLocator where(file, begin + bom, data);

  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  std::unordered_map<std::string_view, int> column_of;  // key -> output column
  for (size_t k = 0; k < fields.size(); ++k) {
    const Field& f = schema->field(fields[k]);
    FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(f.type));
    builders.push_back(std::move(builder));
    column_of.emplace(f.name, static_cast<int>(k));
  }
  std::vector<int64_t> filled(fields.size(), -1);  // the last row each column got a value in
  simdjson::dom::parser parser;
  int64_t rows = 0;
  const int64_t max_rows = limit.value_or(INT64_MAX);
  if (max_rows > 0) {
    FLOTILLA_RETURN_NOT_OK(ForEachObject(
        data, where, &parser, [&](element doc, std::string_view line, int64_t offset, bool* more) {
          simdjson::dom::object obj = doc.get_object().value_unsafe();
          for (auto kv : obj) {
            auto it = column_of.find(kv.key);
            if (it == column_of.end() || filled[it->second] == rows) continue;  // first key wins
            const int c = it->second;
            ValuePath path{line, {{kv.key, 0, true}}};
            FLOTILLA_ASSIGN_OR_RETURN(bool ok, Append(builders[c].get(), kv.value, &path));
            if (!ok) {
              std::string text = simdjson::minify(kv.value);
              if (text.size() > 100) text = text.substr(0, 100) + "...";
              return Status::Invalid("cannot read " + text + " as " +
                                     builders[c]->type()->ToString() + " in column '" +
                                     schema->field(fields[c]).name + "' at " +
                                     where.Describe(offset));
            }
            filled[c] = rows;
          }
          for (size_t c = 0; c < builders.size(); ++c) {
            if (filled[c] != rows) FLOTILLA_RETURN_NOT_OK(builders[c]->AppendNull());
          }
          *more = ++rows < max_rows;
          return Status::OK();
        }));
  }
  std::vector<Field> out_fields;
  std::vector<Array> columns;
  for (size_t k = 0; k < fields.size(); ++k) {
    out_fields.push_back(schema->field(fields[k]));
    FLOTILLA_ASSIGN_OR_RETURN(Array a, builders[k]->Finish());
    columns.push_back(std::move(a));
  }
  return RecordBatch::Make(std::make_shared<Schema>(std::move(out_fields)), std::move(columns),
                           rows);
}

std::vector<int64_t> SplitLines(std::string_view data, int64_t target) {
  std::vector<int64_t> starts = {0};
  const int64_t n = static_cast<int64_t>(data.size());
  while (n - starts.back() > target) {
    const int64_t from = starts.back() + target;
    const void* nl = std::memchr(data.data() + from, '\n', static_cast<size_t>(n - from));
    if (nl == nullptr) break;
    const int64_t next = static_cast<const char*>(nl) - data.data() + 1;
    if (next >= n) break;
    starts.push_back(next);
  }
  starts.push_back(n);
  return starts;
}

}  // namespace flotilla::io::json
