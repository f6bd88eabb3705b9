#include "controllers/endpointslice/internal/service_state.h"

#include <algorithm>

namespace svcplane::controllers::endpointslice::internal {

bool SameEndpointInputs(const Service& a, const Service& b) {
  return a.metadata.name == b.metadata.name && a.metadata.namespace_ == b.metadata.namespace_ &&
         a.metadata.uid == b.metadata.uid && a.metadata.labels == b.metadata.labels &&
         a.spec.ports == b.spec.ports &&
         a.spec.publish_not_ready_addresses == b.spec.publish_not_ready_addresses &&
         a.spec.ip_families == b.spec.ip_families && a.spec.cluster_ip == b.spec.cluster_ip;
}

bool SliceHasHints(const EndpointSlice& s) {
  for (const auto& ep : s.endpoints) {
    if (ep.hints) return true;
  }
  return false;
}

EndpointSlice CopyWithoutEndpoints(const EndpointSlice& s) {
  EndpointSlice c;
  c.kind = s.kind;
  c.api_version = s.api_version;
  c.metadata = s.metadata;
  c.address_type = s.address_type;
  c.ports = s.ports;
  c.unknown = s.unknown;
  return c;
}

std::string ServiceKey(const Service& s) { return s.metadata.namespace_ + "/" + s.metadata.name; }

namespace {

std::string NodeZone(const Node& node) {
  auto it = node.metadata.labels.find(kZoneLabel);
  return it == node.metadata.labels.end() ? std::string() : it->second;
}

class StateUpdater {
 public:
  using State = ServiceState;
  StateUpdater(State& st, const Service& service) : st_(st), service_(service) {}

  // Returns false when the state cannot be reused and was reset.
  void Reset(const std::shared_ptr<const Service>& service) {
    st_.service = service;
    st_.families.clear();
    for (const auto& t : SupportedAddressTypes(*service)) {
      st_.families.emplace_back();
      st_.families.back().address_type = t;
    }
    st_.pod_ptrs.clear();
    st_.pod_memo.clear();
    st_.memo_pool.clear();
    st_.free_memos.clear();
    st_.memos_with_errors.clear();
  }

  void UpdatePods(const std::vector<std::shared_ptr<const Pod>>& pods) {
    // Only the window between the common prefix and the common suffix can differ. Inside it,
    // align old and new tolerating small shifts, then match the rest by identity (reordered
    // pods are not changes). Alignment only saves hashing; correctness comes from identity.
    const size_t n_old = st_.pod_ptrs.size(), n_new = pods.size();
    const size_t common = std::min(n_old, n_new);
    size_t pre = 0;
    while (pre < common && st_.pod_ptrs[pre] == pods[pre].get()) ++pre;
    if (pre == n_old && pre == n_new) return;
    size_t suf = 0;
    while (suf < common - pre && st_.pod_ptrs[n_old - 1 - suf] == pods[n_new - 1 - suf].get()) {
      ++suf;
    }
    const size_t old_end = n_old - suf, new_end = n_new - suf;
    std::vector<uint32_t> win_memo(new_end - pre, kNone);  // memo of new[pre + k]
    std::vector<size_t> added;                             // indices into pods
    std::unordered_map<const Pod*, uint32_t> removed;      // pod -> memo
    size_t i = pre, j = pre;
    constexpr size_t kLookahead = 8;
    while (i < old_end && j < new_end) {
      if (st_.pod_ptrs[i] == pods[j].get()) {
        win_memo[j++ - pre] = st_.pod_memo[i++];
        continue;
      }
      size_t d = 1;
      for (; d <= kLookahead && i + d < old_end; ++d) {
        if (st_.pod_ptrs[i + d] == pods[j].get()) break;
      }
      if (d <= kLookahead && i + d < old_end) {  // old[i..i+d) were removed
        for (size_t k = 0; k < d; ++k) removed.emplace(st_.pod_ptrs[i + k], st_.pod_memo[i + k]);
        i += d;
        continue;
      }
      for (d = 1; d <= kLookahead && j + d < new_end; ++d) {
        if (pods[j + d].get() == st_.pod_ptrs[i]) break;
      }
      if (d <= kLookahead && j + d < new_end) {  // new[j..j+d) were added
        for (size_t k = 0; k < d; ++k) added.push_back(j + k);
        j += d;
        continue;
      }
      removed.emplace(st_.pod_ptrs[i], st_.pod_memo[i]);
      added.push_back(j);
      ++i;
      ++j;
    }
    for (; i < old_end; ++i) removed.emplace(st_.pod_ptrs[i], st_.pod_memo[i]);
    for (; j < new_end; ++j) added.push_back(j);

    std::vector<size_t> really_added;
    for (size_t k : added) {
      auto it = removed.find(pods[k].get());
      if (it != removed.end()) {
        win_memo[k - pre] = it->second;
        removed.erase(it);
      } else {
        really_added.push_back(k);
      }
    }
    for (const auto& [ptr, memo] : removed) DropMemo(memo);
    for (size_t k : really_added) win_memo[k - pre] = AddMemo(pods[k]);

    // Splice the window into the aligned vectors (a memmove when its length changed).
    auto& ptrs = st_.pod_ptrs;
    auto& memo = st_.pod_memo;
    const auto old_len = static_cast<std::ptrdiff_t>(old_end - pre);
    const auto new_len = static_cast<std::ptrdiff_t>(new_end - pre);
    const auto at = static_cast<std::ptrdiff_t>(pre);
    if (new_len < old_len) {
      ptrs.erase(ptrs.begin() + at + new_len, ptrs.begin() + at + old_len);
      memo.erase(memo.begin() + at + new_len, memo.begin() + at + old_len);
    } else if (new_len > old_len) {
      ptrs.insert(ptrs.begin() + at + old_len, static_cast<size_t>(new_len - old_len), nullptr);
      memo.insert(memo.begin() + at + old_len, static_cast<size_t>(new_len - old_len), kNone);
    }
    for (size_t k = pre; k < new_end; ++k) {
      ptrs[k] = pods[k].get();
      memo[k] = win_memo[k - pre];
    }
  }

  static void UpdateSlices(FamilyState& fs, const std::vector<SlicePtr>& owned, uint64_t epoch) {
    for (const auto& s : owned) {
      auto [it, inserted] = fs.slices.try_emplace(s.get());
      SliceRec& rec = it->second;
      rec.epoch = epoch;
      if (!inserted) continue;
      rec.obj = s;
      static const std::vector<EndpointPort> kNoPorts;
      rec.group = PortMapKey(s->ports ? *s->ports : kNoPorts);
      rec.has_hints = SliceHasHints(*s);
      rec.keys.reserve(s->endpoints.size());
      for (const auto& ep : s->endpoints) {
        rec.keys.push_back(EndpointKey(ep));
        const Key& k = rec.keys.back();
        auto [loc, fresh] = fs.location.try_emplace(k, s.get());
        if (!fresh) {
          if (loc->second == s.get()) {
            rec.self_duplicate = true;
          } else {
            fs.extra.emplace(k, s.get());
          }
        }
        fs.MarkChanged(k);
      }
    }
    for (auto it = fs.slices.begin(); it != fs.slices.end();) {
      if (it->second.epoch == epoch) {
        ++it;
        continue;
      }
      Unindex(fs, it->second);
      it = fs.slices.erase(it);
    }
  }

 private:
  static constexpr uint32_t kNone = ~0u;

  static void Unindex(FamilyState& fs, const SliceRec& rec) {
    const EndpointSlice* s = rec.obj.get();
    for (const Key& k : rec.keys) {
      fs.MarkChanged(k);
      auto loc = fs.location.find(k);
      if (loc != fs.location.end() && loc->second == s) {
        auto other = fs.extra.find(k);
        if (other != fs.extra.end()) {
          loc->second = other->second;
          fs.extra.erase(other);
        } else {
          fs.location.erase(loc);
        }
        continue;
      }
      auto range = fs.extra.equal_range(k);
      for (auto e = range.first; e != range.second; ++e) {
        if (e->second == s) {
          fs.extra.erase(e);
          break;
        }
      }
    }
  }

  uint32_t AddMemo(const std::shared_ptr<const Pod>& pod) {
    uint32_t idx;
    if (!st_.free_memos.empty()) {
      idx = st_.free_memos.back();
      st_.free_memos.pop_back();
    } else {
      idx = static_cast<uint32_t>(st_.memo_pool.size());
      st_.memo_pool.emplace_back();
    }
    PodMemo& m = st_.memo_pool[idx];
    m.pod = pod;
    m.keys.assign(st_.families.size(), Key());
    m.error.clear();
    if (!ShouldIncludePod(*pod)) return idx;
    std::string_view zone;
    const std::string& node_name = pod->spec.node_name;
    auto node = st_.zones->find(node_name);
    if (node == st_.zones->end()) {
      if (!service_.spec.publish_not_ready_addresses) {
        m.error = "skipping Pod " + pod->metadata.name + " for Service " + ServiceKey(service_) +
                  ": Node " + node_name + " Not Found";
        st_.memos_with_errors.insert(idx);
        return idx;
      }
    } else {
      zone = node->second;
    }
    std::vector<EndpointPort> ports;
    bool ports_done = false;
    uint64_t group = 0;
    for (size_t f = 0; f < st_.families.size(); ++f) {
      FamilyState& fs = st_.families[f];
      auto ep = PodToEndpoint(*pod, service_, fs.address_type, node_name, zone);
      if (!ep) continue;
      if (!ports_done) {
        ports = EndpointPortsForPod(service_, *pod);
        group = PortMapKey(ports);
        ports_done = true;
      }
      Key key = EndpointKey(*ep);
      auto [it, inserted] = fs.desired.try_emplace(key);
      if (!inserted) {  // two pods with one identity: the last one wins
        auto old = fs.groups.find(it->second.group);
        if (old != fs.groups.end() && --old->second.count == 0) fs.groups.erase(old);
      }
      it->second = DesiredEndpoint{std::move(*ep), group, pod.get()};
      Group& g = fs.groups[group];
      if (g.count++ == 0) g.ports = ports;
      fs.MarkChanged(key);
      m.keys[f] = std::move(key);
    }
    return idx;
  }

  void DropMemo(uint32_t idx) {
    PodMemo& m = st_.memo_pool[idx];
    for (size_t f = 0; f < m.keys.size(); ++f) {
      if (m.keys[f].empty()) continue;
      FamilyState& fs = st_.families[f];
      auto it = fs.desired.find(m.keys[f]);
      if (it != fs.desired.end() && it->second.owner == m.pod.get()) {
        auto g = fs.groups.find(it->second.group);
        if (--g->second.count == 0) fs.groups.erase(g);
        fs.desired.erase(it);
      }
      fs.MarkChanged(m.keys[f]);
    }
    st_.memos_with_errors.erase(idx);
    m.pod.reset();
    m.keys.clear();
    m.error.clear();
    st_.free_memos.push_back(idx);
  }

  State& st_;
  const Service& service_;
};

}  // namespace

void ResetState(ServiceState& st, const std::shared_ptr<const Service>& service) {
  StateUpdater(st, *service).Reset(service);
}

NodeZonesPtr NodeZoneCache::Get(const std::vector<std::shared_ptr<const Node>>& nodes) {
  std::lock_guard lock(mu_);
  if (nodes == nodes_) return zones_;  // the same objects
  nodes_ = nodes;
  NodeZones zones;
  for (const auto& n : nodes) zones[n->metadata.name] = NodeZone(*n);
  if (zones != *zones_) zones_ = std::make_shared<const NodeZones>(std::move(zones));
  return zones_;
}

bool UpdateNodes(ServiceState& st, const NodeZonesPtr& zones) {
  if (st.zones == zones) return false;
  const bool changed = *st.zones != *zones;
  st.zones = zones;
  return changed;
}

void UpdatePods(ServiceState& st, const Service& service,
                const std::vector<std::shared_ptr<const Pod>>& pods) {
  StateUpdater(st, service).UpdatePods(pods);
}

void UpdateSlices(FamilyState& fs, const std::vector<SlicePtr>& owned, uint64_t epoch) {
  StateUpdater::UpdateSlices(fs, owned, epoch);
}

}  // namespace svcplane::controllers::endpointslice::internal
