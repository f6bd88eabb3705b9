#include "apiserver/server/snapshot_endpoint.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <string>

#include "apiserver/rest/status_body.h"
#include "storage/snapshot/exporter.h"

namespace svcplane::apiserver::server {

namespace {

bool IsSystemMaster(const http::Identity& id) {
  return std::find(id.groups.begin(), id.groups.end(), "system:masters") != id.groups.end();
}

}  // namespace

http::Reply SnapshotReply(const http::Request& req, storage::Store& store, bool rbac_authorized) {
  if (req.method != "GET") {
    return rest::ErrorResponse(
        Status(Code::kMethodNotAllowed,
               "the server does not allow this method on the requested resource"));
  }
  if (!rbac_authorized && !IsSystemMaster(req.identity)) {
    return rest::ErrorResponse(Status(
        Code::kForbidden, fmt::format("forbidden: User \"{}\" cannot get path \"{}\": snapshots "
                                      "hold every object and are for system:masters only",
                                      req.identity.user, kSnapshotPath)));
  }
  size_t page = kDefaultSnapshotPage;
  if (auto limit = req.Query("limit")) {
    const auto [end, ec] = std::from_chars(limit->data(), limit->data() + limit->size(), page);
    if (ec != std::errc() || end != limit->data() + limit->size() || page == 0 ||
        page > kMaxSnapshotPage) {
      return rest::ErrorResponse(BadRequestError(fmt::format(
          "limit must be a number of keys from 1 to {}, got \"{}\"", kMaxSnapshotPage, *limit)));
    }
  }
  auto started = storage::snapshot::Exporter::Start(store, std::string(kSnapshotPrefix), page);
  if (!started.ok()) return rest::ErrorResponse(started.status());
  std::shared_ptr<storage::snapshot::Exporter> exporter = std::move(*started);
  spdlog::info("snapshot for {}: every key under {} at revision {}", req.identity.user,
               kSnapshotPrefix, exporter->revision());

  http::Response r;
  r.content_type = "application/vnd.svcplane.snapshot";
  r.headers.emplace_back("Svcplane-Snapshot-Revision", std::to_string(exporter->revision()));
  // The connection calls this on its I/O thread for the first piece and on a worker for later
  // ones. The first page was read above, on a worker; later pages come from memory (the embedded
  // store's map, or the watch cache in front of etcd), except for a revision the cache no longer
  // holds, which goes to etcd itself.
  r.body_source = [exporter](std::string* out) {
    if (exporter->Next(out)) return true;
    if (exporter->status().ok()) {
      spdlog::info("snapshot at revision {}: all {} keys read", exporter->revision(),
                   exporter->records());
    } else {
      spdlog::warn("snapshot at revision {} failed after {} keys: {}", exporter->revision(),
                   exporter->records(), exporter->status().ToString());
    }
    return false;
  };
  return r;
}

}  // namespace svcplane::apiserver::server
