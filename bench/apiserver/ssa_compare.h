#pragma once

// apiserver_bench --ssa-compare: what managedFields tracking costs a Pod create, measured
// against a build of the code before it (issue 23 "Show it"), and how fast an unchanged
// server-side apply is answered.

#include <string>
#include <vector>

namespace svcplane::bench::apiserver {

struct SsaCompareOptions {
  std::string server;                    // the svcplane binary with managedFields tracking
  std::string baseline;                  // a svcplane binary built from the code before it
  std::vector<std::string> server_args;  // extra `serve` arguments for both
  std::string pod_json;
  size_t pods = 0;           // creates per phase
  std::vector<int> clients;  // one create phase per entry, in this order, on each server
  int rounds = 0;
  size_t applies = 0;  // re-applies of one unchanged Service, on `server` only
  int apply_clients = 8;
};

// Pod creates/s per client count on `baseline` and `server`, alternating within each round
// (a load spike on a shared machine hits both alike), as the admin; then `applies` server-side
// applies of one unchanged Service by `apply_clients` connections on `server`, with the
// Service's resourceVersion before and after (equal: nothing was written). Prints medians and
// ratios. Returns the exit code.
int SsaCompare(const SsaCompareOptions& options);

}  // namespace svcplane::bench::apiserver
