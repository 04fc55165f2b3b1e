#pragma once
// Conversion between expressions, data types, schemas and their protobuf messages
// (flotilla/expr/proto/expression.proto), for serializers that embed them in larger messages
// (plan fragments). Includes the generated protobuf header: include this only from .cc files
// and other narrow *_proto.h headers; everything else uses serialize.h.
//
// FromProto validates everything (see serialize.h): a message built by hand or parsed from
// untrusted bytes gives an Invalid error naming the field and where it is, never a crash.

#include <string_view>

#include "flotilla/common/result.h"
#include "flotilla/expr/expression.h"
#include "flotilla/expr/proto/expression.pb.h"
#include "flotilla/expr/serialize.h"
#include "flotilla/types/schema.h"

namespace flotilla::expr {

/// Fills `out` (which is cleared first). Errors as for SerializeExpression.
Status ToProto(const ExprPtr& expression, proto::Expression* out);
Result<ExprPtr> FromProto(const proto::Expression& message);

Status ToProto(const TypePtr& type, proto::DataType* out);
Result<TypePtr> FromProto(const proto::DataType& message);

Status ToProto(const Field& field, proto::Field* out);
Result<Field> FromProto(const proto::Field& message);

Status ToProto(const Schema& schema, proto::Schema* out);
Result<SchemaPtr> FromProto(const proto::Schema& message);

/// Nesting depth the parser must allow for messages holding expressions: protobuf's default
/// (100) would refuse expressions of about 100 levels that the limits in serialize.h accept.
/// Each embedding message level adds one; kProtoRecursionLimit leaves room for 64 of them.
inline constexpr int kProtoRecursionLimit = kMaxExpressionDepth + 2 * kMaxTypeDepth + 64;

/// Parses `bytes` into `message` with the recursion limit above. Invalid names `what` ("plan
/// fragment") when the bytes are not a complete, well-formed message of that type.
Status ParseProtoMessage(std::string_view bytes, google::protobuf::MessageLite* message,
                         std::string_view what);

}  // namespace flotilla::expr
