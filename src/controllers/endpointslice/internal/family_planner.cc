#include "controllers/endpointslice/internal/family_planner.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace svcplane::controllers::endpointslice::internal {
namespace {

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

FamilyPlan PlanFamily(const Service& service, FamilyState& fs, const ReconcilerOptions& options,
                      std::vector<Key>* placed) {
  FamilyPlanner planner(service, fs, options);
  FamilyPlan plan = planner.Run();
  *placed = planner.TakePlaced();
  return plan;
}

}  // namespace svcplane::controllers::endpointslice::internal
