#include "controllers/endpointslice/utils.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <tuple>

#include "api/meta/controller_ref.h"
#include "api/validation/names.h"

namespace svcplane::controllers::endpointslice {
namespace {

using api::meta::StringMap;

// Go's IP.String() for a 16-byte address that is not IPv4: RFC 5952 (lower-case hex, no leading
// zeros, the longest run of two or more zero groups becomes "::", the first such run on ties).
std::string FormatIPv6(const std::array<uint8_t, 16>& b) {
  std::array<int, 8> g{};
  for (int i = 0; i < 8; ++i) g[i] = (b[2 * i] << 8) | b[2 * i + 1];
  int best_start = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (g[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best_start = i;
      best_len = j - i;
    }
    i = j;
  }
  std::string out;
  char buf[8];
  for (int i = 0; i < 8; ++i) {
    if (i == best_start) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    std::snprintf(buf, sizeof(buf), "%x", g[i]);
    out += buf;
  }
  return out;
}

bool ProtocolEqual(std::string_view a, std::string_view b) {
  // The apiserver defaults protocol to TCP; treat an unset one the same way.
  if (a.empty()) a = "TCP";
  if (b.empty()) b = "TCP";
  return a == b;
}

std::optional<int32_t> FindNamedPort(const std::vector<api::core::v1::Container>& containers,
                                     const std::string& name, std::string_view protocol,
                                     bool sidecars_only) {
  for (const auto& c : containers) {
    if (sidecars_only) {
      bool always = false;
      for (const auto& [key, value] : c.unknown.items) {
        if ((key == "restartPolicy" || key == "\"restartPolicy\"") && value == "\"Always\"") {
          always = true;
        }
      }
      if (!always) continue;
    }
    for (const auto& p : c.ports) {
      if (p.name == name && ProtocolEqual(p.protocol, protocol)) return p.container_port;
    }
  }
  return std::nullopt;
}

bool PortLess(const EndpointPort& a, const EndpointPort& b) {
  return std::tie(a.name, a.protocol, a.port, a.app_protocol) <
         std::tie(b.name, b.protocol, b.port, b.app_protocol);
}

void HashBytes(uint64_t* h, std::string_view s) {
  for (unsigned char c : s) {
    *h ^= c;
    *h *= 1099511628211ull;
  }
  *h ^= 0xff;  // separator so that ("ab","c") and ("a","bc") differ
  *h *= 1099511628211ull;
}

void HashOpt(uint64_t* h, const std::optional<std::string>& s) {
  HashBytes(h, s ? std::string_view("1") : std::string_view("0"));
  if (s) HashBytes(h, *s);
}

StringMap WithoutReserved(const StringMap& labels) {
  StringMap out;
  for (const auto& [k, v] : labels) {
    if (!IsReservedLabel(k)) out.emplace(k, v);
  }
  return out;
}

std::string_view LabelValue(const StringMap& labels, std::string_view key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string_view() : std::string_view(it->second);
}

bool ManagedByUs(const EndpointSlice& slice) {
  return LabelValue(slice.metadata.labels, kManagedByLabel) == kControllerName;
}

}  // namespace

std::vector<std::string> SupportedAddressTypes(const Service& service) {
  bool v4 = false, v6 = false;
  for (const auto& family : service.spec.ip_families) {
    if (family == kAddressTypeIPv4) v4 = true;
    if (family == kAddressTypeIPv6) v6 = true;
  }
  if (service.spec.ip_families.empty()) {
    const std::string& ip = service.spec.cluster_ip;
    std::string canonical;
    auto family = (ip.empty() || ip == "None") ? std::nullopt : AddressFamily(ip, &canonical);
    if (family == kAddressTypeIPv4) {
      v4 = true;
    } else if (family == kAddressTypeIPv6) {
      v6 = true;
    } else {
      // Headless (or unparsable): both families, as upstream does for old apiservers.
      v4 = v6 = true;
    }
  }
  std::vector<std::string> out;
  if (v4) out.emplace_back(kAddressTypeIPv4);
  if (v6) out.emplace_back(kAddressTypeIPv6);
  return out;
}

std::optional<std::string_view> AddressFamily(std::string_view ip, std::string* canonical) {
  api::validation::ParsedIP parsed;
  if (!api::validation::ParseIPSloppy(ip, &parsed)) return std::nullopt;
  if (parsed.Is4()) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%u.%u.%u.%u", parsed.bytes[12], parsed.bytes[13],
                  parsed.bytes[14], parsed.bytes[15]);
    if (canonical) *canonical = buf;
    return kAddressTypeIPv4;
  }
  if (canonical) *canonical = FormatIPv6(parsed.bytes);
  return kAddressTypeIPv6;
}

std::optional<int32_t> FindPort(const Pod& pod, const api::core::v1::ServicePort& port) {
  const auto& target = port.target_port;
  if (!target.is_string) {
    // An unset targetPort is defaulted to `port` by the apiserver; mirror that for raw objects.
    return target.int_value != 0 ? target.int_value : port.port;
  }
  if (auto p = FindNamedPort(pod.spec.containers, target.str_value, port.protocol, false)) {
    return p;
  }
  return FindNamedPort(pod.spec.rest->init_containers, target.str_value, port.protocol, true);
}

std::vector<EndpointPort> EndpointPortsForPod(const Service& service, const Pod& pod) {
  std::vector<EndpointPort> out;
  out.reserve(service.spec.ports.size());
  for (const auto& sp : service.spec.ports) {
    auto number = FindPort(pod, sp);
    if (!number) continue;
    EndpointPort ep;
    ep.name = sp.name;
    ep.protocol = sp.protocol.empty() ? std::string("TCP") : sp.protocol;
    ep.port = *number;
    ep.app_protocol = sp.app_protocol;
    out.push_back(std::move(ep));
  }
  std::sort(out.begin(), out.end(), PortLess);
  return out;
}

uint64_t PortMapKey(const std::vector<EndpointPort>& ports) {
  std::vector<const EndpointPort*> sorted;
  sorted.reserve(ports.size());
  for (const auto& p : ports) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(),
            [](const EndpointPort* a, const EndpointPort* b) { return PortLess(*a, *b); });
  uint64_t h = 14695981039346656037ull;
  for (const EndpointPort* p : sorted) {
    HashOpt(&h, p->name);
    HashOpt(&h, p->protocol);
    HashOpt(&h, p->port ? std::optional<std::string>(std::to_string(*p->port)) : std::nullopt);
    HashOpt(&h, p->app_protocol);
  }
  return h;
}

bool ShouldIncludePod(const Pod& pod) {
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") return false;
  return !pod.status.pod_ip.empty() || !pod.status.pod_ips.empty();
}

bool PodIsReady(const Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "Ready") return c.status == "True";
  }
  return false;
}

std::optional<Endpoint> PodToEndpoint(const Pod& pod, const Service& service,
                                      std::string_view address_type, std::string_view node_name,
                                      std::string_view zone) {
  Endpoint ep;
  std::string canonical;
  auto add = [&](const std::string& ip) {
    if (AddressFamily(ip, &canonical) == address_type) ep.addresses.push_back(canonical);
  };
  if (!pod.status.pod_ips.empty()) {
    for (const auto& ip : pod.status.pod_ips) add(ip.ip);
  } else {
    add(pod.status.pod_ip);
  }
  if (ep.addresses.empty()) return std::nullopt;

  const bool serving = PodIsReady(pod);
  const bool terminating = pod.metadata.deletion_timestamp.has_value();
  ep.conditions.serving = serving;
  ep.conditions.terminating = terminating;
  ep.conditions.ready = service.spec.publish_not_ready_addresses || (serving && !terminating);
  if (!pod.spec.hostname.empty() && pod.spec.subdomain == service.metadata.name &&
      pod.metadata.namespace_ == service.metadata.namespace_) {
    ep.hostname = pod.spec.hostname;
  }
  if (!node_name.empty()) ep.node_name = std::string(node_name);
  if (!zone.empty()) ep.zone = std::string(zone);
  api::meta::ObjectReference ref;
  ref.kind = "Pod";
  ref.namespace_ = pod.metadata.namespace_;
  ref.name = pod.metadata.name;
  ref.uid = pod.metadata.uid;
  ep.target_ref = std::move(ref);
  return ep;
}

std::string EndpointKey(const Endpoint& endpoint) {
  std::string key;
  if (endpoint.target_ref) {
    key += endpoint.target_ref->namespace_;
    key += '/';
    key += endpoint.target_ref->name;
  }
  key += '\x1f';
  if (endpoint.hostname) key += *endpoint.hostname;
  key += '\x1f';
  if (endpoint.addresses.size() == 1) {
    key += endpoint.addresses[0];
  } else {
    std::vector<std::string_view> sorted(endpoint.addresses.begin(), endpoint.addresses.end());
    std::sort(sorted.begin(), sorted.end());
    for (auto a : sorted) {
      key += a;
      key += ',';
    }
  }
  return key;
}

bool EndpointChangedBeyondKey(const Endpoint& existing, const Endpoint& desired) {
  if (existing.node_name != desired.node_name || existing.zone != desired.zone) return true;
  if (existing.conditions.ready != desired.conditions.ready ||
      existing.conditions.serving != desired.conditions.serving ||
      existing.conditions.terminating != desired.conditions.terminating) {
    return true;
  }
  if (existing.target_ref.has_value() != desired.target_ref.has_value()) return true;
  if (existing.target_ref) {
    api::meta::ObjectReference a = *existing.target_ref, b = *desired.target_ref;
    a.resource_version.clear();
    b.resource_version.clear();
    if (a != b) return true;
  }
  return false;
}

api::meta::OwnerReference ServiceOwnerReference(const Service& service) {
  return api::meta::NewControllerRef(service.metadata, "v1", "Service");
}

bool OwnedBy(const EndpointSlice& slice, const Service& service) {
  for (const auto& ref : slice.metadata.owner_references) {
    if (ref.uid == service.metadata.uid && ref.kind == "Service" && ref.api_version == "v1") {
      return true;
    }
  }
  return false;
}

bool IsReservedLabel(std::string_view key) {
  return key == kServiceNameLabel || key == kManagedByLabel || key == kHeadlessLabel;
}

StringMap SliceLabels(const Service& service) {
  StringMap labels = WithoutReserved(service.metadata.labels);
  labels.emplace(kServiceNameLabel, service.metadata.name);
  labels.emplace(kManagedByLabel, kControllerName);
  if (service.spec.cluster_ip.empty() || service.spec.cluster_ip == "None") {
    labels.emplace(kHeadlessLabel, "");
  }
  return labels;
}

bool ServiceLabelsOutOfDate(const EndpointSlice& slice, const Service& service) {
  // Compare without building maps: walk both, skipping reserved keys.
  auto a = slice.metadata.labels.begin(), a_end = slice.metadata.labels.end();
  auto b = service.metadata.labels.begin(), b_end = service.metadata.labels.end();
  while (true) {
    while (a != a_end && IsReservedLabel(a->first)) ++a;
    while (b != b_end && IsReservedLabel(b->first)) ++b;
    if (a == a_end || b == b_end) return !(a == a_end && b == b_end);
    if (a->first != b->first || a->second != b->second) return true;
    ++a;
    ++b;
  }
}

std::string GenerateNamePrefix(const Service& service) {
  // "<service>-" is a valid DNS-subdomain prefix for every valid Service name (≤ 63 chars);
  // upstream falls back to "<service>" only past 253 characters.
  std::string prefix = service.metadata.name + "-";
  if (prefix.size() > 253) return service.metadata.name;
  return prefix;
}

EndpointSlice NewSlice(const Service& service, std::vector<EndpointPort> ports,
                       std::string_view address_type) {
  EndpointSlice slice;
  slice.kind = "EndpointSlice";
  slice.api_version = "discovery.k8s.io/v1";
  slice.metadata.rest->generate_name = GenerateNamePrefix(service);
  slice.metadata.namespace_ = service.metadata.namespace_;
  slice.metadata.labels = SliceLabels(service);
  slice.metadata.owner_references.push_back(ServiceOwnerReference(service));
  slice.address_type = std::string(address_type);
  slice.ports = std::move(ports);
  return slice;
}

bool PlaceholderEqual(const EndpointSlice& a, const EndpointSlice& b) {
  return a.metadata.namespace_ == b.metadata.namespace_ && a.metadata.labels == b.metadata.labels &&
         a.address_type == b.address_type && a.endpoints == b.endpoints && a.ports == b.ports;
}

std::string FormatRFC3339Nano(int64_t unix_nanos) {
  int64_t secs = unix_nanos / 1000000000;
  int64_t frac = unix_nanos % 1000000000;
  if (frac < 0) {
    frac += 1000000000;
    --secs;
  }
  std::string base = api::meta::FormatRFC3339(secs);  // "...Z"
  if (frac == 0) return base;
  char buf[16];
  std::snprintf(buf, sizeof(buf), ".%09lld", static_cast<long long>(frac));
  std::string f = buf;
  while (f.back() == '0') f.pop_back();
  base.insert(base.size() - 1, f);
  return base;
}

bool TopologyHintsEnabled(const Service& service) {
  const auto& ann = service.metadata.annotations;
  auto it = ann.find(kDeprecatedTopologyAnnotation);
  if (it == ann.end()) it = ann.find(kTopologyModeAnnotation);
  if (it == ann.end()) return false;
  return it->second == "Auto" || it->second == "auto";
}

bool TrafficDistributionUsable(const Service& service) {
  if (TopologyHintsEnabled(service)) return false;
  const auto& td = service.spec.traffic_distribution;
  return td && (*td == "PreferClose" || *td == "PreferSameZone" || *td == "PreferSameNode");
}

std::vector<std::shared_ptr<const EndpointSlice>> SlicesForService(
    const Service& service, const std::vector<std::shared_ptr<const EndpointSlice>>& all) {
  std::vector<std::shared_ptr<const EndpointSlice>> out;
  for (const auto& s : all) {
    if (s->metadata.namespace_ != service.metadata.namespace_) continue;
    if (LabelValue(s->metadata.labels, kServiceNameLabel) != service.metadata.name) continue;
    if (!ManagedByUs(*s)) continue;
    if (s->metadata.deletion_timestamp) continue;
    out.push_back(s);
  }
  return out;
}

std::string ServiceKeyForSlice(const EndpointSlice& slice) {
  auto name = LabelValue(slice.metadata.labels, kServiceNameLabel);
  if (name.empty()) return {};
  return slice.metadata.namespace_ + "/" + std::string(name);
}

std::vector<std::string> ServicesToSyncForSliceChange(const EndpointSlice* old_slice,
                                                      const EndpointSlice& new_slice,
                                                      bool tracker_should_sync) {
  std::vector<std::string> out;
  auto push = [&](const EndpointSlice& s) {
    std::string key = ServiceKeyForSlice(s);
    if (!key.empty() && std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  };
  if (old_slice == nullptr) {
    if (ManagedByUs(new_slice) && tracker_should_sync) push(new_slice);
    return out;
  }
  if (LabelValue(old_slice->metadata.labels, kServiceNameLabel) !=
      LabelValue(new_slice.metadata.labels, kServiceNameLabel)) {
    push(new_slice);
    push(*old_slice);
    return out;
  }
  bool managed_changed = ManagedByUs(*old_slice) != ManagedByUs(new_slice);
  if (managed_changed || (ManagedByUs(new_slice) && tracker_should_sync)) push(new_slice);
  return out;
}

}  // namespace svcplane::controllers::endpointslice
