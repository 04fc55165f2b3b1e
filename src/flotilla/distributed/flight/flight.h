#pragma once
// The data plane: an Arrow Flight server on every worker and the client that pulls partitions
// from it. DoGet(ticket) streams the partitions the ticket names as one Arrow IPC stream (one
// FlightData per message: flatbuffer metadata in data_header, the body in data_body), which is
// what any Flight client expects; each record batch's app_metadata is the index of the partition
// it belongs to, so a ticket naming several partitions is read back as several. A partition
// read from disk is sent as the messages it is stored as (no decoding, no re-encoding). The
// client decodes messages as they arrive, so a fetch holds one message beyond the batches read.
// ListFlights(prefix) lists stored partitions. DoAction(type, body) runs one of the server's
// actions and returns its one result (a worker runs tasks so: the control plane's fast path).
// Every call must carry the cluster's token as gRPC
// metadata "authorization: Bearer <token>"; calls without it, or with another, are refused
// (UNAUTHENTICATED) before anything is read. gRPC headers stay inside flight.cc.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "flotilla/common/result.h"
#include "flotilla/distributed/partition_store.h"

namespace flotilla::distributed {

class FlightServer {
 public:
  /// What a ticket names (one or more partitions of one schema); an error is sent to the caller
  /// as NOT_FOUND with its message.
  using Lookup = std::function<Result<std::vector<ServedPartition>>(const std::string& ticket)>;
  /// The partitions whose ticket starts with a prefix (ListFlights).
  using List = std::function<std::vector<ListedPartition>(const std::string& prefix)>;
  /// Runs an action (DoAction): its result's bytes, or an error sent to the caller (NOT_FOUND
  /// for an unknown type, INVALID_ARGUMENT otherwise).
  using Act = std::function<Result<std::string>(const std::string& type, const std::string& body)>;

  /// Listens on `host`:`port` (0: any free port) and serves `lookup`'s partitions to callers
  /// presenting `token` (which must not be empty). Without `list`, ListFlights lists nothing;
  /// without `act`, DoAction knows no action.
  static Result<std::unique_ptr<FlightServer>> Start(const std::string& host, int port,
                                                     std::string token, Lookup lookup,
                                                     List list = nullptr, Act act = nullptr);
  /// Stops accepting calls and waits for the running ones.
  ~FlightServer();

  /// "host:port", what clients dial.
  const std::string& address() const;
  int64_t calls_served() const;
  int64_t calls_refused() const;
  /// Bytes of FlightData (metadata and bodies) sent so far.
  int64_t bytes_served() const;

 private:
  struct Impl;
  explicit FlightServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// DoGet on the server at `address`: the partition `ticket` names. IOError naming the address
/// when the server cannot be reached or the stream breaks (the caller may retry elsewhere);
/// the server's own message otherwise (unknown ticket, refused token).
Result<StoredPartition> FlightGet(const std::string& address, const std::string& token,
                                  const std::string& ticket);
/// DoAction on the server at `address`: the action's result. IOError naming the address when
/// the server cannot be reached or the call breaks (tried again only while nothing listens:
/// the action never started); the server's own message otherwise.
Result<std::string> FlightAction(const std::string& address, const std::string& token,
                                 const std::string& type, const std::string& body);
/// `rows` rows of partition `index`, within a batch that carries several partitions' rows in
/// turn (small partitions travel together).
struct PartitionRows {
  int index;
  int64_t rows;
};
/// Takes such a batch whole: `parts` say whose rows it has, in order.
using PartitionRunFn = std::function<Status(const std::vector<PartitionRows>& parts, RecordBatch)>;

/// DoGet of a ticket naming `count` partitions: `each(i, batch)` for every batch of partition i
/// as it is decoded (a partition's batches in order), and the stream's schema to `schema`
/// (when not null). Network failures are tried again with backoff as FlightGetMany's; a call
/// tried again hands out only the batches past those handed out before. An error from `each`
/// ends the fetch and is returned as it is, not tried again. With `each_run`, a batch carrying
/// several partitions' rows goes to it whole (none of its rows handed out before), instead of
/// to `each` cut into the batches it carries.
Status FlightGetEach(const std::string& address, const std::string& token,
                     const std::string& ticket, int count,
                     const std::function<Status(int, RecordBatch)>& each,
                     SchemaPtr* schema = nullptr, const PartitionRunFn& each_run = nullptr);
/// DoGet of a ticket naming `count` partitions: each one's batches.
Result<std::vector<StoredPartition>> FlightGetMany(const std::string& address,
                                                   const std::string& token,
                                                   const std::string& ticket, int count);

}  // namespace flotilla::distributed
