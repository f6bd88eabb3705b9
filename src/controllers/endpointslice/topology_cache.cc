#include "controllers/endpointslice/topology_cache.h"

#include <cmath>
#include <optional>

#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {
namespace {

using api::discovery::v1::Endpoint;
using api::discovery::v1::EndpointHints;
using api::discovery::v1::EndpointSlice;
using api::discovery::v1::ForNode;
using api::discovery::v1::ForZone;

constexpr std::string_view kReasonDisabled = "TopologyAwareHintsDisabled";
constexpr std::string_view kReasonEnabled = "TopologyAwareHintsEnabled";

std::string WithAddressType(std::string_view message, std::string_view address_type) {
  return std::string(message) + ", addressType: " + std::string(address_type);
}

bool SliceHasHints(const EndpointSlice& slice) {
  for (const auto& ep : slice.endpoints) {
    if (ep.hints) return true;
  }
  return false;
}

void ClearHints(EndpointSlice& slice) {
  for (auto& ep : slice.endpoints) ep.hints.reset();
}

bool NodeReady(const api::core::v1::Node& node) {
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") return c.status == "True";
  }
  return false;
}

EndpointHints ZoneHint(const std::string& zone) {
  EndpointHints h;
  h.for_zones.push_back(ForZone{zone, {}});
  return h;
}

// The key with the largest value; ties go to the smallest key (upstream picks by map order).
std::pair<std::string, double> Most(const std::map<std::string, double>& m) {
  std::pair<std::string, double> best{"", 0};
  for (const auto& [k, v] : m) {
    if (best.first.empty() || v > best.second) best = {k, v};
  }
  return best;
}

std::optional<EndpointHints> TrafficHint(const Endpoint& ep, bool same_node) {
  EndpointHints h;
  if (ep.zone && !ep.zone->empty()) h.for_zones.push_back(ForZone{*ep.zone, {}});
  if (same_node && ep.node_name && !ep.node_name->empty()) {
    h.for_nodes.push_back(ForNode{*ep.node_name, {}});
  }
  if (h.for_zones.empty() && h.for_nodes.empty()) return std::nullopt;
  return h;
}

}  // namespace

bool EndpointReady(const Endpoint& endpoint) {
  return endpoint.conditions.ready.has_value() && *endpoint.conditions.ready;
}

void RemoveHintsFromSlices(SliceInfo& info) {
  for (auto& s : info.to_create) ClearHints(s);
  for (auto& s : info.to_update) ClearHints(s);
  std::vector<std::shared_ptr<const EndpointSlice>> keep;
  keep.reserve(info.unchanged.size());
  for (auto& s : info.unchanged) {
    if (SliceHasHints(*s)) {
      EndpointSlice copy = *s;
      ClearHints(copy);
      info.to_update.push_back(std::move(copy));
    } else {
      keep.push_back(std::move(s));
    }
  }
  info.unchanged = std::move(keep);
}

void ReconcileTrafficDistributionHints(const std::string& traffic_distribution, SliceInfo& info) {
  const bool same_node = traffic_distribution == "PreferSameNode";
  auto needs_update = [&](const EndpointSlice& s) {
    for (const auto& ep : s.endpoints) {
      if (!EndpointReady(ep)) continue;
      auto want = TrafficHint(ep, same_node);
      if (want.has_value() != ep.hints.has_value()) return true;
      if (want &&
          (want->for_zones != ep.hints->for_zones || want->for_nodes != ep.hints->for_nodes)) {
        return true;
      }
    }
    return false;
  };
  std::vector<std::shared_ptr<const EndpointSlice>> keep;
  keep.reserve(info.unchanged.size());
  for (auto& s : info.unchanged) {
    if (needs_update(*s)) {
      info.to_update.push_back(*s);
    } else {
      keep.push_back(std::move(s));
    }
  }
  info.unchanged = std::move(keep);
  auto update = [&](EndpointSlice& s) {
    for (auto& ep : s.endpoints) {
      if (EndpointReady(ep)) ep.hints = TrafficHint(ep, same_node);
    }
  };
  for (auto& s : info.to_create) update(s);
  for (auto& s : info.to_update) update(s);
}

void TopologyCache::SetNodes(const std::vector<std::shared_ptr<const api::core::v1::Node>>& nodes) {
  std::map<std::string, int64_t> cpu_by_zone;
  bool sufficient = true;
  int64_t total = 0;
  for (const auto& node : nodes) {
    const auto& labels = node->metadata.labels;
    if (labels.count("node-role.kubernetes.io/control-plane") ||
        labels.count("node-role.kubernetes.io/master")) {
      continue;
    }
    if (!NodeReady(*node)) continue;
    auto zone = labels.find(kZoneLabel);
    auto cpu = node->status.allocatable.find("cpu");
    std::optional<int64_t> milli;
    if (cpu != node->status.allocatable.end()) milli = cpu->second.MilliValue();
    if (zone == labels.end() || zone->second.empty() || !milli || *milli <= 0) {
      sufficient = false;
      break;
    }
    cpu_by_zone[zone->second] += *milli;
    total += *milli;
  }
  std::lock_guard lock(mu_);
  cpu_ratios_.clear();
  sufficient_node_info_ = sufficient && cpu_by_zone.size() >= 2 && total > 0;
  if (!sufficient_node_info_) return;
  for (const auto& [zone, milli] : cpu_by_zone) {
    cpu_ratios_[zone] = static_cast<double>(milli) / static_cast<double>(total);
  }
}

std::optional<std::map<std::string, TopologyCache::Allocation>> TopologyCache::GetAllocations(
    int n, Event* event) const {
  event->type = "Warning";
  event->reason = std::string(kReasonDisabled);
  const int zones = static_cast<int>(cpu_ratios_.size());
  if (!sufficient_node_info_ || zones == 0) {
    event->message =
        "Insufficient Node information: allocatable CPU or zone not specified on one or more "
        "nodes";
    return std::nullopt;
  }
  if (zones < 2) {
    event->message = "Nodes only ready in one zone";
    return std::nullopt;
  }
  const std::string counts =
      " (" + std::to_string(n) + " endpoints, " + std::to_string(zones) + " zones)";
  if (zones > n) {
    event->message = "Insufficient number of endpoints" + counts;
    return std::nullopt;
  }
  std::map<std::string, Allocation> out;
  int min_total = 0;
  for (const auto& [zone, ratio] : cpu_ratios_) {
    double desired = ratio * n;
    int minimum = static_cast<int>(std::ceil(desired * (1.0 / (1.0 + kOverloadThreshold))));
    out[zone] = Allocation{minimum, 0, std::max(desired, static_cast<double>(minimum))};
    min_total += minimum;
    if (min_total > n) {
      event->message =
          "Unable to allocate minimum required endpoints to each zone without exceeding "
          "overload threshold" +
          counts;
      return std::nullopt;
    }
  }
  for (auto& [zone, a] : out) a.maximum = a.minimum + n - min_total;
  return out;
}

std::vector<Event> TopologyCache::AddHints(SliceInfo& info) {
  std::lock_guard lock(mu_);
  std::vector<Event> events;
  auto fail = [&](Event e) {
    e.message = WithAddressType(e.message, info.address_type);
    events.push_back(std::move(e));
    auto svc = endpoints_by_service_.find(info.service_key);
    if (svc != endpoints_by_service_.end()) {
      svc->second.erase(info.address_type);
      if (svc->second.empty()) endpoints_by_service_.erase(svc);
    }
    hints_populated_.erase(info.service_key);
    RemoveHintsFromSlices(info);
    return events;
  };

  int total_ready = 0;
  auto count_ready = [&](const EndpointSlice& s) {
    for (const auto& ep : s.endpoints) total_ready += EndpointReady(ep) ? 1 : 0;
  };
  for (const auto& s : info.to_create) count_ready(s);
  for (const auto& s : info.to_update) count_ready(s);
  for (const auto& s : info.unchanged) count_ready(*s);

  Event event;
  auto allocations = GetAllocations(total_ready, &event);
  if (!allocations) return fail(std::move(event));

  // Step 1: unchanged slices keep their hints if those still fit the allocation.
  std::map<std::string, int> allocated;
  std::vector<std::shared_ptr<const EndpointSlice>> keep;
  for (auto& s : info.unchanged) {
    std::map<std::string, int> by_zone;
    bool ok = true;
    for (const auto& ep : s->endpoints) {
      if (!EndpointReady(ep)) continue;
      if (!ep.hints || ep.hints->for_zones.empty()) {
        ok = false;
        break;
      }
      for (const auto& z : ep.hints->for_zones) {
        if (!allocations->count(z.name)) {
          ok = false;
          break;
        }
        ++by_zone[z.name];
      }
      if (!ok) break;
    }
    if (ok) {
      for (const auto& [zone, n] : by_zone) {
        if (n + allocated[zone] > (*allocations)[zone].maximum) ok = false;
      }
    }
    if (ok) {
      for (const auto& [zone, n] : by_zone) allocated[zone] += n;
      keep.push_back(std::move(s));
    } else {
      info.to_update.push_back(*s);
    }
  }
  info.unchanged = std::move(keep);

  // Step 2: every ready endpoint being written starts with a hint for its own zone.
  std::vector<EndpointSlice*> writable;
  for (auto& s : info.to_create) writable.push_back(&s);
  for (auto& s : info.to_update) writable.push_back(&s);
  for (EndpointSlice* s : writable) {
    for (auto& ep : s->endpoints) {
      if (!EndpointReady(ep)) {
        ep.hints.reset();
        continue;
      }
      if (!ep.zone || ep.zone->empty()) {
        return fail(Event{"Warning", std::string(kReasonDisabled),
                          "One or more endpoints do not have a zone specified"});
      }
      ++allocated[*ep.zone];
      ep.hints = ZoneHint(*ep.zone);
    }
  }

  // Step 3: which zones hold more than their share and which hold less, in whole endpoints.
  std::map<std::string, double> giving_desired, receiving_desired;
  for (const auto& [zone, a] : *allocations) {
    double have = allocated.count(zone) ? allocated[zone] : 0;
    if (have > a.desired) giving_desired[zone] = have - a.desired;
    if (have < a.desired) receiving_desired[zone] = a.desired - have;
  }
  std::map<std::string, int> giving, receiving;
  while (true) {
    auto [gz, give] = Most(giving_desired);
    auto [rz, recv] = Most(receiving_desired);
    if (gz.empty() || rz.empty() || (give < 1.0 && recv < 1.0) || give < 0.5 || recv < 0.5) break;
    ++giving[gz];
    giving_desired[gz] -= 1;
    ++receiving[rz];
    receiving_desired[rz] -= 1;
  }

  // Step 4: re-point endpoints of giving zones at receiving zones, in to_create/to_update order.
  for (EndpointSlice* s : writable) {
    for (auto& ep : s->endpoints) {
      if (giving.empty() || receiving.empty()) break;
      if (!EndpointReady(ep) || !ep.zone || ep.zone->empty()) continue;
      auto g = giving.find(*ep.zone);
      if (g == giving.end()) continue;
      auto r = receiving.begin();
      ep.hints = ZoneHint(r->first);
      --allocated[g->first];
      ++allocated[r->first];
      if (--g->second == 0) giving.erase(g);
      if (--r->second == 0) receiving.erase(r);
    }
  }

  if (allocated.empty()) {
    return fail(Event{"Warning", std::string(kReasonDisabled), "No hints allocated for zones"});
  }
  const bool was_enabled = hints_populated_.count(info.service_key) > 0;
  endpoints_by_service_[info.service_key][info.address_type] = std::move(allocated);
  hints_populated_.insert(info.service_key);
  if (!was_enabled) {
    events.push_back(
        Event{"Normal", std::string(kReasonEnabled),
              WithAddressType("Topology Aware Hints has been enabled", info.address_type)});
  }
  return events;
}

void TopologyCache::SetHints(const std::string& service_key, const std::string& address_type,
                             ZoneCounts counts) {
  std::lock_guard lock(mu_);
  endpoints_by_service_[service_key][address_type] = std::move(counts);
  hints_populated_.insert(service_key);
}

void TopologyCache::RemoveHints(const std::string& service_key, const std::string& address_type) {
  std::lock_guard lock(mu_);
  auto svc = endpoints_by_service_.find(service_key);
  if (svc != endpoints_by_service_.end()) {
    svc->second.erase(address_type);
    if (svc->second.empty()) endpoints_by_service_.erase(svc);
  }
  hints_populated_.erase(service_key);
}

bool TopologyCache::HasPopulatedHints(const std::string& service_key) const {
  std::lock_guard lock(mu_);
  return hints_populated_.count(service_key) > 0;
}

std::vector<std::string> TopologyCache::GetOverloadedServices() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [svc, by_type] : endpoints_by_service_) {
    bool overloaded = false;
    for (const auto& [type, counts] : by_type) {
      if (counts.empty()) continue;
      if (cpu_ratios_.empty()) {
        overloaded = true;
        break;
      }
      double total = 0;
      for (const auto& [zone, n] : counts) total += n;
      for (const auto& [zone, ratio] : cpu_ratios_) {
        auto it = counts.find(zone);
        if (it == counts.end() ||
            it->second < std::ceil(total * ratio * (1.0 / (1.0 + kOverloadThreshold)))) {
          overloaded = true;
          break;
        }
      }
      if (overloaded) break;
    }
    if (overloaded) out.push_back(svc);
  }
  return out;
}

std::map<std::string, double> TopologyCache::CpuRatiosForTest() const {
  std::lock_guard lock(mu_);
  return cpu_ratios_;
}

bool TopologyCache::SufficientNodeInfoForTest() const {
  std::lock_guard lock(mu_);
  return sufficient_node_info_;
}

TopologyCache::ZoneCounts TopologyCache::HintsForTest(const std::string& service_key,
                                                      const std::string& address_type) const {
  std::lock_guard lock(mu_);
  auto svc = endpoints_by_service_.find(service_key);
  if (svc == endpoints_by_service_.end()) return {};
  auto t = svc->second.find(address_type);
  return t == svc->second.end() ? ZoneCounts{} : t->second;
}

}  // namespace svcplane::controllers::endpointslice
