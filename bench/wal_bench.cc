// WAL benchmark: durable 4 KB creates (a Pod's size) on the embedded store with its WAL written
// ahead with zeros (the default) and appended (--prewritten-wal=false), in alternated rounds,
// with 1, 8 and 64 writers: acknowledged writes/s and per-write latency p50/p99. Every write
// waits for one fdatasync (shared by the writers of a group), so this shows what overwriting
// blocks already on disk saves per sync.
//
//   build/bench/wal_bench [--seconds 3] [--rounds 5]
//
// A plain binary rather than Google Benchmark: the runs need real concurrency and alternation.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "storage/rocks/rocks_store.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using svcplane::storage::rocks::RocksStore;
using svcplane::storage::rocks::RocksStoreOptions;

struct Round {
  double writes_per_s = 0;
  double p50_us = 0, p99_us = 0;
};

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
  return v[i];
}

// One round on a fresh store: `writers` threads create 4 KB values for `seconds`.
Round RunRound(const fs::path& dir, bool prewritten, int writers, double seconds) {
  fs::remove_all(dir);
  RocksStoreOptions options;
  options.path = dir.string();
  options.prewritten_wal = prewritten;
  auto store = RocksStore::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    std::exit(1);
  }
  const auto value = svcplane::storage::MakeValue(std::string(4096, 'p'));
  std::atomic<bool> stop{false};
  std::atomic<int64_t> failed{0};
  std::mutex mu;
  std::vector<double> latencies;
  std::vector<std::thread> threads;
  const auto start = Clock::now();
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      std::vector<double> mine;
      for (int64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        const std::string key = "/pods/w" + std::to_string(w) + "/" + std::to_string(i);
        const auto t0 = Clock::now();
        if (!(*store)->Create(key, value).ok()) failed.fetch_add(1);
        mine.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      std::lock_guard lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (failed > 0) std::fprintf(stderr, "  %lld writes failed\n", (long long)failed.load());
  (*store)->Close();
  fs::remove_all(dir);
  Round r;
  r.writes_per_s = static_cast<double>(latencies.size()) / elapsed;
  r.p50_us = Percentile(latencies, 0.5);
  r.p99_us = Percentile(latencies, 0.99);
  return r;
}

double Median(std::vector<double> v) { return Percentile(v, 0.5); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"embedded store: pre-written vs appended WAL"};
  double seconds = 3;
  int rounds = 5;
  app.add_option("--seconds", seconds, "duration of each round")->capture_default_str();
  app.add_option("--rounds", rounds, "alternated rounds per variant (medians shown)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const fs::path dir =
      fs::temp_directory_path() / ("svcplane-walbench-" + std::to_string(::getpid()));
  std::printf("%-10s %-12s %12s %10s %10s   rounds (writes/s)\n", "writers", "WAL", "writes/s",
              "p50 us", "p99 us");
  for (int writers : {1, 8, 64}) {
    std::vector<Round> results[2];  // [0] appended, [1] pre-written
    for (int i = 0; i < rounds; ++i) {
      for (int prewritten : {0, 1}) {
        results[prewritten].push_back(RunRound(dir, prewritten == 1, writers, seconds));
      }
    }
    for (int prewritten : {0, 1}) {
      std::vector<double> rate, p50, p99;
      std::string each;
      for (const Round& r : results[prewritten]) {
        rate.push_back(r.writes_per_s);
        p50.push_back(r.p50_us);
        p99.push_back(r.p99_us);
        each += " " + std::to_string(static_cast<int>(r.writes_per_s));
      }
      std::printf("%-10d %-12s %12.0f %10.0f %10.0f  %s\n", writers,
                  prewritten ? "pre-written" : "appended", Median(rate), Median(p50), Median(p99),
                  each.c_str());
    }
  }
  fs::remove_all(dir);
  return 0;
}
