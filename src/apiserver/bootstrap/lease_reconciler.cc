#include "apiserver/bootstrap/lease_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>

#include "apiserver/allocator/ranges.h"

namespace svcplane::apiserver::bootstrap {

using api::core::v1::Endpoints;
using api::discovery::v1::EndpointSlice;

namespace {

constexpr int kSyncAttempts = 5;
constexpr std::string_view kDefault = "default";
constexpr std::string_view kServiceNameLabel = "kubernetes.io/service-name";
constexpr std::string_view kSkipMirrorLabel = "endpointslice.kubernetes.io/skip-mirror";

int64_t WallMicros(const Clock& clock) {
  return std::chrono::duration_cast<std::chrono::microseconds>(clock.WallNow().time_since_epoch())
      .count();
}

bool Retriable(const Status& st) {
  return st.code() == Code::kConflict || st.code() == Code::kAlreadyExists;
}

Status SyncEndpoints(registry::Registry<Endpoints>& reg, const std::vector<std::string>& ips,
                     const EndpointPortSpec& port, bool reconcile_ports) {
  api::core::v1::EndpointPort want_port{
      .name = port.name, .port = port.port, .protocol = port.protocol};
  auto cur = reg.Get(kDefault, kKubernetesName);
  if (!cur.ok() && cur.status().code() != Code::kNotFound) return cur.status();
  Endpoints ep;
  if (cur.ok()) ep = *cur->obj;
  ep.metadata.name = std::string(kKubernetesName);
  api::meta::StringMap labels{{std::string(kSkipMirrorLabel), "true"}};
  std::vector<api::core::v1::EndpointSubset> subsets;
  if (!ips.empty()) {
    api::core::v1::EndpointSubset subset;
    for (const auto& ip : ips) subset.addresses.push_back({.ip = ip});
    if (ep.subsets.size() == 1 && !ep.subsets[0].ports.empty() && !reconcile_ports) {
      subset.ports = ep.subsets[0].ports;  // ports as they are unless asked to reconcile
    } else {
      subset.ports = {want_port};
    }
    subsets.push_back(std::move(subset));
  }
  if (cur.ok() && ep.subsets == subsets && ep.metadata.labels == labels) return Status::Ok();
  ep.subsets = std::move(subsets);
  ep.metadata.labels = std::move(labels);
  if (!cur.ok()) return reg.Create(kDefault, std::move(ep), {}).status();
  return reg.Update(kDefault, kKubernetesName, registry::Subresource::kNone, std::move(ep), {})
      .status();
}

Status SyncSlice(registry::Registry<EndpointSlice>& reg, const std::vector<std::string>& ips,
                 const EndpointPortSpec& port, bool reconcile_ports) {
  const std::string family =
      ips.empty() ? std::string("IPv4") : std::string(allocator::FamilyOf(ips[0]));
  auto list = reg.List(kDefault, {});
  if (!list.ok()) return list.status();
  std::optional<EndpointSlice> existing;
  for (const auto& o : list->items) {
    auto it = o.obj->metadata.labels.find(kServiceNameLabel);
    if (it == o.obj->metadata.labels.end() || it->second != kKubernetesName) continue;
    if (o.obj->metadata.name == kKubernetesName && o.obj->address_type == family) {
      existing = *o.obj;
      continue;
    }
    // Any other slice claiming the Service (wrong name or family) goes.
    auto del = reg.Delete(kDefault, o.obj->metadata.name, {});
    if (!del.ok() && del.status().code() != Code::kNotFound) return del.status();
  }
  EndpointSlice slice = existing.value_or(EndpointSlice{});
  slice.metadata.name = std::string(kKubernetesName);
  slice.address_type = family;
  api::meta::StringMap labels{{std::string(kServiceNameLabel), std::string(kKubernetesName)}};
  std::vector<api::discovery::v1::Endpoint> eps;
  for (const auto& ip : ips) {
    api::discovery::v1::Endpoint e;
    e.addresses = {ip};
    e.conditions.ready = true;
    eps.push_back(std::move(e));
  }
  auto ports = slice.ports;
  if (!ports || ports->empty() || reconcile_ports) {
    ports = std::vector<api::discovery::v1::EndpointPort>{
        {.name = port.name, .protocol = port.protocol, .port = port.port}};
  }
  if (existing && slice.endpoints == eps && slice.ports == ports &&
      slice.metadata.labels == labels) {
    return Status::Ok();
  }
  slice.endpoints = std::move(eps);
  slice.ports = std::move(ports);
  slice.metadata.labels = std::move(labels);
  if (!existing) return reg.Create(kDefault, std::move(slice), {}).status();
  return reg.Update(kDefault, kKubernetesName, registry::Subresource::kNone, std::move(slice), {})
      .status();
}

}  // namespace

Status SyncKubernetesEndpoints(registry::Registry<Endpoints>& endpoints,
                               registry::Registry<EndpointSlice>& slices,
                               std::vector<std::string> ips, const EndpointPortSpec& port,
                               bool reconcile_ports) {
  std::sort(ips.begin(), ips.end());
  if (!ips.empty()) {
    // Single-stack: the family of the first address (ours) decides; the others are dropped.
    std::string_view family = allocator::FamilyOf(ips[0]);
    std::erase_if(ips, [&](const std::string& ip) { return allocator::FamilyOf(ip) != family; });
  }
  Status st;
  for (int i = 0; i < kSyncAttempts; ++i) {
    st = SyncEndpoints(endpoints, ips, port, reconcile_ports);
    if (!Retriable(st)) break;
  }
  if (!st.ok()) return st;
  for (int i = 0; i < kSyncAttempts; ++i) {
    st = SyncSlice(slices, ips, port, reconcile_ports);
    if (!Retriable(st)) break;
  }
  return st;
}

LeaseEndpointReconciler::LeaseEndpointReconciler(storage::Store* store,
                                                 registry::Registry<Endpoints>* endpoints,
                                                 registry::Registry<EndpointSlice>* slices,
                                                 const Clock& clock, Duration ttl,
                                                 bool store_expires_records)
    : store_(store),
      endpoints_(endpoints),
      slices_(slices),
      clock_(clock),
      ttl_(ttl),
      store_expires_records_(store_expires_records) {}

Status LeaseEndpointReconciler::UpdateLease(const std::string& ip) {
  const std::string key = std::string(kMasterLeasesPrefix) + ip;
  const int64_t expires =
      WallMicros(clock_) + std::chrono::duration_cast<std::chrono::microseconds>(ttl_).count();
  for (int attempt = 0; attempt < kSyncAttempts; ++attempt) {
    auto cur = store_->Get(key);
    if (!cur.ok() && cur.status().code() != Code::kNotFound) return cur.status();
    int64_t generation = 0;
    if (cur.ok()) {
      boost::system::error_code ec;
      auto doc = boost::json::parse(*cur->value, ec);
      const auto* meta = ec || !doc.is_object() ? nullptr : doc.as_object().if_contains("metadata");
      if (meta && meta->is_object()) {
        if (auto* g = meta->as_object().if_contains("generation"); g && g->is_int64()) {
          generation = g->as_int64();
        }
      }
    }
    // Upstream's record (reconcilers/lease.go UpdateLease): a v1 Endpoints with no name, one
    // subset holding the IP, and metadata.generation bumped so that every refresh is a real
    // write. The expiry rides in an annotation for stores without TTLs; on etcd the record is
    // also written with a 15 s etcd lease, which is what a kube-apiserver reading it relies on.
    boost::json::object meta{
        {"generation", generation + 1},
        {"annotations", boost::json::object{
                            {std::string(kMasterLeaseExpiryAnnotation), std::to_string(expires)}}}};
    boost::json::object o{
        {"kind", "Endpoints"},
        {"apiVersion", "v1"},
        {"metadata", std::move(meta)},
        {"subsets", boost::json::array{boost::json::object{
                        {"addresses", boost::json::array{boost::json::object{{"ip", ip}}}}}}}};
    auto value = storage::MakeValue(boost::json::serialize(o));
    auto w = cur.ok() ? store_->Update(key, value, cur->mod_revision) : store_->Create(key, value);
    if (w.ok()) return Status::Ok();
    if (!Retriable(w.status()) && w.status().code() != Code::kNotFound) return w.status();
  }
  return ConflictError("too many concurrent writes to " + key);
}

std::optional<int64_t> MasterLeaseExpiry(std::string_view record) {
  boost::system::error_code ec;
  auto doc = boost::json::parse(record, ec);
  if (ec || !doc.is_object()) return std::nullopt;
  const auto& o = doc.as_object();
  if (const auto* meta = o.if_contains("metadata"); meta && meta->is_object()) {
    const auto* ann = meta->as_object().if_contains("annotations");
    const auto* at = ann && ann->is_object()
                         ? ann->as_object().if_contains(kMasterLeaseExpiryAnnotation)
                         : nullptr;
    if (at && at->is_string()) {
      int64_t micros = 0;
      const auto& text = at->as_string();
      auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), micros);
      if (err == std::errc() && end == text.data() + text.size()) return micros;
    }
  }
  // Written by an earlier svcplane, before records took kube's form.
  if (const auto* e = o.if_contains("expiresAtMicros"); e && e->is_int64()) return e->as_int64();
  return std::nullopt;
}

Result<std::vector<std::string>> LeaseEndpointReconciler::ListLeases() {
  storage::ListOptions opts;
  opts.prefix = std::string(kMasterLeasesPrefix);
  auto list = store_->List(opts);
  if (!list.ok()) return list.status();
  const int64_t now = WallMicros(clock_);
  std::vector<std::string> ips;
  for (const auto& kv : list->items) {
    auto expires = MasterLeaseExpiry(*kv.value);
    // A record without our expiry is a kube-apiserver's: live while the store keeps it (its
    // etcd lease removes it), but only where the store has such leases.
    const bool expired = expires ? *expires <= now : !store_expires_records_;
    if (expired) {
      // What a TTL would have removed. A concurrent renewal wins.
      (void)store_->Delete(kv.key, kv.mod_revision);
      continue;
    }
    ips.push_back(kv.key.substr(kMasterLeasesPrefix.size()));
  }
  std::sort(ips.begin(), ips.end());
  return ips;
}

Status LeaseEndpointReconciler::Reconcile(const EndpointPortSpec& port, bool reconcile_ports) {
  auto ips = ListLeases();
  if (!ips.ok()) return ips.status();
  if (ips->empty() && !stopping_) {
    return InternalError(
        "no API server IP addresses were listed in storage, refusing to erase all endpoints "
        "for the kubernetes Service");
  }
  return SyncKubernetesEndpoints(*endpoints_, *slices_, std::move(*ips), port, reconcile_ports);
}

Status LeaseEndpointReconciler::ReconcileEndpoints(const std::string& ip,
                                                   const EndpointPortSpec& port,
                                                   bool reconcile_ports) {
  if (stopping_) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  SVC_RETURN_IF_ERROR(UpdateLease(ip));
  return Reconcile(port, reconcile_ports);
}

Status LeaseEndpointReconciler::RemoveEndpoints(const std::string& ip,
                                                const EndpointPortSpec& port) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key = std::string(kMasterLeasesPrefix) + ip;
  auto cur = store_->Get(key);
  if (!cur.ok()) return cur.status();  // NotFound: nothing of ours to remove
  auto del = store_->Delete(key, cur->mod_revision);
  if (!del.ok() && del.status().code() != Code::kNotFound) return del.status();
  return Reconcile(port, /*reconcile_ports=*/true);
}

}  // namespace svcplane::apiserver::bootstrap
