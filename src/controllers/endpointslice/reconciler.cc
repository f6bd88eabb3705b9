#include "controllers/endpointslice/reconciler.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice {
namespace {

using Key = std::string;
using SlicePtr = std::shared_ptr<const EndpointSlice>;

struct DesiredEndpoint {
  Endpoint endpoint;
  uint64_t group = 0;
  const Pod* owner = nullptr;
};

struct Group {
  std::vector<EndpointPort> ports;
  int count = 0;
};

// What we derived from one existing slice object.
struct SliceRec {
  SlicePtr obj;
  uint64_t group = 0;
  std::vector<Key> keys;  // EndpointKey of each endpoint, in order
  bool clean = false;     // unchanged at the last plan and nothing it holds changed since
  bool self_duplicate = false;
  bool has_hints = false;
  uint64_t epoch = 0;
};

// Everything remembered for one address type of one Service.
struct FamilyState {
  std::string address_type;
  std::unordered_map<Key, DesiredEndpoint> desired;
  std::unordered_map<uint64_t, Group> groups;                 // only groups with desired endpoints
  std::unordered_map<const EndpointSlice*, SliceRec> slices;  // owned slices of this type
  // The slice holding each key; a key held by several slices has the others in `extra`.
  std::unordered_map<Key, const EndpointSlice*> location;
  std::unordered_multimap<Key, const EndpointSlice*> extra;
  // Keys whose desired endpoint or holding slice changed since the last plan.
  std::vector<Key> changed;
  std::unordered_set<Key> changed_set;
  // Keys left over (placed in writes) at the last plan, not yet seen in a cached slice.
  std::vector<Key> suspects;

  void MarkChanged(const Key& k) {
    if (changed_set.insert(k).second) changed.push_back(k);
  }
  void ClearChanged() {
    changed.clear();
    // clear() zeroes every bucket; after a full build that is ~1 MB per sync. Drop them instead.
    if (changed_set.bucket_count() > 1024) {
      changed_set = std::unordered_set<Key>();
    } else {
      changed_set.clear();
    }
  }
};

struct PodMemo {
  std::shared_ptr<const Pod> pod;
  std::vector<Key> keys;  // per family; empty when the pod has no endpoint of that family
  std::string error;      // "skipping Pod ..." when its Node is missing
};

bool SameEndpointInputs(const Service& a, const Service& b) {
  return a.metadata.name == b.metadata.name && a.metadata.namespace_ == b.metadata.namespace_ &&
         a.metadata.uid == b.metadata.uid && a.metadata.labels == b.metadata.labels &&
         a.spec.ports == b.spec.ports &&
         a.spec.publish_not_ready_addresses == b.spec.publish_not_ready_addresses &&
         a.spec.ip_families == b.spec.ip_families && a.spec.cluster_ip == b.spec.cluster_ip;
}

std::string NodeZone(const Node& node) {
  auto it = node.metadata.labels.find(kZoneLabel);
  return it == node.metadata.labels.end() ? std::string() : it->second;
}

bool SliceHasHints(const EndpointSlice& s) {
  for (const auto& ep : s.endpoints) {
    if (ep.hints) return true;
  }
  return false;
}

void SetTriggerTime(EndpointSlice& slice, const std::optional<std::string>& trigger) {
  if (trigger) {
    slice.metadata.annotations[std::string(kTriggerTimeAnnotation)] = *trigger;
  } else {
    auto it = slice.metadata.annotations.find(kTriggerTimeAnnotation);
    if (it != slice.metadata.annotations.end()) slice.metadata.annotations.erase(it);
  }
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

}  // namespace

struct Reconciler::ServiceState {
  std::mutex mu;
  std::shared_ptr<const Service> service;
  std::vector<FamilyState> families;
  std::map<std::string, std::string, std::less<>> zone_by_node;
  std::vector<const Node*> node_ptrs;
  // The pods of the last plan, in the order given, with their memo index.
  std::vector<const Pod*> pod_ptrs;
  std::vector<uint32_t> pod_memo;
  std::vector<PodMemo> memo_pool;
  std::vector<uint32_t> free_memos;
  std::unordered_set<uint32_t> memos_with_errors;
  uint64_t epoch = 0;
};

namespace {

// One sync of one address type: the working lists of §5.2–5.3.
struct FamilyPlan {
  std::vector<EndpointSlice> to_create;
  std::vector<EndpointSlice> to_update;
  std::vector<const EndpointSlice*> to_update_orig;  // the cached slice each update replaces
  std::vector<SlicePtr> to_delete;
  std::vector<SliceRec*> unchanged;
  int added = 0;
  int removed = 0;
  int moves = 0;
};

class FamilyPlanner {
 public:
  FamilyPlanner(const Service& service, FamilyState& fs, const ReconcilerOptions& options)
      : service_(service), fs_(fs), options_(options), max_(options.max_endpoints_per_slice) {}

  FamilyPlan Run() {
    MarkDirty();
    Step1();
    CollectLeftovers();
    for (auto& [group, keys] : leftovers_) {
      for (const Key* k : keys) placed_.push_back(*k);
    }
    for (auto& [group, keys] : leftovers_) {
      plan_.added += static_cast<int>(keys.size());
      FillUpdates(group, keys);
      FillRest(group, keys);
    }
    if (options_.rebalance) Rebalance();
    return std::move(plan_);
  }

  // The keys placed into writes by Run(), to re-check at the next plan.
  std::vector<Key> TakePlaced() { return std::move(placed_); }

 private:
  void MarkDirty() {
    std::vector<SlicePtr> doomed;
    for (const Key& k : fs_.changed) {
      auto loc = fs_.location.find(k);
      if (loc != fs_.location.end()) fs_.slices.at(loc->second).clean = false;
    }
    for (const auto& [k, s] : fs_.extra) fs_.slices.at(s).clean = false;
    for (auto& [ptr, rec] : fs_.slices) {
      if (!fs_.groups.count(rec.group)) {
        // A port group nobody wants any more: nothing in it is kept.
        doomed.push_back(rec.obj);
        dirty_set_.insert(ptr);
        rec.clean = false;
        continue;
      }
      if (rec.self_duplicate) rec.clean = false;
      if (rec.clean) {
        plan_.unchanged.push_back(&rec);
      } else {
        dirty_.push_back(&rec);
        dirty_set_.insert(ptr);
      }
    }
    // Upstream walks slices in lister order; any fixed order will do, names make it stable.
    auto by_name = [](const SliceRec* a, const SliceRec* b) {
      return a->obj->metadata.name < b->obj->metadata.name;
    };
    std::sort(dirty_.begin(), dirty_.end(), by_name);
    std::sort(doomed.begin(), doomed.end(), [](const SlicePtr& a, const SlicePtr& b) {
      return a->metadata.name < b->metadata.name;
    });
    plan_.to_delete = std::move(doomed);
  }

  // §5.2 step 1, for the slices that may have changed.
  void Step1() {
    std::vector<SliceRec*> still_unchanged;
    for (SliceRec* rec : dirty_) {
      const EndpointSlice& s = *rec->obj;
      std::vector<Endpoint> kept;
      kept.reserve(s.endpoints.size());
      bool changed = false;
      for (size_t i = 0; i < s.endpoints.size(); ++i) {
        const Key& k = rec->keys[i];
        auto d = fs_.desired.find(k);
        auto loc = fs_.location.find(k);
        if (d == fs_.desired.end() || d->second.group != rec->group || loc == fs_.location.end() ||
            loc->second != &s || !claimed_.insert(k).second) {
          changed = true;
          ++plan_.removed;
          continue;
        }
        if (EndpointChangedBeyondKey(s.endpoints[i], d->second.endpoint)) changed = true;
        kept.push_back(d->second.endpoint);
      }
      if (changed && kept.empty()) {
        plan_.to_delete.push_back(rec->obj);
      } else if (changed) {
        EndpointSlice copy = CopyWithoutEndpoints(s);
        copy.endpoints = std::move(kept);
        copy.metadata.labels = SliceLabels(service_);
        AddUpdate(std::move(copy), &s);
      } else if (ServiceLabelsOutOfDate(s, service_)) {
        EndpointSlice copy = s;
        copy.metadata.labels = SliceLabels(service_);
        AddUpdate(std::move(copy), &s);
      } else {
        still_unchanged.push_back(rec);
      }
    }
    plan_.unchanged.insert(plan_.unchanged.end(), still_unchanged.begin(), still_unchanged.end());
  }

  void AddUpdate(EndpointSlice slice, const EndpointSlice* orig) {
    plan_.to_update.push_back(std::move(slice));
    plan_.to_update_orig.push_back(orig);
  }

  bool Kept(const Key& k) const {
    auto loc = fs_.location.find(k);
    if (loc == fs_.location.end()) return false;
    if (!dirty_set_.count(loc->second)) return true;  // clean slices keep all they hold
    return claimed_.count(k) > 0;
  }

  // The desired endpoints no slice kept, per group, in the order they became candidates.
  void CollectLeftovers() {
    std::unordered_set<std::string_view> seen;
    auto consider = [&](const Key& k) {
      if (!seen.insert(k).second) return;
      auto d = fs_.desired.find(k);
      if (d == fs_.desired.end() || Kept(k)) return;
      auto [it, inserted] = leftover_index_.try_emplace(d->second.group, leftovers_.size());
      if (inserted) leftovers_.emplace_back(d->second.group, std::vector<const Key*>{});
      leftovers_[it->second].second.push_back(&d->first);
    };
    for (const Key& k : fs_.changed) consider(k);
    for (const Key& k : fs_.suspects) consider(k);
  }

  // §5.2 step 2: top up the slices already being updated, fullest first.
  void FillUpdates(uint64_t group, std::vector<const Key*>& keys) {
    std::vector<size_t> idx;
    for (size_t i = 0; i < plan_.to_update.size(); ++i) {
      if (fs_.slices.at(plan_.to_update_orig[i]).group == group) idx.push_back(i);
    }
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return plan_.to_update[a].endpoints.size() > plan_.to_update[b].endpoints.size();
    });
    for (size_t i : idx) Fill(plan_.to_update[i], keys);
  }

  // §5.2 step 3: one unchanged slice that fits the rest exactly-or-best, else new slices.
  void FillRest(uint64_t group, std::vector<const Key*>& keys) {
    while (!keys.empty()) {
      SliceRec* best = nullptr;
      if (static_cast<int>(keys.size()) < max_) {
        // Ties go to the first slice found; sort once so that "first" is stable (by name).
        if (!unchanged_sorted_) {
          std::sort(plan_.unchanged.begin(), plan_.unchanged.end(),
                    [](const SliceRec* a, const SliceRec* b) {
                      return a->obj->metadata.name < b->obj->metadata.name;
                    });
          unchanged_sorted_ = true;
        }
        int closest = max_;
        for (SliceRec* rec : plan_.unchanged) {
          if (rec == nullptr || rec->group != group) continue;
          int diff = max_ - static_cast<int>(keys.size() + rec->obj->endpoints.size());
          if (diff >= 0 && diff < closest) {
            closest = diff;
            best = rec;
            if (diff == 0) break;
          }
        }
      }
      if (best != nullptr) {
        EndpointSlice copy = *best->obj;
        Fill(copy, keys);
        AddUpdate(std::move(copy), best->obj.get());
        std::replace(plan_.unchanged.begin(), plan_.unchanged.end(), best,
                     static_cast<SliceRec*>(nullptr));
      } else {
        EndpointSlice fresh = NewSlice(service_, fs_.groups.at(group).ports, fs_.address_type);
        Fill(fresh, keys);
        plan_.to_create.push_back(std::move(fresh));
      }
    }
    plan_.unchanged.erase(std::remove(plan_.unchanged.begin(), plan_.unchanged.end(), nullptr),
                          plan_.unchanged.end());
  }

  void Fill(EndpointSlice& slice, std::vector<const Key*>& keys) {
    while (!keys.empty() && static_cast<int>(slice.endpoints.size()) < max_) {
      slice.endpoints.push_back(fs_.desired.at(*keys.back()).endpoint);
      keys.pop_back();
    }
  }

  // Beyond upstream: drain the emptiest slices of a group into slices with room while the group
  // uses more than (1 + slack) × its minimum number of slices. A drained slice is deleted (or,
  // if it was to be created, never created). Writes already planned absorb moves for free;
  // pulling an unchanged slice in as a receiver, or deleting an unchanged slice, costs one extra
  // write each, and the extra writes are capped per sync.
  void Rebalance() {
    int budget = options_.rebalance_max_extra_writes;
    for (const auto& [group, info] : fs_.groups) {
      const int min_slices = std::max(1, (info.count + max_ - 1) / max_);
      const int target = std::max(
          min_slices,
          static_cast<int>(std::floor(min_slices * (1.0 + options_.rebalance_slack) + 1e-9)));
      while (budget > 0) {
        enum Kind { kCreate, kUpdate, kUnchanged };
        struct Bin {
          Kind kind;
          size_t index;  // into to_create / to_update / unchanged
          int size;
        };
        std::vector<Bin> bins;
        for (size_t i = 0; i < plan_.to_create.size(); ++i) {
          if (PortMapKey(*plan_.to_create[i].ports) == group) {
            bins.push_back({kCreate, i, static_cast<int>(plan_.to_create[i].endpoints.size())});
          }
        }
        for (size_t i = 0; i < plan_.to_update.size(); ++i) {
          if (fs_.slices.at(plan_.to_update_orig[i]).group == group) {
            bins.push_back({kUpdate, i, static_cast<int>(plan_.to_update[i].endpoints.size())});
          }
        }
        for (size_t i = 0; i < plan_.unchanged.size(); ++i) {
          if (plan_.unchanged[i]->group == group) {
            bins.push_back(
                {kUnchanged, i, static_cast<int>(plan_.unchanged[i]->obj->endpoints.size())});
          }
        }
        if (static_cast<int>(bins.size()) <= target) break;
        // Source: the emptiest slice, preferring one already being written on ties.
        std::stable_sort(bins.begin(), bins.end(), [](const Bin& a, const Bin& b) {
          return a.size != b.size ? a.size < b.size : a.kind < b.kind;
        });
        const Bin source = bins.front();
        // Receivers: slices being written first (free), then unchanged ones with most room.
        std::vector<Bin> receivers(bins.begin() + 1, bins.end());
        std::stable_sort(receivers.begin(), receivers.end(), [](const Bin& a, const Bin& b) {
          bool fa = a.kind != kUnchanged, fb = b.kind != kUnchanged;
          if (fa != fb) return fa;
          return a.size < b.size;
        });
        int need = source.size, cost = source.kind == kUnchanged ? 1 : 0;
        if (source.kind == kCreate) cost = -1;  // one create fewer
        std::vector<Bin> used;
        for (const Bin& r : receivers) {
          if (need <= 0) break;
          int room = max_ - r.size;
          if (room <= 0) continue;
          used.push_back(r);
          need -= room;
          if (r.kind == kUnchanged) ++cost;
        }
        if (need > 0 || cost > budget) break;
        budget -= std::max(cost, 0);
        MoveAll(source, used);
      }
    }
  }

  template <typename Bin>
  void MoveAll(const Bin& source, const std::vector<Bin>& receivers) {
    std::vector<Endpoint> moving;
    std::vector<SliceRec*> unchanged_to_drop;
    if (source.kind == 0) {  // create
      moving = std::move(plan_.to_create[source.index].endpoints);
    } else if (source.kind == 1) {  // update
      moving = std::move(plan_.to_update[source.index].endpoints);
    } else {
      moving = plan_.unchanged[source.index]->obj->endpoints;
    }
    plan_.moves += static_cast<int>(moving.size());
    for (const Bin& r : receivers) {
      EndpointSlice* target = nullptr;
      if (r.kind == 0) {
        target = &plan_.to_create[r.index];
      } else if (r.kind == 1) {
        target = &plan_.to_update[r.index];
      } else {
        SliceRec* rec = plan_.unchanged[r.index];
        AddUpdate(*rec->obj, rec->obj.get());
        unchanged_to_drop.push_back(rec);
        target = &plan_.to_update.back();
      }
      while (!moving.empty() && static_cast<int>(target->endpoints.size()) < max_) {
        target->endpoints.push_back(std::move(moving.back()));
        moving.pop_back();
      }
    }
    // Remove the source last: indices above stay valid until here.
    if (source.kind == 0) {
      plan_.to_create.erase(plan_.to_create.begin() + source.index);
    } else if (source.kind == 1) {
      plan_.to_delete.push_back(fs_.slices.at(plan_.to_update_orig[source.index]).obj);
      plan_.to_update.erase(plan_.to_update.begin() + source.index);
      plan_.to_update_orig.erase(plan_.to_update_orig.begin() + source.index);
    } else {
      SliceRec* rec = plan_.unchanged[source.index];
      plan_.to_delete.push_back(rec->obj);
      unchanged_to_drop.push_back(rec);
    }
    for (SliceRec* rec : unchanged_to_drop) {
      plan_.unchanged.erase(std::find(plan_.unchanged.begin(), plan_.unchanged.end(), rec));
    }
  }

  const Service& service_;
  FamilyState& fs_;
  const ReconcilerOptions& options_;
  const int max_;
  FamilyPlan plan_;
  std::vector<SliceRec*> dirty_;
  std::unordered_set<const EndpointSlice*> dirty_set_;
  std::unordered_set<std::string_view> claimed_;
  std::vector<std::pair<uint64_t, std::vector<const Key*>>> leftovers_;
  std::unordered_map<uint64_t, size_t> leftover_index_;
  std::vector<Key> placed_;
  bool unchanged_sorted_ = false;
};

}  // namespace

namespace {

// Keeps a ServiceState in step with the objects of one sync.
class StateUpdater {
 public:
  using State = Reconciler::ServiceState;
  StateUpdater(State& st, const std::shared_ptr<const Service>& service)
      : st_(st), service_(*service) {}

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

  // Nodes matter only through existence and zone; returns true if those changed.
  bool UpdateNodes(const std::vector<std::shared_ptr<const Node>>& nodes) {
    bool same_ptrs = nodes.size() == st_.node_ptrs.size();
    for (size_t i = 0; same_ptrs && i < nodes.size(); ++i) {
      same_ptrs = nodes[i].get() == st_.node_ptrs[i];
    }
    if (same_ptrs) return false;
    st_.node_ptrs.clear();
    std::map<std::string, std::string, std::less<>> zones;
    for (const auto& n : nodes) {
      st_.node_ptrs.push_back(n.get());
      zones[n->metadata.name] = NodeZone(*n);
    }
    if (zones == st_.zone_by_node) return false;
    st_.zone_by_node = std::move(zones);
    return true;
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

  void UpdateSlices(FamilyState& fs, const std::vector<SlicePtr>& owned, uint64_t epoch) {
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

  void Unindex(FamilyState& fs, const SliceRec& rec) {
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
    auto node = st_.zone_by_node.find(node_name);
    if (node == st_.zone_by_node.end()) {
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

std::string JoinErrors(const std::vector<std::string>& errs) {
  if (errs.size() == 1) return errs[0];
  std::string out = "[";
  for (size_t i = 0; i < errs.size(); ++i) {
    if (i) out += ", ";
    out += errs[i];
  }
  return out + "]";
}

}  // namespace

Reconciler::Reconciler(ReconcilerOptions options, TopologyCache* topology)
    : options_(options), topology_(topology) {
  SVC_CHECK(options_.max_endpoints_per_slice >= 1 &&
            options_.max_endpoints_per_slice <= kMaxMaxEndpointsPerSlice)
      << "max_endpoints_per_slice must be in 1..1000, got " << options_.max_endpoints_per_slice;
}

Reconciler::~Reconciler() = default;

std::shared_ptr<Reconciler::ServiceState> Reconciler::StateFor(const Service& service) {
  std::lock_guard lock(mu_);
  auto& st = states_[ServiceKey(service)];
  if (!st) st = std::make_shared<ServiceState>();
  return st;
}

void Reconciler::Forget(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  states_.erase(ns + "/" + name);
}

SlicePlan Reconciler::Plan(const std::shared_ptr<const Service>& service_ptr,
                           const std::vector<std::shared_ptr<const Pod>>& pods,
                           const std::vector<std::shared_ptr<const Node>>& nodes,
                           const std::vector<SlicePtr>& existing_slices,
                           std::optional<int64_t> trigger_time_unix_nanos) {
  const Service& service = *service_ptr;
  const std::string service_key = ServiceKey(service);
  std::shared_ptr<ServiceState> st =
      options_.incremental ? StateFor(service) : std::make_shared<ServiceState>();
  std::lock_guard state_lock(st->mu);

  // 1. Bring the memo up to date with the inputs.
  StateUpdater updater(*st, service_ptr);
  const bool zones_changed = updater.UpdateNodes(nodes);
  if (!st->service || zones_changed ||
      (st->service != service_ptr && !SameEndpointInputs(*st->service, service))) {
    updater.Reset(service_ptr);
  }
  st->service = service_ptr;
  updater.UpdatePods(pods);

  SlicePlan plan;
  const size_t families = st->families.size();
  std::vector<std::vector<SlicePtr>> owned(families), not_owned(families);
  for (const auto& s : existing_slices) {
    size_t f = 0;
    while (f < families && st->families[f].address_type != s->address_type) ++f;
    if (f == families) {
      plan.to_delete_unsupported.push_back(s);
      if (topology_ != nullptr) topology_->RemoveHints(service_key, s->address_type);
      continue;
    }
    (OwnedBy(*s, service) ? owned : not_owned)[f].push_back(s);
  }
  const uint64_t epoch = ++st->epoch;
  for (size_t f = 0; f < families; ++f) updater.UpdateSlices(st->families[f], owned[f], epoch);

  // 2. Plan each address type (§5), then hints (§10, §11).
  const bool topology_on = topology_ != nullptr && TopologyHintsEnabled(service);
  const bool traffic_on = TrafficDistributionUsable(service);
  const int max = options_.max_endpoints_per_slice;
  plan.metrics.topology_label = topology_on ? "Auto" : "Disabled";
  plan.metrics.traffic_distribution_label = traffic_on ? *service.spec.traffic_distribution : "";
  for (size_t f = 0; f < families; ++f) {
    FamilyState& fs = st->families[f];
    FamilyPlanner planner(service, fs, options_);
    FamilyPlan fp = planner.Run();
    fs.suspects = planner.TakePlaced();
    fs.ClearChanged();
    plan.metrics.endpoints_added += fp.added;
    plan.metrics.endpoints_removed += fp.removed;
    plan.metrics.rebalance_moves += fp.moves;
    plan.metrics.endpoints_desired += static_cast<int>(fs.desired.size());
    fp.to_delete.insert(fp.to_delete.end(), not_owned[f].begin(), not_owned[f].end());

    // §5.3.2: a Service without endpoints keeps exactly one empty slice per address type.
    const size_t existing = owned[f].size() + not_owned[f].size();
    if (existing == fp.to_delete.size() && fp.to_create.empty()) {
      EndpointSlice placeholder = NewSlice(service, {}, fs.address_type);
      if (fp.to_delete.size() == 1 && PlaceholderEqual(*fp.to_delete[0], placeholder)) {
        fp.to_delete.clear();
        ++plan.unchanged;
      } else {
        fp.to_create.push_back(std::move(placeholder));
      }
      plan.metrics.slices_desired += 1;
    } else {
      for (const auto& [g, info] : fs.groups)
        plan.metrics.slices_desired += (info.count + max - 1) / max;
    }

    SliceInfo info;
    info.service_key = service_key;
    info.address_type = fs.address_type;
    info.to_create = std::move(fp.to_create);
    info.to_update = std::move(fp.to_update);
    const bool need_all_unchanged = topology_on || traffic_on;
    for (SliceRec* rec : fp.unchanged) {
      if (need_all_unchanged || rec->has_hints) info.unchanged.push_back(rec->obj);
    }
    std::vector<const EndpointSlice*> offered;
    for (const auto& s : info.unchanged) offered.push_back(s.get());
    if (topology_on) {
      auto events = topology_->AddHints(info);
      plan.events.insert(plan.events.end(), events.begin(), events.end());
    } else {
      if (topology_ != nullptr) {
        if (topology_->HasPopulatedHints(service_key)) {
          plan.events.push_back(
              Event{"Warning", "TopologyAwareHintsDisabled",
                    "Topology Aware Hints has been disabled, addressType: " + fs.address_type});
        }
        topology_->RemoveHints(service_key, fs.address_type);
      }
      if (!traffic_on) RemoveHintsFromSlices(info);
    }
    if (traffic_on) ReconcileTrafficDistributionHints(*service.spec.traffic_distribution, info);

    // Remember which slices stay as they are: only those can be skipped next time.
    for (auto& [ptr, rec] : fs.slices) rec.clean = false;
    for (SliceRec* rec : fp.unchanged) rec->clean = true;
    std::unordered_set<const EndpointSlice*> still(info.unchanged.size());
    for (const auto& s : info.unchanged) still.insert(s.get());
    int moved_out = 0;
    for (const EndpointSlice* s : offered) {
      if (!still.count(s)) {
        fs.slices.at(s).clean = false;
        ++moved_out;
      }
    }
    plan.unchanged += static_cast<int>(fp.unchanged.size()) - moved_out;

    for (auto& s : info.to_create) plan.to_create.push_back(std::move(s));
    for (auto& s : info.to_update) plan.to_update.push_back(std::move(s));
    plan.to_delete.insert(plan.to_delete.end(), fp.to_delete.begin(), fp.to_delete.end());
  }

  // 3. Finalize (§5.3.4): turn delete+create pairs into updates, stamp the trigger time.
  for (size_t i = 0; i < plan.to_delete.size() && !plan.to_create.empty();) {
    EndpointSlice& last = plan.to_create.back();
    const EndpointSlice& doomed = *plan.to_delete[i];
    if (doomed.address_type == last.address_type && OwnedBy(doomed, service)) {
      last.metadata.name = doomed.metadata.name;
      plan.to_update.push_back(std::move(last));
      plan.to_create.pop_back();
      plan.to_delete.erase(plan.to_delete.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  std::optional<std::string> trigger;
  if (trigger_time_unix_nanos) trigger = FormatRFC3339Nano(*trigger_time_unix_nanos);
  for (auto& s : plan.to_create) SetTriggerTime(s, trigger);
  for (auto& s : plan.to_update) SetTriggerTime(s, trigger);

  plan.metrics.slices_actual =
      static_cast<int>(existing_slices.size() + plan.to_create.size()) -
      static_cast<int>(plan.to_delete.size() + plan.to_delete_unsupported.size());
  if (plan.metrics.slices_desired == 0) plan.metrics.slices_desired = 1;

  std::vector<std::string> errs;
  for (uint32_t idx : st->memos_with_errors) errs.push_back(st->memo_pool[idx].error);
  std::sort(errs.begin(), errs.end());
  if (!errs.empty()) plan.deferred_error = NotFoundError(JoinErrors(errs));
  return plan;
}

Status Reconciler::Apply(const Service& service, const SlicePlan& plan, SliceWriter& writer,
                         SliceTracker* tracker) const {
  const std::string svc = ServiceKey(service);
  std::vector<std::string> errs;
  for (const auto& s : plan.to_delete_unsupported) {
    Status st = writer.Delete(s->metadata.namespace_, s->metadata.name);
    if (!st.ok() && st.code() != Code::kNotFound) {
      errs.push_back("error deleting " + s->metadata.name + " EndpointSlice for Service " + svc +
                     ": " + st.message());
      continue;
    }
    if (tracker != nullptr) tracker->ExpectDeletion(*s);
  }
  if (!service.metadata.deletion_timestamp) {
    for (const auto& s : plan.to_create) {
      auto created = writer.Create(s);
      if (!created.ok()) {
        for (const auto& cause : created.status().causes()) {
          // The namespace is going away; the slices would be deleted anyway.
          if (cause.type == "NamespaceTerminating") return Status::Ok();
        }
        return Status(created.status().code(), "failed to create EndpointSlice for Service " + svc +
                                                   ": " + created.status().message());
      }
      if (tracker != nullptr) tracker->Update(*created);
    }
  }
  for (const auto& s : plan.to_update) {
    auto updated = writer.Update(s);
    if (!updated.ok()) {
      return Status(updated.status().code(), "failed to update " + s.metadata.name +
                                                 " EndpointSlice for Service " + svc + ": " +
                                                 updated.status().message());
    }
    if (tracker != nullptr) tracker->Update(*updated);
  }
  for (const auto& s : plan.to_delete) {
    Status st = writer.Delete(s->metadata.namespace_, s->metadata.name);
    if (!st.ok() && st.code() != Code::kNotFound) {
      return Status(st.code(), "failed to delete " + s->metadata.name +
                                   " EndpointSlice for Service " + svc + ": " + st.message());
    }
    if (tracker != nullptr) tracker->ExpectDeletion(*s);
  }
  if (!plan.deferred_error.ok()) errs.push_back(plan.deferred_error.message());
  if (errs.empty()) return Status::Ok();
  return Status(plan.deferred_error.ok() ? Code::kInternal : plan.deferred_error.code(),
                JoinErrors(errs));
}

}  // namespace svcplane::controllers::endpointslice
