#include "apiserver/bootstrap/identity_lease.h"

#include <openssl/sha.h>
#include <spdlog/spdlog.h>

#include <condition_variable>

#include "base/thread_name.h"
#include "base/uuid.h"
#include "client/errors.h"

namespace svcplane::apiserver::bootstrap {

namespace {

using api::coordination::v1::Lease;

void AppendLengthPrefixed(std::string& out, std::string_view s) {
  out += static_cast<char>((s.size() >> 8) & 0xff);
  out += static_cast<char>(s.size() & 0xff);
  out += s;
}

// RFC 4648 base32, lowercase, without padding (Go's base32.StdEncoding.WithPadding(NoPadding)
// then strings.ToLower).
std::string Base32Lower(const unsigned char* data, size_t n) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    buffer = (buffer << 8) | data[i];
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 31];
  return out;
}

}  // namespace

std::string IdentityLeaseName(std::string_view hostname) {
  std::string input;
  AppendLengthPrefixed(input, hostname);
  AppendLengthPrefixed(input, kIdentityLabelValue);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  return "apiserver-" + Base32Lower(digest, 16);
}

ApiServerIdentity::ApiServerIdentity(client::ResourceClient<Lease>& leases, IdentityOptions options)
    : leases_(leases),
      options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : RealClock::Get()),
      lease_name_(IdentityLeaseName(options_.hostname)),
      holder_(lease_name_ + "_" + NewUuid()) {}

ApiServerIdentity::~ApiServerIdentity() { Stop(); }

void ApiServerIdentity::Start() {
  client::heartbeat::HeartbeatOptions ho;
  ho.holder_identity = holder_;
  ho.lease_name = lease_name_;
  ho.namespace_ = std::string(kIdentityNamespace);
  ho.lease_duration_seconds = options_.lease_duration_seconds;
  ho.renew_interval = options_.renew_interval;
  ho.clock = &clock_;
  std::string hostname = options_.hostname;
  ho.new_lease_post_process = [hostname](Lease& lease) {
    lease.metadata.labels[std::string(kIdentityLabel)] = std::string(kIdentityLabelValue);
    lease.metadata.labels[std::string(kHostnameLabel)] = hostname;
    return Status::Ok();
  };
  heartbeat_ = std::make_unique<client::heartbeat::LeaseHeartbeat>(leases_, std::move(ho));
  heartbeat_thread_ = std::jthread([this](std::stop_token stop) {
    NameThisThread("svc-identity");
    heartbeat_->Run(stop);
  });
  gc_thread_ = std::jthread([this](std::stop_token stop) { GcLoop(stop); });
}

void ApiServerIdentity::Stop() {
  heartbeat_thread_.request_stop();
  gc_thread_.request_stop();
  if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
  if (gc_thread_.joinable()) gc_thread_.join();
}

bool ApiServerIdentity::Expired(const Lease& lease) const {
  if (!lease.spec.renew_time || !lease.spec.lease_duration_seconds) return true;
  const int64_t now_us =
      std::chrono::duration_cast<std::chrono::microseconds>(clock_.WallNow().time_since_epoch())
          .count();
  const int64_t until_us =
      lease.spec.renew_time->unix_micros + int64_t{*lease.spec.lease_duration_seconds} * 1'000'000;
  return until_us < now_us;
}

Result<int> ApiServerIdentity::CollectExpired() {
  client::ListOptions lo;
  lo.label_selector = std::string(kIdentityLabel) + "=" + std::string(kIdentityLabelValue);
  auto list = leases_.List(kIdentityNamespace, lo);
  if (!list.ok()) return list.status();
  int deleted = 0;
  for (const auto& lease : list->items) {
    if (!Expired(*lease)) continue;
    // Read it again: its owner may have renewed it since the list.
    auto fresh = leases_.Get(kIdentityNamespace, lease->metadata.name);
    if (!fresh.ok()) {
      if (client::IsNotFound(fresh.status())) continue;
      return fresh.status();
    }
    if (!Expired(**fresh)) continue;
    Status st = leases_.Delete(kIdentityNamespace, lease->metadata.name);
    if (!st.ok() && !client::IsNotFound(st)) return st;
    spdlog::info("deleted expired API server identity lease {}", lease->metadata.name);
    ++deleted;
  }
  return deleted;
}

void ApiServerIdentity::GcLoop(std::stop_token stop) {
  NameThisThread("svc-identity-gc");
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> lock(mu);
  while (true) {
    // Returns at the interval, or at once when stop is requested (the predicate never holds).
    cv.wait_for(lock, stop, options_.gc_interval, [] { return false; });
    if (stop.stop_requested()) return;
    auto done = CollectExpired();
    if (!done.ok()) spdlog::warn("identity lease garbage collection: {}", done.status().message());
  }
}

}  // namespace svcplane::apiserver::bootstrap
