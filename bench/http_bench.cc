// Requests/s and latency of a small authenticated GET over keep-alive TLS, with N client
// connections (one Beast sync client per thread) against an in-process server.
//   build/bench/http_bench [--benchmark_filter=...]   SVCPLANE_BENCH_SECONDS=3 by default
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include "apiserver/http/auth.h"
#include "apiserver/http/server.h"
#include "apiserver/http/testing/tls_client.h"
#include "apiserver/pki/pki.h"

namespace svcplane::apiserver::http {
namespace {

using Clock = std::chrono::steady_clock;

struct Fixture {
  Fixture() {
    dir = std::filesystem::temp_directory_path() /
          ("svcplane-http-bench-" + std::to_string(::getpid()));
    pki::PkiOptions popts;
    popts.dir = dir.string();
    pki = *pki::LoadOrCreatePki(popts);
    ServerOptions opts;
    opts.io_threads = 2;
    opts.worker_threads = 2;
    opts.cert_pem = pki.serving_cert_pem;
    opts.key_pem = pki.serving_key_pem;
    opts.authenticator = BearerTokenAuthenticator(pki.admin_token, AdminIdentity());
    std::string body = R"({"kind":"Status","apiVersion":"v1","status":"Success"})";
    server = std::move(*Server::Start(opts, [body](const Request&) {
      return Response{200, "application/json", body, {}};
    }));
  }
  ~Fixture() {
    server->Shutdown(std::chrono::seconds(5));
    std::filesystem::remove_all(dir);
  }
  std::filesystem::path dir;
  pki::Pki pki;
  std::unique_ptr<Server> server;
};

double Seconds() {
  const char* s = std::getenv("SVCPLANE_BENCH_SECONDS");
  return s != nullptr ? std::atof(s) : 3.0;
}

void BM_SmallGetKeepAliveTls(benchmark::State& state) {
  static Fixture fx;
  const int conns = static_cast<int>(state.range(0));
  const auto duration = std::chrono::duration<double>(Seconds());
  for (auto _ : state) {
    std::vector<std::unique_ptr<testing::TlsClient>> clients;
    for (int i = 0; i < conns; ++i) {
      testing::ClientOptions o;
      o.port = fx.server->port();
      o.ca_pem = fx.pki.ca_cert_pem;
      o.token = fx.pki.admin_token;
      auto c = testing::TlsClient::Connect(o);
      if (!c.ok()) {
        state.SkipWithError(c.status().ToString().c_str());
        return;
      }
      clients.push_back(std::move(*c));
    }
    std::vector<std::vector<double>> latencies(conns);
    std::atomic<int64_t> errors{0};
    std::barrier start(conns + 1);
    Clock::time_point t0, stop_at;
    std::vector<std::thread> threads;
    for (int i = 0; i < conns; ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        auto& lat = latencies[i];
        lat.reserve(1 << 16);
        while (Clock::now() < stop_at) {
          auto a = Clock::now();
          auto res = clients[i]->Get("/api/v1/namespaces/default/services/web");
          auto b = Clock::now();
          if (!res.ok() || res->status != 200) {
            errors++;
            continue;
          }
          lat.push_back(std::chrono::duration<double, std::micro>(b - a).count());
        }
      });
    }
    t0 = Clock::now();
    stop_at = t0 + std::chrono::duration_cast<Clock::duration>(duration);
    start.arrive_and_wait();
    for (auto& t : threads) t.join();
    double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    std::vector<double> all;
    for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    auto pct = [&](double p) {
      return all.empty() ? 0.0 : all[std::min(all.size() - 1, size_t(p * all.size()))];
    };
    state.counters["req_per_s"] = static_cast<double>(all.size()) / elapsed;
    state.counters["p50_us"] = pct(0.50);
    state.counters["p99_us"] = pct(0.99);
    state.counters["errors"] = static_cast<double>(errors.load());
    state.SetIterationTime(elapsed);
  }
}
BENCHMARK(BM_SmallGetKeepAliveTls)
    ->ArgName("conns")
    ->Arg(8)
    ->Arg(64)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace svcplane::apiserver::http

BENCHMARK_MAIN();
