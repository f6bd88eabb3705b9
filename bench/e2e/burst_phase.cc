// Phase (b): a burst of Services and ready Pods in a fresh namespace; how long until every
// endpoint is ready in its slices, and how many slice writes the controller spent on it.

#include <thread>

#include <fmt/format.h>

#include "bench/e2e/phases.h"
#include "bench/e2e/slices.h"
#include "bench/e2e/watch_stream.h"

namespace svcplane::bench::e2e {

namespace {

constexpr std::string_view kNamespace = "e2e-burst";
constexpr uint32_t kIpBase = (10u << 24) | (128u << 16);  // 10.128.0.0/9

}  // namespace

bool RunBurst(const Context& ctx, std::vector<Row>* rows) {
  const Options& o = ctx.options;
  const size_t want = static_cast<size_t>(o.burst_services) * static_cast<size_t>(o.burst_pods);
  Client c(ctx.ep, ctx.tls);
  CreateNamespace(c, kNamespace);
  SliceTracker tracker;
  auto watch = WatchSlices(ctx.ep, ctx.tls, kNamespace, tracker);
  WaitForQuietServer(ctx.server.pid(), std::chrono::seconds(30));
  const SliceWrites before = ScrapeSliceWrites(ctx);
  const double server0 = ctx.server.CpuSeconds();

  const auto start = Clock::now();
  auto p = Populate(ctx, kNamespace, o.burst_services, o.burst_pods, kIpBase, o.burst_clients);
  if (p.services.failed + p.pods.failed > 0) {
    throw std::runtime_error("burst: " + p.services.first_error + p.pods.first_error);
  }
  const auto last_ack = std::max(p.services.last_done, p.pods.last_done);
  const auto done =
      tracker.WaitAllReady(want, Clock::now() + std::chrono::seconds(o.timeout_seconds));
  const auto ready_at = Clock::now();
  const double server_cpu = ctx.server.CpuSeconds() - server0;
  // Writes the controller still makes after the endpoints are ready count too.
  WaitForQuietServer(ctx.server.pid(), std::chrono::seconds(30));
  const SliceWrites after = ScrapeSliceWrites(ctx);
  watch->Stop();

  const double write_s = Seconds(last_ack - start);
  rows->push_back({fmt::format("burst: {} Services x {} Pods created + Ready ({} clients)",
                               o.burst_services, o.burst_pods, o.burst_clients),
                   fmt::format("{:.2f} s ({} writes, {:.0f}/s)", write_s, p.writes(),
                               static_cast<double>(p.writes()) / std::max(write_s, 1e-9)),
                   ""});
  if (done) {
    rows->push_back({"  last write ack -> every endpoint ready in the slices (watch)",
                     fmt::format("{:.1f} ms", std::max(0.0, Ms(*done - last_ack))), ""});
  } else {
    rows->push_back(
        {"  last write ack -> every endpoint ready in the slices (watch)",
         fmt::format("TIMED OUT after {:.0f} s: {} of {} ready, {} listed",
                     Seconds(ready_at - last_ack), tracker.ready(), want, tracker.total()),
         ""});
  }
  rows->push_back({"  server CPU, first write -> all ready",
                   fmt::format("{:.1f} s ({:.0f}% of one core)", server_cpu,
                               100 * server_cpu / Seconds(ready_at - start)),
                   ""});
  if (ctx.controllers_port != 0) {
    const SliceWrites d{after.create - before.create, after.update - before.update,
                        after.del - before.del};
    rows->push_back(
        {"  EndpointSlice writes by the controller (endpoint_slice_controller_changes)",
         fmt::format("{:.0f} ({:.0f} create / {:.0f} update / {:.0f} delete); {:.2f} per Pod",
                     d.total(), d.create, d.update, d.del,
                     d.total() / static_cast<double>(std::max<size_t>(want, 1))),
         ""});
  }
  return done.has_value();
}

}  // namespace svcplane::bench::e2e
