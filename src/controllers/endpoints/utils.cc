#include "controllers/endpoints/utils.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpoints {
namespace {

// Address identity in RepackSubsets: (ip, targetRef uid). Ordering the map by this key also
// gives the canonical address order (ip bytewise, a nil/empty uid first, then uid).
using AddrKey = std::pair<std::string, std::string>;
// (sentinel first, name, port, protocol, appProtocol): the canonical port order.
using PortKey = std::tuple<bool, std::string, int32_t, std::string, std::optional<std::string>>;

AddrKey KeyOf(const EndpointAddress& a) {
  return {a.ip, a.target_ref ? a.target_ref->uid : std::string()};
}

PortKey KeyOf(const EndpointPort& p) { return {false, p.name, p.port, p.protocol, p.app_protocol}; }

const PortKey kSentinel{true, "", -1, "", std::nullopt};

EndpointPort PortOf(const PortKey& k) {
  EndpointPort p;
  p.name = std::get<1>(k);
  p.port = std::get<2>(k);
  p.protocol = std::get<3>(k);
  p.app_protocol = std::get<4>(k);
  return p;
}

// A rendering of everything compared in §8.2 (all fields but targetRef.resourceVersion).
std::string Signature(const EndpointAddress& a) {
  std::string s = a.ip + '\x1f' + a.hostname + '\x1f';
  s += a.node_name ? "1" + *a.node_name : "0";
  s += '\x1f';
  if (a.target_ref) {
    const auto& r = *a.target_ref;
    s += "1" + r.kind + '\x1e' + r.namespace_ + '\x1e' + r.name + '\x1e' + r.uid + '\x1e' +
         r.api_version + '\x1e' + r.field_path;
  } else {
    s += "0";
  }
  return s;
}

std::string Signature(const EndpointPort& p) {
  std::string s = p.name + '\x1f' + std::to_string(p.port) + '\x1f' + p.protocol + '\x1f';
  s += p.app_protocol ? "1" + *p.app_protocol : "0";
  return s;
}

template <typename T>
std::string SortedSignatures(const std::vector<T>& items) {
  std::vector<std::string> sigs;
  sigs.reserve(items.size());
  for (const auto& i : items) sigs.push_back(Signature(i));
  std::sort(sigs.begin(), sigs.end());
  std::string out;
  for (const auto& s : sigs) {
    out += s;
    out += '\x1d';
  }
  return out;
}

std::vector<std::string> SubsetSignatures(const std::vector<EndpointSubset>& subsets) {
  std::vector<std::string> out;
  out.reserve(subsets.size());
  for (const auto& s : subsets) {
    out.push_back(SortedSignatures(s.addresses) + '\x1c' + SortedSignatures(s.not_ready_addresses) +
                  '\x1c' + SortedSignatures(s.ports));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Keeps, per subset, min(ceil(count / total * budget), remaining) entries of `list`.
void TruncateKind(std::vector<EndpointSubset>* subsets,
                  std::vector<EndpointAddress> EndpointSubset::*list, int budget) {
  int total = 0;
  for (const auto& s : *subsets) total += static_cast<int>((s.*list).size());
  int remaining = budget;
  for (auto& s : *subsets) {
    auto& addrs = s.*list;
    const int count = static_cast<int>(addrs.size());
    const int share = static_cast<int>(
        std::ceil(static_cast<double>(count) / static_cast<double>(total) * budget));
    const int keep = std::max(0, std::min({share, remaining, count}));
    addrs.resize(keep);
    remaining -= keep;
  }
}

}  // namespace

std::vector<EndpointSubset> RepackSubsets(const std::vector<EndpointSubset>& subsets) {
  std::map<AddrKey, const EndpointAddress*> all_addrs;  // first occurrence wins
  std::map<PortKey, std::map<AddrKey, bool>> ready_by_port;
  auto map_address = [&](const EndpointAddress& a, const PortKey& port, bool ready) {
    AddrKey key = KeyOf(a);
    all_addrs.emplace(key, &a);
    auto [it, inserted] = ready_by_port[port].emplace(std::move(key), ready);
    if (!inserted && it->second) it->second = ready;  // not ready wins
  };
  for (const auto& subset : subsets) {
    std::vector<PortKey> ports;
    if (subset.ports.empty()) {
      ports.push_back(kSentinel);
    } else {
      for (const auto& p : subset.ports) ports.push_back(KeyOf(p));
    }
    for (const auto& port : ports) {
      for (const auto& a : subset.addresses) map_address(a, port, true);
      for (const auto& a : subset.not_ready_addresses) map_address(a, port, false);
    }
  }

  // Ports with identical (address, readiness) sets share a subset. ready_by_port iterates ports
  // in canonical order, so each group's port list comes out sorted.
  std::map<std::map<AddrKey, bool>, std::vector<PortKey>> groups;
  for (const auto& [port, addrs] : ready_by_port) groups[addrs].push_back(port);

  std::vector<std::pair<PortKey, EndpointSubset>> out;
  out.reserve(groups.size());
  for (const auto& [addrs, ports] : groups) {
    EndpointSubset subset;
    for (const auto& [key, ready] : addrs) {
      EndpointAddress a = *all_addrs.at(key);
      (ready ? subset.addresses : subset.not_ready_addresses).push_back(std::move(a));
    }
    for (const auto& p : ports) {
      if (p != kSentinel) subset.ports.push_back(PortOf(p));
    }
    out.emplace_back(ports.front(), std::move(subset));
  }
  // Each port belongs to exactly one group, so the first ports are distinct: a total order.
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<EndpointSubset> result;
  result.reserve(out.size());
  for (auto& [key, subset] : out) result.push_back(std::move(subset));
  return result;
}

bool SubsetsEqualIgnoreResourceVersion(const std::vector<EndpointSubset>& a,
                                       const std::vector<EndpointSubset>& b) {
  if (a.size() != b.size()) return false;
  return SubsetSignatures(a) == SubsetSignatures(b);
}

int CountAddresses(const std::vector<EndpointSubset>& subsets) {
  int n = 0;
  for (const auto& s : subsets) {
    n += static_cast<int>(s.addresses.size() + s.not_ready_addresses.size());
  }
  return n;
}

bool TruncateSubsets(std::vector<EndpointSubset>* subsets, int max) {
  int ready = 0, not_ready = 0;
  for (const auto& s : *subsets) {
    ready += static_cast<int>(s.addresses.size());
    not_ready += static_cast<int>(s.not_ready_addresses.size());
  }
  if (ready + not_ready <= max) return false;
  if (ready > max) {
    for (auto& s : *subsets) s.not_ready_addresses.clear();
    TruncateKind(subsets, &EndpointSubset::addresses, max);
  } else {
    TruncateKind(subsets, &EndpointSubset::not_ready_addresses, max - ready);
  }
  return true;
}

bool ShouldPodBeInEndpoints(const Pod& pod, bool include_terminating) {
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") return false;
  if (pod.status.pod_ip.empty() && pod.status.pod_ips.empty()) return false;
  if (!include_terminating && pod.metadata.deletion_timestamp.has_value()) return false;
  return true;
}

std::optional<EndpointAddress> PodToEndpointAddress(const Pod& pod, const Service& service) {
  using endpointslice::AddressFamily;
  using endpointslice::kAddressTypeIPv6;
  bool want_v6 = false;
  if (!service.spec.ip_families.empty()) {
    want_v6 = service.spec.ip_families[0] == kAddressTypeIPv6;
  } else if (!service.spec.cluster_ip.empty() && service.spec.cluster_ip != "None") {
    want_v6 = AddressFamily(service.spec.cluster_ip, nullptr) == kAddressTypeIPv6;
  } else {
    want_v6 = AddressFamily(pod.status.pod_ip, nullptr) == kAddressTypeIPv6;
  }
  std::string canonical;
  std::optional<std::string> ip;
  auto consider = [&](const std::string& candidate) {
    auto family = AddressFamily(candidate, &canonical);
    if (family && (*family == kAddressTypeIPv6) == want_v6) ip = canonical;
  };
  if (!pod.status.pod_ips.empty()) {
    for (const auto& p : pod.status.pod_ips) {
      consider(p.ip);
      if (ip) break;
    }
  } else {
    // Objects written without podIPs (the apiserver fills it from podIP) still count.
    consider(pod.status.pod_ip);
  }
  if (!ip) return std::nullopt;

  EndpointAddress a;
  a.ip = std::move(*ip);
  a.node_name = pod.spec.node_name;  // always set, even to "" (the Endpoints API's habit)
  api::meta::ObjectReference ref;
  ref.kind = "Pod";
  ref.namespace_ = pod.metadata.namespace_;
  ref.name = pod.metadata.name;
  ref.uid = pod.metadata.uid;
  a.target_ref = std::move(ref);
  if (!pod.spec.hostname.empty() && pod.spec.subdomain == service.metadata.name &&
      pod.metadata.namespace_ == service.metadata.namespace_) {
    a.hostname = pod.spec.hostname;
  }
  return a;
}

bool SelectorMatches(const api::meta::StringMap& selector, const api::meta::StringMap& labels) {
  for (const auto& [k, v] : selector) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

}  // namespace svcplane::controllers::endpoints
