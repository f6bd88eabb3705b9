#pragma once

// What the reconciler remembers about one Service between syncs, and how it is brought up to
// date with the objects of a new sync. Cached objects are held by shared_ptr, so a pointer seen
// again is the same, unchanged object; everything derived from it can be reused.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice::internal {

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

// The zone of every existing Node. One snapshot is shared by the states of all Services (see
// NodeZoneCache): a map per Service costs Services x Nodes entries (10k x 5k = 50M, gigabytes)
// and rebuilding it on each sync was most of the controller's CPU at scale.
using NodeZones = std::map<std::string, std::string, std::less<>>;
using NodeZonesPtr = std::shared_ptr<const NodeZones>;

// Turns the Node list of a sync into a NodeZones snapshot, building a new one only when the
// Nodes changed (pointer identity) and keeping the old snapshot when the zones are the same,
// so states holding it see no change. Safe from any thread.
class NodeZoneCache {
 public:
  NodeZonesPtr Get(const std::vector<std::shared_ptr<const Node>>& nodes);

 private:
  std::mutex mu_;
  // Held (not raw pointers) so that a freed Node's address cannot be mistaken for it.
  std::vector<std::shared_ptr<const Node>> nodes_;            // guarded by mu_
  NodeZonesPtr zones_ = std::make_shared<const NodeZones>();  // guarded by mu_
};

struct ServiceState {
  std::mutex mu;
  std::shared_ptr<const Service> service;
  std::vector<FamilyState> families;
  NodeZonesPtr zones = std::make_shared<const NodeZones>();
  // The pods of the last plan, in the order given, with their memo index.
  std::vector<const Pod*> pod_ptrs;
  std::vector<uint32_t> pod_memo;
  std::vector<PodMemo> memo_pool;
  std::vector<uint32_t> free_memos;
  std::unordered_set<uint32_t> memos_with_errors;
  uint64_t epoch = 0;
};

// Clears everything derived from the Service (its endpoint-relevant fields changed).
void ResetState(ServiceState& st, const std::shared_ptr<const Service>& service);
// Nodes matter only through existence and zone; true if those changed.
bool UpdateNodes(ServiceState& st, const NodeZonesPtr& zones);
// Re-derives the endpoints of new or changed Pods and forgets those of removed Pods.
void UpdatePods(ServiceState& st, const Service& service,
                const std::vector<std::shared_ptr<const Pod>>& pods);
// Indexes new owned slices of one address type and forgets those no longer listed.
void UpdateSlices(FamilyState& fs, const std::vector<SlicePtr>& owned, uint64_t epoch);

bool SameEndpointInputs(const Service& a, const Service& b);
bool SliceHasHints(const EndpointSlice& s);
EndpointSlice CopyWithoutEndpoints(const EndpointSlice& s);
std::string ServiceKey(const Service& s);

}  // namespace svcplane::controllers::endpointslice::internal
