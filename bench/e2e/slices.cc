#include "bench/e2e/slices.h"

#include <fmt/format.h>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"

namespace svcplane::bench::e2e {

namespace codec = api::codec;
using api::discovery::v1::EndpointSlice;

Result<SliceEvent> DecodeSliceEvent(std::string_view event, Encoding encoding) {
  SliceEvent out;
  if (encoding == Encoding::kJson) {
    auto raw = codec::DecodeWatchEvent(event);
    if (!raw.ok()) return raw.status();
    out.type = std::move(raw->type);
    if (out.type == "BOOKMARK" || out.type == "ERROR") return out;
    auto slice = codec::DecodeJson<EndpointSlice>(raw->object);
    if (!slice.ok()) return slice.status();
    out.slice = std::move(*slice);
    return out;
  }
  std::string_view stream = event;
  auto frame = codec::NextProtobufWatchFrame(&stream);
  if (!frame.ok()) return frame.status();
  if (!frame->has_value()) return BadRequestError("incomplete protobuf watch frame");
  out.type = std::move((*frame)->type);
  if (out.type == "BOOKMARK" || out.type == "ERROR") return out;
  auto slice = codec::DecodeProtobuf<EndpointSlice>((*frame)->object);
  if (!slice.ok()) return slice.status();
  out.slice = std::move(*slice);
  return out;
}

void SliceTracker::Apply(const SliceEvent& e, Clock::time_point arrived) {
  if (e.type != "ADDED" && e.type != "MODIFIED" && e.type != "DELETED") return;
  Counts now;
  if (e.type != "DELETED") {
    for (const auto& ep : e.slice.endpoints) {
      ++now.total;
      if (ep.conditions.ready.value_or(false)) ++now.ready;
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  Counts& old = by_slice_[e.slice.metadata.name];
  const bool changed = now.ready != old.ready || now.total != old.total;
  sum_.ready = sum_.ready - old.ready + now.ready;
  sum_.total = sum_.total - old.total + now.total;
  old = now;
  if (e.type == "DELETED") by_slice_.erase(e.slice.metadata.name);
  if (!changed) return;
  last_change_ = arrived;
  cv_.notify_all();
}

std::optional<Clock::time_point> SliceTracker::WaitAllReady(size_t want,
                                                            Clock::time_point deadline) {
  std::unique_lock<std::mutex> l(mu_);
  const bool done =
      cv_.wait_until(l, deadline, [&] { return sum_.total == want && sum_.ready == want; });
  if (!done) return std::nullopt;
  return last_change_;
}

size_t SliceTracker::ready() const {
  std::lock_guard<std::mutex> l(mu_);
  return sum_.ready;
}

size_t SliceTracker::total() const {
  std::lock_guard<std::mutex> l(mu_);
  return sum_.total;
}

std::unique_ptr<WatchStream> WatchSlices(const Endpoint& ep,
                                         std::shared_ptr<boost::asio::ssl::context> tls,
                                         std::string_view ns, SliceTracker& tracker) {
  auto watch = std::make_unique<WatchStream>(
      ep, std::move(tls),
      fmt::format("/apis/discovery.k8s.io/v1/namespaces/{}/endpointslices?watch=1", ns),
      Encoding::kProtobuf, [&tracker](std::string_view ev, Clock::time_point at) {
        if (auto e = DecodeSliceEvent(ev, Encoding::kProtobuf); e.ok()) tracker.Apply(*e, at);
      });
  watch->Start();
  return watch;
}

SliceWrites ScrapeSliceWrites(const Context& ctx) {
  const auto m = ScrapeControllerMetrics(ctx);
  const char* name = "endpoint_slice_controller_changes";
  return {SumSeries(m, name, {R"(operation="create")"}),
          SumSeries(m, name, {R"(operation="update")"}),
          SumSeries(m, name, {R"(operation="delete")"})};
}

}  // namespace svcplane::bench::e2e
