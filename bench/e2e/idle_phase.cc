// Phase (c): single-change watch delay on an idle server.

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bench/e2e/phases.h"
#include "bench/e2e/watch_stream.h"

namespace svcplane::bench::e2e {

namespace {

constexpr std::string_view kNamespace = "e2e-idle";
constexpr std::string_view kService = "idle";
constexpr std::string_view kMarker = "mk-";  // then 6 digits: the round
constexpr size_t kDigits = 6;

// Arrival times of each round's marker at one watcher, filled from the stream's thread.
class MarkerLog {
 public:
  explicit MarkerLog(size_t rounds) : seen_(rounds) {}

  // Notes every marker in `event` not seen before.
  void Scan(std::string_view event, Clock::time_point arrived) {
    for (size_t p = event.find(kMarker); p != std::string_view::npos;
         p = event.find(kMarker, p + 1)) {
      const size_t d = p + kMarker.size();
      if (d + kDigits > event.size()) break;
      size_t round = 0;
      bool digits = true;
      for (size_t i = d; i < d + kDigits; ++i) {
        digits = digits && event[i] >= '0' && event[i] <= '9';
        round = round * 10 + static_cast<size_t>(event[i] - '0');
      }
      if (!digits || round >= seen_.size()) continue;
      std::lock_guard<std::mutex> l(mu_);
      if (seen_[round] == Clock::time_point{}) seen_[round] = arrived;
      cv_.notify_all();
    }
  }

  // When round's marker arrived, waiting at most until `deadline`; nullopt if it did not.
  std::optional<Clock::time_point> Wait(size_t round, Clock::time_point deadline) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_until(l, deadline, [&] { return seen_[round] != Clock::time_point{}; });
    if (seen_[round] == Clock::time_point{}) return std::nullopt;
    return seen_[round];
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Clock::time_point> seen_;  // guarded by mu_
};

}  // namespace

bool RunIdle(const Context& ctx, std::vector<Row>* rows) {
  const Options& o = ctx.options;
  const size_t rounds = static_cast<size_t>(std::max(o.idle_changes, 0));
  Client c(ctx.ep, ctx.tls);
  CreateNamespace(c, kNamespace);
  const std::string base = fmt::format("/api/v1/namespaces/{}/services", kNamespace);
  auto created = c.Do("POST", base,
                      fmt::format(R"({{"apiVersion":"v1","kind":"Service","metadata":{{)"
                                  R"("name":"{}"}},"spec":{{"selector":{{"app":"idle-none"}},)"
                                  R"("ports":[{{"port":80}}]}}}})",
                                  kService));
  if (auto err = CheckStatus(created, {201}, "create Service"); !err.empty()) {
    throw std::runtime_error(err);
  }
  const std::string target =
      fmt::format("{}?watch=1&resourceVersion={}", base, ResourceVersionOf(created.body));

  const Encoding encodings[] = {Encoding::kJson, Encoding::kProtobuf};
  std::vector<std::unique_ptr<MarkerLog>> logs;
  std::vector<std::unique_ptr<WatchStream>> streams;
  for (Encoding e : encodings) {
    logs.push_back(std::make_unique<MarkerLog>(rounds));
    MarkerLog* log = logs.back().get();
    streams.push_back(std::make_unique<WatchStream>(
        ctx.ep, ctx.tls, target, e,
        [log](std::string_view ev, Clock::time_point at) { log->Scan(ev, at); }));
    streams.back()->Start();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // both streams open and idle

  const auto miss = std::chrono::milliseconds(o.miss_after_ms);
  std::vector<std::vector<double>> delays(2);
  std::vector<size_t> missed(2);
  std::vector<double> patch_ms;
  const std::string patch_target = base + "/" + std::string(kService);
  for (size_t i = 0; i < rounds; ++i) {
    const std::string body = fmt::format(
        R"({{"metadata":{{"labels":{{"e2e-step":"{}{:0{}d}"}}}}}})", kMarker, i, kDigits);
    const auto t0 = Clock::now();
    auto r = c.Do("PATCH", patch_target, body, kMergePatch);
    const auto acked = Clock::now();
    patch_ms.push_back(Ms(acked - t0));
    if (auto err = CheckStatus(r, {200}, "patch Service"); !err.empty()) {
      throw std::runtime_error(err);
    }
    for (size_t w = 0; w < logs.size(); ++w) {
      auto at = logs[w]->Wait(i, acked + miss);
      if (at) {
        delays[w].push_back(std::max(0.0, Ms(*at - acked)));
      } else {
        ++missed[w];
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(o.idle_interval_ms));
  }
  for (auto& s : streams) s->Stop();

  bool ok = true;
  for (size_t w = 0; w < logs.size(); ++w) {
    rows->push_back({fmt::format("idle: watch delay p50 / p99 / max, {} ({} changes)",
                                 EncodingName(encodings[w]), rounds),
                     FormatLatencies(delays[w]), "p99 <= 10 ms"});
    rows->push_back({fmt::format("  missed (not seen in {} ms), {}", o.miss_after_ms,
                                 EncodingName(encodings[w])),
                     std::to_string(missed[w]), "0"});
    ok = ok && missed[w] == 0;
  }
  rows->push_back({"  PATCH p50 / p99 / max", FormatLatencies(patch_ms), ""});
  return ok;
}

}  // namespace svcplane::bench::e2e
