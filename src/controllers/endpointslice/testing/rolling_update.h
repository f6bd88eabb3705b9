#pragma once

// A Deployment-style rolling update for tests and benchmarks: each step surges `batch` new Pods
// (one sync), then deletes `batch` old Pods picked at random (one sync), until no old Pod is left.

#include <algorithm>
#include <random>
#include <vector>

#include "controllers/endpointslice/testing/reconciler_harness.h"

namespace svcplane::controllers::endpointslice::testing {

struct RollingUpdateResult {
  int syncs = 0;
  int writes = 0;
  int max_writes_per_sync = 0;
  size_t slices = 0;
};

inline RollingUpdateResult RollingUpdate(Harness& h, int first_new_index, int batch,
                                         unsigned seed = 1) {
  std::mt19937 rng(seed);
  RollingUpdateResult r;
  auto sync = [&] {
    SlicePlan p = h.Sync();
    ++r.syncs;
    r.writes += p.Writes();
    r.max_writes_per_sync = std::max(r.max_writes_per_sync, p.Writes());
  };
  std::vector<const Pod*> old;
  for (const auto& p : h.pods()) old.push_back(p.get());
  std::shuffle(old.begin(), old.end(), rng);
  int next = first_new_index;
  while (!old.empty()) {
    int n = std::min<int>(batch, static_cast<int>(old.size()));
    h.AddPods(next, next + n);
    next += n;
    sync();
    std::vector<const Pod*> doomed(old.end() - n, old.end());
    old.resize(old.size() - n);
    std::sort(doomed.begin(), doomed.end());
    auto& pods = h.pods();
    pods.erase(std::remove_if(pods.begin(), pods.end(),
                              [&](const auto& p) {
                                return std::binary_search(doomed.begin(), doomed.end(), p.get());
                              }),
               pods.end());
    sync();
  }
  r.slices = h.ServiceSlices().size();
  return r;
}

}  // namespace svcplane::controllers::endpointslice::testing
