#pragma once

// EndpointSlice watch events, decoded with the server's own codec (api::codec), and a tracker
// that counts the ready endpoints of one namespace from them.

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "api/types.h"
#include "base/result.h"
#include "bench/common/https_client.h"
#include "bench/e2e/cluster.h"
#include "bench/e2e/watch_stream.h"

namespace svcplane::bench::e2e {

struct SliceEvent {
  std::string type;  // ADDED | MODIFIED | DELETED | BOOKMARK | ERROR
  api::discovery::v1::EndpointSlice slice;
};
// Decodes one event as WatchStream hands it over. BOOKMARK and ERROR events come back with an
// empty slice.
Result<SliceEvent> DecodeSliceEvent(std::string_view event, Encoding encoding);

// Ready and total endpoints over every slice seen, by slice name. Thread-safe.
class SliceTracker {
 public:
  void Apply(const SliceEvent& e, Clock::time_point arrived);
  // Waits until exactly `want` endpoints are listed and all are ready, at most until
  // `deadline`; returns the arrival time of the last event that changed the counts (the one
  // that completed them), or nullopt.
  std::optional<Clock::time_point> WaitAllReady(size_t want, Clock::time_point deadline);
  size_t ready() const;
  size_t total() const;

 private:
  struct Counts {
    size_t ready = 0, total = 0;
  };
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Counts> by_slice_;  // guarded by mu_
  Counts sum_;                              // guarded by mu_
  Clock::time_point last_change_;           // guarded by mu_; when sum_ last moved
};

// A started protobuf watch of every EndpointSlice in `ns` that feeds `tracker` (which must
// outlive it): how the phases see their endpoints become ready. Throws as WatchStream::Start.
std::unique_ptr<WatchStream> WatchSlices(const Endpoint& ep,
                                         std::shared_ptr<boost::asio::ssl::context> tls,
                                         std::string_view ns, SliceTracker& tracker);

struct SliceWrites {
  double create = 0, update = 0, del = 0;
  double total() const { return create + update + del; }
};

// The EndpointSlice controller's own count of its writes (endpoint_slice_controller_changes,
// upstream's name) from the controllers' /metrics. apiserver_request_total would not do: the
// in-process controllers write through the loopback client, which it does not count.
SliceWrites ScrapeSliceWrites(const Context& ctx);

}  // namespace svcplane::bench::e2e
