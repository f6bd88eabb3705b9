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
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
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

FanOutResult Summarise(const std::vector<std::pair<int, int64_t>>& samples,
                       const std::vector<std::atomic<int64_t>>& start_ns,
                       const std::vector<std::atomic<int64_t>>& ack_ns) {
  std::vector<int64_t> first(start_ns.size(), INT64_MAX);
  for (auto [idx, t] : samples) {
    if (idx > 0 && static_cast<size_t>(idx) < first.size()) first[idx] = std::min(first[idx], t);
  }
  std::vector<double> spread, ack, e2e;
  for (auto [idx, t] : samples) {
    if (idx <= 0 || static_cast<size_t>(idx) >= first.size()) continue;
    spread.push_back(static_cast<double>(t - first[idx]) / 1e6);
    ack.push_back(std::max<double>(0, static_cast<double>(t - ack_ns[idx]) / 1e6));
    e2e.push_back(static_cast<double>(t - start_ns[idx]) / 1e6);
  }
  return {Percentile(spread, 0.5),
          Percentile(spread, 0.99),
          Percentile(ack, 0.5),
          Percentile(ack, 0.99),
          Percentile(e2e, 0.5),
          Percentile(e2e, 0.99),
          spread.size()};
}

// 1,000 watchers on the watch cache, each notified by callback and drained by two consumer
// threads (as an Asio server would), while one writer creates `events` keys.
FanOutResult RunFanOut(Store& store, int watchers, int events) {
  const Revision base = store.CurrentRevision();
  std::vector<std::atomic<int64_t>> start_ns(events + 1), ack_ns(events + 1);
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
  std::vector<std::pair<int, int64_t>> all;
  for (auto& s : samples) all.insert(all.end(), s.begin(), s.end());
  return Summarise(all, start_ns, ack_ns);
}

// One streaming watch on etcd's JSON gateway (POST /v3/watch, chunked, one JSON message per
// line); records when each event's mod_revision arrives.
class EtcdWatcher : public std::enable_shared_from_this<EtcdWatcher> {
 public:
  EtcdWatcher(asio::io_context& io, int port, Revision base, std::atomic<int>& created,
              std::vector<std::pair<int, int64_t>>& samples)
      : stream_(io), port_(port), base_(base), created_(created), samples_(samples) {}

  void Start() {
    req_ = {http::verb::post, "/v3/watch", 11};
    req_.set(http::field::host, "127.0.0.1");
    req_.set(http::field::content_type, "application/json");
    req_.body() = "{\"create_request\":{\"key\":\"" + Base64("/fan/") + "\",\"range_end\":\"" +
                  Base64("/fan0") + "\",\"start_revision\":\"" + std::to_string(base_ + 1) + "\"}}";
    req_.prepare_payload();
    parser_.body_limit(std::numeric_limits<std::uint64_t>::max());
    // The parser keeps a reference to the callback, so it lives in a member.
    on_body_ = [this](std::uint64_t, std::string_view body, beast::error_code&) {
      OnBytes(body);
      return body.size();
    };
    parser_.on_chunk_body(on_body_);
    auto self = shared_from_this();
    stream_.async_connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                                  static_cast<unsigned short>(port_)),
                          [self](beast::error_code ec) {
                            if (ec) return;
                            http::async_write(self->stream_, self->req_,
                                              [self](beast::error_code ec, size_t) {
                                                if (!ec) self->Read();
                                              });
                          });
  }
  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    stream_.close();
  }

 private:
  void Read() {
    auto self = shared_from_this();
    http::async_read_some(stream_, buffer_, parser_, [self](beast::error_code ec, size_t) {
      if (!ec && !self->parser_.is_done()) self->Read();
    });
  }
  void OnBytes(std::string_view bytes) {
    line_.append(bytes);
    size_t nl;
    while ((nl = line_.find('\n')) != std::string::npos) {
      std::string_view msg(line_.data(), nl);
      if (msg.find("\"created\":true") != std::string_view::npos) ++created_;
      const int64_t now = NowNs();
      constexpr std::string_view kTag = "\"mod_revision\":\"";
      for (size_t at = msg.find(kTag); at != std::string_view::npos; at = msg.find(kTag, at)) {
        at += kTag.size();
        const Revision rev = std::strtoll(msg.data() + at, nullptr, 10);
        samples_.emplace_back(static_cast<int>(rev - base_), now);
      }
      line_.erase(0, nl + 1);
    }
  }

  beast::tcp_stream stream_;
  const int port_;
  const Revision base_;
  std::atomic<int>& created_;
  std::vector<std::pair<int, int64_t>>& samples_;  // only the io thread touches it
  http::request<http::string_body> req_;
  http::response_parser<http::empty_body> parser_;
  std::function<std::size_t(std::uint64_t, std::string_view, beast::error_code&)> on_body_;
  beast::flat_buffer buffer_;
  std::string line_;
};

// The same fan-out against etcd: `watchers` gateway watch streams on one Asio thread, one
// writer putting `events` 1 KB values.
FanOutResult RunEtcdFanOut(int port, int watchers, int events) {
  EtcdClient writer(port);
  auto header = writer.Post(
      "/v3/kv/put", "{\"key\":\"" + Base64("/fan-base") + "\",\"value\":\"" + Base64("x") + "\"}");
  if (!header) return {};
  auto rev_at = header->find("\"revision\":\"");
  const Revision base = std::strtoll(header->c_str() + rev_at + 12, nullptr, 10);
  asio::io_context io;
  std::atomic<int> created{0};
  std::vector<std::pair<int, int64_t>> samples;
  samples.reserve(static_cast<size_t>(watchers) * static_cast<size_t>(events));
  std::vector<std::shared_ptr<EtcdWatcher>> streams;
  for (int w = 0; w < watchers; ++w) {
    streams.push_back(std::make_shared<EtcdWatcher>(io, port, base, created, samples));
    streams.back()->Start();
  }
  auto guard = asio::make_work_guard(io);
  std::thread io_thread([&] { io.run(); });
  for (int i = 0; i < 600 && created.load() < watchers; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<std::atomic<int64_t>> start_ns(events + 1), ack_ns(events + 1);
  for (int i = 1; i <= events; ++i) {
    start_ns[i] = NowNs();
    if (!writer.Put("/fan/" + std::to_string(i), Value1K(i))) {
      std::fprintf(stderr, "etcd fan-out write failed\n");
    }
    ack_ns[i] = NowNs();
  }
  // Wait for the deliveries to stop growing (etcd has no "all delivered" signal).
  const size_t expected = static_cast<size_t>(watchers) * static_cast<size_t>(events);
  size_t seen = 0;
  for (int quiet = 0; quiet < 20;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    size_t now = 0;
    asio::post(io, [&] { now = samples.size(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    quiet = (now == seen) ? quiet + 1 : 0;
    seen = now;
    if (seen >= expected) break;
  }
  asio::post(io, [&] {
    for (auto& s : streams) s->Close();
  });
  guard.reset();
  io.stop();
  io_thread.join();
  if (samples.size() < expected) {
    std::fprintf(stderr, "etcd fan-out: %zu of %zu deliveries arrived\n", samples.size(), expected);
  }
  return Summarise(samples, start_ns, ack_ns);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"svcplane store benchmark"};
  double seconds = 3;
  int keys = 100'000, watchers = 1000, events = 500, rounds = 3;
  bool no_etcd = false;
  app.add_option("--seconds", seconds, "duration of each write run");
  app.add_option("--rounds", rounds, "write runs per system and writer count (median shown)");
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
  // The ratio is always "how many times better than etcd": throughput ours/theirs, latency
  // theirs/ours.
  auto row = [](const std::string& name, double ours, double theirs, const char* unit) {
    const bool latency = std::string_view(unit) == "ms";
    if (theirs > 0) {
      std::printf("%-44s %11.1f %s %11.1f %s %7.1fx\n", name.c_str(), ours, unit, theirs, unit,
                  latency ? theirs / ours : ours / theirs);
    } else {
      std::printf("%-44s %11.1f %s %14s\n", name.c_str(), ours, unit, "-");
    }
    std::fflush(stdout);
  };

  // The machine is shared, so fsync latency drifts: the two systems take turns, several rounds
  // each, and the table shows the median round (all rounds are printed below it).
  for (int writers : {1, 8, 64}) {
    const std::string prefix = "/w" + std::to_string(writers) + "/";
    std::vector<std::unique_ptr<EtcdClient>> clients;
    for (int w = 0; etcd && w < writers; ++w) {
      clients.push_back(std::make_unique<EtcdClient>(etcd->port()));
    }
    std::vector<double> ours, theirs;
    for (int r = 0; r < rounds; ++r) {
      const std::string round = prefix + std::to_string(r) + "/";
      ours.push_back(RunWriters(writers, seconds, [&](int w, int64_t i) {
        return raw_rocks
            ->Create(round + std::to_string(w) + "/" + std::to_string(i), MakeValue(Value1K(i)))
            .ok();
      }));
      if (!etcd) continue;
      theirs.push_back(RunWriters(writers, seconds, [&](int w, int64_t i) {
        return clients[w]->Put(round + std::to_string(w) + "/" + std::to_string(i), Value1K(i));
      }));
    }
    std::string rounds_text;
    for (size_t r = 0; r < ours.size(); ++r) {
      rounds_text += " " + std::to_string(static_cast<int>(ours[r])) + "/" +
                     (theirs.empty() ? "-" : std::to_string(static_cast<int>(theirs[r])));
    }
    row("durable writes/s, 1 KB, " + std::to_string(writers) + " writers", Percentile(ours, 0.5),
        theirs.empty() ? 0 : Percentile(theirs, 0.5), "/s");
    std::printf("    rounds (svcplane/etcd):%s\n", rounds_text.c_str());
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
  FanOutResult e{};
  if (etcd) e = RunEtcdFanOut(etcd->port(), watchers, events);
  std::printf("fan-out to %d watchers, %d writes of 1 KB (%zu / %zu deliveries):\n", watchers,
              events, f.deliveries, e.deliveries);
  row("  first->each watcher spread p50, ms", f.spread_p50_ms, e.spread_p50_ms, "ms");
  row("  first->each watcher spread p99, ms", f.spread_p99_ms, e.spread_p99_ms, "ms");
  row("  ack->delivered p50, ms", f.ack_p50_ms, e.ack_p50_ms, "ms");
  row("  ack->delivered p99, ms", f.ack_p99_ms, e.ack_p99_ms, "ms");
  row("  write call->delivered (incl. fsync) p50, ms", f.e2e_p50_ms, e.e2e_p50_ms, "ms");
  row("  write call->delivered (incl. fsync) p99, ms", f.e2e_p99_ms, e.e2e_p99_ms, "ms");

  cache->reset();
  etcd.reset();
  fs::remove_all(dir);
  return 0;
}
