#include "storage/etcd/etcd_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "storage/etcd/internal/errors.h"
#include "storage/etcd/internal/etcd_client.h"
#include "storage/etcd/internal/etcd_watcher.h"
#include "storage/etcd/internal/lease_manager.h"

namespace svcplane::storage::etcd {

namespace {

using internal::pb::Compare;
using internal::pb::RangeRequest;
using internal::pb::TxnRequest;
using internal::pb::TxnResponse;

// How often a read waiting for a future revision asks etcd again.
constexpr std::chrono::milliseconds kFuturePoll{25};

KeyValue TakeKeyValue(::mvccpb::KeyValue& kv) {
  return KeyValue{std::move(*kv.mutable_key()), MakeValue(std::move(*kv.mutable_value())),
                  kv.create_revision(), kv.mod_revision()};
}

// etcd keys are never empty; the whole keyspace is "\0".."\0" (clientv3.WithFromKey).
void SetPrefixRange(RangeRequest& range, const std::string& prefix, const std::string& start) {
  const std::string zero(1, '\0');
  const std::string& from = start.empty() ? prefix : start;
  range.set_key(from.empty() ? zero : from);
  const std::string end = PrefixEnd(prefix);
  range.set_range_end(end.empty() ? zero : end);
}

// MOD(key) == revision: the only compare kube-apiserver's writes use (0: the key is absent).
void AddModEquals(TxnRequest& txn, std::string_view key, Revision revision) {
  Compare* c = txn.add_compare();
  c->set_result(Compare::EQUAL);
  c->set_target(Compare::MOD);
  c->set_key(std::string(key));
  c->set_mod_revision(revision);
}

// A CAS lost: the failure branch's Range shows whether the key went away or moved on.
Status LostCas(TxnResponse& response, std::string_view key, Revision expected) {
  const auto& range = response.responses(0).response_range();
  if (range.kvs_size() == 0) return NotFoundError("key \"" + std::string(key) + "\" not found");
  return ConflictError("key \"" + std::string(key) + "\" is at revision " +
                       std::to_string(range.kvs(0).mod_revision()) + ", not " +
                       std::to_string(expected));
}

// Txn{MOD(key)==expected ? success : Range{key}}: the response of the committed transaction, or
// NotFound/Conflict from the failure branch. One round trip: the success op asks for prev_kv
// where the caller needs the replaced value (what kube-apiserver's store does too), instead
// of a quorum read before the transaction.
Result<TxnResponse> CompareAndSwap(internal::EtcdClient& client, std::string_view key,
                                   Revision expected_mod_revision,
                                   internal::pb::RequestOp success) {
  TxnRequest txn;
  AddModEquals(txn, key, expected_mod_revision);
  *txn.add_success() = std::move(success);
  txn.add_failure()->mutable_request_range()->set_key(std::string(key));
  auto response = client.Txn(txn, client.WriteDeadline());
  if (!response.ok()) return response.status();
  if (!response->succeeded()) return LostCas(*response, key, expected_mod_revision);
  return response;
}

Status CheckKey(std::string_view key) {
  if (key.empty()) return BadRequestError("empty key");
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<EtcdStore>> EtcdStore::Open(EtcdStoreOptions options) {
  auto client = internal::EtcdClient::Create(options.client);
  if (!client.ok()) return client.status();
  return std::unique_ptr<EtcdStore>(new EtcdStore(std::move(options), std::move(*client)));
}

EtcdStore::EtcdStore(EtcdStoreOptions options, std::unique_ptr<internal::EtcdClient> client)
    : options_(std::move(options)),
      client_(std::move(client)),
      leases_(std::make_unique<internal::LeaseManager>(*client_)),
      watch_anomalies_(options_.metrics == nullptr
                           ? nullptr
                           : &options_.metrics->GetCounter(
                                 "svcplane_etcd_watch_anomalies_total",
                                 "etcd watches ended because an event had no prev_kv or its "
                                 "revision did not increase",
                                 {})) {}

EtcdStore::~EtcdStore() {
  std::list<std::shared_ptr<internal::EtcdWatcher>> watchers;
  {
    std::lock_guard lock(watchers_mu_);
    watchers.swap(watchers_);
  }
  // Each watcher's stream is cancelled and its thread joined here, not when the last
  // reference goes: a consumer's Stop may hold one for a moment, and the client dies with us.
  // Their channels end with Unavailable("store closed").
  for (auto& w : watchers) w->Stop(UnavailableError("store closed"));
}

void EtcdStore::NoteRevision(Revision revision) {
  Revision seen = last_revision_.load(std::memory_order_relaxed);
  while (revision > seen && !last_revision_.compare_exchange_weak(seen, revision)) {
  }
}

Result<std::shared_ptr<const std::string>> EtcdStore::Encoded(
    std::string_view key, const std::shared_ptr<const std::string>& value) {
  if (!options_.codec) return value;
  return options_.codec->Encode(key, value);
}

Result<KeyValue> EtcdStore::Decoded(KeyValue kv) {
  if (!options_.codec) return kv;
  auto value = options_.codec->Decode(kv.key, kv.value);
  if (!value.ok()) return value.status();
  kv.value = std::move(*value);
  return kv;
}

Result<KeyValue> EtcdStore::Get(std::string_view key) {
  SVC_RETURN_IF_ERROR(CheckKey(key));
  RangeRequest request;
  request.set_key(std::string(key));
  auto response = client_->Range(request, client_->ReadDeadline());
  if (!response.ok()) return response.status();
  NoteRevision(response->header().revision());
  if (response->kvs_size() == 0) return NotFoundError("key \"" + std::string(key) + "\" not found");
  return Decoded(TakeKeyValue(*response->mutable_kvs(0)));
}

Result<ListResult> EtcdStore::List(const ListOptions& options) {
  if (!options.start_key.empty() && !options.start_key.starts_with(options.prefix)) {
    return BadRequestError("start key \"" + options.start_key + "\" is outside prefix \"" +
                           options.prefix + "\"");
  }
  const bool exact = options.match == RevisionMatch::kExact && options.revision > 0;
  // A revision etcd may not have reached: wait for it as a watch cache would, then read.
  // last_revision_ never exceeds etcd's, so below it no round trip is needed.
  if (options.match != RevisionMatch::kLatest &&
      options.revision > last_revision_.load(std::memory_order_relaxed)) {
    SVC_RETURN_IF_ERROR(WaitForRevision(options.revision));
  }
  RangeRequest request;
  SetPrefixRange(request, options.prefix, options.start_key);
  request.set_limit(static_cast<int64_t>(options.limit));
  if (exact) request.set_revision(options.revision);
  auto response = client_->Range(request, client_->ReadDeadline());
  if (!response.ok()) return response.status();
  NoteRevision(response->header().revision());

  ListResult result;
  result.revision = exact ? options.revision : response->header().revision();
  result.items.reserve(response->kvs_size());
  for (auto& kv : *response->mutable_kvs()) {
    auto item = Decoded(TakeKeyValue(kv));
    if (!item.ok()) return item.status();
    result.items.push_back(std::move(*item));
  }
  if (response->more() && !result.items.empty()) {
    // etcd's count covers [key, range_end) at that revision whatever the limit (spec §1.2).
    // The next page starts right after the last key, as kube's continue token does.
    result.continue_key = result.items.back().key + '\0';
    result.remaining = response->count() - static_cast<int64_t>(result.items.size());
  }
  return result;
}

Result<KeyValue> EtcdStore::Create(std::string_view key, std::shared_ptr<const std::string> value) {
  SVC_RETURN_IF_ERROR(CheckKey(key));
  auto stored = Encoded(key, value);
  if (!stored.ok()) return stored.status();
  TxnRequest txn;
  AddModEquals(txn, key, 0);
  auto lease = LeaseFor(key);
  if (!lease.ok()) return lease.status();
  auto* put = txn.add_success()->mutable_request_put();
  put->set_key(std::string(key));
  if (*stored) put->set_value(**stored);
  put->set_lease(*lease);
  auto response = client_->Txn(txn, client_->WriteDeadline());
  if (!response.ok()) return response.status();
  NoteRevision(response->header().revision());
  if (!response->succeeded()) {
    return AlreadyExistsError("key \"" + std::string(key) + "\" already exists");
  }
  const Revision revision = response->header().revision();
  return KeyValue{std::string(key), value ? std::move(value) : MakeValue(""), revision, revision};
}

// MOD(key)==0 holds for an absent key, so a CAS expecting revision 0 would create it. No live
// key has mod revision 0: the answer is NotFound or Conflict, as the other stores give.
Status NoKeyAtRevisionZero(EtcdStore& store, std::string_view key) {
  auto current = store.Get(key);
  if (!current.ok()) return current.status();
  return ConflictError("key \"" + std::string(key) + "\" is at revision " +
                       std::to_string(current->mod_revision) + ", not 0");
}

Result<KeyValue> EtcdStore::Update(std::string_view key, std::shared_ptr<const std::string> value,
                                   Revision expected_mod_revision) {
  SVC_RETURN_IF_ERROR(CheckKey(key));
  if (expected_mod_revision == 0) return NoKeyAtRevisionZero(*this, key);
  auto stored = Encoded(key, value);
  if (!stored.ok()) return stored.status();
  auto lease = LeaseFor(key);
  if (!lease.ok()) return lease.status();
  internal::pb::RequestOp put;
  put.mutable_request_put()->set_key(std::string(key));
  if (*stored) put.mutable_request_put()->set_value(**stored);
  put.mutable_request_put()->set_lease(*lease);
  put.mutable_request_put()->set_prev_kv(true);  // for the create revision
  auto response = CompareAndSwap(*client_, key, expected_mod_revision, std::move(put));
  if (!response.ok()) return response.status();
  const Revision revision = response->header().revision();
  NoteRevision(revision);
  const auto& put_response = response->responses(0).response_put();
  if (!put_response.has_prev_kv()) {
    return InternalError("etcd returned no previous value for \"" + std::string(key) + "\"");
  }
  return KeyValue{std::string(key), value ? std::move(value) : MakeValue(""),
                  put_response.prev_kv().create_revision(), revision};
}

Result<KeyValue> EtcdStore::Delete(std::string_view key, Revision expected_mod_revision) {
  SVC_RETURN_IF_ERROR(CheckKey(key));
  if (expected_mod_revision == 0) return NoKeyAtRevisionZero(*this, key);
  internal::pb::RequestOp del;
  del.mutable_request_delete_range()->set_key(std::string(key));
  del.mutable_request_delete_range()->set_prev_kv(true);  // the deleted value, for the event
  auto response = CompareAndSwap(*client_, key, expected_mod_revision, std::move(del));
  if (!response.ok()) return response.status();
  const Revision revision = response->header().revision();
  NoteRevision(revision);
  auto* deleted_range = response->mutable_responses(0)->mutable_response_delete_range();
  if (deleted_range->prev_kvs_size() == 0) {
    return InternalError("etcd returned no deleted value for \"" + std::string(key) + "\"");
  }
  auto deleted = Decoded(TakeKeyValue(*deleted_range->mutable_prev_kvs(0)));
  if (!deleted.ok()) return deleted.status();
  deleted->mod_revision = revision;
  return deleted;
}

void EtcdStore::ReapFinishedWatchers() {
  std::list<std::shared_ptr<internal::EtcdWatcher>> finished;
  {
    std::lock_guard lock(watchers_mu_);
    for (auto it = watchers_.begin(); it != watchers_.end();) {
      auto next = std::next(it);
      if ((*it)->finished()) finished.splice(finished.end(), watchers_, it);
      it = next;
    }
  }
}

Result<std::unique_ptr<storage::WatchStream>> EtcdStore::Watch(std::string_view prefix,
                                                               Revision after_revision,
                                                               const WatchOptions& options) {
  ReapFinishedWatchers();
  if (after_revision < 0) return BadRequestError("negative watch revision");
  // etcd would accept a start at the compaction point itself (after = compacted - 1) and
  // replay it, which may lack a delete compacted at that revision (etcd#18089); the store
  // contract answers Gone for that, so ask first whether etcd still holds `after`.
  Status held = ProbeRevision(std::max<Revision>(after_revision, 1));
  if (held.code() == Code::kGone) {
    return GoneError("too old resource version: " + std::to_string(after_revision) + " (" +
                     held.message() + ")");
  }
  if (!held.ok() && held.code() != Code::kTimeout) return held;

  auto channel = std::make_shared<storage::internal::WatchChannel>(std::string(prefix),
                                                                   after_revision + 1, options);
  auto watcher = std::make_shared<internal::EtcdWatcher>(
      *client_, std::string(prefix), after_revision, channel, options_.watch_reconnect_timeout,
      watch_anomalies_, options_.codec);
  std::weak_ptr<internal::EtcdWatcher> weak = watcher;
  channel->SetOnStop([weak] {
    if (auto w = weak.lock()) w->Cancel(UnavailableError("watch stopped"));
  });
  SVC_RETURN_IF_ERROR(watcher->Start(client_->ReadDeadline()));
  {
    std::lock_guard lock(watchers_mu_);
    watchers_.push_back(std::move(watcher));
  }
  return std::make_unique<storage::WatchStream>(std::move(channel));
}

Status EtcdStore::Compact(Revision revision) {
  if (revision <= 0) return Status::Ok();
  // A revision etcd has not reached is the caller's mistake; asking first keeps "future"
  // apart from a deadline without reading etcd's message.
  auto current = ReadCurrentRevision();
  if (!current.ok()) return current.status();
  if (revision > *current) {
    return BadRequestError("cannot compact to future revision " + std::to_string(revision) +
                           " (current " + std::to_string(*current) + ")");
  }
  internal::pb::CompactionRequest request;
  request.set_revision(revision);
  request.set_physical(false);
  auto response = client_->Compact(request, client_->WriteDeadline());
  if (!response.ok() && response.status().code() != Code::kGone) return response.status();
  Revision floor = compacted_floor_.load();
  while (revision > floor && !compacted_floor_.compare_exchange_weak(floor, revision)) {
  }
  return Status::Ok();
}

Result<Revision> EtcdStore::ReadCurrentRevision() {
  RangeRequest request;
  request.set_key(options_.probe_key);
  request.set_limit(1);
  auto response = client_->Range(request, client_->ReadDeadline());
  if (!response.ok()) return response.status();
  NoteRevision(response->header().revision());
  return response->header().revision();
}

Result<int64_t> EtcdStore::LeaseFor(std::string_view key) {
  const int64_t ttl = options_.ttl_seconds ? options_.ttl_seconds(key) : 0;
  if (ttl <= 0) return int64_t{0};
  return leases_->LeaseFor(ttl);
}

Status EtcdStore::CheckHealth(std::chrono::milliseconds timeout) {
  RangeRequest request;
  request.set_key(options_.probe_key);
  request.set_limit(1);
  request.set_keys_only(true);
  auto response = client_->Range(request, std::chrono::steady_clock::now() + timeout);
  if (!response.ok()) return response.status();
  NoteRevision(response->header().revision());
  return Status::Ok();
}

Revision EtcdStore::CurrentRevision() {
  auto current = ReadCurrentRevision();
  if (!current.ok()) {
    spdlog::warn("etcd current revision: {}", current.status().ToString());
    return last_revision_.load();
  }
  return *current;
}

Status EtcdStore::ProbeRevision(Revision revision) {
  RangeRequest request;
  request.set_key(options_.probe_key);
  request.set_limit(1);
  request.set_revision(revision);
  grpc::Status error;
  auto response = client_->Range(request, client_->ReadDeadline(), &error);
  if (response.ok()) {
    NoteRevision(response->header().revision());
    return Status::Ok();
  }
  if (internal::IsFutureRevision(error)) return Status(Code::kTimeout, error.error_message());
  if (internal::IsCompacted(error)) return GoneError(error.error_message());
  // A future revision is reported as Timeout only when etcd said so; other failures (the
  // deadline included) must not read as "ahead of etcd".
  if (response.status().code() == Code::kTimeout)
    return UnavailableError(response.status().message());
  return response.status();
}

Revision EtcdStore::CompactedRevision() {
  // Compaction only moves forward, so the last point found is a lower bound; the current
  // revision is always held. Search the smallest held revision in between.
  Revision low = compacted_floor_.load();
  Status at_low = ProbeRevision(std::max<Revision>(low, 1));
  if (at_low.ok()) return low;
  if (at_low.code() != Code::kGone) return low;
  low = std::max<Revision>(low, 1);   // not held
  Revision high = CurrentRevision();  // held
  while (high - low > 1) {
    const Revision mid = low + (high - low) / 2;
    Status s = ProbeRevision(mid);
    if (s.ok()) {
      high = mid;
    } else if (s.code() == Code::kGone) {
      low = mid;
    } else {
      return compacted_floor_.load();
    }
  }
  Revision floor = compacted_floor_.load();
  while (high > floor && !compacted_floor_.compare_exchange_weak(floor, high)) {
  }
  return high;
}

Status EtcdStore::WaitForRevision(Revision revision) {
  const auto deadline = std::chrono::steady_clock::now() + options_.future_wait;
  while (true) {
    auto read = ReadCurrentRevision();
    if (!read.ok()) return read.status();
    const Revision current = *read;
    if (current >= revision) return Status::Ok();
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      return Status(Code::kTimeout, "Too large resource version: " + std::to_string(revision) +
                                        ", current: " + std::to_string(current));
    }
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(kFuturePoll, deadline - now));
  }
}

}  // namespace svcplane::storage::etcd
