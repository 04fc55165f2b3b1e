#include "flotilla/distributed/partition_ref.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "flotilla/distributed/proto/task.pb.h"
#include "tests/support/plan_checks.h"

namespace flotilla::distributed {
namespace {

PartitionRef Ref(int64_t task, int attempt, int index, const std::string& worker = "w1") {
  return {PartitionKey(7, task, attempt, index),
          worker,
          worker + ":1",
          10 + task,
          100,
          task,
          index,
          attempt,
          7};
}

SchemaPtr OneColumn() {
  return std::make_shared<Schema>(std::vector<Field>{{"v", int64()}});
}

// Serializes and reads back through the registry, as a worker does.
std::shared_ptr<const PartitionScanTask> RoundTrip(const std::vector<PartitionPiece>& pieces,
                                                   std::string* bytes) {
  PartitionScanTask task(pieces, OneColumn());
  Result<std::string> serialized = task.Serialize();
  EXPECT_TRUE(serialized.ok());
  *bytes = *serialized;
  io::ScanTaskRegistry registry;
  RegisterPartitionScanTasks(&registry, nullptr);
  auto back = registry["partition"](*bytes);
  EXPECT_TRUE(back.ok()) << back.status().ToString();
  return std::static_pointer_cast<const PartitionScanTask>(*back);
}

// A reducer's read of one worker names its map tasks in a bitmap, not a ref each: the message
// stays small however many map tasks there are, and reads back as the same pieces.
TEST(PartitionScanTaskTest, WholePartitionsOfAShuffleTravelAsABitmapOfTasks) {
  std::vector<PartitionPiece> pieces;
  for (int64_t t = 1000; t < 3000; t += 2)  // every other task: the other worker has the rest
    pieces.push_back({Ref(t, t == 1500 ? 2 : 0, 5), 0, -1});
  std::string bytes;
  auto back = RoundTrip(pieces, &bytes);
  proto::PartitionInput input;
  ASSERT_TRUE(input.ParseFromString(bytes));
  EXPECT_TRUE(input.has_compact());
  EXPECT_EQ(input.pieces_size(), 0);
  EXPECT_LT(bytes.size(), 400u) << "1000 map outputs in a few hundred bytes";
  ASSERT_EQ(back->pieces().size(), pieces.size());
  int64_t rows = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    EXPECT_EQ(back->pieces()[i].ref.id, pieces[i].ref.id);
    EXPECT_EQ(back->pieces()[i].ref.worker, "w1");
    EXPECT_EQ(back->pieces()[i].ref.address, "w1:1");
    EXPECT_EQ(back->pieces()[i].length, -1);
    rows += pieces[i].ref.num_rows;
  }
  EXPECT_EQ(back->pieces()[250].ref.id, "q7/t1500.2/p5") << "a retried task's attempt";
  EXPECT_EQ(back->num_rows(), rows);
  EXPECT_EQ(back->size_bytes(), 100 * static_cast<int64_t>(pieces.size()));
}

// Pieces that are not whole partitions of one index in task order keep their full form.
TEST(PartitionScanTaskTest, OtherPiecesKeepTheirRefs) {
  const std::vector<std::vector<PartitionPiece>> cases = {
      {{Ref(1, 0, 0), 0, -1}, {Ref(2, 0, 0), 5, 10}},  // a slice
      {{Ref(1, 0, 0), 0, -1}, {Ref(2, 0, 1), 0, -1}},  // two indices
      {{Ref(3, 0, 0), 0, -1}, {Ref(2, 0, 0), 0, -1}},  // out of task order (an ordered read)
      {{Ref(9, 1, 0), 0, -1}, {Ref(4, 0, 0), 0, -1}, {Ref(5, 0, 0), 0, -1}},  // one run again
      {{Ref(1, 0, 0), 0, -1}, {{"kept-copy", "w1", "w1:1", 4, 8, 2, 0, 0, 7}, 0, -1}},
  };
  for (const auto& pieces : cases) {
    std::string bytes;
    auto back = RoundTrip(pieces, &bytes);
    proto::PartitionInput input;
    ASSERT_TRUE(input.ParseFromString(bytes));
    EXPECT_FALSE(input.has_compact());
    ASSERT_EQ(back->pieces().size(), pieces.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
      EXPECT_EQ(back->pieces()[i].ref.id, pieces[i].ref.id);
      EXPECT_EQ(back->pieces()[i].offset, pieces[i].offset);
      EXPECT_EQ(back->pieces()[i].length, pieces[i].length);
    }
  }
}

// The driver's read of a shuffle's outputs on one worker, in no particular order, goes from
// integers to the bitmap form without a ref per map task: read back, it names each task's
// partition (its attempt kept) in task order, with the totals.
TEST(PartitionScanTaskTest, AnUnorderedReadOfWholePartitionsIsABitmapFromIntegers) {
  std::vector<TaskPart> parts;
  for (int64_t t = 2998; t >= 1000; t -= 2)  // out of order, every other task
    parts.push_back({t, t == 1500 ? 2 : 0, 10, 100});
  auto task = PartitionScanTask::Unordered(7, 5, "w1", "w1:1", parts, OneColumn(), false, true);
  EXPECT_EQ(task->num_rows(), 10 * 1000);
  EXPECT_EQ(task->size_bytes(), 100 * 1000);
  EXPECT_FALSE(task->ReadEach({}, [](RecordBatch) { return Status::OK(); }).ok())
      << "only a worker reads it";
  const std::string bytes = task->Serialize().ValueOrDie();
  proto::PartitionInput input;
  ASSERT_TRUE(input.ParseFromString(bytes));
  EXPECT_TRUE(input.has_compact());
  EXPECT_TRUE(input.coalesce());
  EXPECT_LT(bytes.size(), 400u);
  io::ScanTaskRegistry registry;
  RegisterPartitionScanTasks(&registry, nullptr);
  auto back = std::static_pointer_cast<const PartitionScanTask>(*registry["partition"](bytes));
  ASSERT_EQ(back->pieces().size(), 1000u);
  for (size_t i = 0; i < 1000; ++i) {
    const int64_t t = 1000 + 2 * static_cast<int64_t>(i);
    EXPECT_EQ(back->pieces()[i].ref.id, PartitionKey(7, t, t == 1500 ? 2 : 0, 5));
  }
  EXPECT_EQ(back->num_rows(), 10 * 1000);
  // Too spread out for a bitmap: pieces, named as PartitionKey names them.
  auto spread = PartitionScanTask::Unordered(7, 5, "w1", "w1:1", {{1, 0, 3, 30}, {9000, 1, 4, 40}},
                                             OneColumn(), false, true);
  ASSERT_EQ(spread->pieces().size(), 2u);
  EXPECT_EQ(spread->pieces()[1].ref.id, "q7/t9000.1/p5");
  EXPECT_EQ(spread->num_rows(), 7);
}

// Partition p as its worker stored it: 200 batches of 3 rows, valued p * 1,000,000 + row, and
// in partition 1 one batch of 70,000 rows after the first 100 (too large to wait for others).
// Partition 2's small batches arrive as slices of one large batch, as a Flight fetch cuts
// pieces sent together: only their own rows count towards what waits.
RecordBatch Rows(int p, int64_t* row, int64_t n) {
  std::vector<std::optional<int64_t>> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(p * 1000000 + (*row)++);
  return testing::Batch({{"v", testing::I64(v)}});
}
RecordBatch Together() {  // 320 KB of buffers, partition 2's first 600 rows in front
  int64_t row = 0;
  return Rows(2, &row, 40000);
}
std::vector<RecordBatch> Stored(int p) {
  std::vector<RecordBatch> out;
  int64_t row = 0;
  if (p == 2) {
    const RecordBatch together = Together();
    for (int64_t b = 0; b < 200; ++b)
      out.push_back(together.Slice(3 * b, 3));
    return out;
  }
  for (int b = 0; b < 200; ++b) {
    out.push_back(Rows(p, &row, 3));
    if (p == 1 && b == 99) out.push_back(Rows(p, &row, 70000));
  }
  return out;
}

// What a worker's task reads through a scan task sent to it with `coalesce`: each batch handed
// on, in order. Partition 2 comes as one batch of its 200 pieces' rows when the reader takes
// such batches whole, as Flight sends small partitions together.
std::vector<RecordBatch> ReadThroughWorker(const std::vector<PartitionPiece>& pieces,
                                           bool coalesce) {
  PartitionScanTask sent(pieces, OneColumn(), nullptr, false, coalesce);
  io::ScanTaskRegistry registry;
  RegisterPartitionScanTasks(&registry, [](const std::vector<PartitionRef>& refs, bool,
                                           const std::function<Status(int, RecordBatch)>& each,
                                           const PartitionRunFn& each_run) {
    for (size_t i = 0; i < refs.size(); ++i) {
      if (refs[i].index == 2 && each_run != nullptr) {
        std::vector<PartitionRows> parts(200, {static_cast<int>(i), 3});
        FLOTILLA_RETURN_NOT_OK(each_run(parts, Together().Slice(0, 600)));
        continue;
      }
      for (RecordBatch& b : Stored(refs[i].index))
        FLOTILLA_RETURN_NOT_OK(each(static_cast<int>(i), std::move(b)));
    }
    return Status::OK();
  });
  auto task = registry["partition"](sent.Serialize().ValueOrDie()).ValueOrDie();
  std::vector<RecordBatch> out;
  EXPECT_TRUE(task->ReadEach({},
                             [&](RecordBatch b) {
                               out.push_back(std::move(b));
                               return Status::OK();
                             })
                  .ok());
  return out;
}

std::vector<int64_t> Values(const std::vector<RecordBatch>& batches) {
  std::vector<int64_t> values;
  for (const RecordBatch& b : batches)
    for (int64_t r = 0; r < b.num_rows(); ++r)
      values.push_back(b.column(0).values<int64_t>()[r]);
  return values;
}

// The rows of `pieces`, read one stored batch at a time.
std::vector<int64_t> Expected(const std::vector<PartitionPiece>& pieces) {
  std::vector<int64_t> want;
  for (const PartitionPiece& piece : pieces) {
    const std::vector<int64_t> all = Values(Stored(piece.ref.index));
    const auto first = static_cast<size_t>(piece.offset);
    const size_t count = piece.length >= 0 ? static_cast<size_t>(piece.length) : all.size() - first;
    want.insert(want.end(), all.begin() + first, all.begin() + first + count);
  }
  return want;
}

// A reducer whose rows' order does not matter gets a shuffle's many small pieces concatenated
// into batches worth a morsel; a large batch passes as it is, and a piece's offset and length
// are kept. Without coalescing every stored batch is handed on alone.
TEST(PartitionScanTaskTest, SmallBatchesAreHandedOnTogetherWhenCoalescing) {
  const std::vector<PartitionPiece> pieces = {
      {Ref(1, 0, 0), 10, 500}, {Ref(2, 0, 1), 0, -1}, {Ref(3, 0, 2), 0, -1}};
  for (bool coalesce : {false, true}) {
    std::vector<RecordBatch> got = ReadThroughWorker(pieces, coalesce);
    EXPECT_EQ(Values(got), Expected(pieces)) << "coalesce " << coalesce;
    const bool large_alone = std::any_of(
        got.begin(), got.end(), [](const RecordBatch& b) { return b.num_rows() == 70000; });
    EXPECT_TRUE(large_alone) << "coalesce " << coalesce;
    if (coalesce) {
      // Before the large batch, 167 + 100 small ones (piece 0's 500 rows, piece 1's first
      // 100), handed on together; then the large one; then the other 700 rows together.
      EXPECT_EQ(got.size(), 3u);
    } else {
      EXPECT_EQ(got.size(), 167u + 201u + 200u);
    }
  }
}

// A batch carrying several whole pieces' rows is taken as it is (no cut, no copy); when a piece
// in it is wanted only in part, it is cut into the pieces it carries and each read as usual.
TEST(PartitionScanTaskTest, ABatchOfSeveralWholePiecesIsHandedOnUncut) {
  const std::vector<PartitionPiece> whole = {{Ref(3, 0, 2), 0, -1}};
  std::vector<RecordBatch> got = ReadThroughWorker(whole, true);
  EXPECT_EQ(Values(got), Expected(whole));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].TotalBufferSize(), Together().TotalBufferSize()) << "a slice of what came";
  const std::vector<PartitionPiece> part = {{Ref(3, 0, 2), 5, 400}};
  got = ReadThroughWorker(part, true);
  EXPECT_EQ(Values(got), Expected(part));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_LT(got[0].TotalBufferSize(), 10000) << "the rows wanted, concatenated";
}

}  // namespace
}  // namespace flotilla::distributed
