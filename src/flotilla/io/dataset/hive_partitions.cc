#include "flotilla/io/dataset/hive_partitions.h"

#include <algorithm>
#include <set>

#include "flotilla/columnar/builder.h"
#include "flotilla/expr/binder.h"
#include "flotilla/expr/evaluator.h"
#include "flotilla/expr/rewrite.h"
#include "flotilla/expr/serialize.h"
#include "flotilla/io/text/infer.h"
#include "flotilla/io/text/packed.h"
#include "flotilla/io/text/value_parse.h"

namespace flotilla::io {

namespace {

constexpr const char* kNullValue = "__HIVE_DEFAULT_PARTITION__";

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 && HexDigit(s[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// (key, value) of each "key=value" directory of `path`, outermost first.
std::vector<std::pair<std::string, std::optional<std::string>>> PathPartitions(
    const std::string& path) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    if (slash == std::string::npos) break;  // the last segment is the file name
    const std::string_view segment = std::string_view(path).substr(start, slash - start);
    const size_t eq = segment.find('=');
    if (eq != std::string_view::npos && eq > 0) {
      const std::string value(segment.substr(eq + 1));
      out.emplace_back(
          PercentDecode(segment.substr(0, eq)),
          value == kNullValue ? std::nullopt : std::optional<std::string>(PercentDecode(value)));
    }
    start = slash + 1;
  }
  return out;
}

Result<Array> ConstantArray(const TypePtr& type, const std::optional<std::string>& value,
                            int64_t n) {
  if (!value) return Array::MakeNull(type, n);
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(type));
  FLOTILLA_RETURN_NOT_OK(builder->Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    FLOTILLA_ASSIGN_OR_RETURN(bool ok, text::AppendParsed(builder.get(), *value));
    if (!ok)
      return Status::Invalid("partition value '" + *value + "' is not a " + type->ToString());
  }
  return builder->Finish();
}

void Conjuncts(const expr::ExprPtr& e, std::vector<expr::ExprPtr>* out) {
  if (e->kind() == expr::ExprKind::kBinary && e->binary_op() == expr::BinaryOp::kAnd) {
    for (const auto& child : e->children())
      Conjuncts(child, out);
  } else {
    out->push_back(e);
  }
}

// A file's task with its partition values appended as columns.
class PartitionedTask final : public io::ScanTask {
 public:
  PartitionedTask(std::shared_ptr<const io::ScanTask> inner, SchemaPtr file_schema,
                  std::vector<Field> fields, std::vector<std::optional<std::string>> values)
      : inner_(std::move(inner)),
        file_schema_(std::move(file_schema)),
        fields_(std::move(fields)),
        values_(std::move(values)) {}

  Result<std::vector<RecordBatch>> Read(const io::ScanPushdowns& pushdowns) const override {
    if (pushdowns.filter != nullptr && Excludes(pushdowns.filter))
      return std::vector<RecordBatch>{};
    // Which requested columns come from the file, which from the path.
    std::vector<std::string> wanted;
    if (pushdowns.columns) {
      wanted = *pushdowns.columns;
    } else {
      wanted = file_schema_->field_names();
      for (const Field& f : fields_)
        wanted.push_back(f.name);
    }
    io::ScanPushdowns inner = pushdowns;
    std::vector<std::string> from_file;
    for (const std::string& c : wanted)
      if (file_schema_->GetFieldIndex(c) >= 0) from_file.push_back(c);
    // Only partition columns asked for: one file column still gives the row counts.
    const bool counting_only = from_file.empty();
    if (counting_only) from_file.push_back(file_schema_->field(0).name);
    inner.columns = from_file;
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, inner_->Read(inner));
    std::vector<RecordBatch> out;
    for (const RecordBatch& b : batches) {
      std::vector<Field> out_fields;
      std::vector<Array> columns;
      for (const std::string& c : wanted) {
        const auto part = std::find_if(fields_.begin(), fields_.end(),
                                       [&](const Field& f) { return f.name == c; });
        if (file_schema_->GetFieldIndex(c) >= 0) {
          const int k = b.schema()->GetFieldIndex(c);
          out_fields.push_back(b.schema()->field(k));
          columns.push_back(b.column(k));
        } else if (part != fields_.end()) {
          FLOTILLA_ASSIGN_OR_RETURN(
              Array a, ConstantArray(part->type, values_[part - fields_.begin()], b.num_rows()));
          out_fields.push_back(*part);
          columns.push_back(std::move(a));
        } else {
          return Status::KeyError("no column '" + c + "' in " + ToString());
        }
      }
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch,
                                RecordBatch::Make(std::make_shared<Schema>(std::move(out_fields)),
                                                  std::move(columns), b.num_rows()));
      out.push_back(std::move(batch));
    }
    return out;
  }
  int64_t num_rows() const override { return inner_->num_rows(); }
  int64_t size_bytes() const override { return inner_->size_bytes(); }
  std::string ToString() const override {
    std::string s = inner_->ToString();
    for (size_t i = 0; i < fields_.size(); ++i)
      s += " " + fields_[i].name + "=" + (values_[i] ? *values_[i] : "null");
    return s;
  }
  std::string kind() const override { return "hive"; }

  /// True when a conjunct of `filter` over partition columns only is false (or null) for this
  /// file's values: none of its rows can pass, so it is not read.
  bool Excludes(const expr::ExprPtr& filter) const {
    std::vector<expr::ExprPtr> conjuncts;
    Conjuncts(filter, &conjuncts);
    for (const expr::ExprPtr& c : conjuncts) {
      std::set<std::string> names;
      expr::CollectColumns(c, &names);
      if (names.empty()) continue;
      bool only_partitions = true;
      for (const std::string& n : names)
        if (std::none_of(fields_.begin(), fields_.end(),
                         [&](const Field& f) { return f.name == n; }))
          only_partitions = false;
      if (!only_partitions) continue;
      std::vector<Array> columns;
      bool ok = true;
      for (size_t k = 0; k < fields_.size() && ok; ++k) {
        auto a = ConstantArray(fields_[k].type, values_[k], 1);
        if (a.ok())
          columns.push_back(*a);
        else
          ok = false;
      }
      if (!ok) continue;
      auto one = RecordBatch::Make(std::make_shared<Schema>(fields_), std::move(columns), 1);
      if (!one.ok()) continue;
      auto bound = expr::Bind(c, *one->schema());
      if (!bound.ok()) continue;
      auto value = expr::Evaluate(*bound, *one);
      if (!value.ok()) continue;
      auto column = value->ToColumn(1);
      if (!column.ok() || column->type_id() != TypeId::kBool) continue;
      if (column->IsNull(0) || !column->BoolValue(0)) return true;
    }
    return false;
  }
  Result<std::string> Serialize() const override {
    FLOTILLA_ASSIGN_OR_RETURN(std::string inner, inner_->Serialize());
    FLOTILLA_ASSIGN_OR_RETURN(std::string file_schema, expr::SerializeSchema(file_schema_));
    FLOTILLA_ASSIGN_OR_RETURN(std::string fields,
                              expr::SerializeSchema(std::make_shared<Schema>(fields_)));
    std::vector<std::string> values;
    for (const auto& v : values_)
      values.push_back(v ? "v" + *v : "n");
    return text::Pack({inner_->kind(), inner, file_schema, fields, text::Pack(values)});
  }

 private:
  std::shared_ptr<const io::ScanTask> inner_;
  SchemaPtr file_schema_;
  std::vector<Field> fields_;
  std::vector<std::optional<std::string>> values_;
};

}  // namespace

Result<HivePartitions> DiscoverHivePartitions(const std::vector<std::string>& paths) {
  HivePartitions out;
  if (paths.empty()) return out;
  std::vector<std::vector<std::pair<std::string, std::optional<std::string>>>> found;
  for (const std::string& p : paths)
    found.push_back(PathPartitions(p));
  if (found[0].empty()) return out;
  for (const auto& f : found) {
    if (f.size() != found[0].size()) return HivePartitions{};
    for (size_t k = 0; k < f.size(); ++k)
      if (f[k].first != found[0][k].first) return HivePartitions{};
  }
  for (size_t k = 0; k < found[0].size(); ++k) {
    text::Inferred kind;
    for (const auto& f : found)
      if (f[k].second) FLOTILLA_RETURN_NOT_OK(text::Join(&kind, text::InferText(*f[k].second), ""));
    out.fields.push_back({found[0][k].first, text::ToType(kind)});
  }
  for (const auto& f : found) {
    std::vector<std::optional<std::string>> values;
    for (const auto& kv : f)
      values.push_back(kv.second);
    out.values.push_back(std::move(values));
  }
  return out;
}

Status ApplyHivePartitions(const std::vector<std::string>& paths,
                           const std::vector<size_t>& task_file, FileScan* scan) {
  FLOTILLA_ASSIGN_OR_RETURN(HivePartitions parts, DiscoverHivePartitions(paths));
  if (parts.fields.empty()) return Status::OK();
  std::vector<Field> fields = scan->schema->fields();
  for (const Field& f : parts.fields) {
    if (scan->schema->GetFieldIndex(f.name) >= 0)
      return Status::Invalid("partition directory '" + f.name +
                             "=' names a column the files already have");
    fields.push_back(f);
  }
  const SchemaPtr file_schema = scan->schema;
  for (size_t t = 0; t < scan->tasks.size(); ++t)
    scan->tasks[t] = std::make_shared<PartitionedTask>(scan->tasks[t], file_schema, parts.fields,
                                                       parts.values[task_file[t]]);
  scan->schema = std::make_shared<Schema>(std::move(fields));
  return Status::OK();
}

void RegisterHivePartitionTasks(io::ScanTaskRegistry* registry) {
  (*registry)["hive"] =
      [registry](std::string_view bytes) -> Result<std::shared_ptr<const io::ScanTask>> {
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<std::string> parts, text::Unpack(bytes, 5));
    auto factory = registry->find(parts[0]);
    if (factory == registry->end())
      return Status::KeyError("no reader registered for scan tasks of kind '" + parts[0] + "'");
    FLOTILLA_ASSIGN_OR_RETURN(std::shared_ptr<const io::ScanTask> inner, factory->second(parts[1]));
    FLOTILLA_ASSIGN_OR_RETURN(SchemaPtr file_schema, expr::DeserializeSchema(parts[2]));
    FLOTILLA_ASSIGN_OR_RETURN(SchemaPtr fields, expr::DeserializeSchema(parts[3]));
    FLOTILLA_ASSIGN_OR_RETURN(std::vector<std::string> packed, text::UnpackAll(parts[4]));
    if (packed.size() != static_cast<size_t>(fields->num_fields()))
      return Status::Invalid("partition task values do not match its fields");
    std::vector<std::optional<std::string>> values;
    for (const std::string& v : packed) {
      if (v.empty()) return Status::Invalid("malformed partition value");
      values.push_back(v[0] == 'v' ? std::optional<std::string>(v.substr(1)) : std::nullopt);
    }
    return std::shared_ptr<const io::ScanTask>(std::make_shared<PartitionedTask>(
        std::move(inner), std::move(file_schema), fields->fields(), std::move(values)));
  };
}

}  // namespace flotilla::io
