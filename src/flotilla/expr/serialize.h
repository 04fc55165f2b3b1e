#pragma once
// Expressions, data types and schemas as bytes, for plan fragments sent to workers. The bytes are
// protobuf messages of flotilla/expr/proto/expression.proto (flotilla.proto.Expression,
// DataType, Schema); a literal travels as a one-row Arrow IPC stream, exact for every type.
// This header does not include protobuf; code that embeds the messages in its own uses
// expression_proto.h.
//
// Deserialization takes untrusted bytes: anything that is not a well-formed message of the kind
// asked for is an Invalid error naming what is wrong and where ("expression proto: binary op 99
// is unknown (at children[1])"), never a crash. Trees deeper than the limits below are refused
// on both sides, so everything serialized here can be read back, and everything read back can
// be bound, evaluated and printed without exhausting the stack.

#include <string>
#include <string_view>

#include "flotilla/common/result.h"
#include "flotilla/expr/expression.h"
#include "flotilla/types/schema.h"

namespace flotilla::expr {

/// Deepest type accepted (int32 has depth 1, list<int32> 2), as for Arrow IPC.
inline constexpr int kMaxTypeDepth = 64;

/// The bytes of a flotilla.proto.Expression. Invalid for a tree the reader would refuse: a null
/// node, the wrong number of children for its kind, a literal that is not one row, a cast without
/// a type, a missing name, too deep.
Result<std::string> SerializeExpression(const ExprPtr& expression);
/// The expression SerializeExpression wrote: the same tree, node for node.
Result<ExprPtr> DeserializeExpression(std::string_view bytes);

/// The bytes of a flotilla.proto.DataType.
Result<std::string> SerializeDataType(const TypePtr& type);
Result<TypePtr> DeserializeDataType(std::string_view bytes);

/// The bytes of a flotilla.proto.Schema: fields (names, types, nullability) and metadata.
Result<std::string> SerializeSchema(const SchemaPtr& schema);
Result<SchemaPtr> DeserializeSchema(std::string_view bytes);

}  // namespace flotilla::expr
