#include "flotilla/expr/serialize.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>

#include <climits>
#include <cstdint>
#include <iterator>
#include <vector>

#include "flotilla/columnar/buffer.h"
#include "flotilla/columnar/record_batch.h"
#include "flotilla/expr/expression_proto.h"
#include "flotilla/io/ipc/ipc.h"

namespace flotilla::expr {
namespace {

// --- The enums on both sides ------------------------------------------------------------------
// One table per enum, in enum order; the static_asserts catch a value added to only one side.

struct TypeIdEntry {
  TypeId id;
  proto::TypeId proto;
  const char* name;
};
constexpr TypeIdEntry kTypeIds[] = {
    {TypeId::kNull, proto::TYPE_ID_NULL, "null"},
    {TypeId::kBool, proto::TYPE_ID_BOOL, "bool"},
    {TypeId::kInt8, proto::TYPE_ID_INT8, "int8"},
    {TypeId::kInt16, proto::TYPE_ID_INT16, "int16"},
    {TypeId::kInt32, proto::TYPE_ID_INT32, "int32"},
    {TypeId::kInt64, proto::TYPE_ID_INT64, "int64"},
    {TypeId::kUInt8, proto::TYPE_ID_UINT8, "uint8"},
    {TypeId::kUInt16, proto::TYPE_ID_UINT16, "uint16"},
    {TypeId::kUInt32, proto::TYPE_ID_UINT32, "uint32"},
    {TypeId::kUInt64, proto::TYPE_ID_UINT64, "uint64"},
    {TypeId::kFloat32, proto::TYPE_ID_FLOAT32, "float32"},
    {TypeId::kFloat64, proto::TYPE_ID_FLOAT64, "float64"},
    {TypeId::kDecimal128, proto::TYPE_ID_DECIMAL128, "decimal128"},
    {TypeId::kDate32, proto::TYPE_ID_DATE32, "date32"},
    {TypeId::kTimestamp, proto::TYPE_ID_TIMESTAMP, "timestamp"},
    {TypeId::kDuration, proto::TYPE_ID_DURATION, "duration"},
    {TypeId::kTime64, proto::TYPE_ID_TIME64, "time64"},
    {TypeId::kString, proto::TYPE_ID_STRING, "string"},
    {TypeId::kLargeString, proto::TYPE_ID_LARGE_STRING, "large_string"},
    {TypeId::kBinary, proto::TYPE_ID_BINARY, "binary"},
    {TypeId::kLargeBinary, proto::TYPE_ID_LARGE_BINARY, "large_binary"},
    {TypeId::kFixedSizeBinary, proto::TYPE_ID_FIXED_SIZE_BINARY, "fixed_size_binary"},
    {TypeId::kList, proto::TYPE_ID_LIST, "list"},
    {TypeId::kFixedSizeList, proto::TYPE_ID_FIXED_SIZE_LIST, "fixed_size_list"},
    {TypeId::kStruct, proto::TYPE_ID_STRUCT, "struct"},
    {TypeId::kDictionary, proto::TYPE_ID_DICTIONARY, "dictionary"},
};
static_assert(std::size(kTypeIds) == static_cast<size_t>(TypeId::kTime64) + 1);

struct TimeUnitEntry {
  TimeUnit unit;
  proto::TimeUnit proto;
};
constexpr TimeUnitEntry kTimeUnits[] = {
    {TimeUnit::kSecond, proto::TIME_UNIT_SECOND},
    {TimeUnit::kMilli, proto::TIME_UNIT_MILLI},
    {TimeUnit::kMicro, proto::TIME_UNIT_MICRO},
    {TimeUnit::kNano, proto::TIME_UNIT_NANO},
};
static_assert(std::size(kTimeUnits) == static_cast<size_t>(TimeUnit::kNano) + 1);

// Which flag of Expression (one bool, named per kind) a kind uses.
enum class Flag { kNone, kTryCast, kNegated, kHasElse };

struct KindEntry {
  ExprKind kind;
  proto::ExprKind proto;
  const char* name;
  size_t min_children;
  size_t max_children;
  bool takes_name;
  Flag flag;
};
constexpr size_t kAny = SIZE_MAX;
constexpr KindEntry kKinds[] = {
    {ExprKind::kColumn, proto::EXPR_KIND_COLUMN, "column", 0, 0, true, Flag::kNone},
    {ExprKind::kLiteral, proto::EXPR_KIND_LITERAL, "literal", 0, 0, false, Flag::kNone},
    {ExprKind::kAlias, proto::EXPR_KIND_ALIAS, "alias", 1, 1, true, Flag::kNone},
    {ExprKind::kCast, proto::EXPR_KIND_CAST, "cast", 1, 1, false, Flag::kTryCast},
    {ExprKind::kUnary, proto::EXPR_KIND_UNARY, "unary", 1, 1, false, Flag::kNone},
    {ExprKind::kBinary, proto::EXPR_KIND_BINARY, "binary", 2, 2, false, Flag::kNone},
    {ExprKind::kCall, proto::EXPR_KIND_CALL, "call", 0, kAny, true, Flag::kNone},
    {ExprKind::kCase, proto::EXPR_KIND_CASE, "case", 0, kAny, false, Flag::kHasElse},
    {ExprKind::kIsIn, proto::EXPR_KIND_IS_IN, "is_in", 1, kAny, false, Flag::kNegated},
    {ExprKind::kBetween, proto::EXPR_KIND_BETWEEN, "between", 3, 3, false, Flag::kNegated},
    {ExprKind::kIsNull, proto::EXPR_KIND_IS_NULL, "is_null", 1, 1, false, Flag::kNegated},
    {ExprKind::kCoalesce, proto::EXPR_KIND_COALESCE, "coalesce", 0, kAny, false, Flag::kNone},
    {ExprKind::kAggregate, proto::EXPR_KIND_AGGREGATE, "aggregate", 0, kAny, true, Flag::kNone},
    {ExprKind::kWindow, proto::EXPR_KIND_WINDOW, "window", 0, kAny, true, Flag::kNone},
};
static_assert(std::size(kKinds) == static_cast<size_t>(ExprKind::kWindow) + 1);

struct UnaryOpEntry {
  UnaryOp op;
  proto::UnaryOp proto;
};
constexpr UnaryOpEntry kUnaryOps[] = {
    {UnaryOp::kNegate, proto::UNARY_OP_NEGATE},
    {UnaryOp::kNot, proto::UNARY_OP_NOT},
};
static_assert(std::size(kUnaryOps) == static_cast<size_t>(UnaryOp::kNot) + 1);

struct BinaryOpEntry {
  BinaryOp op;
  proto::BinaryOp proto;
};
constexpr BinaryOpEntry kBinaryOps[] = {
    {BinaryOp::kAdd, proto::BINARY_OP_ADD},
    {BinaryOp::kSubtract, proto::BINARY_OP_SUBTRACT},
    {BinaryOp::kMultiply, proto::BINARY_OP_MULTIPLY},
    {BinaryOp::kDivide, proto::BINARY_OP_DIVIDE},
    {BinaryOp::kIntDiv, proto::BINARY_OP_INT_DIV},
    {BinaryOp::kMod, proto::BINARY_OP_MOD},
    {BinaryOp::kEqual, proto::BINARY_OP_EQUAL},
    {BinaryOp::kNotEqual, proto::BINARY_OP_NOT_EQUAL},
    {BinaryOp::kLess, proto::BINARY_OP_LESS},
    {BinaryOp::kLessEqual, proto::BINARY_OP_LESS_EQUAL},
    {BinaryOp::kGreater, proto::BINARY_OP_GREATER},
    {BinaryOp::kGreaterEqual, proto::BINARY_OP_GREATER_EQUAL},
    {BinaryOp::kAnd, proto::BINARY_OP_AND},
    {BinaryOp::kOr, proto::BINARY_OP_OR},
};
static_assert(std::size(kBinaryOps) == static_cast<size_t>(BinaryOp::kOr) + 1);

// The entry whose `member` is `value`, or nullptr.
template <typename Entry, size_t N, typename Member, typename Value>
const Entry* Find(const Entry (&table)[N], Member Entry::*member, Value value) {
  for (const Entry& e : table) {
    if (e.*member == value) return &e;
  }
  return nullptr;
}

// --- Error messages ---------------------------------------------------------------------------

// Names the message being converted and where the converter is inside it, so every error reads
// "expression proto: binary op 99 is unknown (at children[1])".
class Context {
 public:
  explicit Context(std::string_view subject) : subject_(subject) {}

  Status Error(std::string_view what) const { return Status::Invalid(Message(what)); }
  // `status` from a nested reader or writer, placed here; keeps its code.
  Status Wrap(const Status& status, std::string_view what) const {
    return Status(status.code(), Message(std::string(what) + ": " + status.message()));
  }

  // Appends a path segment for the lifetime of the returned object.
  class [[nodiscard]] Step {
   public:
    Step(Context* context, std::string segment) : context_(context) {
      context_->path_.push_back(std::move(segment));
    }
    ~Step() { context_->path_.pop_back(); }
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;

   private:
    Context* context_;
  };
  Step Enter(std::string segment) { return Step(this, std::move(segment)); }
  Step Enter(std::string_view list, size_t index) {
    return Step(this, fmt::format("{}[{}]", list, index));
  }

 private:
  std::string Message(std::string_view what) const {
    std::string out = fmt::format("{}: {}", subject_, what);
    if (path_.empty()) return out;
    // A path through a deep tree is cut in the middle to stay readable.
    constexpr size_t kEnds = 4;
    if (path_.size() <= 3 * kEnds) return out + fmt::format(" (at {})", fmt::join(path_, "."));
    return out + fmt::format(
                     " (at {}.<{} more>.{})", fmt::join(path_.begin(), path_.begin() + kEnds, "."),
                     path_.size() - 2 * kEnds, fmt::join(path_.end() - kEnds, path_.end(), "."));
  }

  std::string_view subject_;
  std::vector<std::string> path_;
};

// What every Expression node assumes of its parts (ToString and the binder index children
// without checking), checked on the way out and on the way in.
Status CheckShape(const Context& context, const KindEntry& kind, size_t num_children, bool flag,
                  std::string_view name) {
  if (num_children < kind.min_children || num_children > kind.max_children) {
    if (kind.min_children == kind.max_children) {
      return context.Error(fmt::format("{} expression has {} children, expected {}", kind.name,
                                       num_children, kind.min_children));
    }
    return context.Error(fmt::format("{} expression has {} children, expected at least {}",
                                     kind.name, num_children, kind.min_children));
  }
  if (kind.kind == ExprKind::kCase && num_children % 2 != (flag ? 1 : 0)) {
    return context.Error(fmt::format(
        "case expression {} an else has {} children, expected {} number (when/then pairs{})",
        flag ? "with" : "without", num_children, flag ? "an odd" : "an even",
        flag ? ", then the else" : ""));
  }
  if (kind.takes_name && name.empty()) {
    return context.Error(fmt::format("{} expression has no name", kind.name));
  }
  return Status::OK();
}

// --- Writing ----------------------------------------------------------------------------------

class Writer {
 public:
  explicit Writer(std::string_view subject) : context_(subject) {}

  Status WriteExpression(const ExprPtr& e, proto::Expression* out, int depth) {
    if (depth > kMaxExpressionDepth) {
      return context_.Error(
          fmt::format("expression is nested deeper than {} levels", kMaxExpressionDepth));
    }
    if (e == nullptr) return context_.Error("expression is null");
    const KindEntry* kind = Find(kKinds, &KindEntry::kind, e->kind());
    if (kind == nullptr) {
      return context_.Error(
          fmt::format("expression kind {} is unknown", static_cast<int>(e->kind())));
    }
    // Every flag accessor reads the same bool; the kind says which one it is.
    const bool flag = e->try_cast();
    FLOTILLA_RETURN_NOT_OK(CheckShape(context_, *kind, e->children().size(), flag, e->name()));
    out->set_kind(kind->proto);
    if (kind->takes_name) out->set_name(e->name());
    switch (kind->flag) {
      case Flag::kNone:
        break;
      case Flag::kTryCast:
        out->set_try_cast(flag);
        break;
      case Flag::kNegated:
        out->set_negated(flag);
        break;
      case Flag::kHasElse:
        out->set_has_else(flag);
        break;
    }
    switch (e->kind()) {
      case ExprKind::kLiteral:
        FLOTILLA_RETURN_NOT_OK(WriteLiteral(e->literal(), out->mutable_literal()));
        break;
      case ExprKind::kCast: {
        if (e->cast_type() == nullptr) return context_.Error("cast expression has no type");
        auto step = context_.Enter("cast_type");
        FLOTILLA_RETURN_NOT_OK(WriteType(e->cast_type(), out->mutable_cast_type(), 1));
        break;
      }
      case ExprKind::kUnary: {
        const UnaryOpEntry* op = Find(kUnaryOps, &UnaryOpEntry::op, e->unary_op());
        if (op == nullptr) {
          return context_.Error(
              fmt::format("unary op {} is unknown", static_cast<int>(e->unary_op())));
        }
        out->set_unary_op(op->proto);
        break;
      }
      case ExprKind::kBinary: {
        const BinaryOpEntry* op = Find(kBinaryOps, &BinaryOpEntry::op, e->binary_op());
        if (op == nullptr) {
          return context_.Error(
              fmt::format("binary op {} is unknown", static_cast<int>(e->binary_op())));
        }
        out->set_binary_op(op->proto);
        break;
      }
      default:
        break;
    }
    for (size_t i = 0; i < e->children().size(); ++i) {
      auto step = context_.Enter("children", i);
      FLOTILLA_RETURN_NOT_OK(WriteExpression(e->children()[i], out->add_children(), depth + 1));
    }
    return Status::OK();
  }

  Status WriteType(const TypePtr& type, proto::DataType* out, int depth) {
    if (depth > kMaxTypeDepth) {
      return context_.Error(fmt::format("type is nested deeper than {} levels", kMaxTypeDepth));
    }
    if (type == nullptr) return context_.Error("type is null");
    const TypeIdEntry* id = Find(kTypeIds, &TypeIdEntry::id, type->id());
    if (id == nullptr) {
      return context_.Error(fmt::format("type id {} is unknown", static_cast<int>(type->id())));
    }
    out->set_id(id->proto);
    switch (type->id()) {
      case TypeId::kDecimal128:
        out->set_precision(type->precision());
        out->set_scale(type->scale());
        break;
      case TypeId::kTimestamp:
        out->set_timezone(type->timezone());
        [[fallthrough]];
      case TypeId::kDuration:
      case TypeId::kTime64: {
        const TimeUnitEntry* unit = Find(kTimeUnits, &TimeUnitEntry::unit, type->unit());
        if (unit == nullptr) {
          return context_.Error(
              fmt::format("time unit {} is unknown", static_cast<int>(type->unit())));
        }
        out->set_unit(unit->proto);
        break;
      }
      case TypeId::kFixedSizeBinary:
        out->set_fixed_size(type->fixed_size());
        break;
      case TypeId::kFixedSizeList:
        out->set_fixed_size(type->fixed_size());
        [[fallthrough]];
      case TypeId::kList:
      case TypeId::kStruct:
        for (size_t i = 0; i < type->fields().size(); ++i) {
          auto step = context_.Enter("fields", i);
          FLOTILLA_RETURN_NOT_OK(WriteField(type->fields()[i], out->add_fields(), depth + 1));
        }
        break;
      case TypeId::kDictionary: {
        {
          auto step = context_.Enter("index_type");
          FLOTILLA_RETURN_NOT_OK(
              WriteType(type->index_type(), out->mutable_index_type(), depth + 1));
        }
        auto step = context_.Enter("value_type");
        FLOTILLA_RETURN_NOT_OK(WriteType(type->value_type(), out->mutable_value_type(), depth + 1));
        break;
      }
      default:
        break;
    }
    return Status::OK();
  }

  Status WriteField(const flotilla::Field& field, proto::Field* out, int depth) {
    out->set_name(field.name);
    out->set_nullable(field.nullable);
    return WriteType(field.type, out->mutable_type(), depth);
  }

  Status WriteSchema(const flotilla::Schema& schema, proto::Schema* out) {
    for (int i = 0; i < schema.num_fields(); ++i) {
      auto step = context_.Enter("fields", static_cast<size_t>(i));
      FLOTILLA_RETURN_NOT_OK(WriteField(schema.field(i), out->add_fields(), 1));
    }
    for (const auto& [key, value] : schema.metadata()) {
      proto::KeyValue* kv = out->add_metadata();
      kv->set_key(key);
      kv->set_value(value);
    }
    return Status::OK();
  }

 private:
  Status WriteLiteral(const Array& value, std::string* out) {
    if (!value.valid()) return context_.Error("literal expression has no value");
    if (value.length() != 1) {
      return context_.Error(fmt::format("literal has {} rows, expected 1", value.length()));
    }
    auto schema = std::make_shared<const flotilla::Schema>(
        std::vector<flotilla::Field>{{"literal", value.type(), true}});
    Result<BufferPtr> stream = [&]() -> Result<BufferPtr> {
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch batch, RecordBatch::Make(schema, {value}, 1));
      return ipc::WriteStreamToBuffer(schema, {batch});
    }();
    if (!stream.ok()) {
      return context_.Wrap(stream.status(),
                           "literal of type " + value.type()->ToString() + " cannot be written");
    }
    out->assign((*stream)->view());
    return Status::OK();
  }

  Context context_;
};

// --- Reading ----------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::string_view subject) : context_(subject) {}

  Result<ExprPtr> ReadExpression(const proto::Expression& m, int depth) {
    if (depth > kMaxExpressionDepth) {
      return context_.Error(
          fmt::format("expression is nested deeper than {} levels", kMaxExpressionDepth));
    }
    if (m.kind() == proto::EXPR_KIND_UNSPECIFIED) return context_.Error("kind is missing");
    const KindEntry* kind = Find(kKinds, &KindEntry::proto, m.kind());
    if (kind == nullptr) {
      return context_.Error(
          fmt::format("expression kind {} is unknown", static_cast<int>(m.kind())));
    }
    FLOTILLA_RETURN_NOT_OK(NoStrayParts(*kind, m));
    const bool flag = m.try_cast() || m.negated() || m.has_else();
    FLOTILLA_RETURN_NOT_OK(
        CheckShape(context_, *kind, static_cast<size_t>(m.children_size()), flag, m.name()));

    flotilla::expr::Expression::Parts parts{kind->kind, m.name()};
    parts.flag = flag;
    switch (kind->kind) {
      case ExprKind::kLiteral: {
        FLOTILLA_ASSIGN_OR_RETURN(parts.literal, ReadLiteral(m.literal()));
        break;
      }
      case ExprKind::kCast: {
        if (!m.has_cast_type()) return context_.Error("cast expression has no cast_type");
        auto step = context_.Enter("cast_type");
        FLOTILLA_ASSIGN_OR_RETURN(parts.cast_type, ReadType(m.cast_type(), 1));
        break;
      }
      case ExprKind::kUnary: {
        if (m.unary_op() == proto::UNARY_OP_UNSPECIFIED) {
          return context_.Error("unary op is missing");
        }
        const UnaryOpEntry* op = Find(kUnaryOps, &UnaryOpEntry::proto, m.unary_op());
        if (op == nullptr) {
          return context_.Error(
              fmt::format("unary op {} is unknown", static_cast<int>(m.unary_op())));
        }
        parts.unary_op = op->op;
        break;
      }
      case ExprKind::kBinary: {
        if (m.binary_op() == proto::BINARY_OP_UNSPECIFIED) {
          return context_.Error("binary op is missing");
        }
        const BinaryOpEntry* op = Find(kBinaryOps, &BinaryOpEntry::proto, m.binary_op());
        if (op == nullptr) {
          return context_.Error(
              fmt::format("binary op {} is unknown", static_cast<int>(m.binary_op())));
        }
        parts.binary_op = op->op;
        break;
      }
      default:
        break;
    }
    parts.children.reserve(static_cast<size_t>(m.children_size()));
    for (int i = 0; i < m.children_size(); ++i) {
      auto step = context_.Enter("children", static_cast<size_t>(i));
      FLOTILLA_ASSIGN_OR_RETURN(ExprPtr child, ReadExpression(m.children(i), depth + 1));
      parts.children.push_back(std::move(child));
    }
    return std::make_shared<const flotilla::expr::Expression>(std::move(parts));
  }

  Result<TypePtr> ReadType(const proto::DataType& m, int depth) {
    if (depth > kMaxTypeDepth) {
      return context_.Error(fmt::format("type is nested deeper than {} levels", kMaxTypeDepth));
    }
    if (m.id() == proto::TYPE_ID_UNSPECIFIED) return context_.Error("type id is missing");
    const TypeIdEntry* entry = Find(kTypeIds, &TypeIdEntry::proto, m.id());
    if (entry == nullptr) {
      return context_.Error(fmt::format("type id {} is unknown", static_cast<int>(m.id())));
    }
    const TypeId id = entry->id;
    FLOTILLA_RETURN_NOT_OK(NoStrayParameters(*entry, m));
    switch (id) {
      case TypeId::kNull:
        return null();
      case TypeId::kBool:
        return boolean();
      case TypeId::kInt8:
        return int8();
      case TypeId::kInt16:
        return int16();
      case TypeId::kInt32:
        return int32();
      case TypeId::kInt64:
        return int64();
      case TypeId::kUInt8:
        return uint8();
      case TypeId::kUInt16:
        return uint16();
      case TypeId::kUInt32:
        return uint32();
      case TypeId::kUInt64:
        return uint64();
      case TypeId::kFloat32:
        return float32();
      case TypeId::kFloat64:
        return float64();
      case TypeId::kDate32:
        return date32();
      case TypeId::kString:
        return utf8();
      case TypeId::kLargeString:
        return large_utf8();
      case TypeId::kBinary:
        return binary();
      case TypeId::kLargeBinary:
        return large_binary();
      case TypeId::kDecimal128:
        // The range the Arrow IPC reader accepts.
        if (m.precision() < 1 || m.precision() > 38 || m.scale() < -38 || m.scale() > 38) {
          return context_.Error(
              fmt::format("decimal128({}, {}) is invalid: precision must be 1 to 38, scale -38 "
                          "to 38",
                          m.precision(), m.scale()));
        }
        return decimal128(m.precision(), m.scale());
      case TypeId::kTimestamp: {
        FLOTILLA_ASSIGN_OR_RETURN(TimeUnit unit, ReadUnit(*entry, m.unit()));
        return timestamp(unit, m.timezone());
      }
      case TypeId::kDuration: {
        FLOTILLA_ASSIGN_OR_RETURN(TimeUnit unit, ReadUnit(*entry, m.unit()));
        return duration(unit);
      }
      case TypeId::kTime64: {
        FLOTILLA_ASSIGN_OR_RETURN(TimeUnit unit, ReadUnit(*entry, m.unit()));
        if (unit != TimeUnit::kMicro && unit != TimeUnit::kNano)
          return context_.Error("time64 takes a micro or nano unit");
        return time64(unit);
      }
      case TypeId::kFixedSizeBinary:
        // Capped so that the width in bits (DataType::bit_width) fits an int.
        if (m.fixed_size() < 1 || m.fixed_size() > INT32_MAX / 8) {
          return context_.Error(
              fmt::format("fixed_size_binary width {} is out of range", m.fixed_size()));
        }
        return fixed_size_binary(m.fixed_size());
      case TypeId::kList:
      case TypeId::kFixedSizeList: {
        if (m.fields_size() != 1) {
          return context_.Error(fmt::format("{} has {} fields, expected 1 (the element)",
                                            entry->name, m.fields_size()));
        }
        if (id == TypeId::kFixedSizeList && m.fixed_size() < 0) {
          return context_.Error(fmt::format("fixed_size_list size {} is negative", m.fixed_size()));
        }
        auto step = context_.Enter("fields", 0);
        FLOTILLA_ASSIGN_OR_RETURN(flotilla::Field element, ReadField(m.fields(0), depth + 1));
        return id == TypeId::kList ? list(std::move(element))
                                   : fixed_size_list(std::move(element), m.fixed_size());
      }
      case TypeId::kStruct: {
        std::vector<flotilla::Field> fields;
        fields.reserve(static_cast<size_t>(m.fields_size()));
        for (int i = 0; i < m.fields_size(); ++i) {
          auto step = context_.Enter("fields", static_cast<size_t>(i));
          FLOTILLA_ASSIGN_OR_RETURN(flotilla::Field field, ReadField(m.fields(i), depth + 1));
          fields.push_back(std::move(field));
        }
        return struct_(std::move(fields));
      }
      case TypeId::kDictionary: {
        if (!m.has_index_type()) return context_.Error("dictionary has no index_type");
        if (!m.has_value_type()) return context_.Error("dictionary has no value_type");
        TypePtr index;
        {
          auto step = context_.Enter("index_type");
          FLOTILLA_ASSIGN_OR_RETURN(index, ReadType(m.index_type(), depth + 1));
          if (!index->is_integer()) {
            return context_.Error(
                fmt::format("dictionary index type {} is not an integer type", index->ToString()));
          }
        }
        auto step = context_.Enter("value_type");
        FLOTILLA_ASSIGN_OR_RETURN(TypePtr value, ReadType(m.value_type(), depth + 1));
        return dictionary(std::move(index), std::move(value));
      }
    }
    return Status::Internal(fmt::format("type id {} has no reader", static_cast<int>(id)));
  }

  Result<flotilla::Field> ReadField(const proto::Field& m, int depth) {
    if (!m.has_type()) return context_.Error(fmt::format("field '{}' has no type", m.name()));
    FLOTILLA_ASSIGN_OR_RETURN(TypePtr type, ReadType(m.type(), depth));
    return flotilla::Field{m.name(), std::move(type), m.nullable()};
  }

  Result<SchemaPtr> ReadSchema(const proto::Schema& m) {
    std::vector<flotilla::Field> fields;
    fields.reserve(static_cast<size_t>(m.fields_size()));
    for (int i = 0; i < m.fields_size(); ++i) {
      auto step = context_.Enter("fields", static_cast<size_t>(i));
      FLOTILLA_ASSIGN_OR_RETURN(flotilla::Field field, ReadField(m.fields(i), 1));
      fields.push_back(std::move(field));
    }
    flotilla::Schema::Metadata metadata;
    metadata.reserve(static_cast<size_t>(m.metadata_size()));
    for (const proto::KeyValue& kv : m.metadata())
      metadata.emplace_back(kv.key(), kv.value());
    return std::make_shared<const flotilla::Schema>(std::move(fields), std::move(metadata));
  }

 private:
  // A part set on a kind that has no such part is an error rather than silently dropped: it
  // means the writer and this reader disagree about the format.
  Status NoStrayParts(const KindEntry& kind, const proto::Expression& m) {
    auto stray = [&](std::string_view part) {
      return context_.Error(fmt::format("{} expression does not take {}", kind.name, part));
    };
    if (!kind.takes_name && !m.name().empty()) return stray("a name");
    if (kind.kind != ExprKind::kLiteral && !m.literal().empty()) return stray("a literal");
    if (kind.kind != ExprKind::kCast && m.has_cast_type()) return stray("a cast_type");
    if (kind.flag != Flag::kTryCast && m.try_cast()) return stray("try_cast");
    if (kind.flag != Flag::kNegated && m.negated()) return stray("negated");
    if (kind.flag != Flag::kHasElse && m.has_else()) return stray("has_else");
    if (kind.kind != ExprKind::kUnary && m.unary_op() != proto::UNARY_OP_UNSPECIFIED) {
      return stray("a unary_op");
    }
    if (kind.kind != ExprKind::kBinary && m.binary_op() != proto::BINARY_OP_UNSPECIFIED) {
      return stray("a binary_op");
    }
    return Status::OK();
  }

  Status NoStrayParameters(const TypeIdEntry& entry, const proto::DataType& m) {
    const TypeId id = entry.id;
    auto stray = [&](std::string_view parameter) {
      return context_.Error(fmt::format("{} does not take {}", entry.name, parameter));
    };
    if (id != TypeId::kDecimal128 && (m.precision() != 0 || m.scale() != 0)) {
      return stray("a precision or scale");
    }
    if (id != TypeId::kTimestamp && id != TypeId::kDuration && id != TypeId::kTime64 &&
        m.unit() != proto::TIME_UNIT_UNSPECIFIED) {
      return stray("a time unit");
    }
    if (id != TypeId::kTimestamp && !m.timezone().empty()) return stray("a time zone");
    if (id != TypeId::kFixedSizeBinary && id != TypeId::kFixedSizeList && m.fixed_size() != 0) {
      return stray("a fixed_size");
    }
    if (id != TypeId::kList && id != TypeId::kFixedSizeList && id != TypeId::kStruct &&
        m.fields_size() != 0) {
      return stray("fields");
    }
    if (id != TypeId::kDictionary && (m.has_index_type() || m.has_value_type())) {
      return stray("an index_type or value_type");
    }
    return Status::OK();
  }

  Result<TimeUnit> ReadUnit(const TypeIdEntry& entry, proto::TimeUnit unit) {
    if (unit == proto::TIME_UNIT_UNSPECIFIED) {
      return context_.Error(fmt::format("{} has no time unit", entry.name));
    }
    const TimeUnitEntry* found = Find(kTimeUnits, &TimeUnitEntry::proto, unit);
    if (found == nullptr) {
      return context_.Error(fmt::format("time unit {} is unknown", static_cast<int>(unit)));
    }
    return found->unit;
  }

  Result<Array> ReadLiteral(const std::string& bytes) {
    if (bytes.empty()) return context_.Error("literal expression has no literal");
    // Copied: the IPC reader wants aligned memory it can hand out views of.
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::CopyOf(bytes));
    SchemaPtr schema;
    Result<std::vector<RecordBatch>> batches = ipc::ReadStream(std::move(buffer), &schema);
    if (!batches.ok()) {
      if (batches.status().code() == StatusCode::kOutOfMemory) return batches.status();
      return context_.Error("literal is not a valid Arrow IPC stream: " +
                            batches.status().message());
    }
    if (schema->num_fields() != 1) {
      return context_.Error(
          fmt::format("literal stream has {} columns, expected 1", schema->num_fields()));
    }
    if (batches->size() != 1) {
      return context_.Error(
          fmt::format("literal stream has {} batches, expected 1", batches->size()));
    }
    const RecordBatch& batch = (*batches)[0];
    if (batch.num_rows() != 1 || batch.column(0).length() != 1) {
      return context_.Error(fmt::format("literal has {} rows, expected 1", batch.num_rows()));
    }
    return batch.column(0);
  }

  Context context_;
};

constexpr std::string_view kExpressionSubject = "expression proto";
constexpr std::string_view kTypeSubject = "data type proto";
constexpr std::string_view kFieldSubject = "field proto";
constexpr std::string_view kSchemaSubject = "schema proto";

Result<std::string> SerializeMessage(const google::protobuf::MessageLite& message,
                                     std::string_view subject) {
  std::string out;
  if (!message.SerializeToString(&out)) {
    return Status::Invalid(
        fmt::format("{}: the message is larger than protobuf's 2 GiB limit", subject));
  }
  return out;
}

}  // namespace

Status ToProto(const ExprPtr& expression, proto::Expression* out) {
  out->Clear();
  return Writer(kExpressionSubject).WriteExpression(expression, out, 1);
}

Result<ExprPtr> FromProto(const proto::Expression& message) {
  return Reader(kExpressionSubject).ReadExpression(message, 1);
}

Status ToProto(const TypePtr& type, proto::DataType* out) {
  out->Clear();
  return Writer(kTypeSubject).WriteType(type, out, 1);
}

Result<TypePtr> FromProto(const proto::DataType& message) {
  return Reader(kTypeSubject).ReadType(message, 1);
}

Status ToProto(const Field& field, proto::Field* out) {
  out->Clear();
  return Writer(kFieldSubject).WriteField(field, out, 1);
}

Result<Field> FromProto(const proto::Field& message) {
  return Reader(kFieldSubject).ReadField(message, 1);
}

Status ToProto(const Schema& schema, proto::Schema* out) {
  out->Clear();
  return Writer(kSchemaSubject).WriteSchema(schema, out);
}

Result<SchemaPtr> FromProto(const proto::Schema& message) {
  return Reader(kSchemaSubject).ReadSchema(message);
}

Status ParseProtoMessage(std::string_view bytes, google::protobuf::MessageLite* message,
                         std::string_view what) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return Status::Invalid(
        fmt::format("{}: {} bytes is more than a protobuf message can hold", what, bytes.size()));
  }
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kProtoRecursionLimit);
  if (!message->ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return Status::Invalid(fmt::format(
        "{}: {} bytes are not a valid {} message (truncated or corrupt, or nested deeper than {} "
        "levels)",
        what, bytes.size(), message->GetTypeName(), kProtoRecursionLimit));
  }
  return Status::OK();
}

Result<std::string> SerializeExpression(const ExprPtr& expression) {
  proto::Expression message;
  FLOTILLA_RETURN_NOT_OK(ToProto(expression, &message));
  return SerializeMessage(message, kExpressionSubject);
}

Result<ExprPtr> DeserializeExpression(std::string_view bytes) {
  proto::Expression message;
  FLOTILLA_RETURN_NOT_OK(ParseProtoMessage(bytes, &message, kExpressionSubject));
  return FromProto(message);
}

Result<std::string> SerializeDataType(const TypePtr& type) {
  proto::DataType message;
  FLOTILLA_RETURN_NOT_OK(ToProto(type, &message));
  return SerializeMessage(message, kTypeSubject);
}

Result<TypePtr> DeserializeDataType(std::string_view bytes) {
  proto::DataType message;
  FLOTILLA_RETURN_NOT_OK(ParseProtoMessage(bytes, &message, kTypeSubject));
  return FromProto(message);
}

Result<std::string> SerializeSchema(const SchemaPtr& schema) {
  if (schema == nullptr) return Status::Invalid(std::string(kSchemaSubject) + ": schema is null");
  proto::Schema message;
  FLOTILLA_RETURN_NOT_OK(ToProto(*schema, &message));
  return SerializeMessage(message, kSchemaSubject);
}

Result<SchemaPtr> DeserializeSchema(std::string_view bytes) {
  proto::Schema message;
  FLOTILLA_RETURN_NOT_OK(ParseProtoMessage(bytes, &message, kSchemaSubject));
  return FromProto(message);
}

}  // namespace flotilla::expr
