// Operators still being written: they fail at plan lowering with NotImplemented.
#include "flotilla/exec/operators/operators.h"

namespace flotilla::exec {
namespace {
Status Pending(const char* what) {
  return Status::NotImplemented(std::string(what) + " is not implemented by the local engine yet");
}
}  // namespace

Result<std::unique_ptr<SinkOperator>> MakePivotSink(const PivotNode&) {
  return Pending("pivot");
}
CombineFactory MakeMergeJoinCombine(const JoinNode&) {
  return [](std::vector<std::unique_ptr<Source>>, ExecContext*) -> Result<std::unique_ptr<Source>> {
    return Pending("sort-merge join");
  };
}

}  // namespace flotilla::exec
