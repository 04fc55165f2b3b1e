#include "flotilla/distributed/flight/flight.h"

#include <gtest/gtest.h>

#include "tests/support/plan_checks.h"

namespace flotilla::distributed {
namespace {

using flotilla::testing::Batch;
using namespace flotilla::testing;

StoredPartition Sample() {
  RecordBatch a = Batch({{"k", I64({1, 2, std::nullopt})}, {"s", Strs({"x", std::nullopt, "zz"})}});
  RecordBatch b = Batch({{"k", I64({4})}, {"s", Strs({"w"})}});
  return {a.schema(), {a, b}};
}

std::unique_ptr<FlightServer> Serve(const std::string& token) {
  StoredPartition p = Sample();
  auto server =
      FlightServer::Start("127.0.0.1", 0, token,
                          [p](const std::string& ticket) -> Result<std::vector<StoredPartition>> {
                            if (ticket == "p0") return std::vector<StoredPartition>{p};
                            if (ticket == "p0,empty,p0")
                              return std::vector<StoredPartition>{p, {p.schema, {}}, p};
                            return Status::KeyError("no partition '" + ticket + "'");
                          });
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.MoveValueUnsafe();
}

TEST(FlightTest, DoGetStreamsThePartitionAsArrowIpc) {
  auto server = Serve("secret");
  Result<StoredPartition> got = FlightGet(server->address(), "secret", "p0");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  StoredPartition want = Sample();
  ASSERT_TRUE(got->schema->Equals(*want.schema));
  ASSERT_EQ(got->batches.size(), 2u);
  EXPECT_EQ(CanonicalJson(*got->schema, got->batches), CanonicalJson(*want.schema, want.batches));
  EXPECT_EQ(server->calls_served(), 1);
}

TEST(FlightTest, OneCallReadsSeveralPartitionsBackApart) {
  auto server = Serve("secret");
  auto got = FlightGetMany(server->address(), "secret", "p0,empty,p0", 3);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  StoredPartition want = Sample();
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ(CanonicalJson(*(*got)[0].schema, (*got)[0].batches),
            CanonicalJson(*want.schema, want.batches));
  EXPECT_TRUE((*got)[1].batches.empty());
  EXPECT_EQ(CanonicalJson(*(*got)[2].schema, (*got)[2].batches),
            CanonicalJson(*want.schema, want.batches));
  EXPECT_EQ(server->calls_served(), 1);
  // Asking for fewer partitions than the server labels is an error, not a silent merge.
  EXPECT_FALSE(FlightGetMany(server->address(), "secret", "p0,empty,p0", 2).ok());
}

TEST(FlightTest, CallsWithoutTheClusterTokenAreRefused) {
  auto server = Serve("secret");
  Result<StoredPartition> wrong = FlightGet(server->address(), "guess", "p0");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("token"), std::string::npos) << wrong.status().ToString();
  Result<StoredPartition> none = FlightGet(server->address(), "", "p0");
  ASSERT_FALSE(none.ok());
  // Prefixes and extensions of the token are wrong too (the comparison runs over the whole
  // expected token whatever the guess's length).
  for (const char* guess : {"secre", "secrets", "Secret"}) {
    EXPECT_FALSE(FlightGet(server->address(), guess, "p0").ok()) << guess;
  }
  EXPECT_EQ(server->calls_refused(), 5);
  EXPECT_TRUE(FlightGet(server->address(), "secret", "p0").ok());
  EXPECT_EQ(server->calls_served(), 1);
}

TEST(FlightTest, UnknownTicketsAndDeadServersAreErrors) {
  auto server = Serve("secret");
  Result<StoredPartition> missing = FlightGet(server->address(), "secret", "p9");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kKeyError);
  EXPECT_NE(missing.status().message().find("p9"), std::string::npos);
  const std::string address = server->address();
  server.reset();
  Result<StoredPartition> gone = FlightGet(address, "secret", "p0");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), StatusCode::kIOError) << gone.status().ToString();
}

TEST(FlightTest, AServerBackAtAnAddressThatFailedIsReachedAtOnce) {
  // A worker's port reused by another after it died: the client's channel to the address,
  // backing off from the failed connection, must not fail calls to the new server.
  auto first = Serve("secret");
  const std::string address = first->address();
  const int port = std::stoi(address.substr(address.rfind(':') + 1));
  ASSERT_TRUE(FlightGet(address, "secret", "p0").ok());
  first.reset();
  ASSERT_FALSE(FlightGet(address, "secret", "p0").ok());
  StoredPartition p = Sample();
  auto again = FlightServer::Start("127.0.0.1", port, "secret",
                                   [p](const std::string&) -> Result<std::vector<StoredPartition>> {
                                     return std::vector<StoredPartition>{p};
                                   });
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (int i = 0; i < 3; ++i) {
    Result<StoredPartition> got = FlightGet(address, "secret", "p0");
    ASSERT_TRUE(got.ok()) << got.status().ToString();
  }
}

TEST(FlightTest, AnEmptyTokenIsRefusedAtStart) {
  auto server = FlightServer::Start("127.0.0.1", 0, "", nullptr);
  EXPECT_FALSE(server.ok());
}

}  // namespace
}  // namespace flotilla::distributed
