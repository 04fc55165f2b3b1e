#pragma once
// The local physical plan as bytes, for plan fragments sent to workers: protobuf messages of
// flotilla/exec/plan/plan.proto (flotilla.proto.Plan), expressions, types and schemas as in
// flotilla/expr/serialize.h, in-memory data as Arrow IPC streams.
//
// The bytes list the nodes in topological order, each naming its inputs by index, so a subplan
// used twice is written once and read back as one shared node. Reading rebuilds every node
// through its Make* factory: the plan read back is bound and type-checked exactly like one built
// in code, and prints the same (PlanToString).
//
// What is C++ code, not data, travels by name and is looked up on the receiving side in a
// PlanResolver: the function of a UdfProject (by its function_name) and every scan task other
// than an InMemoryScanTask (by ScanTask::kind(), its bytes written by ScanTask::Serialize()).
//
// Deserialization takes untrusted bytes: anything that is not a well-formed plan is an error
// naming the node ("plan proto: node 3 (Filter): predicate is missing"), never a crash. Plans
// deeper than kMaxPlanDepth are refused on both sides.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "flotilla/common/result.h"
#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::exec {

/// Deepest plan accepted (a lone source has depth 1). Building, printing, running and
/// destroying a plan recurse once per level.
inline constexpr int kMaxPlanDepth = 500;

/// What the receiving side supplies for the parts of a plan that are code.
struct PlanResolver {
  /// UDFs by UdfProjectNode::function_name.
  std::map<std::string, BatchFunction, std::less<>> udfs;
  /// Scan task readers by ScanTask::kind() ("parquet", ...). "memory" is built in.
  io::ScanTaskRegistry scan_tasks;
};

/// The bytes of a flotilla.proto.Plan. Errors: Invalid for a null plan or one deeper than
/// kMaxPlanDepth, and whatever an expression (expr::SerializeExpression), an in-memory partition
/// (Arrow IPC) or a scan task (ScanTask::Serialize: NotImplemented for a task without a
/// serializer) reports, with the node's context.
Result<std::string> SerializePlan(const PlanPtr& plan);

/// The plan SerializePlan wrote, every node rebuilt by its Make* factory. Errors: Invalid for
/// malformed bytes (naming the node and field), KeyError for a UDF or scan task kind `resolver`
/// does not know, and whatever a factory reports when the plan does not type-check.
Result<PlanPtr> DeserializePlan(std::string_view bytes, const PlanResolver& resolver = {});

}  // namespace flotilla::exec
