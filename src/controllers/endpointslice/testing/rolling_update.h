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
  size_t slices = 0;       // at the end
  size_t peak_slices = 0;  // after any sync
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
    r.peak_slices = std::max(r.peak_slices, h.ServiceSlices().size());
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

// Autoscaler-style churn: add `extra` Pods (one sync), then delete that many random Pods in
// batches (one sync each), then sync with no changes until a sync writes nothing (at most 100).
inline RollingUpdateResult ScaleUpDown(Harness& h, int first_new_index, int extra, int batch,
                                       unsigned seed = 1) {
  std::mt19937 rng(seed);
  RollingUpdateResult r;
  auto sync = [&] {
    SlicePlan p = h.Sync();
    ++r.syncs;
    r.writes += p.Writes();
    r.max_writes_per_sync = std::max(r.max_writes_per_sync, p.Writes());
    r.peak_slices = std::max(r.peak_slices, h.ServiceSlices().size());
    return p.Writes();
  };
  h.AddPods(first_new_index, first_new_index + extra);
  sync();
  for (int left = extra; left > 0; left -= batch) {
    auto& pods = h.pods();
    for (int k = 0; k < std::min(batch, left); ++k) {
      pods.erase(pods.begin() + static_cast<long>(rng() % pods.size()));
    }
    sync();
  }
  for (int i = 0; i < 100 && sync() > 0; ++i) {
  }
  r.slices = h.ServiceSlices().size();
  return r;
}

}  // namespace svcplane::controllers::endpointslice::testing
