#pragma once

// apiserver_bench's Pod creates: the Pod template, the create loop over many keep-alive
// connections, and the server's own latency histogram for them.

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "bench/common/https_client.h"

namespace svcplane::bench::apiserver {

// pod.json as a creatable template: server-set fields and owner references (the garbage
// collector would delete Pods owned by a missing ReplicaSet) stripped, name left as NAME_HERE.
struct PodTemplate {
  std::string head, tail;  // body = head + name + tail
  std::string Body(const std::string& name) const { return head + name + tail; }
};

PodTemplate LoadPodTemplate(const std::string& path, const std::string& ns);

std::string PodName(const std::string& prefix, size_t i);

struct CreateResult {
  double seconds = 0;
  double server_cpu_seconds = 0;
  double client_cpu_seconds = 0;
  long server_context_switches = 0;
  long server_page_faults = 0;
  size_t ok = 0, failed = 0;
  std::vector<double> latencies_ms;
  std::vector<double> started_ms;  // since the phase began, in the order of latencies_ms
  double start_steady_s = 0;       // when the phase began: CLOCK_MONOTONIC, as `perf -k mono`
  std::string first_error;
};

// Creates Pods [begin, end) with `clients` threads, each on its own connection.
// The requests are encoded before the clock starts and each goes out as one TLS write: the
// client shares the machine's cores with the server, and its cost is not the server's.
CreateResult CreatePods(const Endpoint& ep, pid_t server, const PodTemplate& tmpl,
                        const std::string& ns, size_t begin, size_t end, int clients);

// The server's own account of Pod creates: the cumulative buckets of
// apiserver_request_duration_seconds{verb="POST",resource="pods"} from /metrics, as (upper
// bound in seconds, count) pairs ending with +Inf. SIG scalability measures its latency SLOs on
// this metric; the client-side latencies above also hold the time this machine's two cores took
// to schedule the bench's own client threads.
using Buckets = std::vector<std::pair<double, double>>;

Buckets ScrapeCreateBuckets(const Endpoint& ep);

// `after` minus `before` (the phase's own creates), then the quantile as Prometheus'
// histogram_quantile interpolates it inside its bucket, and the share at or below `bound`.
std::pair<double, double> QuantileAndShare(const Buckets& before, const Buckets& after, double q,
                                           double bound);

}  // namespace svcplane::bench::apiserver
