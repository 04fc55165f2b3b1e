#pragma once
// The run-time side of a plan: sources, intermediate operators and sinks, chained into
// pipelines by the executor (executor.h).
//
// A pipeline is source -> intermediate operators -> sink. Every thread of the pool runs the
// same loop: take a morsel from the source, push it through the operators, hand the result to
// the sink. Operators are immutable once built (bound expressions, resolved types); what changes
// during a run lives in state objects: one GlobalState per operator per run (shared by the
// threads, synchronised by the operator) and one ThreadState per operator per thread (touched by
// its thread only). Blocking operators (aggregate, sort, join build, window, top-N...) are sinks:
// they end one pipeline, and what Finalize returns is the source of the next one.
//
// Order: a source numbers its morsels 0, 1, 2, ... in input order (`seq`); operators keep one
// morsel's output together, so a sink that cares about order (the result collector under
// maintain_order, limit, monotonically increasing id) can put morsels back in sequence whatever
// thread finished first. Every morsel reaches the sink, also when the operators dropped all its
// rows, so the sequence has no holes.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::exec {

class ExecContext;
struct OperatorStats;

/// A batch with its place in the stream: position in input order and the partition it belongs
/// to (0 unless a repartition split the stream).
struct Morsel {
  int64_t seq = 0;
  int partition = 0;
  RecordBatch batch;
};

/// One morsel's worth of operator output: zero or more batches, still in `seq` order.
struct MorselOutput {
  int64_t seq = 0;
  int partition = 0;
  std::vector<RecordBatch> batches;
};

class GlobalState {
 public:
  virtual ~GlobalState() = default;
};

class ThreadState {
 public:
  virtual ~ThreadState() = default;
};

/// Produces morsels. Next() is called by many threads at once and must be thread-safe; it hands
/// out dense sequence numbers in input order.
class Source {
 public:
  virtual ~Source() = default;
  virtual const SchemaPtr& schema() const = 0;
  /// The next morsel, or nullopt when there are no more.
  virtual Result<std::optional<Morsel>> Next() = 0;
  /// Bytes this source still holds in memory (for stats), 0 when unknown.
  virtual int64_t memory_bytes() const { return 0; }
};

/// A one-to-many transformation of morsels (project, filter, explode, join probe...).
class IntermediateOperator {
 public:
  virtual ~IntermediateOperator() = default;
  virtual std::string name() const = 0;
  virtual const SchemaPtr& output_schema() const = 0;
  virtual Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                               OperatorStats* stats) const {
    return std::unique_ptr<GlobalState>();
  }
  virtual Result<std::unique_ptr<ThreadState>> MakeThreadState(GlobalState* global) const {
    return std::unique_ptr<ThreadState>();
  }
  /// Appends the output for `input` to `out` (nothing when every row is dropped).
  virtual Status Execute(const RecordBatch& input, GlobalState* global, ThreadState* thread,
                         std::vector<RecordBatch>* out) const = 0;
  /// Execute with the morsel's sequence number, for operators whose output depends on the
  /// position in the stream (seeded sampling draws one random stream per morsel, so a seed
  /// gives the same sample however many threads run).
  virtual Status ExecuteSequenced(const RecordBatch& input, int64_t seq, GlobalState* global,
                                  ThreadState* thread, std::vector<RecordBatch>* out) const {
    return Execute(input, global, thread, out);
  }
  /// After every thread has finished the input: rows still to emit (a right or full join's
  /// unmatched build rows, a spilled join's partitions), handed to `emit` a few batches at a
  /// time so they need not all be in memory at once. They follow all other morsels.
  using Emit = std::function<Status(std::vector<RecordBatch> batches)>;
  virtual Status Finish(GlobalState* global, const Emit& emit) const { return Status::OK(); }
};

/// Consumes a whole stream; its Finalize result starts the next pipeline.
class SinkOperator {
 public:
  virtual ~SinkOperator() = default;
  virtual std::string name() const = 0;
  virtual const SchemaPtr& output_schema() const = 0;
  /// `stats` lets the sink report its memory and spills; it outlives the state.
  virtual Result<std::unique_ptr<GlobalState>> MakeGlobalState(ExecContext* context,
                                                               OperatorStats* stats) const = 0;
  virtual Result<std::unique_ptr<ThreadState>> MakeThreadState(GlobalState* global) const {
    return std::unique_ptr<ThreadState>();
  }
  /// Takes one morsel's output (possibly no batches). Called by many threads at once.
  virtual Status Consume(MorselOutput input, GlobalState* global, ThreadState* thread) const = 0;
  /// Called once per thread after its last Consume, on that thread.
  virtual Status Combine(GlobalState* global, ThreadState* thread) const { return Status::OK(); }
  /// Called once after every thread has combined: the sink's output as a source.
  virtual Result<std::unique_ptr<Source>> Finalize(GlobalState* global) const = 0;
  /// True once the sink needs no more input (a satisfied limit): the pipeline stops pulling.
  virtual bool Satisfied(const GlobalState* global) const { return false; }
};

/// Hands out the batches of `partitions` (partition p's batches in order, then p + 1's...) cut
/// into morsels of at most `morsel_size` rows.
std::unique_ptr<Source> MakeBatchSource(SchemaPtr schema,
                                        std::vector<std::vector<RecordBatch>> partitions,
                                        int64_t morsel_size);

}  // namespace flotilla::exec
