#include "flotilla/distributed/flight/flight.h"

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "flotilla/distributed/flight/flight.grpc.pb.h"
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

ServedPartition AsBatches(const StoredPartition& p) {
  return {p.schema, nullptr, p.batches};
}

// "p0": the sample as batches; "p0,empty,p0": three partitions; "enc": the sample and an empty
// partition kept encoded (zstd), served as stored; "enc,p0": one of each.
std::unique_ptr<FlightServer> Serve(const std::string& token) {
  StoredPartition p = Sample();
  ipc::WriteOptions zstd;
  zstd.compression = ipc::Compression::kZstd;
  auto encoded = ipc::WriteStreamToBuffer(p.schema, p.batches, zstd);
  auto encoded_empty = ipc::WriteStreamToBuffer(p.schema, {}, zstd);
  EXPECT_TRUE(encoded.ok() && encoded_empty.ok());
  ServedPartition stored{p.schema, *encoded, {}};
  ServedPartition stored_empty{p.schema, *encoded_empty, {}};
  auto server = FlightServer::Start(
      "127.0.0.1", 0, token,
      [=](const std::string& ticket) -> Result<std::vector<ServedPartition>> {
        if (ticket == "p0") return std::vector<ServedPartition>{AsBatches(p)};
        if (ticket == "p0,empty,p0")
          return std::vector<ServedPartition>{AsBatches(p), {p.schema, nullptr, {}}, AsBatches(p)};
        if (ticket == "enc") return std::vector<ServedPartition>{stored, stored_empty};
        if (ticket == "enc,p0") return std::vector<ServedPartition>{stored, AsBatches(p)};
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

TEST(FlightTest, EachBatchIsHandedOnAsItArrivesAndTheReadersErrorEndsTheCall) {
  auto server = Serve("secret");
  std::vector<std::pair<int, int64_t>> seen;  // (partition, rows) in arrival order
  SchemaPtr schema;
  Status s = FlightGetEach(
      server->address(), "secret", "p0,empty,p0", 3,
      [&](int i, RecordBatch b) {
        seen.emplace_back(i, b.num_rows());
        return Status::OK();
      },
      &schema);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, (std::vector<std::pair<int, int64_t>>{{0, 3}, {0, 1}, {2, 3}, {2, 1}}));
  ASSERT_NE(schema, nullptr);
  EXPECT_TRUE(schema->Equals(*Sample().schema));
  // A reader's own error stops the call and comes back as it is, not tried again even when it
  // looks like a network failure (a second call would have handed on the next batch).
  int handed = 0;
  s = FlightGetEach(server->address(), "secret", "p0,empty,p0", 3, [&](int, RecordBatch) {
    ++handed;
    return Status::IOError("the reader's disk is full");
  });
  EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
  EXPECT_EQ(s.message(), "the reader's disk is full");
  EXPECT_EQ(handed, 1);
}

TEST(FlightTest, PartitionsKeptEncodedAreSentAsStoredAndReadBack) {
  auto server = Serve("secret");
  StoredPartition want = Sample();
  auto got = FlightGetMany(server->address(), "secret", "enc", 2);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(CanonicalJson(*(*got)[0].schema, (*got)[0].batches),
            CanonicalJson(*want.schema, want.batches));
  EXPECT_TRUE((*got)[1].batches.empty());
  // Stored and encoded-on-the-fly partitions in one stream: one schema, both read back.
  auto mixed = FlightGetMany(server->address(), "secret", "enc,p0", 2);
  ASSERT_TRUE(mixed.ok()) << mixed.status().ToString();
  for (const StoredPartition& p : *mixed)
    EXPECT_EQ(CanonicalJson(*p.schema, p.batches), CanonicalJson(*want.schema, want.batches));
}

// The FlightData messages a plain gRPC DoGet of `ticket` receives: their app_metadata, for
// the record batches.
std::vector<std::string> BatchLabels(const std::string& address, const std::string& ticket) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = arrow::flight::protocol::FlightService::NewStub(channel);
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer secret");
  arrow::flight::protocol::Ticket request;
  request.set_ticket(ticket);
  auto call = stub->DoGet(&context, request);
  arrow::flight::protocol::FlightData data;
  std::vector<std::string> labels;
  while (call->Read(&data))
    if (!data.app_metadata().empty()) labels.push_back(data.app_metadata());
  EXPECT_TRUE(call->Finish().ok());
  return labels;
}

// A reducer of a shuffle of many map tasks reads a small piece from each: they travel
// together, a few messages for hundreds of pieces, and arrive cut as they were stored (the
// same batches whether read here or on the worker holding them). A partition over 64 KiB goes
// as it is.
TEST(FlightTest, SmallPartitionsTravelTogetherAndArriveAsStored) {
  constexpr int kSmall = 300;
  const StoredPartition sample = Sample();  // two batches: 3 rows and 1
  ipc::WriteOptions lz4;
  lz4.compression = ipc::Compression::kLz4Frame;
  const BufferPtr encoded =
      ipc::WriteStreamToBuffer(sample.schema, sample.batches, lz4).ValueOrDie();
  std::vector<std::optional<int64_t>> many;
  for (int64_t i = 0; i < 20000; ++i)
    many.push_back(i);
  std::vector<std::optional<std::string>> words(20000, std::string("w"));
  const RecordBatch big = Batch({{"k", I64(many)}, {"s", Strs(words)}});
  std::vector<ServedPartition> served;
  for (int i = 0; i < kSmall; ++i) {
    if (i == 7) served.push_back({sample.schema, nullptr, {}});  // an empty one
    if (i % 3 == 0) {
      served.push_back({sample.schema, encoded, {}, ipc::Compression::kLz4Frame});  // spilled
    } else {
      served.push_back({sample.schema, nullptr, sample.batches, ipc::Compression::kZstd});
    }
  }
  served.push_back({sample.schema, nullptr, {big}});
  const int count = static_cast<int>(served.size());
  auto server =
      FlightServer::Start(
          "127.0.0.1", 0, "secret",
          [&](const std::string&) -> Result<std::vector<ServedPartition>> { return served; })
          .ValueOrDie();
  std::vector<std::vector<RecordBatch>> got(static_cast<size_t>(count));
  ASSERT_TRUE(FlightGetEach(server->address(), "secret", "all", count, [&](int i, RecordBatch b) {
                got[static_cast<size_t>(i)].push_back(std::move(b));
                return Status::OK();
              }).ok());
  for (int i = 0; i < count; ++i) {
    const auto& want = served[static_cast<size_t>(i)];
    const std::vector<RecordBatch>& batches = want.ipc != nullptr ? sample.batches : want.batches;
    ASSERT_EQ(got[static_cast<size_t>(i)].size(), batches.size()) << "partition " << i;
    for (size_t b = 0; b < batches.size(); ++b)
      EXPECT_EQ(got[static_cast<size_t>(i)][b].num_rows(), batches[b].num_rows());
    EXPECT_EQ(CanonicalJson(*sample.schema, got[static_cast<size_t>(i)]),
              CanonicalJson(*sample.schema, batches))
        << "partition " << i;
  }
  const std::vector<std::string> labels = BatchLabels(server->address(), "all");
  ASSERT_EQ(labels.size(), 2u) << "the small partitions in one batch, the big one apart";
  EXPECT_EQ(labels[0].substr(0, 12), "0:3,0:1,1:3,");
  EXPECT_EQ(labels[1], std::to_string(count - 1));
  // Taken whole: the small partitions' batches in one batch, the parts saying whose rows are
  // where; the big one as it is, to `each`.
  std::vector<std::vector<PartitionRows>> runs;
  std::vector<int> singles;
  int64_t run_rows = 0;
  ASSERT_TRUE(FlightGetEach(
                  server->address(), "secret", "all", count,
                  [&](int i, RecordBatch) {
                    singles.push_back(i);
                    return Status::OK();
                  },
                  nullptr,
                  [&](const std::vector<PartitionRows>& parts, RecordBatch b) {
                    runs.push_back(parts);
                    run_rows += b.num_rows();
                    return Status::OK();
                  })
                  .ok());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(singles, std::vector<int>{count - 1});
  int64_t labelled = 0;
  for (const PartitionRows& p : runs[0])
    labelled += p.rows;
  EXPECT_EQ(labelled, run_rows);
  EXPECT_EQ(run_rows, 4 * kSmall) << "every small partition's 4 rows";
  EXPECT_EQ(runs[0][0].index, 0);
  EXPECT_EQ(runs[0][0].rows, 3);
}

// A TCP proxy to a server. On its first connection it passes `hold_after` bytes from the
// server, then nothing more until told to Cut, and then resets the connection: a connection
// lost mid-stream, as a network blip makes it, at a point the test chooses.
class CuttingProxy {
 public:
  CuttingProxy(int target_port, int64_t hold_after)
      : target_port_(target_port), hold_after_(hold_after) {
    listen_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::bind(listen_, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(::listen(listen_, 8), 0);
    ::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    accepting_ = std::thread([this] { Accept(); });
  }
  ~CuttingProxy() {
    stop_ = true;
    accepting_.join();
    for (std::thread& t : pumps_)
      t.join();
    ::close(listen_);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_.load(); }
  void Cut() { cut_ = true; }

 private:
  void Accept() {
    while (!stop_) {
      pollfd p{listen_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int client = ::accept(listen_, nullptr, nullptr);
      if (client < 0) continue;
      const int server = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<uint16_t>(target_port_));
      if (::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(client);
        ::close(server);
        continue;
      }
      const bool first = connections_.fetch_add(1) == 0;
      pumps_.emplace_back([this, client, server, first] { Pump(client, server, first); });
    }
  }
  // Copies both ways until either side closes, or (the first connection) the cut.
  void Pump(int client, int server, bool first) {
    int64_t from_server = 0;
    char buffer[1 << 16];
    while (!stop_) {
      if (first && cut_) {
        linger reset{1, 0};  // close with RST, as a dropped connection looks
        ::setsockopt(client, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        break;
      }
      const bool holding = first && from_server >= hold_after_;
      pollfd fds[2] = {{client, POLLIN, 0}, {server, static_cast<short>(holding ? 0 : POLLIN), 0}};
      if (::poll(fds, 2, 20) <= 0) continue;
      bool closed = false;
      for (int i = 0; i < 2 && !closed; ++i) {
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        size_t want = sizeof buffer;
        if (first && i == 1) want = std::min<size_t>(want, hold_after_ - from_server);
        const ssize_t n = ::read(fds[i].fd, buffer, want);
        if (n <= 0) {
          closed = true;
          break;
        }
        if (i == 1) from_server += n;
        for (ssize_t done = 0; done < n;) {
          const ssize_t w = ::write(fds[1 - i].fd, buffer + done, static_cast<size_t>(n - done));
          if (w <= 0) {
            closed = true;
            break;
          }
          done += w;
        }
      }
      if (closed) break;
    }
    ::close(client);
    ::close(server);
  }

  int target_port_;
  int64_t hold_after_;
  int listen_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::atomic<bool> cut_{false};  // (read by the first connection's pump)
  std::thread accepting_;
  std::vector<std::thread> pumps_;  // (only the accepting thread adds to it)
};

// A connection reset halfway through a stream of small partitions travelling together: the
// fetch is tried again, and hands out only what the first call did not, once each and in order,
// whole batches still whole (each_run) where none of their rows went out before.
TEST(FlightTest, AFetchCutMidStreamIsTriedAgainAndHandsOutEachRowOnce) {
  constexpr int kPartitions = 1000;
  constexpr int64_t kRows = 1000;  // 8 KB of int64 each: small, so they travel in runs
  std::vector<ServedPartition> served;
  for (int i = 0; i < kPartitions; ++i) {
    std::vector<std::optional<int64_t>> v;
    for (int64_t j = 0; j < kRows; ++j)
      v.push_back(i * kRows + j);
    RecordBatch b = Batch({{"v", I64(v)}});
    served.push_back({b.schema(), nullptr, {b}});
  }
  auto server =
      FlightServer::Start(
          "127.0.0.1", 0, "secret",
          [&](const std::string&) -> Result<std::vector<ServedPartition>> { return served; })
          .ValueOrDie();
  const std::string address = server->address();
  CuttingProxy proxy(std::stoi(address.substr(address.rfind(':') + 1)), /*hold_after=*/3 << 20);
  std::vector<std::vector<int64_t>> got(kPartitions);
  auto take = [&](int i, const RecordBatch& b) {
    for (int64_t r = 0; r < b.num_rows(); ++r)
      got[static_cast<size_t>(i)].push_back(b.column(0).values<int64_t>()[r]);
  };
  // Runs taken whole on the first connection and on the second (the retry).
  int runs_before_cut = 0, runs_after = 0, singles = 0;
  Status fetched = FlightGetEach(
      proxy.address(), "secret", "all", kPartitions,
      [&](int i, RecordBatch b) {
        ++singles;
        take(i, b);
        return Status::OK();
      },
      nullptr,
      [&](const std::vector<PartitionRows>& parts, RecordBatch b) {
        // The first run handed out: the connection is cut (the proxy holds back the rest).
        if (proxy.connections() == 1 && ++runs_before_cut == 1) proxy.Cut();
        if (proxy.connections() == 2) ++runs_after;
        int64_t offset = 0;
        for (const PartitionRows& p : parts) {
          take(p.index, b.Slice(offset, p.rows));
          offset += p.rows;
        }
        return Status::OK();
      });
  ASSERT_TRUE(fetched.ok()) << fetched.ToString();
  EXPECT_EQ(proxy.connections(), 2) << "the fetch was tried again on a new connection";
  for (int i = 0; i < kPartitions; ++i) {
    std::vector<int64_t> want;
    for (int64_t j = 0; j < kRows; ++j)
      want.push_back(i * kRows + j);
    ASSERT_EQ(got[static_cast<size_t>(i)], want) << "partition " << i;
  }
  EXPECT_GT(runs_before_cut, 0) << "runs went out whole before the cut";
  EXPECT_GT(runs_after, 0) << "and after it, on the retry";
  EXPECT_EQ(singles, 0) << "the retry skipped whole runs it had handed out, cutting none";
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
  // Nothing listens there any more: refused twice, the fetch gives up without the whole
  // backoff (50 + 200 + 800 ms), which only delays the recovery.
  const auto start = std::chrono::steady_clock::now();
  Result<StoredPartition> gone = FlightGet(address, "secret", "p0");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), StatusCode::kIOError) << gone.status().ToString();
  EXPECT_NE(gone.status().message().find("after 2 attempts"), std::string::npos)
      << gone.status().ToString();
  EXPECT_LT(seconds, 0.9) << "refused: not the whole backoff";
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
                                   [p](const std::string&) -> Result<std::vector<ServedPartition>> {
                                     return std::vector<ServedPartition>{AsBatches(p)};
                                   });
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (int i = 0; i < 3; ++i) {
    Result<StoredPartition> got = FlightGet(address, "secret", "p0");
    ASSERT_TRUE(got.ok()) << got.status().ToString();
  }
}

// Whether process `pid` is stopped: state 'T' in /proc/PID/stat (after "(name) ").
bool Stopped(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (f == nullptr) return false;
  char line[512] = {0};
  const bool read = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  const char* end = read ? std::strrchr(line, ')') : nullptr;
  return end != nullptr && end[1] == ' ' && end[2] == 'T';
}

// A worker that stops answering (frozen, or cut off) while a fetch streams from it: the fetch
// fails as a lost worker within the keepalive's bound instead of waiting forever. The server is
// flight_serve_tool (built next to this test) in its own process, stopped with SIGSTOP.
TEST(FlightTest, AFrozenServerFailsTheFetchInsteadOfHangingIt) {
  const auto tool = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() /
                    "flight_serve_tool";
  const auto beside =
      std::filesystem::read_symlink("/proc/self/exe").parent_path() / "flight_serve_tool";
  const std::string path = std::filesystem::exists(beside) ? beside.string() : tool.string();
  ASSERT_TRUE(std::filesystem::exists(path)) << "build flight_serve_tool first: " << path;
  int to_child[2], from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  posix_spawn_file_actions_addclose(&actions, to_child[1]);
  posix_spawn_file_actions_addclose(&actions, from_child[0]);
  std::string rows = "1000";
  char* argv[] = {const_cast<char*>(path.c_str()),
                  rows.data(),
                  const_cast<char*>("1"),
                  const_cast<char*>("none"),
                  const_cast<char*>("frozen-token"),
                  nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  std::string line;
  char c;
  while (::read(from_child[0], &c, 1) == 1 && c != '\n')
    line += c;
  const size_t at = line.find("\"address\":\"");
  ASSERT_NE(at, std::string::npos) << line;
  const std::string address = line.substr(at + 11, line.find('"', at + 11) - at - 11);
  // Connected first: the frozen call goes out on a live connection, which only pings can
  // find dead (a new connection would fail its handshake at once).
  ASSERT_TRUE(FlightGet(address, "frozen-token", "q0/t0.0/p0").ok());
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  // A signal takes effect when the process next runs: wait until it is stopped ('T').
  for (int i = 0; i < 500 && !Stopped(pid); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(Stopped(pid));
  const auto start = std::chrono::steady_clock::now();
  Result<StoredPartition> got = FlightGet(address, "frozen-token", "q0/t0.0/p0");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::close(to_child[1]);
  ::close(from_child[0]);
  ASSERT_FALSE(got.ok()) << "a frozen server cannot have served " << address;
  EXPECT_EQ(got.status().code(), StatusCode::kIOError) << got.status().ToString();
  EXPECT_LT(seconds, 60.0);
  std::printf("a frozen server's fetch failed after %.1f s: %s\n", seconds,
              got.status().ToString().c_str());
}

TEST(FlightTest, ActionsRunWithTheTokenAndUnknownOnesAreNamed) {
  auto server = FlightServer::Start(
      "127.0.0.1", 0, "secret", [](const std::string&) { return Status::KeyError("none"); },
      nullptr,
      [](const std::string& type, const std::string& body) -> Result<std::string> {
        if (type == "echo") return "echo:" + body;
        if (type == "fail") return Status::Invalid("it failed: " + body);
        return Status::KeyError("no action '" + type + "'");
      });
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  const std::string address = (*server)->address();
  Result<std::string> echoed = FlightAction(address, "secret", "echo", std::string("a\0b", 3));
  ASSERT_TRUE(echoed.ok()) << echoed.status().ToString();
  EXPECT_EQ(*echoed, std::string("echo:a\0b", 8));
  Result<std::string> unknown = FlightAction(address, "secret", "nope", "");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kKeyError);
  EXPECT_NE(unknown.status().message().find("no action 'nope'"), std::string::npos);
  Result<std::string> failed = FlightAction(address, "secret", "fail", "x");
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("it failed: x"), std::string::npos);
  Result<std::string> refused = FlightAction(address, "wrong", "echo", "x");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("does not carry this cluster's token"),
            std::string::npos)
      << refused.status().ToString();
  // A server without actions says so.
  auto plain = Serve("secret");
  Result<std::string> none = FlightAction(plain->address(), "secret", "echo", "x");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kKeyError);
}

TEST(FlightTest, AnEmptyTokenIsRefusedAtStart) {
  auto server = FlightServer::Start("127.0.0.1", 0, "", nullptr);
  EXPECT_FALSE(server.ok());
}

}  // namespace
}  // namespace flotilla::distributed
