#include "flotilla/sql/table_functions.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "flotilla/common/ascii.h"
#include "flotilla/common/suggest.h"
#include "flotilla/exec/plan/range_scan.h"
#include "flotilla/io/csv/scan_task.h"
#include "flotilla/io/json/scan_task.h"
#include "flotilla/io/parquet/scan_task.h"
#include "flotilla/io/warc/scan_task.h"
#include "flotilla/sql/source_error.h"

namespace flotilla::sql {
namespace {

enum class Format { kParquet, kCsv, kJson, kWarc, kUnknown };

Format FormatOfPath(std::string_view path) {
  if (AsciiEndsWithIgnoreCase(path, ".parquet") || AsciiEndsWithIgnoreCase(path, ".parq"))
    return Format::kParquet;
  if (AsciiEndsWithIgnoreCase(path, ".csv") || AsciiEndsWithIgnoreCase(path, ".tsv") ||
      AsciiEndsWithIgnoreCase(path, ".txt")) {
    return Format::kCsv;
  }
  if (AsciiEndsWithIgnoreCase(path, ".json") || AsciiEndsWithIgnoreCase(path, ".jsonl") ||
      AsciiEndsWithIgnoreCase(path, ".ndjson")) {
    return Format::kJson;
  }
  for (std::string_view suffix : {".warc", ".warc.gz", ".wet", ".wet.gz", ".arc.gz"}) {
    if (AsciiEndsWithIgnoreCase(path, suffix)) return Format::kWarc;
  }
  return Format::kUnknown;
}

Result<exec::PlanPtr> ScanOf(Result<io::FileScan> scan) {
  if (!scan.ok()) return scan.status();
  return exec::MakeScan(scan->schema, std::move(scan->tasks));
}

Result<exec::PlanPtr> Plan(Format format, const std::vector<std::string>& paths,
                           const io::csv::CsvReadOptions& csv,
                           const io::json::JsonReadOptions& json,
                           const io::warc::WarcReadOptions& warc) {
  switch (format) {
    case Format::kParquet:
      return ScanOf(io::parquet::PlanParquetScan(paths));
    case Format::kCsv:
      return ScanOf(io::csv::PlanCsvScan(paths, csv));
    case Format::kJson:
      return ScanOf(io::json::PlanJsonScan(paths, json));
    case Format::kWarc:
      return ScanOf(io::warc::PlanWarcScan(paths, warc));
    case Format::kUnknown:
      break;
  }
  return Status::Invalid("unknown file format");
}

// A constant argument as written: a string, a number, a boolean, or a list of strings.
struct ArgValue {
  std::vector<std::string> strings;
  std::string text;
  bool is_bool = false, boolean = false, is_number = false;
};

Result<ArgValue> ValueOf(const Node& n, std::string_view sql, const std::string& what) {
  ArgValue v;
  if (n.kind == NodeKind::kLiteral) {
    v.text = n.text;
    if (n.literal == LiteralKind::kString) {
      v.strings = {n.text};
      return v;
    }
    if (n.literal == LiteralKind::kBool) {
      v.is_bool = true;
      v.boolean = n.text == "true";
      return v;
    }
    if (n.literal == LiteralKind::kInteger || n.literal == LiteralKind::kFloat) {
      v.is_number = true;
      return v;
    }
  }
  if (n.kind == NodeKind::kFunction && n.names[0] == "list_value") {
    for (const NodePtr& a : n.args) {
      if (a->kind != NodeKind::kLiteral || a->literal != LiteralKind::kString) {
        return ErrorAt(sql, a->offset, what + ": a list of paths must hold quoted strings");
      }
      v.strings.push_back(a->text);
    }
    return v;
  }
  return ErrorAt(sql, n.offset, what + " must be a constant (a string, number or boolean)");
}

Result<char> OneChar(const ArgValue& v, const Node& n, std::string_view sql,
                     const std::string& what) {
  if (v.strings.size() != 1) return ErrorAt(sql, n.offset, what + " must be a string");
  const std::string& s = v.strings[0];
  if (s == "\\t") return '\t';
  if (s.size() > 1) return ErrorAt(sql, n.offset, what + " must be one character, got '" + s + "'");
  return s.empty() ? '\0' : s[0];
}

// An integer literal, or one with a minus sign in front.
Result<int64_t> IntegerArgument(const Node& n, std::string_view sql, const std::string& what) {
  const bool negative = n.kind == NodeKind::kUnary && n.text == "-" && n.args.size() == 1;
  const Node& literal = negative ? *n.args[0] : n;
  if (literal.kind != NodeKind::kLiteral || literal.literal != LiteralKind::kInteger) {
    return ErrorAt(sql, n.offset, what + " must be a constant integer");
  }
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(literal.text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || (negative && v == std::numeric_limits<long long>::min())) {
    return ErrorAt(sql, n.offset, what + " is out of the BIGINT range");
  }
  return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

// range(stop) / range(start, stop[, step]): start up to stop, stop excluded; generate_series the
// same with stop included. As DuckDB's, one BIGINT column named after the function.
Result<exec::PlanPtr> PlanRange(const TableRef& ref, std::string_view sql) {
  const bool inclusive = ref.name == "generate_series";
  if (ref.args.empty() || ref.args.size() > 3) {
    return ErrorAt(sql, ref.offset,
                   ref.name +
                       "() takes 1 to 3 integers: (stop), (start, stop) "
                       "or (start, stop, step)");
  }
  std::vector<int64_t> v;
  for (const NamedArg& arg : ref.args) {
    if (!arg.name.empty()) {
      return ErrorAt(sql, arg.value->offset, ref.name + "() takes no named arguments");
    }
    FLOTILLA_ASSIGN_OR_RETURN(int64_t x,
                              IntegerArgument(*arg.value, sql, ref.name + "()'s arguments"));
    v.push_back(x);
  }
  const int64_t start = v.size() == 1 ? 0 : v[0];
  const int64_t stop = v.size() == 1 ? v[0] : v[1];
  const int64_t step = v.size() == 3 ? v[2] : 1;
  auto plan = exec::MakeRangeScan(ref.name, start, stop, step, inclusive);
  if (!plan.ok()) return ErrorAt(sql, ref.offset, ref.name + "(): " + plan.status().message());
  return plan;
}

}  // namespace

std::string TableNameOfPath(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  const size_t dot = name.find('.');
  if (dot != std::string::npos && dot > 0) name = name.substr(0, dot);
  for (char c : name)
    if (c == '*' || c == '?' || c == '[') return "";
  return name;
}

Result<exec::PlanPtr> PlanPathScan(const std::string& path, std::string_view sql, int64_t offset) {
  Format format = FormatOfPath(path);
  if (format == Format::kUnknown && std::filesystem::is_directory(path)) {
    // A directory of files (a dataset): the format of the first file in it.
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file() && FormatOfPath(it->path().string()) != Format::kUnknown) {
        format = FormatOfPath(it->path().string());
        break;
      }
    }
  }
  if (format == Format::kUnknown) {
    return ErrorAt(sql, offset,
                   "cannot tell the format of '" + path +
                       "' from its name (.parquet, .csv, .tsv, .json, .jsonl, .ndjson, .warc, "
                       ".warc.gz, .wet.gz); use read_parquet(), read_csv(), read_json() or "
                       "read_warc()");
  }
  io::csv::CsvReadOptions csv;
  if (AsciiEndsWithIgnoreCase(path, ".tsv")) csv.parse.delimiter = '\t';
  auto plan = Plan(format, {path}, csv, {}, {});
  if (!plan.ok()) return ErrorAt(sql, offset, plan.status().message(), plan.status().code());
  return plan;
}

Result<exec::PlanPtr> PlanTableFunction(const TableRef& ref, std::string_view sql) {
  if (ref.name == "range" || ref.name == "generate_series") return PlanRange(ref, sql);
  Format format;
  if (ref.name == "read_parquet" || ref.name == "parquet_scan") {
    format = Format::kParquet;
  } else if (ref.name == "read_csv" || ref.name == "read_csv_auto") {
    format = Format::kCsv;
  } else if (ref.name == "read_json" || ref.name == "read_json_auto" || ref.name == "read_ndjson") {
    format = Format::kJson;
  } else if (ref.name == "read_warc") {
    format = Format::kWarc;
  } else {
    return ErrorAt(sql, ref.offset,
                   NotFoundMessage("table function", ref.name,
                                   {"read_parquet", "read_csv", "read_json", "read_warc", "range",
                                    "generate_series"}),
                   StatusCode::kKeyError);
  }
  std::vector<std::string> paths;
  io::csv::CsvReadOptions csv;
  io::json::JsonReadOptions json;
  io::warc::WarcReadOptions warc;
  for (const NamedArg& arg : ref.args) {
    const std::string what = ref.name + "(" + (arg.name.empty() ? "paths" : arg.name) + ")";
    FLOTILLA_ASSIGN_OR_RETURN(ArgValue v, ValueOf(*arg.value, sql, what));
    if (arg.name.empty()) {
      if (!paths.empty() || v.strings.empty()) {
        return ErrorAt(sql, arg.value->offset,
                       ref.name + " takes one positional argument: a path or a list of paths");
      }
      paths = v.strings;
      continue;
    }
    const bool is_csv = format == Format::kCsv;
    if (format == Format::kWarc) {
      if (arg.name != "ignore_errors" || !v.is_bool) {
        return ErrorAt(sql, arg.value->offset,
                       "unknown or mistyped option '" + arg.name +
                           "' of read_warc (it takes ignore_errors = true|false)");
      }
      warc.ignore_errors = v.boolean;
    } else if (arg.name == "sample_size" && v.is_number && format != Format::kParquet) {
      csv.sample_rows = json.sample_rows = std::stoll(v.text);
    } else if (is_csv && arg.name == "header" && v.is_bool) {
      csv.parse.has_header = v.boolean;
    } else if (is_csv && (arg.name == "delim" || arg.name == "sep" || arg.name == "delimiter")) {
      FLOTILLA_ASSIGN_OR_RETURN(csv.parse.delimiter, OneChar(v, *arg.value, sql, what));
    } else if (is_csv && arg.name == "quote") {
      FLOTILLA_ASSIGN_OR_RETURN(csv.parse.quote, OneChar(v, *arg.value, sql, what));
    } else if (is_csv && arg.name == "escape") {
      FLOTILLA_ASSIGN_OR_RETURN(csv.parse.escape, OneChar(v, *arg.value, sql, what));
    } else if (is_csv && arg.name == "skip" && v.is_number) {
      csv.parse.skip_rows = std::stoll(v.text);
    } else if (is_csv && arg.name == "nullstr" && v.strings.size() == 1) {
      csv.parse.null_values = v.strings;
    } else if (arg.name == "auto_detect" || arg.name == "format" ||
               arg.name == "hive_partitioning") {
      // Accepted for DuckDB compatibility: detection and hive directories are always on.
    } else {
      return ErrorAt(sql, arg.value->offset,
                     "unknown or mistyped option '" + arg.name + "' of " + ref.name);
    }
  }
  if (paths.empty()) return ErrorAt(sql, ref.offset, ref.name + " needs a path");
  auto plan = Plan(format, paths, csv, json, warc);
  if (!plan.ok()) return ErrorAt(sql, ref.offset, plan.status().message(), plan.status().code());
  return plan;
}

}  // namespace flotilla::sql
