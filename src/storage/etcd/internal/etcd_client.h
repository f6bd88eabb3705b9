#pragma once

// Private to storage/etcd: with errors.h and etcd_watcher.h the only headers that see gRPC and
// the generated etcd protos.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "etcd/etcdserver/etcdserverpb/rpc.grpc.pb.h"
#include "storage/etcd/etcd_store.h"

namespace svcplane::storage::etcd::internal {

namespace pb = ::etcdserverpb;
using Deadline = std::chrono::steady_clock::time_point;

// One --etcd-servers entry and its channel.
struct Endpoint {
  std::string url;     // as given, for messages
  std::string target;  // gRPC target: host:port or unix:path
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::KV::Stub> kv;
  std::unique_ptr<pb::Watch::Stub> watch;
  std::unique_ptr<pb::Maintenance::Stub> maintenance;
  std::unique_ptr<pb::Lease::Stub> lease;
};

// How a call may be retried on another endpoint after UNAVAILABLE (spec §1.5, as clientv3's
// retry interceptor): reads whatever the cause, writes only when the request never left.
enum class RetryPolicy { kIdempotent, kOnlyIfNotSent };

// Sets the per-call deadline and `hasleader` metadata as kube-apiserver's client does.
void PrepareContext(grpc::ClientContext& context, Deadline deadline, bool require_leader);

// The connection to one etcd cluster: one channel per endpoint, unary calls round-robin over
// the READY ones. Thread-safe.
class EtcdClient {
 public:
  // Parses the endpoint list and creates the channels without waiting for them to connect.
  static Result<std::unique_ptr<EtcdClient>> Create(const EtcdClientOptions& options);

  Deadline ReadDeadline() const { return Now() + options_.read_timeout; }
  Deadline WriteDeadline() const { return Now() + options_.write_timeout; }

  // `error` (optional) receives etcd's answer when the call fails, for callers that must tell
  // apart causes the Store codes merge (a future revision from a passed deadline).
  Result<pb::RangeResponse> Range(const pb::RangeRequest& request, Deadline deadline,
                                  grpc::Status* error = nullptr);
  Result<pb::TxnResponse> Txn(const pb::TxnRequest& request, Deadline deadline);
  Result<pb::CompactionResponse> Compact(const pb::CompactionRequest& request, Deadline deadline);
  Result<pb::LeaseGrantResponse> LeaseGrant(const pb::LeaseGrantRequest& request,
                                            Deadline deadline);

  // The next READY endpoint in round-robin order, waiting for one (and nudging idle channels
  // to connect) until `deadline`; nullptr then. `stop` ends the wait early when it returns true.
  Endpoint* PickReady(Deadline deadline, const std::function<bool()>& stop = {});

  const std::vector<std::unique_ptr<Endpoint>>& endpoints() const { return endpoints_; }

 private:
  explicit EtcdClient(EtcdClientOptions options) : options_(std::move(options)) {}
  static Deadline Now() { return std::chrono::steady_clock::now(); }

  using Rpc = std::function<grpc::Status(Endpoint&, grpc::ClientContext&)>;
  // Runs `rpc` on READY endpoints until it succeeds, fails in a way the policy does not retry,
  // or the deadline passes. `what` names the operation in errors.
  Status Call(std::string_view what, RetryPolicy policy, Deadline deadline, const Rpc& rpc,
              grpc::Status* error = nullptr);

  // One method of the endpoints' `stub` service through Call.
  template <typename Response, typename Request, typename Stub, typename Method>
  Result<Response> UnaryOn(std::unique_ptr<Stub> Endpoint::*stub, std::string_view what,
                           RetryPolicy policy, Method method, const Request& request,
                           Deadline deadline, grpc::Status* error = nullptr) {
    Response response;
    Status s = Call(
        what, policy, deadline,
        [&](Endpoint& e, grpc::ClientContext& c) {
          response.Clear();
          return ((*(e.*stub)).*method)(&c, request, &response);
        },
        error);
    if (!s.ok()) return s;
    return response;
  }
  // One KV method through Call.
  template <typename Response, typename Request, typename Method>
  Result<Response> Unary(std::string_view what, RetryPolicy policy, Method method,
                         const Request& request, Deadline deadline, grpc::Status* error = nullptr) {
    return UnaryOn<Response>(&Endpoint::kv, what, policy, method, request, deadline, error);
  }

  // Constant after construction.
  const EtcdClientOptions options_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;

  std::atomic<size_t> next_{0};  // round-robin position
};

}  // namespace svcplane::storage::etcd::internal
