// Which adjacent shuffle partitions one reduce task reads (CoalescePartitions), worked out by
// hand from the partitions' sizes.
#include <gtest/gtest.h>

#include "flotilla/distributed/nodes/kinds.h"

namespace flotilla::distributed {
namespace {

TEST(CoalescePartitionsTest, AdjacentSmallPartitionsShareATaskUpToTheTarget) {
  // 10+10 fit 25, a third would not; 100 is over the target alone; 5+5 fit.
  EXPECT_EQ(CoalescePartitions({10, 10, 10, 10, 100, 5, 5}, 25, 1), (std::vector<int>{0, 2, 4, 5}));
  // A partition is never split, however large.
  EXPECT_EQ(CoalescePartitions({100, 100}, 25, 1), (std::vector<int>{0, 1}));
  // Everything fits: one task.
  EXPECT_EQ(CoalescePartitions({1, 2, 3, 4}, 1000, 1), (std::vector<int>{0}));
}

TEST(CoalescePartitionsTest, ATargetOfZeroKeepsOneTaskPerPartition) {
  EXPECT_EQ(CoalescePartitions({1, 2, 3}, 0, 1), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(CoalescePartitions({}, 1000, 4), (std::vector<int>{}));
}

TEST(CoalescePartitionsTest, EnoughTasksAreLeftForEveryWorker) {
  // 80 bytes over at least 4 tasks: groups of about 20, though 1,000 would fit them all.
  EXPECT_EQ(CoalescePartitions({10, 10, 10, 10, 10, 10, 10, 10}, 1000, 4),
            (std::vector<int>{0, 2, 4, 6}));
  // Fewer partitions than the minimum: one each.
  EXPECT_EQ(CoalescePartitions({10, 10}, 1000, 4), (std::vector<int>{0, 1}));
}

TEST(CoalescePartitionsTest, EmptyPartitionsJoinTheirNeighbours) {
  EXPECT_EQ(CoalescePartitions({0, 0, 0, 0}, 1000, 4), (std::vector<int>{0}));
  // Empty ones never start a task of their own once one is open.
  EXPECT_EQ(CoalescePartitions({0, 30, 0, 0, 30, 0}, 40, 1), (std::vector<int>{0, 4}));
}

}  // namespace
}  // namespace flotilla::distributed
