#pragma once

// What every e2e_bench phase shares: the server, a TLS context, the objects the phases create
// (names, bodies) and the parallel writer that creates them.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bench/common/https_client.h"
#include "bench/common/server_process.h"
#include "bench/e2e/options.h"

namespace svcplane::bench::e2e {

inline constexpr std::string_view kMergePatch = "application/merge-patch+json";
// What client-go (kube-proxy) sends for a protobuf watch; the server answers
// application/vnd.kubernetes.protobuf;stream=watch frames.
inline constexpr std::string_view kProtobufAccept =
    "application/vnd.kubernetes.protobuf, application/json";

struct Context {
  const Options& options;
  const ServerProcess& server;
  Endpoint ep;
  std::shared_ptr<boost::asio::ssl::context> tls;
  // The in-process controllers' /metrics (serve --controller-manager-port, a self-signed
  // certificate); 0 if not served.
  uint16_t controllers_port = 0;
};

// A port on 127.0.0.1 free a moment ago (bound to 0 and read back, then closed).
uint16_t FreeLoopbackPort();
// A client of the controllers' /metrics port (its certificate is not checked).
std::unique_ptr<Client> ControllersClient(const Context& ctx);

// --- names and bodies ---------------------------------------------------------------------------
// Service s is "s%06d"; its Pod j is "s%06d-%03d" with label app=<service>; Pod index
// s * pods_per_service + j.
std::string ServiceName(int s);
std::string PodName(int s, int j);
// The Pod index a Pod name stands for, or nullopt if it is not one of ours.
std::optional<uint32_t> ParsePodIndex(std::string_view name, int pods_per_service);
// The IP of Pod `index` counted from `base` (an IPv4 address as a number), skipping .0.
std::string PodIp(uint32_t base, uint32_t index);
std::string NodeName(int i);

std::string NamespaceBody(std::string_view name);
std::string NodeBody(int i);
std::string ServiceBody(int s);
std::string PodBody(int s, int j, int nodes);
// A merge patch for pods/status: Running with `ip`, Ready per `ready`.
std::string PodStatusBody(std::string_view ip, bool ready);
// A merge patch for pods/status that changes only the Ready condition.
std::string PodReadyBody(bool ready);

// --- requests -----------------------------------------------------------------------------------
// "" if `r` has one of the statuses in `ok`, else a message naming `what`, status and body.
std::string CheckStatus(const Response& r, std::initializer_list<int> ok, std::string_view what);
// Creates a Namespace (409 is fine); throws on other failures.
void CreateNamespace(Client& c, std::string_view name);
// Creates Nodes NodeName(0..n) (409 is fine); throws on other failures.
void CreateNodes(const Context& ctx, int n);
// metadata.resourceVersion of a LIST of `collection` with limit=1: watch from there to see only
// what changes next.
std::string ListResourceVersion(Client& c, const std::string& collection);
// metadata.resourceVersion of an object's JSON; throws if absent.
std::string ResourceVersionOf(const std::string& json);

struct ParallelResult {
  size_t ok = 0, failed = 0;
  std::string first_error;
  double seconds = 0;
  Clock::time_point last_done;  // when the last item's last request was acknowledged
};
// Runs item(client, i) for i in [0, n) over `clients` connections, each on its own thread;
// `item` sends one or more requests and returns "" or an error message.
ParallelResult RunParallel(const Context& ctx, size_t n, int clients,
                           const std::function<std::string(Client&, size_t)>& item);

struct PopulateResult {
  ParallelResult services, pods;  // pods: each item a create and a pods/status write
  size_t writes() const { return services.ok + services.failed + 2 * (pods.ok + pods.failed); }
};
// Creates Services 0..services in `ns`, then their Pods, each followed by a pods/status write
// with its IP (PodIp(ip_base, index)) and Ready=True, over `clients` connections.
PopulateResult Populate(const Context& ctx, std::string_view ns, int services, int pods,
                        uint32_t ip_base, int clients);

// Counters and gauges of GET /metrics: "name{labels}" -> value (histogram series skipped).
std::map<std::string, double> ScrapeMetrics(Client& c);
// The controllers' /metrics (ScrapeMetrics through ControllersClient); empty if not served.
std::map<std::string, double> ScrapeControllerMetrics(const Context& ctx);
// The sum of every series of `name` whose labels contain all of `label_parts` (e.g.
// `operation="create"`).
double SumSeries(const std::map<std::string, double>& metrics, std::string_view name,
                 std::initializer_list<std::string_view> label_parts);

}  // namespace svcplane::bench::e2e
