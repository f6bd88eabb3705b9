#pragma once

// GET /svcplane/snapshot: the server's side of `svcplane snapshot save`.

#include <string_view>

#include "apiserver/http/handler.h"
#include "storage/store.h"

namespace svcplane::apiserver::server {

inline constexpr std::string_view kSnapshotPath = "/svcplane/snapshot";
// Every key svcplane writes lives here (objects, /registry/ranges/*, /registry/masterleases/*);
// on etcd it is also kube-apiserver's --etcd-prefix.
inline constexpr std::string_view kSnapshotPrefix = "/registry/";
inline constexpr size_t kDefaultSnapshotPage = 500;
inline constexpr size_t kMaxSnapshotPage = 10'000;

// Streams every key under kSnapshotPrefix at one revision as a snapshot file
// (storage/snapshot/snapshot_file.h), read from `store` a page at a time (`?limit=` keys, default
// kDefaultSnapshotPage), so the server holds about one page whatever the store's size and writes
// go on meanwhile. The revision is also sent as the Svcplane-Snapshot-Revision header.
//
// A snapshot holds every object. With `rbac_authorized` (--authorization-mode=Node,RBAC) the
// authorizer already decided who may `get` the path: cluster-admin (its nonResourceURLs "*")
// and whoever is granted it. Otherwise (AlwaysAllow) only system:masters may, and any other
// identity gets 403. A failure after the first byte (the revision compacted away mid-way) ends
// the body with the file format's error record, which the client reports.
//
// `store` must outlive the HTTP server that sends the body.
http::Reply SnapshotReply(const http::Request& req, storage::Store& store, bool rbac_authorized);

}  // namespace svcplane::apiserver::server
