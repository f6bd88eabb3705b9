#include "bench/e2e/cluster.h"

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/json.hpp>
#include <charconv>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace svcplane::bench::e2e {

uint16_t FreeLoopbackPort() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor a(
      ioc, {boost::asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(0)});
  return a.local_endpoint().port();
}

std::unique_ptr<Client> ControllersClient(const Context& ctx) {
  if (ctx.controllers_port == 0) return nullptr;
  auto tls = std::make_shared<boost::asio::ssl::context>(boost::asio::ssl::context::tls_client);
  tls->set_verify_mode(boost::asio::ssl::verify_none);
  Endpoint ep = ctx.ep;
  ep.port = ctx.controllers_port;
  return std::make_unique<Client>(ep, std::move(tls));
}

std::string ServiceName(int s) { return fmt::format("s{:06d}", s); }

std::string PodName(int s, int j) { return fmt::format("s{:06d}-{:03d}", s, j); }

std::optional<uint32_t> ParsePodIndex(std::string_view name, int pods_per_service) {
  // "s" 6 digits "-" 3 digits
  if (name.size() != 11 || name[0] != 's' || name[7] != '-') return std::nullopt;
  uint32_t s = 0, j = 0;
  auto a = std::from_chars(name.data() + 1, name.data() + 7, s);
  auto b = std::from_chars(name.data() + 8, name.data() + 11, j);
  if (a.ptr != name.data() + 7 || b.ptr != name.data() + 11) return std::nullopt;
  if (j >= static_cast<uint32_t>(pods_per_service)) return std::nullopt;
  return s * static_cast<uint32_t>(pods_per_service) + j;
}

std::string PodIp(uint32_t base, uint32_t index) {
  const uint32_t ip = base + (index / 254) * 256 + index % 254 + 1;
  return fmt::format("{}.{}.{}.{}", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

std::string NodeName(int i) { return fmt::format("e2e-node-{:04d}", i); }

std::string NamespaceBody(std::string_view name) {
  return fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})",
                     name);
}

std::string NodeBody(int i) {
  return fmt::format(R"({{"apiVersion":"v1","kind":"Node","metadata":{{"name":"{}","labels":{{)"
                     R"("topology.kubernetes.io/zone":"zone-{}"}}}}}})",
                     NodeName(i), i % 3);
}

std::string ServiceBody(int s) {
  return fmt::format(
      R"({{"apiVersion":"v1","kind":"Service","metadata":{{"name":"{0}"}},"spec":{{)"
      R"("selector":{{"app":"{0}"}},"ports":[{{"name":"http","port":80,"targetPort":8080,)"
      R"("protocol":"TCP"}}]}}}})",
      ServiceName(s));
}

std::string PodBody(int s, int j, int nodes) {
  return fmt::format(
      R"({{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{}","labels":{{"app":"{}"}}}},)"
      R"("spec":{{"nodeName":"{}","containers":[{{"name":"c","image":"registry.k8s.io/pause:3.9",)"
      R"("ports":[{{"name":"http","containerPort":8080,"protocol":"TCP"}}]}}]}}}})",
      PodName(s, j), ServiceName(s), NodeName((s * 7 + j) % std::max(nodes, 1)));
}

std::string PodStatusBody(std::string_view ip, bool ready) {
  return fmt::format(R"({{"status":{{"phase":"Running","podIP":"{0}","podIPs":[{{"ip":"{0}"}}],)"
                     R"("conditions":[{{"type":"Ready","status":"{1}"}}]}}}})",
                     ip, ready ? "True" : "False");
}

std::string PodReadyBody(bool ready) {
  return fmt::format(R"({{"status":{{"conditions":[{{"type":"Ready","status":"{}"}}]}}}})",
                     ready ? "True" : "False");
}

std::string CheckStatus(const Response& r, std::initializer_list<int> ok, std::string_view what) {
  for (int s : ok) {
    if (r.status == s) return "";
  }
  return fmt::format("{}: {} {}", what, r.status, r.body.substr(0, 300));
}

void CreateNamespace(Client& c, std::string_view name) {
  auto err = CheckStatus(c.Do("POST", "/api/v1/namespaces", NamespaceBody(name)), {201, 409},
                         "create namespace");
  if (!err.empty()) throw std::runtime_error(err);
}

void CreateNodes(const Context& ctx, int n) {
  auto r =
      RunParallel(ctx, static_cast<size_t>(n), ctx.options.setup_clients, [](Client& c, size_t i) {
        return CheckStatus(c.Do("POST", "/api/v1/nodes", NodeBody(static_cast<int>(i))), {201, 409},
                           "create node");
      });
  if (r.failed) throw std::runtime_error(r.first_error);
}

std::string ResourceVersionOf(const std::string& json) {
  auto v = boost::json::parse(json);
  const auto* rv = v.as_object().at("metadata").as_object().if_contains("resourceVersion");
  if (rv == nullptr || !rv->is_string()) throw std::runtime_error("no resourceVersion");
  return std::string(rv->as_string());
}

std::string ListResourceVersion(Client& c, const std::string& collection) {
  auto r = c.Do("GET", collection + "?limit=1");
  auto err = CheckStatus(r, {200}, "list " + collection);
  if (!err.empty()) throw std::runtime_error(err);
  return ResourceVersionOf(r.body);
}

ParallelResult RunParallel(const Context& ctx, size_t n, int clients,
                           const std::function<std::string(Client&, size_t)>& item) {
  clients = std::max(1, std::min<int>(clients, static_cast<int>(std::max<size_t>(n, 1))));
  std::vector<std::unique_ptr<Client>> conns;
  for (int i = 0; i < clients; ++i) conns.push_back(std::make_unique<Client>(ctx.ep, ctx.tls));
  std::atomic<size_t> next{0};
  std::mutex mu;
  ParallelResult out;
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      size_t ok = 0, failed = 0;
      std::string first;
      Clock::time_point last;
      try {
        for (size_t i; (i = next.fetch_add(1)) < n;) {
          std::string err = item(*conns[static_cast<size_t>(t)], i);
          last = Clock::now();
          if (err.empty()) {
            ++ok;
          } else if (failed++ == 0) {
            first = std::move(err);
          }
        }
      } catch (const std::exception& e) {  // a broken connection ends this client's share
        ++failed;
        if (first.empty()) first = e.what();
      }
      std::lock_guard<std::mutex> l(mu);
      out.ok += ok;
      out.failed += failed;
      if (out.first_error.empty()) out.first_error = first;
      out.last_done = std::max(out.last_done, last);
    });
  }
  for (auto& t : threads) t.join();
  out.seconds = Seconds(Clock::now() - start);
  return out;
}

PopulateResult Populate(const Context& ctx, std::string_view ns, int services, int pods,
                        uint32_t ip_base, int clients) {
  PopulateResult out;
  const std::string svc_target = fmt::format("/api/v1/namespaces/{}/services", ns);
  out.services = RunParallel(ctx, static_cast<size_t>(services), clients, [&](Client& c, size_t s) {
    return CheckStatus(c.Do("POST", svc_target, ServiceBody(static_cast<int>(s))), {201},
                       "create Service");
  });
  const std::string pod_target = fmt::format("/api/v1/namespaces/{}/pods", ns);
  const int nodes = ctx.options.nodes;
  out.pods = RunParallel(
      ctx, static_cast<size_t>(services) * static_cast<size_t>(pods), clients,
      [&](Client& c, size_t i) {
        const int s = static_cast<int>(i / static_cast<size_t>(pods));
        const int j = static_cast<int>(i % static_cast<size_t>(pods));
        std::string err =
            CheckStatus(c.Do("POST", pod_target, PodBody(s, j, nodes)), {201}, "create Pod");
        if (!err.empty()) return err;
        return CheckStatus(
            c.Do("PATCH", pod_target + "/" + PodName(s, j) + "/status",
                 PodStatusBody(PodIp(ip_base, static_cast<uint32_t>(i)), true), kMergePatch),
            {200}, "pods/status");
      });
  return out;
}

std::map<std::string, double> ScrapeMetrics(Client& c) {
  auto r = c.Do("GET", "/metrics");
  if (r.status != 200) throw std::runtime_error(fmt::format("/metrics: {}", r.status));
  std::map<std::string, double> out;
  std::istringstream in(r.body);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    const std::string key = line.substr(0, sp);
    if (key.find("_bucket{") != std::string::npos) continue;
    out[key] = std::strtod(line.c_str() + sp + 1, nullptr);
  }
  return out;
}

std::map<std::string, double> ScrapeControllerMetrics(const Context& ctx) {
  auto c = ControllersClient(ctx);
  return c ? ScrapeMetrics(*c) : std::map<std::string, double>{};
}

double SumSeries(const std::map<std::string, double>& metrics, std::string_view name,
                 std::initializer_list<std::string_view> label_parts) {
  double sum = 0;
  const std::string prefix = std::string(name) + "{";
  for (auto it = metrics.lower_bound(prefix); it != metrics.end(); ++it) {
    if (!it->first.starts_with(prefix)) break;
    bool all = true;
    for (auto part : label_parts) all = all && it->first.find(part) != std::string::npos;
    if (all) sum += it->second;
  }
  return sum;
}

}  // namespace svcplane::bench::e2e
