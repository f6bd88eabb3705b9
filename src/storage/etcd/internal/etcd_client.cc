#include "storage/etcd/internal/etcd_client.h"

#include <fstream>
#include <sstream>
#include <thread>

#include "storage/etcd/internal/errors.h"

namespace svcplane::storage::etcd::internal {

namespace {

using std::chrono::milliseconds;

// After each full round over the endpoints, as clientv3 pauses between quorum-sized rounds.
constexpr milliseconds kRoundPause{25};
// etcd's "too many requests" (apply lag > 5000): one retry after this pause (spec §1.4).
constexpr milliseconds kTooManyRequestsPause{100};
// How often PickReady looks at the channels while none is READY.
constexpr milliseconds kPickPoll{10};

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

grpc::ChannelArguments ChannelArgs() {
  grpc::ChannelArguments args;
  // kube's keepalive (storagebackend/factory/etcd3.go). No pings without calls: etcd enforces
  // PermitWithoutStream=false and answers too many with GOAWAY too_many_pings. No cap on pings
  // without data: the default of 2 stops pinging an idle watch stream, hiding a dead member.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30'000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10'000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // A 10,000-item page or a large watch batch exceeds gRPC's 4 MiB default; the Go client
  // takes up to MaxInt32. Requests: etcd's --max-request-bytes (1.5 MiB) plus gRPC overhead.
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(2 * 1024 * 1024);
  // Reconnect about every second while a member is down (spec §1.5 "Startup"); gRPC's default
  // backoff grows to 2 minutes, far longer than a member restart.
  // (GRPC_ARG_MIN_RECONNECT_BACKOFF_MS is the connect timeout, not a pause: it keeps gRPC's
  // 20 s, kube's dial timeout. At 100 ms the HTTP/2 handshake with etcd never finished.)
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // Our own connections: two clients in one process (two stores, a store and its tests) must
  // not share a subchannel, or one's fault handling would act on the other's connection.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return args;
}

struct ParsedEndpoint {
  std::string target;
  bool tls = false;
};

Result<ParsedEndpoint> ParseEndpoint(std::string_view url) {
  auto rest = [&](std::string_view scheme) { return std::string(url.substr(scheme.size())); };
  ParsedEndpoint out;
  if (url.starts_with("http://")) {
    out.target = rest("http://");
  } else if (url.starts_with("https://")) {
    out.target = rest("https://");
    out.tls = true;
  } else if (url.starts_with("unix://")) {
    // gRPC's form: unix:relative/path or unix:///absolute/path.
    out.target = "unix:" + rest("unix://");
    return out;
  } else {
    return BadRequestError("etcd endpoint \"" + std::string(url) +
                           "\" must start with http://, https:// or unix://");
  }
  while (!out.target.empty() && out.target.back() == '/') out.target.pop_back();
  if (out.target.empty() || out.target.find('/') != std::string::npos) {
    return BadRequestError("etcd endpoint \"" + std::string(url) + "\" is not scheme://host:port");
  }
  return out;
}

std::vector<std::string> SplitList(std::string_view list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string item(list.substr(start, comma - start));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

}  // namespace

void PrepareContext(grpc::ClientContext& context, Deadline deadline, bool require_leader) {
  const auto left = deadline - std::chrono::steady_clock::now();
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::duration_cast<std::chrono::system_clock::duration>(left));
  // We pick READY channels ourselves and fail over; waiting on one broken channel would not.
  context.set_wait_for_ready(false);
  // A member without a leader then refuses the call or stream instead of serving it stale
  // (etcd rpctypes.MetadataRequireLeaderKey); clientv3.WithRequireLeader sets it on watches.
  if (require_leader) context.AddMetadata("hasleader", "true");
}

Result<std::unique_ptr<EtcdClient>> EtcdClient::Create(const EtcdClientOptions& options) {
  std::unique_ptr<EtcdClient> client(new EtcdClient(options));
  const auto urls = SplitList(options.endpoints);
  if (urls.empty()) return BadRequestError("no etcd endpoints given");

  grpc::SslCredentialsOptions ssl;
  if (!options.ca_file.empty()) {
    auto ca = ReadFile(options.ca_file);
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = std::move(*ca);
  }
  if (!options.cert_file.empty() || !options.key_file.empty()) {
    auto cert = ReadFile(options.cert_file);
    if (!cert.ok()) return cert.status();
    auto key = ReadFile(options.key_file);
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = std::move(*cert);
    ssl.pem_private_key = std::move(*key);
  }
  for (const auto& url : urls) {
    auto parsed = ParseEndpoint(url);
    if (!parsed.ok()) return parsed.status();
    auto credentials = parsed->tls ? grpc::SslCredentials(ssl) : grpc::InsecureChannelCredentials();
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->url = url;
    endpoint->target = parsed->target;
    endpoint->channel = grpc::CreateCustomChannel(parsed->target, credentials, ChannelArgs());
    endpoint->kv = pb::KV::NewStub(endpoint->channel);
    endpoint->watch = pb::Watch::NewStub(endpoint->channel);
    endpoint->maintenance = pb::Maintenance::NewStub(endpoint->channel);
    endpoint->lease = pb::Lease::NewStub(endpoint->channel);
    // Start connecting now, so that the first request finds a READY channel.
    endpoint->channel->GetState(/*try_to_connect=*/true);
    client->endpoints_.push_back(std::move(endpoint));
  }
  return client;
}

Endpoint* EtcdClient::PickReady(Deadline deadline, const std::function<bool()>& stop) {
  const size_t n = endpoints_.size();
  while (true) {
    const size_t start = next_.fetch_add(1, std::memory_order_relaxed);
    Endpoint* waiting = nullptr;
    grpc_connectivity_state waiting_state = GRPC_CHANNEL_READY;
    for (size_t i = 0; i < n; ++i) {
      Endpoint* e = endpoints_[(start + i) % n].get();
      const auto state = e->channel->GetState(/*try_to_connect=*/true);
      if (state == GRPC_CHANNEL_READY) return e;
      if (waiting == nullptr) {
        waiting = e;
        waiting_state = state;
      }
    }
    const auto now = Now();
    if (now >= deadline || (stop && stop())) return nullptr;
    // Wait through gRPC, not a sleep: a connection attempt advances only while some thread
    // polls gRPC's completion queues, and with no call in flight nothing else does (gRPC's
    // backup poller runs every 5 s, which made every (re)connect take 5-10 s).
    const auto until = now + std::min<Deadline::duration>(kPickPoll, deadline - now);
    waiting->channel->WaitForStateChange(
        waiting_state,
        std::chrono::system_clock::now() +
            std::chrono::duration_cast<std::chrono::system_clock::duration>(until - Now()));
  }
}

Status EtcdClient::Call(std::string_view what, RetryPolicy policy, Deadline deadline,
                        const Rpc& rpc, grpc::Status* error) {
  const size_t round = endpoints_.size();
  size_t attempts = 0;
  bool retried_too_many_requests = false;
  Status last = UnavailableError(std::string(what) + ": no etcd endpoint became ready in time");
  while (true) {
    Endpoint* endpoint = PickReady(deadline);
    if (endpoint == nullptr) return last;
    grpc::ClientContext context;
    PrepareContext(context, deadline, /*require_leader=*/false);
    const grpc::Status status = rpc(*endpoint, context);
    if (status.ok()) return Status::Ok();
    if (error != nullptr) *error = status;
    last = FromGrpc(status, std::string(what) + " on " + endpoint->url);
    const bool unavailable = status.error_code() == grpc::StatusCode::UNAVAILABLE;
    if (IsTooManyRequests(status) && !retried_too_many_requests) {
      // etcd refused before applying anything, so a write may be repeated too.
      retried_too_many_requests = true;
      std::this_thread::sleep_for(kTooManyRequestsPause);
    } else if (unavailable && (NotSent(status) || policy == RetryPolicy::kIdempotent)) {
      if (++attempts % round == 0) std::this_thread::sleep_for(kRoundPause);
    } else {
      return last;
    }
    if (Now() >= deadline) return last;
  }
}

Result<pb::RangeResponse> EtcdClient::Range(const pb::RangeRequest& request, Deadline deadline,
                                            grpc::Status* error) {
  return Unary<pb::RangeResponse>("etcd range", RetryPolicy::kIdempotent, &pb::KV::Stub::Range,
                                  request, deadline, error);
}

Result<pb::TxnResponse> EtcdClient::Txn(const pb::TxnRequest& request, Deadline deadline) {
  return Unary<pb::TxnResponse>("etcd txn", RetryPolicy::kOnlyIfNotSent, &pb::KV::Stub::Txn,
                                request, deadline);
}

Result<pb::CompactionResponse> EtcdClient::Compact(const pb::CompactionRequest& request,
                                                   Deadline deadline) {
  return Unary<pb::CompactionResponse>("etcd compact", RetryPolicy::kOnlyIfNotSent,
                                       &pb::KV::Stub::Compact, request, deadline);
}

Result<pb::LeaseGrantResponse> EtcdClient::LeaseGrant(const pb::LeaseGrantRequest& request,
                                                      Deadline deadline) {
  // A grant that reached etcd but whose answer was lost only leaves an unused lease to expire,
  // so it may be retried like a read.
  return UnaryOn<pb::LeaseGrantResponse>(&Endpoint::lease, "etcd lease grant",
                                         RetryPolicy::kIdempotent, &pb::Lease::Stub::LeaseGrant,
                                         request, deadline);
}

}  // namespace svcplane::storage::etcd::internal
