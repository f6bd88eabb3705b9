#pragma once

// Drives a Reconciler against a FakeSliceWriter the way the controller will: list the
// Service's slices from the "cache", Plan, Apply, repeat.

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "controllers/endpointslice/reconciler.h"
#include "controllers/endpointslice/testing/fake_slice_writer.h"
#include "controllers/endpointslice/testing/fixtures.h"
#include "controllers/endpointslice/utils.h"

namespace svcplane::controllers::endpointslice::testing {

class Harness {
 public:
  explicit Harness(ReconcilerOptions options, TopologyCache* topology = nullptr)
      : reconciler_(options, topology) {
    service_ = Share(MakeService());
    nodes_ = {Share(MakeNode("node-1", "us-central1-a"))};
  }

  SlicePlan Sync() {
    writer_.ClearActions();
    plan_ = reconciler_.Plan(service_, pods_, nodes_, ServiceSlices(), trigger_);
    status_ = reconciler_.Apply(*service_, plan_, writer_, &tracker_);
    return plan_;
  }

  std::vector<std::shared_ptr<const EndpointSlice>> ServiceSlices() const {
    return SlicesForService(*service_, writer_.Slices());
  }
  std::multiset<size_t> Sizes(std::string_view type = "IPv4") const {
    std::multiset<size_t> out;
    for (const auto& s : ServiceSlices()) {
      if (s->address_type == type) out.insert(s->endpoints.size());
    }
    return out;
  }
  // Every desired endpoint exactly once across the slices of `type`.
  std::multiset<std::string> StoredKeys(std::string_view type = "IPv4") const {
    std::multiset<std::string> out;
    for (const auto& s : ServiceSlices()) {
      if (s->address_type != type) continue;
      for (const auto& ep : s->endpoints) out.insert(EndpointKey(ep));
    }
    return out;
  }

  void SetService(const Service& s) { service_ = Share(s); }
  const Service& service() const { return *service_; }
  void AddPods(int from, int to, const std::string& node = "node-1", bool ready = true) {
    for (int i = from; i < to; ++i) pods_.push_back(Share(MakePod(i, "ns", node, ready)));
  }
  void ReplacePod(size_t index, const Pod& pod) { pods_[index] = Share(pod); }
  // A slice of the given pods' endpoints, as a previous run would have written it.
  std::shared_ptr<const EndpointSlice> SeedSlice(int from, int to, const std::string& name,
                                                 std::string type = "IPv4") {
    EndpointSlice s = NewSlice(*service_, EndpointPortsForPod(*service_, *pods_[from]), type);
    s.metadata.name = name;
    for (int i = from; i < to; ++i) {
      // Legacy types ("IP") carry IPv4 addresses.
      const std::string family = type == "IPv6" ? "IPv6" : "IPv4";
      s.endpoints.push_back(
          *PodToEndpoint(*pods_[i], *service_, family, "node-1", "us-central1-a"));
    }
    return writer_.Seed(std::move(s));
  }

  std::vector<std::shared_ptr<const Pod>>& pods() { return pods_; }
  std::vector<std::shared_ptr<const Node>>& nodes() { return nodes_; }
  FakeSliceWriter& writer() { return writer_; }
  SliceTracker& tracker() { return tracker_; }
  Reconciler& reconciler() { return reconciler_; }
  const SlicePlan& plan() const { return plan_; }
  const Status& status() const { return status_; }
  void set_trigger(std::optional<int64_t> t) { trigger_ = t; }

 private:
  Reconciler reconciler_;
  std::shared_ptr<const Service> service_;
  std::vector<std::shared_ptr<const Pod>> pods_;
  std::vector<std::shared_ptr<const Node>> nodes_;
  FakeSliceWriter writer_;
  SliceTracker tracker_;
  SlicePlan plan_;
  Status status_;
  std::optional<int64_t> trigger_;
};

}  // namespace svcplane::controllers::endpointslice::testing
