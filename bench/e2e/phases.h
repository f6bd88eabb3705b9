#pragma once

// e2e_bench's four phases. Each appends its rows to `rows` and returns false when it missed
// events (or its cluster never became ready); errors (a refused request, a broken connection)
// throw std::runtime_error.

#include <vector>

#include "bench/common/table.h"
#include "bench/e2e/cluster.h"

namespace svcplane::bench::e2e {

// (c) One change at a time to a Service on an idle server: PATCH acknowledged -> event at a
// JSON and at a protobuf watcher.
bool RunIdle(const Context& ctx, std::vector<Row>* rows);

// (a) Readiness flips through pods/status at a steady rate -> the EndpointSlice event that
// shows the flipped endpoint at a JSON and at a protobuf slice watcher.
bool RunPropagation(const Context& ctx, std::vector<Row>* rows);

// (b) Services and ready Pods created as fast as the clients can -> every endpoint ready in the
// namespace's slices; and how many slice writes the controller needed.
bool RunBurst(const Context& ctx, std::vector<Row>* rows);

// (d) The bench's own slice writes -> many protobuf watchers of every slice in the cluster.
bool RunFanout(const Context& ctx, std::vector<Row>* rows);

// (e) A Deployment on the server's simulated nodes created to available, then `rollout restart`
// to complete: wall times, Pods/s, slice writes per replaced Pod, Pod -> slice latencies.
bool RunRollout(const Context& ctx, std::vector<Row>* rows);

}  // namespace svcplane::bench::e2e
