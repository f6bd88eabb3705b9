#pragma once

#include <grpcpp/grpcpp.h>

#include <string_view>

#include "base/status.h"

namespace svcplane::storage::etcd::internal {

// etcd's error texts (etcdserver/api/v3rpc/rpctypes/error.go), matched on the gRPC message:
// etcd gives no other way to tell them apart.
inline constexpr std::string_view kErrCompacted =
    "etcdserver: mvcc: required revision has been compacted";
inline constexpr std::string_view kErrFutureRevision =
    "etcdserver: mvcc: required revision is a future revision";
inline constexpr std::string_view kErrTooManyRequests = "etcdserver: too many requests";

bool IsCompacted(const grpc::Status& status);
bool IsFutureRevision(const grpc::Status& status);
bool IsTooManyRequests(const grpc::Status& status);

// True when gRPC failed the call at the load-balancing pick because the channel could not
// connect: the request never reached etcd, so even a write may go to another endpoint (the
// Go client's "there is no connection available"). Any other UNAVAILABLE may have been sent.
bool NotSent(const grpc::Status& status);

// Maps a failed call onto the Store error contract (store.h, spec §1.4). `what` names the
// operation for the message.
Status FromGrpc(const grpc::Status& status, std::string_view what);

}  // namespace svcplane::storage::etcd::internal
