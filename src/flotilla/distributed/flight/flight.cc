#include "flotilla/distributed/flight/flight.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

#include "flotilla/distributed/flight/flight.grpc.pb.h"
#include "flotilla/io/ipc/ipc.h"
#include "flotilla/io/ipc/message.h"
#include "flotilla/io/ipc/metadata.h"
#include "flotilla/io/stream.h"

namespace flotilla::distributed {
namespace {

namespace fl = arrow::flight::protocol;

constexpr char kAuthHeader[] = "authorization";

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

// The IPC streams of the partitions cut into messages, the schema sent once: what DoGet sends.
Status ForEachMessage(const std::vector<StoredPartition>& partitions,
                      const std::function<bool(const ipc::Message&, int)>& send) {
  for (size_t p = 0; p < partitions.size(); ++p) {
    FLOTILLA_ASSIGN_OR_RETURN(
        BufferPtr stream, ipc::WriteStreamToBuffer(partitions[0].schema, partitions[p].batches));
    io::BufferReader reader(stream);
    for (int64_t i = 0;; ++i) {
      FLOTILLA_ASSIGN_OR_RETURN(std::optional<ipc::Message> message, ipc::ReadMessage(&reader, i));
      if (!message) break;
      if (p > 0 && message->message->header_type() == ipc::fb::MessageHeader::Schema) continue;
      if (!send(*message, static_cast<int>(p))) return Status::IOError("the client went away");
    }
  }
  return Status::OK();
}

class Service final : public fl::FlightService::Service {
 public:
  Service(std::string token, FlightServer::Lookup lookup)
      : bearer_(BearerOf(token)), lookup_(std::move(lookup)) {}

  grpc::Status DoGet(grpc::ServerContext* context, const fl::Ticket* ticket,
                     grpc::ServerWriter<fl::FlightData>* writer) override {
    auto auth = context->client_metadata().find(kAuthHeader);
    if (auth == context->client_metadata().end() ||
        !SameSecret(std::string_view(auth->second.data(), auth->second.size()), bearer_)) {
      refused_.fetch_add(1);
      return {grpc::StatusCode::UNAUTHENTICATED,
              "flight: the call does not carry this cluster's token"};
    }
    Result<std::vector<StoredPartition>> partitions = lookup_(ticket->ticket());
    if (!partitions.ok()) return {grpc::StatusCode::NOT_FOUND, partitions.status().message()};
    if (partitions->empty()) return {grpc::StatusCode::NOT_FOUND, "the ticket names nothing"};
    Status s = ForEachMessage(*partitions, [&](const ipc::Message& m, int index) {
      fl::FlightData data;
      data.set_data_header(m.metadata->data(), m.metadata->size());
      if (m.body != nullptr) data.set_data_body(m.body->data(), m.body->size());
      if (m.message->header_type() == ipc::fb::MessageHeader::RecordBatch) {
        data.set_app_metadata(std::to_string(index));
      }
      return writer->Write(data);
    });
    if (!s.ok()) return {grpc::StatusCode::INTERNAL, s.message()};
    served_.fetch_add(1);
    return grpc::Status::OK;
  }

  std::atomic<int64_t> served_{0};
  std::atomic<int64_t> refused_{0};

 private:
  std::string bearer_;
  FlightServer::Lookup lookup_;
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
                                                          std::string token, Lookup lookup) {
  if (token.empty()) return Status::Invalid("flight server: the cluster token must not be empty");
  auto impl = std::make_unique<Impl>();
  impl->service = std::make_unique<Service>(std::move(token), std::move(lookup));
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort(host + ":" + std::to_string(port), grpc::InsecureServerCredentials(),
                           &bound);
  builder.SetMaxSendMessageSize(-1);
  builder.RegisterService(impl->service.get());
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || bound == 0) {
    return Status::IOError("flight server: cannot listen on " + host + ":" + std::to_string(port));
  }
  impl->address = host + ":" + std::to_string(bound);
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

Result<StoredPartition> FlightGet(const std::string& address, const std::string& token,
                                  const std::string& ticket) {
  FLOTILLA_ASSIGN_OR_RETURN(std::vector<StoredPartition> parts,
                            FlightGetMany(address, token, ticket, 1));
  return std::move(parts[0]);
}

namespace {

Result<std::vector<StoredPartition>> DoGet(const std::shared_ptr<grpc::Channel>& channel,
                                           const std::string& address, const std::string& token,
                                           const std::string& ticket, int count) {
  auto stub = fl::FlightService::NewStub(channel);
  grpc::ClientContext context;
  context.AddMetadata(kAuthHeader, BearerOf(token));
  fl::Ticket request;
  request.set_ticket(ticket);
  std::unique_ptr<grpc::ClientReader<fl::FlightData>> reader = stub->DoGet(&context, request);
  // The messages are framed back into an IPC stream (continuation, length, metadata padded to
  // 8 bytes, body) and read by the IPC reader, which validates everything that arrived.
  std::string stream;
  std::vector<int> batch_partition;  // per record batch message, in order
  fl::FlightData data;
  while (reader->Read(&data)) {
    if (!data.app_metadata().empty()) {
      int index = -1;
      try {
        index = std::stoi(data.app_metadata());
      } catch (...) {
      }
      if (index < 0 || index >= count) {
        return Status::Invalid("flight DoGet '" + ticket + "' from " + address +
                               ": a batch names partition '" + data.app_metadata() + "' of " +
                               std::to_string(count));
      }
      batch_partition.push_back(index);
    }
    const std::string& header = data.data_header();
    size_t padded = (header.size() + 7) & ~size_t{7};
    AppendLe32(&stream, 0xFFFFFFFFu);
    AppendLe32(&stream, static_cast<uint32_t>(padded));
    stream += header;
    stream.append(padded - header.size(), '\0');
    stream += data.data_body();
  }
  grpc::Status status = reader->Finish();
  if (!status.ok()) {
    std::string what =
        "flight DoGet '" + ticket + "' from " + address + ": " + status.error_message();
    switch (status.error_code()) {
      case grpc::StatusCode::UNAVAILABLE:
      case grpc::StatusCode::DEADLINE_EXCEEDED:
      case grpc::StatusCode::CANCELLED:
        return Status::IOError(what);
      case grpc::StatusCode::NOT_FOUND:
        return Status::KeyError(what);
      default:
        return Status::Invalid(what);
    }
  }
  AppendLe32(&stream, 0xFFFFFFFFu);
  AppendLe32(&stream, 0);
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::CopyOf(stream));
  SchemaPtr schema;
  auto batches = ipc::ReadStream(buffer, &schema);
  if (!batches.ok()) {
    return batches.status().WithContext("flight DoGet '" + ticket + "' from " + address);
  }
  std::vector<StoredPartition> out(count, StoredPartition{schema, {}});
  if (count == 1 && batch_partition.empty()) {
    out[0].batches = batches.MoveValueUnsafe();  // a server that does not label its batches
    return out;
  }
  if (batch_partition.size() != batches->size()) {
    return Status::Invalid("flight DoGet '" + ticket + "' from " + address +
                           ": batches without their partition index");
  }
  for (size_t i = 0; i < batch_partition.size(); ++i) {
    out[batch_partition[i]].batches.push_back(std::move((*batches)[i]));
  }
  return out;
}

}  // namespace

Result<std::vector<StoredPartition>> FlightGetMany(const std::string& address,
                                                   const std::string& token,
                                                   const std::string& ticket, int count) {
  std::shared_ptr<grpc::Channel> channel = ChannelTo(address);
  Result<std::vector<StoredPartition>> got = DoGet(channel, address, token, ticket, count);
  if (got.ok() || got.status().code() != StatusCode::kIOError) return got;
  // Once more on a new channel: the cached one may be backing off from an earlier failure.
  ForgetChannel(address, channel);
  return DoGet(ChannelTo(address), address, token, ticket, count);
}

}  // namespace flotilla::distributed
