#include "flotilla/distributed/flight/flight.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "flotilla/compute/concat.h"
#include "flotilla/distributed/flight/flight.grpc.pb.h"
#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/ipc/message.h"
#include "flotilla/io/ipc/metadata.h"
#include "flotilla/io/stream.h"

namespace flotilla::distributed {
namespace {

namespace fl = arrow::flight::protocol;

constexpr char kAuthHeader[] = "authorization";
constexpr int kKeepAliveMs = 10000;
constexpr int kKeepAliveTimeoutMs = 5000;
// Fetches that fail for the network's sake (refused, reset, timed out) are tried this many
// times, waiting kRetryBackoffMs, then 4x as long, ... between: a blip costs milliseconds, and
// only a worker that stays unreachable (about a second) is reported lost.
constexpr int kFetchAttempts = 4;
constexpr int kRetryBackoffMs = 50;

std::string BearerOf(const std::string& token) {
  return "Bearer " + token;
}

// Whether `given` equals `expected`, in time that depends only on their lengths (the expected
// length is no secret: tokens have one), so timing says nothing about how much of a guess was
// right.
bool SameSecret(std::string_view given, std::string_view expected) {
  unsigned char difference = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    difference |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  }
  return difference == 0;
}

// Partitions under this size are sent together, up to kRunBytes in one batch: a message costs
// gRPC and both ends about as much as tens of kilobytes of rows do, and a shuffle of M map tasks
// into N partitions has M x N pieces, a few rows each when both are large.
constexpr int64_t kSmallPartitionBytes = 64 << 10;
constexpr int64_t kRunBytes = 1 << 20;

// The partitions as IPC messages, the schema sent once: what DoGet sends, each record batch with
// its label (app_metadata). A partition read from disk is cut into the messages it is stored as,
// one kept as batches is encoded here; each of their batches is labelled with the partition's
// index in the ticket. Consecutive small partitions (two or more) are sent as one batch, their
// batches' rows one after another, labelled "index:rows,index:rows,..." (an item per batch of
// theirs, so a reader cuts the batches back as they were: batch boundaries are the same
// whichever way a partition is read, and a task run again sees the input the first attempt
// saw).
Status ForEachMessage(const std::vector<ServedPartition>& partitions,
                      const std::function<bool(const ipc::Message&, const std::string&)>& send) {
  bool schema_sent = false;
  auto send_stream = [&](const BufferPtr& stream, const std::string& label) -> Status {
    io::BufferReader reader(stream);
    for (int64_t i = 0;; ++i) {
      FLOTILLA_ASSIGN_OR_RETURN(std::optional<ipc::Message> message, ipc::ReadMessage(&reader, i));
      if (!message) return Status::OK();
      if (message->message->header_type() == ipc::fb::MessageHeader::Schema) {
        if (schema_sent) continue;
        schema_sent = true;
      }
      if (!send(*message, label)) return Status::IOError("the client went away");
    }
  };
  auto encode = [&](const std::vector<RecordBatch>& batches, ipc::Compression compression) {
    ipc::WriteOptions options;
    options.compression = compression;
    options.min_compress_bytes = kMinCompressBytes;
    return ipc::WriteStreamToBuffer(partitions[0].schema, batches, options);
  };
  // A partition alone goes as it is.
  auto send_partition = [&](size_t p) -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr stream, partitions[p].Stream());
    if (stream == nullptr) {
      FLOTILLA_ASSIGN_OR_RETURN(stream, encode(partitions[p].batches, partitions[p].compression));
    }
    return send_stream(stream, std::to_string(p));
  };
  std::vector<RecordBatch> run;
  std::vector<size_t> run_partitions;
  std::string run_label;
  int64_t run_bytes = 0;
  auto flush = [&]() -> Status {
    if (run_partitions.size() == 1) {
      FLOTILLA_RETURN_NOT_OK(send_partition(run_partitions[0]));
    } else if (!run.empty()) {
      FLOTILLA_ASSIGN_OR_RETURN(RecordBatch together, compute::ConcatBatches(run));
      FLOTILLA_ASSIGN_OR_RETURN(BufferPtr stream,
                                encode({together}, partitions[run_partitions[0]].compression));
      FLOTILLA_RETURN_NOT_OK(send_stream(stream, run_label));
    }
    run.clear();
    run_partitions.clear();
    run_label.clear();
    run_bytes = 0;
    return Status::OK();
  };
  for (size_t p = 0; p < partitions.size(); ++p) {
    const ServedPartition& part = partitions[p];
    const int64_t size = part.Bytes();
    if (size < kSmallPartitionBytes) {
      FLOTILLA_ASSIGN_OR_RETURN(BufferPtr stream, part.Stream());
      std::vector<RecordBatch> decoded;
      if (stream != nullptr) {
        FLOTILLA_ASSIGN_OR_RETURN(decoded, DecodePartition(stream));
      }
      const std::vector<RecordBatch>& batches = stream != nullptr ? decoded : part.batches;
      const size_t before = run.size();
      for (const RecordBatch& b : batches) {
        if (b.num_rows() == 0) continue;
        run_label +=
            (run.empty() ? "" : ",") + std::to_string(p) + ":" + std::to_string(b.num_rows());
        run.push_back(b);
      }
      if (run.size() > before) run_partitions.push_back(p);
      run_bytes += size;
      if (run_bytes >= kRunBytes) FLOTILLA_RETURN_NOT_OK(flush());
      continue;
    }
    FLOTILLA_RETURN_NOT_OK(flush());
    FLOTILLA_RETURN_NOT_OK(send_partition(p));
  }
  FLOTILLA_RETURN_NOT_OK(flush());
  if (!schema_sent) {  // every partition empty: the stream still says what it would hold
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr stream, encode({}, ipc::Compression::kNone));
    FLOTILLA_RETURN_NOT_OK(send_stream(stream, ""));
  }
  return Status::OK();
}

// The schema as an encapsulated IPC message (continuation, length, flatbuffer, padding), as
// FlightInfo.schema carries it: a stream of no batches without its end marker.
Result<std::string> EncapsulatedSchema(const SchemaPtr& schema) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr stream, ipc::WriteStreamToBuffer(schema, {}));
  std::string_view bytes = stream->view();
  return std::string(bytes.substr(0, bytes.size() - 8));
}

class Service final : public fl::FlightService::Service {
 public:
  Service(std::string token, FlightServer::Lookup lookup, FlightServer::List list,
          FlightServer::Act act, std::shared_ptr<const std::string> location)
      : bearer_(BearerOf(token)),
        lookup_(std::move(lookup)),
        list_(std::move(list)),
        act_(std::move(act)),
        location_(std::move(location)) {}

  grpc::Status DoAction(grpc::ServerContext* context, const fl::Action* action,
                        grpc::ServerWriter<fl::Result>* writer) override {
    if (!Authorized(context)) return Refused();
    if (act_ == nullptr) return {grpc::StatusCode::NOT_FOUND, "this server has no actions"};
    Result<std::string> done = act_(action->type(), action->body());
    if (!done.ok()) {
      return {done.status().code() == StatusCode::kKeyError ? grpc::StatusCode::NOT_FOUND
                                                            : grpc::StatusCode::INVALID_ARGUMENT,
              done.status().message()};
    }
    fl::Result result;
    result.set_body(done.MoveValueUnsafe());
    writer->Write(result);
    return grpc::Status::OK;
  }

  grpc::Status ListFlights(grpc::ServerContext* context, const fl::Criteria* criteria,
                           grpc::ServerWriter<fl::FlightInfo>* writer) override {
    if (!Authorized(context)) return Refused();
    if (list_ == nullptr) return grpc::Status::OK;
    for (const ListedPartition& p : list_(criteria->expression())) {
      fl::FlightInfo info;
      Result<std::string> schema = EncapsulatedSchema(p.schema);
      if (!schema.ok()) return {grpc::StatusCode::INTERNAL, schema.status().message()};
      info.set_schema(schema.MoveValueUnsafe());
      info.mutable_flight_descriptor()->set_type(fl::FlightDescriptor::PATH);
      info.mutable_flight_descriptor()->add_path(p.id);
      fl::FlightEndpoint* endpoint = info.add_endpoint();
      endpoint->mutable_ticket()->set_ticket(p.id);
      endpoint->add_location()->set_uri(*location_);
      info.set_total_records(p.rows);
      info.set_total_bytes(p.bytes);
      if (!writer->Write(info)) break;
    }
    return grpc::Status::OK;
  }

  grpc::Status DoGet(grpc::ServerContext* context, const fl::Ticket* ticket,
                     grpc::ServerWriter<fl::FlightData>* writer) override {
    if (!Authorized(context)) return Refused();
    Result<std::vector<ServedPartition>> partitions = lookup_(ticket->ticket());
    if (!partitions.ok()) return {grpc::StatusCode::NOT_FOUND, partitions.status().message()};
    if (partitions->empty()) return {grpc::StatusCode::NOT_FOUND, "the ticket names nothing"};
    Status s = ForEachMessage(*partitions, [&](const ipc::Message& m, const std::string& label) {
      fl::FlightData data;
      data.set_data_header(m.metadata->data(), m.metadata->size());
      if (m.body != nullptr) data.set_data_body(m.body->data(), m.body->size());
      bytes_.fetch_add(m.metadata->size() + (m.body != nullptr ? m.body->size() : 0),
                       std::memory_order_relaxed);
      if (m.message->header_type() == ipc::fb::MessageHeader::RecordBatch) {
        data.set_app_metadata(label);
      }
      return writer->Write(data);
    });
    if (!s.ok()) return {grpc::StatusCode::INTERNAL, s.message()};
    served_.fetch_add(1);
    return grpc::Status::OK;
  }

  std::atomic<int64_t> served_{0};
  std::atomic<int64_t> refused_{0};
  std::atomic<int64_t> bytes_{0};

 private:
  bool Authorized(grpc::ServerContext* context) {
    auto auth = context->client_metadata().find(kAuthHeader);
    if (auth != context->client_metadata().end() &&
        SameSecret(std::string_view(auth->second.data(), auth->second.size()), bearer_)) {
      return true;
    }
    refused_.fetch_add(1);
    return false;
  }
  static grpc::Status Refused() {
    return {grpc::StatusCode::UNAUTHENTICATED,
            "flight: the call does not carry this cluster's token"};
  }

  std::string bearer_;
  FlightServer::Lookup lookup_;
  FlightServer::List list_;
  FlightServer::Act act_;
  std::shared_ptr<const std::string> location_;  // grpc+tcp://host:port, once bound
};

// Channels are reused across calls: opening one per partition would pay a TCP handshake each.
std::mutex channels_mutex;
std::map<std::string, std::shared_ptr<grpc::Channel>> channels;

std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address) {
  std::lock_guard lock(channels_mutex);
  auto& channel = channels[address];
  if (channel == nullptr) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    // A peer that refuses connections is a dead worker: learn it in milliseconds, not after
    // gRPC's default one-second backoff.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 50);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    // A peer that stops answering (a frozen or partitioned worker) while a fetch waits on it:
    // HTTP/2 pings during calls notice in kKeepAliveMs + kKeepAliveTimeoutMs, and the call fails
    // as UNAVAILABLE instead of waiting forever.
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepAliveMs);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepAliveTimeoutMs);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  }
  return channel;
}

// A channel whose connection failed backs off before it tries again, failing calls meanwhile,
// even when a server listens at the address again (restarted, or another on a reused port).
void ForgetChannel(const std::string& address, const std::shared_ptr<grpc::Channel>& channel) {
  std::lock_guard lock(channels_mutex);
  auto it = channels.find(address);
  if (it != channels.end() && it->second == channel) channels.erase(it);
}

void AppendLe32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

struct FlightServer::Impl {
  std::unique_ptr<Service> service;
  std::unique_ptr<grpc::Server> server;
  std::string address;
};

FlightServer::FlightServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FlightServer::~FlightServer() {
  // Calls still open after a moment are cancelled: without a deadline gRPC waits for every call
  // to end, and a reader that never finishes its stream (a client gone without closing it) would
  // hold the worker's exit for seconds.
  if (impl_ && impl_->server) {
    impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  }
}

Result<std::unique_ptr<FlightServer>> FlightServer::Start(const std::string& host, int port,
                                                          std::string token, Lookup lookup,
                                                          List list, Act act) {
  if (token.empty()) return Status::Invalid("flight server: the cluster token must not be empty");
  auto impl = std::make_unique<Impl>();
  // The service is registered before the port is known; it reads its location when called.
  auto location = std::make_shared<std::string>();
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort(host + ":" + std::to_string(port), grpc::InsecureServerCredentials(),
                           &bound);
  builder.SetMaxSendMessageSize(-1);
  // A task's message carries its in-memory input (a DataFrame built from Python data), of any
  // size: gRPC's 4 MiB default would refuse it.
  builder.SetMaxReceiveMessageSize(-1);
  // One server per port: with SO_REUSEPORT (gRPC's default) a second process may bind a port a
  // worker holds, and calls meant for one reach the other.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Accept the clients' keepalive pings (by default a server answers pings more often than every
  // five minutes with GOAWAY).
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             kKeepAliveMs / 2);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  impl->service = std::make_unique<Service>(std::move(token), std::move(lookup), std::move(list),
                                            std::move(act), location);
  builder.RegisterService(impl->service.get());
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || bound == 0) {
    return Status::IOError("flight server: cannot listen on " + host + ":" + std::to_string(port));
  }
  impl->address = host + ":" + std::to_string(bound);
  *location = "grpc+tcp://" + impl->address;
  return std::unique_ptr<FlightServer>(new FlightServer(std::move(impl)));
}

const std::string& FlightServer::address() const {
  return impl_->address;
}
int64_t FlightServer::calls_served() const {
  return impl_->service->served_.load();
}
int64_t FlightServer::calls_refused() const {
  return impl_->service->refused_.load();
}
int64_t FlightServer::bytes_served() const {
  return impl_->service->bytes_.load();
}

Result<StoredPartition> FlightGet(const std::string& address, const std::string& token,
                                  const std::string& ticket) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<StoredPartition> parts,
                            FlightGetMany(address, token, ticket, 1));
  return std::move(parts[0]);
}

namespace {

// The FlightData of a DoGet as the bytes of an IPC stream (each message framed again:
// continuation, length, metadata padded to 8 bytes, body), pulled from the call as the IPC reader
// asks for them, so a fetch holds one message at a time; bodies are handed on without a copy.
class FlightDataStream final : public io::InputStream {
 public:
  explicit FlightDataStream(grpc::ClientReader<fl::FlightData>* call) : call_(call) {}

  Result<BufferPtr> Read(int64_t size) override {
    while (available() < size && Pull()) {
    }
    if (segments_.empty() || size == 0) return Buffer::Allocate(0);
    BufferPtr& front = segments_.front();
    if (front->size() - offset_ >= size) {  // within one segment: a view
      BufferPtr out = Buffer::SliceOf(front, offset_, size);
      Advance(size);
      return out;
    }
    const int64_t n = std::min(size, available());
    FLOTILLA_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(n));
    for (int64_t done = 0; done < n;) {
      const int64_t take = std::min(n - done, segments_.front()->size() - offset_);
      std::memcpy(out->mutable_data() + done, segments_.front()->data() + offset_, take);
      Advance(take);
      done += take;
    }
    return out;
  }
  int64_t Tell() const override { return position_; }
  /// The app_metadata of the last message pulled (a record batch's partition index).
  const std::string& app_metadata() const { return app_metadata_; }
  /// Whether the call has no more messages.
  bool ended() const { return ended_; }

 private:
  int64_t available() const {
    int64_t n = -offset_;
    for (const BufferPtr& b : segments_)
      n += b->size();
    return n;
  }
  void Advance(int64_t n) {
    offset_ += n;
    position_ += n;
    if (offset_ == segments_.front()->size()) {
      segments_.pop_front();
      offset_ = 0;
    }
  }
  bool Pull() {
    fl::FlightData data;
    if (ended_ || !call_->Read(&data)) {
      ended_ = true;
      return false;
    }
    app_metadata_ = data.app_metadata();
    const std::string& header = data.data_header();
    const size_t padded = (header.size() + 7) & ~size_t{7};
    auto frame = std::make_shared<std::string>();
    frame->reserve(8 + padded);
    AppendLe32(frame.get(), 0xFFFFFFFFu);
    AppendLe32(frame.get(), static_cast<uint32_t>(padded));
    *frame += header;
    frame->append(padded - header.size(), '\0');
    Push(std::move(frame));
    if (!data.data_body().empty())
      Push(std::make_shared<std::string>(std::move(*data.mutable_data_body())));
    return true;
  }
  void Push(std::shared_ptr<std::string> bytes) {
    const auto* data = reinterpret_cast<const uint8_t*>(bytes->data());
    const auto size = static_cast<int64_t>(bytes->size());
    segments_.push_back(Buffer::Wrap(data, size, std::move(bytes)));
  }

  grpc::ClientReader<fl::FlightData>* call_;
  std::deque<BufferPtr> segments_;
  int64_t offset_ = 0;  // into segments_.front()
  int64_t position_ = 0;
  std::string app_metadata_;
  bool ended_ = false;
};

// Lends a stream to a reader that wants to own one.
class Borrowed final : public io::InputStream {
 public:
  explicit Borrowed(io::InputStream* source) : source_(source) {}
  Result<BufferPtr> Read(int64_t size) override { return source_->Read(size); }
  int64_t Tell() const override { return source_->Tell(); }

 private:
  io::InputStream* source_;
};

Status FromGrpc(const grpc::Status& status, const std::string& what) {
  const std::string message = what + ": " + status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::CANCELLED:
      return Status::IOError(message);
    case grpc::StatusCode::NOT_FOUND:
      return Status::KeyError(message);
    default:
      return Status::Invalid(message);
  }
}

// A partition index in [0, count) written in decimal, all of `text`.
bool ParseIndex(std::string_view text, int count, int* index) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *index);
  return error == std::errc() && end == text.data() + text.size() && *index >= 0 && *index < count;
}

// "index:rows,index:rows,...": the batches, and their partitions, that a batch of `batch_rows`
// rows holds, in order.
Result<std::vector<PartitionRows>> ParseRunLabel(const std::string& label, int count,
                                                 int64_t batch_rows) {
  std::vector<PartitionRows> out;
  int64_t total = 0;
  std::string_view rest = label;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const size_t colon = item.find(':');
    PartitionRows part{-1, -1};
    bool ok =
        colon != std::string_view::npos && ParseIndex(item.substr(0, colon), count, &part.index);
    if (ok) {
      std::string_view rows = item.substr(colon + 1);
      auto [end, error] = std::from_chars(rows.data(), rows.data() + rows.size(), part.rows);
      ok = error == std::errc() && end == rows.data() + rows.size() && part.rows >= 0;
    }
    if (!ok) {
      return Status::Invalid("a batch's label '" + label + "' does not name partitions of " +
                             std::to_string(count) + " and their rows");
    }
    total += part.rows;
    out.push_back(part);
  }
  if (total != batch_rows) {
    return Status::Invalid("a batch's label '" + label + "' counts " + std::to_string(total) +
                           " rows, the batch has " + std::to_string(batch_rows));
  }
  return out;
}

// One DoGet call: each batch to `each` with the partition its app_metadata names, as it is
// decoded; the stream's schema to `schema`. `each`'s errors end the call and are returned as
// they are.
Status DoGet(const std::shared_ptr<grpc::Channel>& channel, const std::string& address,
             const std::string& token, const std::string& ticket, int count,
             const std::function<Status(int, RecordBatch)>& each, const PartitionRunFn& each_run,
             SchemaPtr* schema, Status* consumer) {
  const std::string what = "flight DoGet '" + ticket + "' from " + address;
  auto stub = fl::FlightService::NewStub(channel);
  grpc::ClientContext context;
  context.AddMetadata(kAuthHeader, BearerOf(token));
  fl::Ticket request;
  request.set_ticket(ticket);
  std::unique_ptr<grpc::ClientReader<fl::FlightData>> call = stub->DoGet(&context, request);
  FlightDataStream messages(call.get());
  // The IPC reader validates every message as it arrives; batches go to the partition their
  // app_metadata names.
  Status decoded = [&]() -> Status {
    FLOTILLA_ASSIGN_OR_RETURN(auto reader,
                              ipc::StreamReader::Open(std::make_unique<Borrowed>(&messages)));
    *schema = reader->schema();
    while (true) {
      FLOTILLA_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
      if (!batch) return Status::OK();
      const std::string& label = messages.app_metadata();
      if (label.find(':') != std::string::npos) {
        // Several small partitions' batches, one after another.
        FLOTILLA_ASSIGN_OR_RETURN(std::vector<PartitionRows> parts,
                                  ParseRunLabel(label, count, batch->num_rows()));
        if (each_run != nullptr) {
          *consumer = each_run(parts, *std::move(batch));
          FLOTILLA_RETURN_NOT_OK(*consumer);
          continue;
        }
        int64_t offset = 0;
        for (const PartitionRows& part : parts) {
          *consumer = each(part.index, batch->Slice(offset, part.rows));
          FLOTILLA_RETURN_NOT_OK(*consumer);
          offset += part.rows;
        }
        continue;
      }
      int index = label.empty() && count == 1 ? 0 : -1;  // a server that does not label batches
      if (!label.empty() && !ParseIndex(label, count, &index)) index = -1;
      if (index < 0 || index >= count) {
        return Status::Invalid("a batch names partition '" + label + "' of " +
                               std::to_string(count));
      }
      *consumer = each(index, *std::move(batch));
      FLOTILLA_RETURN_NOT_OK(*consumer);
    }
  }();
  if (!decoded.ok()) {
    // The call's own failure (refused, unknown ticket, a lost server) explains an unreadable
    // stream better than the reader can.
    const bool cancelled_here = !messages.ended();
    if (cancelled_here) {
      context.TryCancel();
      fl::FlightData rest;
      while (call->Read(&rest)) {
      }
    }
    grpc::Status status = call->Finish();
    if (!consumer->ok()) return *consumer;
    if (!status.ok() && !(cancelled_here && status.error_code() == grpc::StatusCode::CANCELLED)) {
      return FromGrpc(status, what);
    }
    return decoded.WithContext(what);
  }
  grpc::Status status = call->Finish();
  if (!status.ok()) return FromGrpc(status, what);
  return Status::OK();
}

}  // namespace

Result<std::string> FlightAction(const std::string& address, const std::string& token,
                                 const std::string& type, const std::string& body) {
  const std::string what = "flight DoAction '" + type + "' on " + address;
  int wait_ms = kRetryBackoffMs;
  for (int attempt = 1;; ++attempt) {
    std::shared_ptr<grpc::Channel> channel = ChannelTo(address);
    auto stub = fl::FlightService::NewStub(channel);
    grpc::ClientContext context;
    context.AddMetadata(kAuthHeader, BearerOf(token));
    fl::Action action;
    action.set_type(type);
    action.set_body(body);
    std::unique_ptr<grpc::ClientReader<fl::Result>> call = stub->DoAction(&context, action);
    fl::Result result;
    std::string out;
    bool got = false;
    while (call->Read(&result)) {
      if (!got) out = std::move(*result.mutable_body());
      got = true;
    }
    grpc::Status status = call->Finish();
    if (status.ok()) {
      if (!got) return Status::Invalid(what + ": no result");
      return out;
    }
    Status failed = FromGrpc(status, what);
    if (failed.code() != StatusCode::kIOError) return failed;
    ForgetChannel(address, channel);
    // Only a connection never made is safe to try again: a call that reached the server may
    // have started the action.
    const bool never_connected =
        status.error_message().find("Connection refused") != std::string::npos ||
        status.error_message().find("failed to connect") != std::string::npos;
    if (!never_connected || attempt >= 2) return failed;
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  }
}

Status FlightGetEach(const std::string& address, const std::string& token,
                     const std::string& ticket, int count,
                     const std::function<Status(int, RecordBatch)>& each, SchemaPtr* schema,
                     const PartitionRunFn& each_run) {
  // A partition's rows come in one order on every call (the server sends what it stores, in
  // the order stored), though not always cut into the same batches (small partitions travel
  // together): a call tried again hands out only the rows past those earlier calls did.
  std::vector<int64_t> handed(static_cast<size_t>(count), 0);
  Status got;
  int wait_ms = kRetryBackoffMs;
  int attempt = 1;
  for (;; ++attempt) {
    std::vector<int64_t> seen(static_cast<size_t>(count), 0);
    auto once = [&](int index, RecordBatch batch) -> Status {
      const auto i = static_cast<size_t>(index);
      const int64_t first = seen[i];
      seen[i] += batch.num_rows();
      if (seen[i] <= handed[i]) return Status::OK();
      if (first < handed[i]) batch = batch.Slice(handed[i] - first, seen[i] - handed[i]);
      handed[i] = seen[i];
      return each(index, std::move(batch));
    };
    // A batch of several partitions' rows: whole when none of them was handed out before (the
    // usual case), else cut and handed as `once` hands single batches.
    auto once_run = [&](const std::vector<PartitionRows>& parts, RecordBatch batch) -> Status {
      const bool fresh = std::all_of(parts.begin(), parts.end(), [&](const PartitionRows& p) {
        return handed[static_cast<size_t>(p.index)] <= seen[static_cast<size_t>(p.index)];
      });
      if (fresh) {
        for (const PartitionRows& p : parts) {
          const auto i = static_cast<size_t>(p.index);
          seen[i] += p.rows;
          handed[i] = seen[i];
        }
        return each_run(parts, std::move(batch));
      }
      int64_t offset = 0;
      for (const PartitionRows& p : parts) {
        FLOTILLA_RETURN_NOT_OK(once(p.index, batch.Slice(offset, p.rows)));
        offset += p.rows;
      }
      return Status::OK();
    };
    std::shared_ptr<grpc::Channel> channel = ChannelTo(address);
    SchemaPtr stream_schema;
    Status consumer;
    got = DoGet(channel, address, token, ticket, count, once,
                each_run != nullptr ? PartitionRunFn(once_run) : PartitionRunFn(), &stream_schema,
                &consumer);
    if (stream_schema != nullptr && schema != nullptr) *schema = stream_schema;
    if (got.ok() || !consumer.ok() || got.code() != StatusCode::kIOError) return got;
    // Again on a new channel: the cached one may be backing off from the failed connection.
    ForgetChannel(address, channel);
    if (attempt == kFetchAttempts) break;
    // A worker's server listens as long as the worker lives: refused twice, nothing listens
    // there any more. Waiting out the whole backoff would only delay the recovery (by a
    // second, on a query that takes less). Blips — resets, timeouts — get every attempt.
    if (attempt >= 2 && got.message().find("Connection refused") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    wait_ms *= 4;
  }
  return got.WithContext("after " + std::to_string(attempt) + " attempts");
}

Result<std::vector<StoredPartition>> FlightGetMany(const std::string& address,
                                                   const std::string& token,
                                                   const std::string& ticket, int count) {
  std::vector<StoredPartition> out(static_cast<size_t>(count));
  SchemaPtr schema;
  FLOTILLA_RETURN_NOT_OK(FlightGetEach(
      address, token, ticket, count,
      [&](int index, RecordBatch batch) {
        out[static_cast<size_t>(index)].batches.push_back(std::move(batch));
        return Status::OK();
      },
      &schema));
  for (StoredPartition& p : out)
    p.schema = schema;
  return out;
}

}  // namespace flotilla::distributed
