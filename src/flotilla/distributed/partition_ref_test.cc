#include "flotilla/distributed/partition_ref.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace flotilla::distributed
