#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "base/metrics.h"
#include "storage/etcd/internal/etcd_client.h"
#include "storage/value_codec.h"
#include "storage/watch.h"

namespace svcplane::storage::etcd::internal {

// Turns one etcd WatchResponse's event into a store event. Error when etcd left out prev_kv
// on an event that is not a create (the previous version was compacted, spec §1.3).
Result<EventPtr> ToWatchEvent(const ::mvccpb::Event& event);

// One etcd watch feeding one WatchChannel, on a thread of its own: creates the etcd watch,
// converts and checks events, and re-creates the watch from the last delivered revision when
// the stream breaks (member death, "no leader"). Ends the channel with Gone on compaction,
// Internal on a broken event stream (missing prev_kv, revisions not increasing) and
// Unavailable when no endpoint took the watch within the reconnect timeout.
class EtcdWatcher {
 public:
  EtcdWatcher(EtcdClient& client, std::string prefix, Revision after,
              std::shared_ptr<storage::internal::WatchChannel> channel,
              std::chrono::milliseconds reconnect_timeout, Counter* anomalies = nullptr,
              std::shared_ptr<const ValueCodec> codec = nullptr);
  ~EtcdWatcher();

  // Starts the thread and waits until etcd acknowledged the watch. On an error (Gone when
  // etcd answered with compact_revision) the watch is over and the thread ended.
  Status Start(Deadline deadline);
  // Ends the watch from any thread; the channel gets `status` unless it already ended.
  void Cancel(Status status);
  // Cancel, then wait for the thread: afterwards the watcher no longer uses the client.
  // Not from the watcher's own thread, nor from two threads at once (the store calls it).
  void Stop(Status status);
  bool finished() const { return finished_.load(); }

 private:
  enum class StreamEnd { kBroken, kTerminal };
  void Run();
  // One stream's life, from the create request to its end. *created: etcd acknowledged it.
  StreamEnd RunStream(Endpoint& endpoint, bool* created);
  // Converts and queues the events of one response. kTerminal ends the watch.
  std::optional<StreamEnd> Deliver(const pb::WatchResponse& response);
  void Finish(Status status);
  void ReportStart(Status status);

  // Constant after construction.
  EtcdClient& client_;
  const std::string prefix_;
  const std::shared_ptr<storage::internal::WatchChannel> channel_;
  const std::chrono::milliseconds reconnect_timeout_;
  Counter* const anomalies_;                       // may be null
  const std::shared_ptr<const ValueCodec> codec_;  // null: values as stored

  // Only the watch thread touches these.
  Revision next_revision_;   // start revision of the next (re-)created etcd watch
  Revision last_delivered_;  // revision of the last event queued
  Revision replay_end_ = 0;  // events up to this were history at creation (PushReplay)

  std::mutex mu_;
  std::condition_variable started_cv_;
  std::optional<Status> start_result_;      // guarded by mu_; set once the first create is answered
  grpc::ClientContext* context_ = nullptr;  // guarded by mu_; the live stream's, for TryCancel
  std::optional<Status> cancelled_;         // guarded by mu_
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

}  // namespace svcplane::storage::etcd::internal
