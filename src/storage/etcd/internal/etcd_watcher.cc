#include "storage/etcd/internal/etcd_watcher.h"

#include <spdlog/spdlog.h>

#include <utility>
#include <vector>

#include "base/thread_name.h"

namespace svcplane::storage::etcd::internal {

namespace {

// Pause before re-creating a broken stream, so that a member refusing every stream ("no
// leader") is not hammered.
constexpr std::chrono::milliseconds kReconnectPause{100};
// How long one PickReady waits before the reconnect budget is looked at again.
constexpr std::chrono::milliseconds kPickSlice{200};

KeyValue ToKeyValue(const ::mvccpb::KeyValue& kv) {
  return KeyValue{kv.key(), MakeValue(kv.value()), kv.create_revision(), kv.mod_revision()};
}

// The event's value and previous value in the codec's form (a delete's value is its previous).
Status DecodeValues(const ValueCodec& codec, WatchEvent& event) {
  if (event.prev) {
    auto prev = codec.Decode(event.prev->key, event.prev->value);
    if (!prev.ok()) return prev.status();
    event.prev->value = std::move(*prev);
  }
  if (event.type == WatchEvent::Type::kDelete && event.prev) {
    event.kv.value = event.prev->value;
    return Status::Ok();
  }
  auto value = codec.Decode(event.kv.key, event.kv.value);
  if (!value.ok()) return value.status();
  event.kv.value = std::move(*value);
  return Status::Ok();
}

}  // namespace

Result<EventPtr> ToWatchEvent(const ::mvccpb::Event& event) {
  const auto& kv = event.kv();
  auto out = std::make_shared<WatchEvent>();
  const bool create = event.type() == ::mvccpb::Event::PUT && kv.version() == 1;
  if (!create && !event.has_prev_kv()) {
    return InternalError("etcd event received with PrevKv=nil (key \"" + kv.key() +
                         "\", revision " + std::to_string(kv.mod_revision()) + ")");
  }
  if (event.has_prev_kv()) out->prev = ToKeyValue(event.prev_kv());
  if (event.type() == ::mvccpb::Event::PUT) {
    out->type = WatchEvent::Type::kPut;
    out->kv = ToKeyValue(kv);
  } else {
    // etcd's DELETE carries only the key and the deletion revision; the store contract wants
    // the last value at the deletion revision, as the DELETED watch event shows it.
    out->type = WatchEvent::Type::kDelete;
    out->kv = KeyValue{kv.key(), out->prev->value, out->prev->create_revision, kv.mod_revision()};
  }
  return EventPtr(std::move(out));
}

EtcdWatcher::EtcdWatcher(EtcdClient& client, std::string prefix, Revision after,
                         std::shared_ptr<storage::internal::WatchChannel> channel,
                         std::chrono::milliseconds reconnect_timeout, Counter* anomalies,
                         std::shared_ptr<const ValueCodec> codec)
    : client_(client),
      prefix_(std::move(prefix)),
      channel_(std::move(channel)),
      reconnect_timeout_(reconnect_timeout),
      anomalies_(anomalies),
      codec_(std::move(codec)),
      next_revision_(after + 1),
      last_delivered_(after) {}

EtcdWatcher::~EtcdWatcher() { Stop(UnavailableError("store closed")); }

void EtcdWatcher::Stop(Status status) {
  Cancel(std::move(status));
  if (thread_.joinable()) thread_.join();
}

Status EtcdWatcher::Start(Deadline deadline) {
  thread_ = std::thread([this] {
    NameThisThread("svc-etcd-watch");
    Run();
    finished_ = true;
  });
  std::unique_lock lock(mu_);
  if (!started_cv_.wait_until(lock, deadline, [&] { return start_result_.has_value(); })) {
    lock.unlock();
    Status timeout(Code::kTimeout,
                   "etcd watch on \"" + prefix_ + "\" was not acknowledged before the deadline");
    Cancel(timeout);
    thread_.join();
    return timeout;
  }
  Status result = *start_result_;
  lock.unlock();
  if (!result.ok()) thread_.join();
  return result;
}

void EtcdWatcher::Cancel(Status status) {
  std::lock_guard lock(mu_);
  if (!cancelled_) cancelled_ = std::move(status);
  if (context_ != nullptr) context_->TryCancel();
  started_cv_.notify_all();
}

void EtcdWatcher::ReportStart(Status status) {
  std::lock_guard lock(mu_);
  if (start_result_) return;
  start_result_ = std::move(status);
  started_cv_.notify_all();
}

void EtcdWatcher::Finish(Status status) {
  ReportStart(status);
  channel_->Fail(std::move(status));
  channel_->NotifyIfNeeded();
}

void EtcdWatcher::Run() {
  auto broken_since = std::chrono::steady_clock::now();
  auto cancelled = [&]() -> std::optional<Status> {
    std::lock_guard lock(mu_);
    return cancelled_;
  };
  while (true) {
    if (auto status = cancelled()) return Finish(*status);
    Endpoint* endpoint = client_.PickReady(std::chrono::steady_clock::now() + kPickSlice,
                                           [&] { return cancelled().has_value(); });
    if (endpoint != nullptr) {
      const Revision delivered = last_delivered_;
      bool created = false;
      if (RunStream(*endpoint, &created) == StreamEnd::kTerminal) return;
      if (created || last_delivered_ != delivered) broken_since = std::chrono::steady_clock::now();
    }
    if (std::chrono::steady_clock::now() - broken_since > reconnect_timeout_) {
      return Finish(UnavailableError("etcd watch on \"" + prefix_ +
                                     "\" could not be re-created from revision " +
                                     std::to_string(next_revision_)));
    }
    std::unique_lock lock(mu_);
    started_cv_.wait_for(lock, kReconnectPause, [&] { return cancelled_.has_value(); });
  }
}

EtcdWatcher::StreamEnd EtcdWatcher::RunStream(Endpoint& endpoint, bool* created) {
  grpc::ClientContext context;
  context.set_wait_for_ready(false);
  context.AddMetadata("hasleader", "true");
  {
    std::lock_guard lock(mu_);
    if (cancelled_) return StreamEnd::kBroken;  // Run finishes with the cancel status
    context_ = &context;
  }
  auto stream = endpoint.watch->Watch(&context);
  pb::WatchRequest request;
  auto* create = request.mutable_create_request();
  // The whole keyspace is "\0".."\0" in etcd (clientv3.WithFromKey on "\0").
  create->set_key(prefix_.empty() ? std::string(1, '\0') : prefix_);
  create->set_range_end(prefix_.empty() ? std::string(1, '\0') : PrefixEnd(prefix_));
  create->set_start_revision(next_revision_);
  create->set_prev_kv(true);
  create->set_progress_notify(true);

  StreamEnd end = StreamEnd::kBroken;
  if (stream->Write(request)) {
    pb::WatchResponse response;
    while (stream->Read(&response)) {
      if (response.created()) {
        if (response.canceled()) {
          // Refused at creation (no compaction): nothing a retry would change.
          Finish(InternalError("etcd refused watch on \"" + prefix_ +
                               "\": " + response.cancel_reason()));
          end = StreamEnd::kTerminal;
          break;
        }
        *created = true;
        replay_end_ = response.header().revision();
        ReportStart(Status::Ok());
        continue;
      }
      if (response.canceled()) {
        if (response.compact_revision() > 0) {
          Finish(
              GoneError("The resourceVersion for the provided watch is too old: etcd "
                        "compacted revision " +
                        std::to_string(response.compact_revision()) + ", watch starts at " +
                        std::to_string(next_revision_)));
          end = StreamEnd::kTerminal;
        }
        break;  // cancelled by the member (e.g. lost its leader): re-create elsewhere
      }
      if (auto stop = Deliver(response)) {
        end = *stop;
        break;
      }
    }
  }
  context.TryCancel();
  const grpc::Status finish = stream->Finish();
  {
    std::lock_guard lock(mu_);
    context_ = nullptr;
  }
  if (end == StreamEnd::kBroken && !finish.ok() &&
      finish.error_code() != grpc::StatusCode::CANCELLED) {
    spdlog::info("etcd watch on \"{}\" via {} broke ({}), re-creating from revision {}", prefix_,
                 endpoint.url, finish.error_message(), next_revision_);
  }
  return end;
}

std::optional<EtcdWatcher::StreamEnd> EtcdWatcher::Deliver(const pb::WatchResponse& response) {
  if (response.events_size() == 0) {
    // A progress notification: etcd sends it only to synced watchers, through the same ordered
    // channel as events, so every change up to its revision has been delivered (spec §1.3).
    channel_->AdvanceProgress(response.header().revision());
    return std::nullopt;
  }
  std::vector<EventPtr> replay;
  std::vector<EventPtr> live;
  // Revisions must increase across responses; one revision may carry several events (a lease
  // expiry), always within one response. Anything else is a known 3.4 watch defect (§5.2).
  Revision floor = last_delivered_ + 1;
  for (const auto& e : response.events()) {
    auto event = ToWatchEvent(e);
    if (event.ok() && (*event)->revision() < floor) {
      event = InternalError("etcd watch revision went from " + std::to_string(last_delivered_) +
                            " to " + std::to_string((*event)->revision()));
    }
    if (!event.ok()) {
      spdlog::error("etcd watch on \"{}\" is broken: {}", prefix_, event.status().message());
      if (anomalies_ != nullptr) anomalies_->Inc();
      Finish(event.status());
      return StreamEnd::kTerminal;
    }
    floor = (*event)->revision();
    if (codec_) {
      auto decoded = std::make_shared<WatchEvent>(**event);
      if (Status st = DecodeValues(*codec_, *decoded); !st.ok()) {
        spdlog::error("etcd watch on \"{}\": {}", prefix_, st.message());
        Finish(st);
        return StreamEnd::kTerminal;
      }
      *event = std::move(decoded);
    }
    ((*event)->revision() <= replay_end_ ? replay : live).push_back(std::move(*event));
  }
  if (channel_->done()) return StreamEnd::kTerminal;
  last_delivered_ = floor;
  next_revision_ = floor + 1;
  // History that existed when the watch was created does not count against the consumer's
  // queue capacity, as a store's replay does not (WatchOptions::queue_capacity).
  if (!replay.empty()) {
    channel_->PushReplay(std::move(replay));
    channel_->AdvanceProgress(floor);
  }
  for (auto& e : live) {
    if (!channel_->Push(std::move(e))) {
      channel_->NotifyIfNeeded();
      return StreamEnd::kTerminal;  // dropped (too slow) or stopped: the channel says which
    }
  }
  channel_->NotifyIfNeeded();
  return std::nullopt;
}

}  // namespace svcplane::storage::etcd::internal
