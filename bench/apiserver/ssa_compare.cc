#include "bench/apiserver/ssa_compare.h"

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bench/apiserver/pod_creates.h"
#include "bench/common/https_client.h"
#include "bench/common/server_process.h"
#include "bench/common/table.h"

namespace svcplane::bench::apiserver {
namespace {

constexpr std::string_view kNamespace = "bench";

void CreateNamespace(const Endpoint& ep) {
  Client c(ep, MakeTls(ep));
  auto r =
      c.Do("POST", "/api/v1/namespaces",
           fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})",
                       kNamespace));
  if (r.status != 201) throw std::runtime_error("create namespace: " + r.body);
}

// The body `kubectl apply --server-side` sends for a small Service.
std::string ServiceApplyBody() {
  return fmt::format(
      R"({{"apiVersion":"v1","kind":"Service","metadata":{{"labels":{{"app":"web"}},)"
      R"("name":"web","namespace":"{}"}},"spec":{{"ports":[{{"name":"http","port":80,)"
      R"("targetPort":8080}}],"selector":{{"app":"web"}}}}}})"
      "\n",
      kNamespace);
}

std::string ResourceVersionOf(const std::string& body) {
  const std::string key = R"("resourceVersion":")";
  size_t at = body.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return body.substr(at, body.find('"', at) - at);
}

struct ApplyResult {
  double rate = 0;
  double server_cpu_us = 0;
  std::string rv_before, rv_after;
};

ApplyResult ReApply(const Endpoint& ep, pid_t pid, size_t applies, int clients) {
  const std::string target = fmt::format(
      "/api/v1/namespaces/{}/services/web?fieldManager=kubectl&fieldValidation=Strict&force=false",
      kNamespace);
  const std::string body = ServiceApplyBody();
  ApplyResult out;
  {
    Client c(ep, MakeTls(ep));
    auto r = c.Do("PATCH", target, body, "application/apply-patch+yaml");
    if (r.status != 201 && r.status != 200) throw std::runtime_error("apply: " + r.body);
    out.rv_before = ResourceVersionOf(r.body);
  }
  auto tls = MakeTls(ep);
  std::atomic<size_t> next{0}, failed{0};
  const double cpu_before = ProcessCpuSeconds(pid);
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&] {
      Client c(ep, tls);
      const std::string request = c.RequestHead("PATCH", target, "application/apply-patch+yaml") +
                                  fmt::format("Content-Length: {}\r\n\r\n", body.size()) + body;
      while (next.fetch_add(1) < applies) {
        if (c.DoRaw(request).status != 200) failed.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  const double seconds = Seconds(Clock::now() - start);
  out.server_cpu_us = (ProcessCpuSeconds(pid) - cpu_before) / static_cast<double>(applies) * 1e6;
  if (failed.load() != 0) {
    throw std::runtime_error(fmt::format("{} re-applies failed", failed.load()));
  }
  out.rate = static_cast<double>(applies) / seconds;
  Client c(ep, MakeTls(ep));
  auto r = c.Do("GET", fmt::format("/api/v1/namespaces/{}/services/web", kNamespace));
  out.rv_after = ResourceVersionOf(r.body);
  return out;
}

}  // namespace

int SsaCompare(const SsaCompareOptions& o) {
  // [0] baseline, [1] server; [variant][clients index]
  std::vector<std::vector<std::vector<double>>> rates(
      2, std::vector<std::vector<double>>(o.clients.size()));
  std::vector<std::vector<std::vector<double>>> cpu(
      2, std::vector<std::vector<double>>(o.clients.size()));
  const char* names[] = {"baseline", "managedFields"};
  ApplyResult applied;
  try {
    for (int round = 0; round < o.rounds; ++round) {
      for (int v = 0; v < 2; ++v) {
        ServerProcess proc({.binary = v == 0 ? o.baseline : o.server,
                            .extra_args = o.server_args,
                            .dir_prefix = "svcplane-apibench-ssa"});
        proc.Start();
        const Endpoint ep = proc.endpoint();
        CreateNamespace(ep);
        PodTemplate tmpl = LoadPodTemplate(o.pod_json, std::string(kNamespace));
        for (size_t c = 0; c < o.clients.size(); ++c) {
          const size_t begin = c * o.pods;
          auto r = CreatePods(ep, proc.pid(), tmpl, std::string(kNamespace), begin, begin + o.pods,
                              o.clients[c]);
          if (r.failed) throw std::runtime_error("creates failed: " + r.first_error);
          rates[v][c].push_back(static_cast<double>(r.ok) / r.seconds);
          cpu[v][c].push_back(r.server_cpu_seconds / static_cast<double>(r.ok) * 1e6);
          std::fprintf(stderr, "round %d, %-13s, %2d clients: %6.0f creates/s, %4.0f us CPU\n",
                       round, names[v], o.clients[c], rates[v][c].back(), cpu[v][c].back());
        }
        if (v == 1 && round == o.rounds - 1 && o.applies > 0) {
          applied = ReApply(ep, proc.pid(), o.applies, o.apply_clients);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apiserver_bench: %s\n", e.what());
    return 1;
  }
  std::vector<Row> rows;
  for (size_t c = 0; c < o.clients.size(); ++c) {
    const double base = Percentile(rates[0][c], 50);
    const double mine = Percentile(rates[1][c], 50);
    rows.push_back(
        {fmt::format("creates/s, baseline, {} clients (median of {})", o.clients[c], o.rounds),
         fmt::format("{:.0f}", base), ""});
    rows.push_back({fmt::format("creates/s, managedFields, {} clients", o.clients[c]),
                    fmt::format("{:.0f} ({:.1f}% of baseline)", mine, mine / base * 100),
                    ">= 90% of baseline"});
    rows.push_back(
        {"  server CPU per create, baseline / managedFields",
         fmt::format("{:.0f} / {:.0f} us", Percentile(cpu[0][c], 50), Percentile(cpu[1][c], 50)),
         ""});
  }
  if (o.applies > 0) {
    rows.push_back(
        {fmt::format("unchanged re-applies/s, {} clients ({})", o.apply_clients, o.applies),
         fmt::format("{:.0f}", applied.rate), ">= 5000"});
    rows.push_back(
        {"  server CPU per re-apply", fmt::format("{:.0f} us", applied.server_cpu_us), ""});
    rows.push_back({"  resourceVersion before / after",
                    fmt::format("{} / {}", applied.rv_before, applied.rv_after),
                    "equal (nothing written)"});
  }
  PrintTable(rows);
  return applied.rv_before == applied.rv_after ? 0 : 1;
}

}  // namespace svcplane::bench::apiserver
