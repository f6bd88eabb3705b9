#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "base/metrics.h"
#include "storage/store.h"
#include "storage/value_codec.h"

namespace svcplane::storage::etcd {

namespace internal {
class EtcdClient;
class EtcdWatcher;
class LeaseManager;
}  // namespace internal

// How to reach etcd (kube-apiserver's --etcd-* flags, etcd-backend-and-ha.md §1.5).
struct EtcdClientOptions {
  // Comma-separated http://host:port, https://host:port or unix://path (--etcd-servers).
  // One gRPC channel per endpoint; endpoints come only from here (no member auto-sync).
  std::string endpoints;
  // PEM files for https:// endpoints (--etcd-cafile/--etcd-certfile/--etcd-keyfile). One set
  // serves every endpoint. Empty: the system roots and no client certificate.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  // Deadlines per call. etcd itself answers "request timed out" after ~7 s without quorum; a
  // read is retried on the next member within its deadline, a write is not (outcome unknown).
  std::chrono::milliseconds read_timeout = std::chrono::seconds(10);
  std::chrono::milliseconds write_timeout = std::chrono::seconds(60);
};

struct EtcdStoreOptions {
  EtcdClientOptions client;
  // An absent key whose linearizable read gives etcd's current revision (spec §1.2 "Current
  // revision"): `path.Join(--etcd-prefix, "health")`, the same key the health probe reads.
  std::string probe_key = "/registry/health";
  // How long a read at a future revision (kNotOlderThan, or kExact past the current revision)
  // waits for etcd to reach it before Timeout (kube-apiserver's cache waits 3 s).
  std::chrono::milliseconds future_wait = std::chrono::seconds(3);
  // How long a watch whose stream broke (member death, "no leader") keeps trying to re-create
  // itself from its last revision on any endpoint before it ends with Unavailable.
  std::chrono::milliseconds watch_reconnect_timeout = std::chrono::seconds(60);
  // Where svcplane_etcd_watch_anomalies_total is counted (a watch ended because etcd sent an
  // event without prev_kv or a revision that did not increase, spec §1.3). May be null.
  MetricsRegistry* metrics = nullptr;
  // What the values look like in etcd (storage::ValueCodec): every value written is encoded,
  // every value read or watched decoded. Null: values are stored as given.
  std::shared_ptr<const ValueCodec> codec;
  // Keys that expire (kube-apiserver's TTL objects, spec §2.3, §3.10): seconds after each write
  // of `key` until etcd deletes it, 0 for none. Every Create and Update of such a key attaches
  // it to an etcd lease (shared between writes as upstream's lease manager does), so the expiry
  // holds whichever server, svcplane or kube-apiserver, wrote last. Null: nothing expires.
  std::function<int64_t(std::string_view key)> ttl_seconds;
};

// A Store over etcd's v3 gRPC API that talks to etcd exactly as kube-apiserver's
// storage/etcd3 does (spec §1.2): keys unchanged, values opaque, writes only as the Txn shapes
//   Create  Txn{MOD(key)==0 ? Put{key,value} : -}
//   Update  Txn{MOD(key)==rev ? Put{key,value} : Range{key}}
//   Delete  Txn{MOD(key)==rev ? DeleteRange{key} : Range{key}}
// and reads only as linearizable Ranges, so it can share an etcd (or kine) with a real
// kube-apiserver. Update and Delete read the key first, as upstream's GuaranteedUpdate and
// Delete start from the object they hold: the write's answer carries the create revision and
// (for Delete) the last value, which a Txn without prev_kv does not return.
//
// Errors follow store.h, with these etcd-specific meanings:
//   Unavailable  no endpoint reachable within the deadline, or etcd answered UNAVAILABLE
//                ("request timed out", "leader changed"): for a write, outcome unknown.
//   Timeout      our deadline passed (DEADLINE_EXCEEDED): for a write, outcome unknown; or a
//                read at a future revision that etcd did not reach within future_wait.
//   RequestEntityTooLarge  etcd's "request is too large" (--max-request-bytes).
// Every call has a deadline, so none hangs while etcd is stopped or partitioned.
//
// Thread-safe. Watches run one reader thread each and end with Unavailable("store closed")
// when the store is destroyed.
class EtcdStore final : public Store {
 public:
  // Does not wait for etcd: channels connect in the background (spec §1.5 "Startup").
  // BadRequest for a malformed endpoint list, NotFound for an unreadable TLS file.
  static Result<std::unique_ptr<EtcdStore>> Open(EtcdStoreOptions options);
  ~EtcdStore() override;

  Result<KeyValue> Get(std::string_view key) override;
  Result<ListResult> List(const ListOptions& options) override;
  Result<KeyValue> Create(std::string_view key, std::shared_ptr<const std::string> value) override;
  Result<KeyValue> Update(std::string_view key, std::shared_ptr<const std::string> value,
                          Revision expected_mod_revision) override;
  Result<KeyValue> Delete(std::string_view key, Revision expected_mod_revision) override;
  // etcd Watch from after_revision+1 with prev_kv and progress_notify. Gone when
  // after_revision is below etcd's compaction point, at the start or later. A broken stream is
  // re-created from the last delivered revision; an event without prev_kv (other than a
  // create) or a revision that does not increase ends the watch with Internal: the caller
  // must relist (spec §1.3).
  Result<std::unique_ptr<storage::WatchStream>> Watch(std::string_view prefix,
                                                      Revision after_revision,
                                                      const WatchOptions& options) override;
  Status Compact(Revision revision) override;
  // From a linearizable read of probe_key; the last revision seen if etcd cannot answer.
  Revision CurrentRevision() override;
  // etcd does not report its compaction point; it is found by reading probe_key at
  // revisions from the last point found upward (one read when it did not move).
  Revision CompactedRevision() override;

  // The health probe of kube-apiserver's etcd check (spec §3.11): a linearizable Range of
  // probe_key within `timeout`. Ok, or why etcd cannot serve a consistent read now.
  Status CheckHealth(std::chrono::milliseconds timeout);

  // For the Compactor and other users of the same connection.
  internal::EtcdClient& client() { return *client_; }

 private:
  EtcdStore(EtcdStoreOptions options, std::unique_ptr<internal::EtcdClient> client);

  // The current-revision read of spec §1.2: a linearizable Range of probe_key.
  Result<Revision> ReadCurrentRevision();
  // Waits until etcd's revision reaches `revision` (polling), then Timeout.
  Status WaitForRevision(Revision revision);
  // Ok if etcd still holds `revision`, Gone if compacted, Timeout if ahead of etcd.
  Status ProbeRevision(Revision revision);
  void NoteRevision(Revision revision);
  // The codec's form of a value to write, and of a key-value read (Internal if it does not
  // decode: a value no writer of this kind should have left).
  Result<std::shared_ptr<const std::string>> Encoded(
      std::string_view key, const std::shared_ptr<const std::string>& value);
  Result<KeyValue> Decoded(KeyValue kv);
  // The etcd lease a write of `key` is attached to (options_.ttl_seconds); 0 for none.
  Result<int64_t> LeaseFor(std::string_view key);
  void ReapFinishedWatchers();

  // Constant after construction.
  const EtcdStoreOptions options_;
  const std::unique_ptr<internal::EtcdClient> client_;
  const std::unique_ptr<internal::LeaseManager> leases_;
  Counter* const watch_anomalies_;  // null without options_.metrics

  std::atomic<Revision> last_revision_{0};    // highest header revision seen
  std::atomic<Revision> compacted_floor_{0};  // compaction point found last (it only grows)

  std::mutex watchers_mu_;
  std::list<std::shared_ptr<internal::EtcdWatcher>> watchers_;  // guarded by watchers_mu_
};

}  // namespace svcplane::storage::etcd
