// Event recorder costs: what a controller pays per Event() call (it must never block), and the
// correlator's per-event work (aggregation, repeat lookup, spam filter) on the writer thread.
#include <benchmark/benchmark.h>

#include "client/record/event_broadcaster.h"
#include "client/record/events_cache.h"

namespace {

using namespace svcplane;
using client::record::EventCorrelator;

api::core::v1::Event MakeEvent(int object, int message) {
  api::core::v1::Event e;
  e.metadata.namespace_ = "default";
  e.metadata.name = "svc-" + std::to_string(object) + ".1";
  e.involved_object.kind = "Service";
  e.involved_object.api_version = "v1";
  e.involved_object.namespace_ = "default";
  e.involved_object.name = "svc-" + std::to_string(object);
  e.involved_object.uid = "uid-" + std::to_string(object);
  e.reason = "FailedToUpdateEndpointSlices";
  e.message = "error " + std::to_string(message);
  e.type = "Warning";
  e.count = 1;
  e.source.component = "endpointslice-controller";
  return e;
}

// Distinct objects (no aggregation, no filtering): the common case.
void BM_CorrelateDistinctObjects(benchmark::State& state) {
  FakeClock clock;
  EventCorrelator c(clock);
  std::vector<api::core::v1::Event> events;
  for (int i = 0; i < 10000; ++i) events.push_back(MakeEvent(i, 0));
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.Correlate(events[i++ % events.size()]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CorrelateDistinctObjects);

// One object repeating one event: every call is a counted repeat (patch) or filtered spam.
void BM_CorrelateRepeats(benchmark::State& state) {
  FakeClock clock;
  EventCorrelator c(clock);
  auto e = MakeEvent(1, 1);
  for (auto _ : state) benchmark::DoNotOptimize(c.Correlate(e));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CorrelateRepeats);

// The caller's cost of Event() with a sink that discards: building the event and queueing it.
class NullSink final : public client::record::EventSink {
 public:
  using R = Result<client::ObjectPtr<api::core::v1::Event>>;
  R Create(const api::core::v1::Event& e) override {
    return std::make_shared<const api::core::v1::Event>(e);
  }
  R Update(const api::core::v1::Event& e) override { return Create(e); }
  R Patch(const api::core::v1::Event& e, std::string_view) override { return Create(e); }
};

void BM_RecorderEventCall(benchmark::State& state) {
  NullSink sink;
  client::record::EventBroadcaster b(sink, {.max_queued_events = 1000});
  auto rec = b.NewRecorder({.component = "bench"});
  api::meta::ObjectReference ref;
  ref.kind = "Service";
  ref.namespace_ = "default";
  ref.name = "web";
  for (auto _ : state) {
    rec->Event(ref, client::record::kEventTypeNormal, "Synced", "endpoints synced");
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["dropped"] = static_cast<double>(b.dropped());
}
BENCHMARK(BM_RecorderEventCall);

}  // namespace

BENCHMARK_MAIN();
