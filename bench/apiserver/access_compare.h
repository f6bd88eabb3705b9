#pragma once

// apiserver_bench --audit-compare: what authorization and the audit log cost a Pod create.

#include <string>
#include <vector>

namespace svcplane::bench::apiserver {

struct AccessCompareOptions {
  std::string server;                    // the svcplane binary
  std::vector<std::string> server_args;  // extra `serve` arguments for every variant
  std::string pod_json;
  size_t pods = 0;           // creates per phase
  std::vector<int> clients;  // one phase per entry, in this order, on each server
  int rounds = 0;
};

// Pod creates/s, per client count, on four servers that differ only in access control:
//   off           --authorization-mode=AlwaysAllow, no audit log;
//   audit         AlwaysAllow, examples/audit-policy.yaml (a Pod create at Request level: its
//                 body in every line);
//   authz         the default --authorization-mode=Node,RBAC, no audit log;
//   authz+audit   Node,RBAC and the audit log.
// The creating clients are `bench-writer`, a --token-auth-file user bound to ClusterRole `edit`
// in the bench namespace (by the admin, before the clock starts), so every create goes through
// the RBAC authorizer rather than system:masters' shortcut. Servers run one at a time and
// alternate within each round: on a shared machine a load spike hits every variant alike.
// Prints medians over the rounds, and the server's CPU per create. Returns the exit code.
int AccessCompare(const AccessCompareOptions& options);

}  // namespace svcplane::bench::apiserver
