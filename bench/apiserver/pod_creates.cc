#include "bench/apiserver/pod_creates.h"

#include <atomic>
#include <boost/json.hpp>
#include <cmath>
#include <memory>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "bench/common/server_process.h"

namespace svcplane::bench::apiserver {

PodTemplate LoadPodTemplate(const std::string& path, const std::string& ns) {
  auto v = boost::json::parse(ReadFile(path));
  auto& obj = v.as_object();
  obj.erase("status");
  auto& md = obj["metadata"].as_object();
  for (const char* k : {"uid", "resourceVersion", "creationTimestamp", "ownerReferences",
                        "generateName", "managedFields"}) {
    md.erase(k);
  }
  md["namespace"] = ns;
  md["name"] = "NAME_HERE";
  std::string s = boost::json::serialize(v);
  auto pos = s.find("NAME_HERE");
  return {s.substr(0, pos), s.substr(pos + 9)};
}

std::string PodName(const std::string& prefix, size_t i) {
  return fmt::format("{}-{:07d}", prefix, i);
}

Buckets ScrapeCreateBuckets(const Endpoint& ep) {
  Client c(ep, MakeTls(ep));
  auto r = c.Do("GET", "/metrics");
  if (r.status != 200) throw std::runtime_error(fmt::format("/metrics: {}", r.status));
  Buckets out;
  std::istringstream in(r.body);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("apiserver_request_duration_seconds_bucket{") ||
        line.find("resource=\"pods\"") == std::string::npos ||
        line.find("subresource=\"\"") == std::string::npos ||
        line.find("verb=\"POST\"") == std::string::npos) {
      continue;
    }
    const size_t le = line.find("le=\"");
    const size_t end = line.find('"', le + 4);
    const std::string bound = line.substr(le + 4, end - le - 4);
    out.emplace_back(bound == "+Inf" ? INFINITY : std::stod(bound),
                     std::stod(line.substr(line.rfind(' ') + 1)));
  }
  return out;
}

std::pair<double, double> QuantileAndShare(const Buckets& before, const Buckets& after, double q,
                                           double bound) {
  Buckets d = after;
  for (size_t i = 0; i < d.size() && i < before.size(); ++i) d[i].second -= before[i].second;
  if (d.empty() || d.back().second <= 0) return {0, 0};
  const double total = d.back().second;
  double quantile = 0, share = 0;
  const double rank = q * total;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i].first == bound) share = d[i].second / total;
    if (d[i].second >= rank && quantile == 0) {
      const double lo = i == 0 ? 0 : d[i - 1].first, lo_count = i == 0 ? 0 : d[i - 1].second;
      const double hi = std::isinf(d[i].first) ? lo : d[i].first;
      quantile = lo + (hi - lo) * (rank - lo_count) / std::max(d[i].second - lo_count, 1.0);
    }
  }
  return {quantile, share};
}

CreateResult CreatePods(const Endpoint& ep, pid_t server, const PodTemplate& tmpl,
                        const std::string& ns, size_t begin, size_t end, int clients) {
  auto tls = MakeTls(ep);
  std::vector<std::unique_ptr<Client>> conns;
  for (int i = 0; i < clients; ++i) conns.push_back(std::make_unique<Client>(ep, tls));
  std::vector<std::string> requests;
  requests.reserve(end - begin);
  const std::string head = fmt::format(
      "POST /api/v1/namespaces/{}/pods HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Authorization: Bearer {}\r\nAccept: application/json\r\n"
      "Content-Type: application/json\r\n",
      ns, ep.token);
  for (size_t i = begin; i < end; ++i) {
    std::string body = tmpl.Body(PodName("pod", i));
    requests.push_back(fmt::format("{}Content-Length: {}\r\n\r\n{}", head, body.size(), body));
  }
  std::atomic<size_t> next{begin};
  std::vector<CreateResult> per(static_cast<size_t>(clients));
  const double server_cpu0 = ProcessCpuSeconds(server);
  const long switches0 = ContextSwitches(server);
  const long faults0 = ProcessMinorFaults(server);
  const double self0 = SelfCpuSeconds();
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      auto& r = per[static_cast<size_t>(c)];
      r.latencies_ms.reserve((end - begin) / static_cast<size_t>(clients) * 2);
      for (size_t i; (i = next.fetch_add(1)) < end;) {
        auto t0 = Clock::now();
        Response res = conns[static_cast<size_t>(c)]->DoRaw(requests[i - begin]);
        r.latencies_ms.push_back(Ms(Clock::now() - t0));
        r.started_ms.push_back(Ms(t0 - start));
        if (res.status == 201) {
          ++r.ok;
        } else {
          if (r.failed++ == 0)
            r.first_error = fmt::format("{} {}", res.status, res.body.substr(0, 300));
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  CreateResult total;
  total.start_steady_s = std::chrono::duration<double>(start.time_since_epoch()).count();
  total.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  total.client_cpu_seconds = SelfCpuSeconds() - self0;
  total.server_cpu_seconds = ProcessCpuSeconds(server) - server_cpu0;
  total.server_context_switches = ContextSwitches(server) - switches0;
  total.server_page_faults = ProcessMinorFaults(server) - faults0;
  for (auto& r : per) {
    total.ok += r.ok;
    total.failed += r.failed;
    if (total.first_error.empty()) total.first_error = r.first_error;
    total.latencies_ms.insert(total.latencies_ms.end(), r.latencies_ms.begin(),
                              r.latencies_ms.end());
    total.started_ms.insert(total.started_ms.end(), r.started_ms.begin(), r.started_ms.end());
  }
  return total;
}

}  // namespace svcplane::bench::apiserver
