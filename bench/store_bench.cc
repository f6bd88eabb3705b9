// Store benchmark: durable writes/s with 1, 8 and 64 writers (1 KB values), a list of 100,000
// keys and a watch fan-out to 1,000 watchers, for the RocksDB store and, side by side, for a
// single-member etcd (Debian's /usr/bin/etcd, started here on loopback, durable defaults,
// reached through its JSON gateway with one keep-alive connection per writer).
//
//   build/bench/store_bench [--seconds 3] [--keys 100000] [--watchers 1000] [--no-etcd]
//
// A plain binary rather than Google Benchmark: the runs need real concurrency, an external
// process and a side-by-side table.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detail/base64.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "storage/cache/cached_store.h"
#include "storage/rocks/rocks_store.h"

extern char** environ;

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using svcplane::storage::MakeValue;
using svcplane::storage::Revision;
using svcplane::storage::Store;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

std::string Base64(std::string_view in) {
  std::string out(beast::detail::base64::encoded_size(in.size()), '\0');
  out.resize(beast::detail::base64::encode(out.data(), in.data(), in.size()));
  return out;
}

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
  return v[i];
}

// Runs `writers` threads calling write(writer, i) for `seconds`; returns acknowledged writes/s.
double RunWriters(int writers, double seconds, const std::function<bool(int, int64_t)>& write) {
  std::atomic<int64_t> done{0}, failed{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  auto start = Clock::now();
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      for (int64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        if (write(w, i)) {
          done.fetch_add(1, std::memory_order_relaxed);
        } else {
          failed.fetch_add(1, std::memory_order_relaxed);
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (failed > 0) std::fprintf(stderr, "  %lld writes failed\n", (long long)failed.load());
  return static_cast<double>(done.load()) / elapsed;
}

int FreePort() {
  asio::io_context io;
  asio::ip::tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

// One keep-alive HTTP/1.1 connection to etcd's JSON gateway.
class EtcdClient {
 public:
  explicit EtcdClient(int port) : stream_(io_) {
    stream_.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                            static_cast<unsigned short>(port)));
  }
  // POST path with a JSON body; returns the response body, or nullopt on a non-200.
  std::optional<std::string> Post(const std::string& path, const std::string& body) {
    http::request<http::string_body> req{http::verb::post, path, 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/json");
    req.keep_alive(true);
    req.body() = body;
    req.prepare_payload();
    beast::error_code ec;
    http::write(stream_, req, ec);
    if (ec) return std::nullopt;
    http::response_parser<http::string_body> parser;
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    http::read(stream_, buffer_, parser, ec);
    if (ec || parser.get().result() != http::status::ok) return std::nullopt;
    return std::move(parser.get().body());
  }
  bool Put(const std::string& key, const std::string& value) {
    auto r =
        Post("/v3/kv/put", "{\"key\":\"" + Base64(key) + "\",\"value\":\"" + Base64(value) + "\"}");
    return r && r->find("\"header\"") != std::string::npos;
  }

 private:
  asio::io_context io_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
};

// A single-member etcd on loopback with a temporary data dir; killed and removed at the end.
class EtcdProcess {
 public:
  bool Start() {
    dir_ = fs::temp_directory_path() / ("svcplane-bench-etcd-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    port_ = FreePort();
    int peer = FreePort();
    std::string client = "http://127.0.0.1:" + std::to_string(port_);
    std::string peer_url = "http://127.0.0.1:" + std::to_string(peer);
    std::vector<std::string> args = {"/usr/bin/etcd",
                                     "--name=bench",
                                     "--data-dir=" + dir_.string(),
                                     "--listen-client-urls=" + client,
                                     "--advertise-client-urls=" + client,
                                     "--listen-peer-urls=" + peer_url,
                                     "--initial-advertise-peer-urls=" + peer_url,
                                     "--initial-cluster=bench=" + peer_url,
                                     "--log-level=error",
                                     "--quota-backend-bytes=8589934592"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return false;
    for (int i = 0; i < 100; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      try {
        EtcdClient c(port_);
        if (c.Put("/bench/ready", "1")) return true;
      } catch (const std::exception&) {
      }
    }
    return false;
  }
  ~EtcdProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  fs::path dir_;
};

std::string Value1K(int64_t i) {
  std::string v = std::to_string(i) + ":";
  v.resize(1024, 'x');
  return v;
}

struct FanOutResult {
  double spread_p50_ms, spread_p99_ms;  // first watcher got it -> this watcher got it
  double ack_p50_ms, ack_p99_ms;        // writer's call returned -> this watcher got it
  double e2e_p50_ms, e2e_p99_ms;        // writer called Create -> this watcher got it
  size_t deliveries;
};

// 1,000 watchers on the watch cache, each notified by callback and drained by two consumer
// threads (as an Asio server would), while one writer creates `events` keys.
FanOutResult RunFanOut(Store& store, int watchers, int events) {
  const Revision base = store.CurrentRevision();
  std::vector<std::atomic<int64_t>> start_ns(events + 1), ack_ns(events + 1), first_ns(events + 1);
  for (auto& f : first_ns) f = INT64_MAX;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<int> ready;
  std::vector<std::unique_ptr<std::atomic<bool>>> queued;
  std::vector<std::unique_ptr<svcplane::storage::WatchStream>> streams;
  for (int w = 0; w < watchers; ++w) {
    queued.push_back(std::make_unique<std::atomic<bool>>(false));
    svcplane::storage::WatchOptions o;
    o.queue_capacity = 100'000;
    o.notify = [&, w] {
      if (queued[w]->exchange(true)) return;
      {
        std::lock_guard lock(mu);
        ready.push_back(w);
      }
      cv.notify_one();
    };
    auto s = store.Watch("/fan/", base, o);
    if (!s.ok()) {
      std::fprintf(stderr, "watch: %s\n", s.status().ToString().c_str());
      std::exit(1);
    }
    streams.push_back(std::move(*s));
  }
  std::atomic<size_t> delivered{0};
  const size_t expected = static_cast<size_t>(watchers) * static_cast<size_t>(events);
  std::vector<std::vector<std::pair<int, int64_t>>> samples(2);
  std::vector<std::thread> consumers;
  for (int c = 0; c < 2; ++c) {
    consumers.emplace_back([&, c] {
      while (delivered.load() < expected) {
        int w;
        {
          std::unique_lock lock(mu);
          if (!cv.wait_for(lock, std::chrono::seconds(10), [&] { return !ready.empty(); })) {
            return;
          }
          w = ready.front();
          ready.pop_front();
        }
        queued[w]->store(false);
        while (true) {
          auto batch = streams[w]->TryNextBatch(256);
          if (!batch.ok() || batch->empty()) break;
          int64_t now = NowNs();
          for (auto& e : *batch) {
            int idx = static_cast<int>(e->revision() - base);
            samples[c].emplace_back(idx, now);
            int64_t prev = first_ns[idx].load();
            while (now < prev && !first_ns[idx].compare_exchange_weak(prev, now)) {
            }
          }
          delivered += batch->size();
        }
      }
      cv.notify_all();
    });
  }
  for (int i = 1; i <= events; ++i) {
    start_ns[i] = NowNs();
    auto kv = store.Create("/fan/" + std::to_string(i), MakeValue(Value1K(i)));
    if (!kv.ok() || kv->mod_revision != base + i) {
      std::fprintf(stderr, "fan-out write failed or revision unexpected\n");
      std::exit(1);
    }
    ack_ns[i] = NowNs();
  }
  for (auto& t : consumers) t.join();
  std::vector<double> spread, ack, e2e;
  for (auto& s : samples) {
    for (auto [idx, t] : s) {
      spread.push_back(static_cast<double>(t - first_ns[idx]) / 1e6);
      ack.push_back(std::max<double>(0, static_cast<double>(t - ack_ns[idx]) / 1e6));
      e2e.push_back(static_cast<double>(t - start_ns[idx]) / 1e6);
    }
  }
  return {Percentile(spread, 0.5), Percentile(spread, 0.99), Percentile(ack, 0.5),
          Percentile(ack, 0.99),   Percentile(e2e, 0.5),     Percentile(e2e, 0.99),
          delivered.load()};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"svcplane store benchmark"};
  double seconds = 3;
  int keys = 100'000, watchers = 1000, events = 1000;
  bool no_etcd = false;
  app.add_option("--seconds", seconds, "duration of each write run");
  app.add_option("--keys", keys, "keys for the list benchmark");
  app.add_option("--watchers", watchers, "watchers for the fan-out benchmark");
  app.add_option("--events", events, "writes during the fan-out benchmark");
  app.add_flag("--no-etcd", no_etcd, "skip the etcd side");
  CLI11_PARSE(app, argc, argv);

  fs::path dir = fs::temp_directory_path() / ("svcplane-bench-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  svcplane::storage::rocks::RocksStoreOptions options;
  options.path = (dir / "db").string();
  auto rocks = svcplane::storage::rocks::RocksStore::Open(options);
  if (!rocks.ok()) {
    std::fprintf(stderr, "%s\n", rocks.status().ToString().c_str());
    return 1;
  }
  svcplane::storage::rocks::RocksStore* raw_rocks = rocks->get();
  auto cache = svcplane::storage::cache::CachedStore::Open(std::move(*rocks));
  if (!cache.ok()) return 1;
  Store& cached = **cache;

  std::unique_ptr<EtcdProcess> etcd;
  if (!no_etcd) {
    etcd = std::make_unique<EtcdProcess>();
    if (!etcd->Start()) {
      std::fprintf(stderr, "etcd did not start; use --no-etcd\n");
      return 1;
    }
  }

  std::printf("%-44s %14s %14s %8s\n", "benchmark", "svcplane", "etcd 3.4", "ratio");
  auto row = [](const std::string& name, double ours, double theirs, const char* unit) {
    if (theirs > 0) {
      std::printf("%-44s %11.0f %s %11.0f %s %7.2fx\n", name.c_str(), ours, unit, theirs, unit,
                  ours / theirs);
    } else {
      std::printf("%-44s %11.1f %s %14s\n", name.c_str(), ours, unit, "-");
    }
    std::fflush(stdout);
  };

  for (int writers : {1, 8, 64}) {
    const std::string prefix = "/w" + std::to_string(writers) + "/";
    double ours = RunWriters(writers, seconds, [&](int w, int64_t i) {
      return raw_rocks
          ->Create(prefix + std::to_string(w) + "/" + std::to_string(i), MakeValue(Value1K(i)))
          .ok();
    });
    double theirs = 0;
    if (etcd) {
      std::vector<std::unique_ptr<EtcdClient>> clients;
      for (int w = 0; w < writers; ++w)
        clients.push_back(std::make_unique<EtcdClient>(etcd->port()));
      theirs = RunWriters(writers, seconds, [&](int w, int64_t i) {
        return clients[w]->Put(prefix + std::to_string(w) + "/" + std::to_string(i), Value1K(i));
      });
    }
    row("durable writes/s, 1 KB, " + std::to_string(writers) + " writers", ours, theirs, "/s");
  }

  // Load `keys` keys (64 writers) into both, then time full lists.
  {
    std::atomic<int64_t> next{0};
    auto load = [&](const std::function<bool(int64_t)>& put) {
      std::vector<std::thread> threads;
      for (int w = 0; w < 64; ++w) {
        threads.emplace_back([&] {
          for (int64_t i; (i = next.fetch_add(1)) < keys;) {
            if (!put(i)) std::fprintf(stderr, "load write failed\n");
          }
        });
      }
      for (auto& t : threads) t.join();
    };
    auto key = [](int64_t i) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "/list/%08lld", static_cast<long long>(i));
      return std::string(buf);
    };
    load([&](int64_t i) { return raw_rocks->Create(key(i), MakeValue(Value1K(i))).ok(); });
    auto time_list = [&](Store& s) {
      std::vector<double> ms;
      for (int r = 0; r < 5; ++r) {
        auto t0 = Clock::now();
        auto list = s.List({.prefix = "/list/"});
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (!list.ok() || list->items.size() != static_cast<size_t>(keys)) {
          std::fprintf(stderr, "list returned the wrong count\n");
          std::exit(1);
        }
      }
      return Percentile(ms, 0.5);
    };
    double ours_cache = time_list(cached);
    double ours_rocks = time_list(*raw_rocks);
    double theirs = 0;
    if (etcd) {
      next = 0;
      std::vector<std::unique_ptr<EtcdClient>> clients;
      for (int w = 0; w < 64; ++w) clients.push_back(std::make_unique<EtcdClient>(etcd->port()));
      std::atomic<int> slot{0};
      thread_local int my = -1;
      load([&](int64_t i) {
        if (my < 0) my = slot.fetch_add(1);
        return clients[my]->Put(key(i), Value1K(i));
      });
      EtcdClient c(etcd->port());
      std::vector<double> ms;
      for (int r = 0; r < 3; ++r) {
        auto t0 = Clock::now();
        auto body = c.Post("/v3/kv/range", "{\"key\":\"" + Base64("/list/") +
                                               "\",\"range_end\":\"" + Base64("/list0") + "\"}");
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (!body || body->size() < static_cast<size_t>(keys) * 1024) {
          std::fprintf(stderr, "etcd range returned too little\n");
        }
      }
      theirs = Percentile(ms, 0.5);
    }
    std::string n = std::to_string(keys);
    row("list " + n + " keys (watch cache), ms", ours_cache, theirs, "ms");
    row("list " + n + " keys (rocks store), ms", ours_rocks, 0, "ms");
  }

  FanOutResult f = RunFanOut(cached, watchers, events);
  std::string w = std::to_string(watchers);
  std::printf("fan-out to %s watchers, %d writes (%zu deliveries):\n", w.c_str(), events,
              f.deliveries);
  row("  commit->delivered spread p50, ms", f.spread_p50_ms, 0, "ms");
  row("  commit->delivered spread p99, ms", f.spread_p99_ms, 0, "ms");
  row("  ack->delivered p50, ms", f.ack_p50_ms, 0, "ms");
  row("  ack->delivered p99, ms", f.ack_p99_ms, 0, "ms");
  row("  write call->delivered (incl. fsync) p50, ms", f.e2e_p50_ms, 0, "ms");
  row("  write call->delivered (incl. fsync) p99, ms", f.e2e_p99_ms, 0, "ms");

  cache->reset();
  etcd.reset();
  fs::remove_all(dir);
  return 0;
}
