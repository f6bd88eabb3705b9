#include "apiserver/audit/event.h"

#include <arpa/inet.h>

#include <algorithm>
#include <ctime>

#include <fmt/format.h>

#include "base/civil_date.h"
#include "base/json_string.h"

namespace svcplane::apiserver::audit {
namespace {

constexpr size_t kMaxUserAgentLength = 1024;
constexpr std::string_view kUserAgentTruncateSuffix = "...TRUNCATED";

void Str(std::string& out, std::string_view key, std::string_view value, bool& first) {
  if (value.empty()) return;
  if (!first) out.push_back(',');
  first = false;
  out.push_back('"');
  out.append(key);
  out.append("\":");
  AppendJsonString(out, value);
}

void Key(std::string& out, std::string_view key, bool& first) {
  if (!first) out.push_back(',');
  first = false;
  out.push_back('"');
  out.append(key);
  out.append("\":");
}

void StringList(std::string& out, const std::vector<std::string>& list) {
  out.push_back('[');
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(out, list[i]);
  }
  out.push_back(']');
}

void User(std::string& out, const http::Identity& u) {
  out.push_back('{');
  bool first = true;
  Str(out, "username", u.user, first);
  Str(out, "uid", u.uid, first);
  if (!u.groups.empty()) {
    Key(out, "groups", first);
    StringList(out, u.groups);
  }
  if (!u.extra.empty()) {
    Key(out, "extra", first);
    out.push_back('{');
    bool efirst = true;
    for (const auto& [k, v] : u.extra) {
      if (!efirst) out.push_back(',');
      efirst = false;
      AppendJsonString(out, k);
      out.push_back(':');
      StringList(out, v);
    }
    out.push_back('}');
  }
  out.push_back('}');
}

void ObjectRefJson(std::string& out, const ObjectRef& r) {
  out.push_back('{');
  bool first = true;
  Str(out, "resource", r.resource, first);
  Str(out, "namespace", r.ns, first);
  Str(out, "name", r.name, first);
  Str(out, "uid", r.uid, first);
  Str(out, "apiGroup", r.api_group, first);
  Str(out, "apiVersion", r.api_version, first);
  Str(out, "resourceVersion", r.resource_version, first);
  Str(out, "subresource", r.subresource, first);
  out.push_back('}');
}

void ResponseStatusJson(std::string& out, const ResponseStatus& s) {
  out.append("{\"metadata\":{}");
  bool first = false;
  Str(out, "status", s.status, first);
  Str(out, "message", s.message, first);
  Str(out, "reason", s.reason, first);
  if (!s.details_json.empty()) {
    Key(out, "details", first);
    out.append(s.details_json);
  }
  if (s.code != 0) {
    Key(out, "code", first);
    out.append(std::to_string(s.code));
  }
  out.push_back('}');
}

// Whether `s` is an IPv4 address in dotted decimal as Go prints it (four numbers 0-255 without
// leading zeros): then it is its own canonical form. The peer address almost always is.
bool IsCanonicalIpv4(std::string_view s) {
  int parts = 0;
  size_t i = 0;
  while (true) {
    const size_t start = i;
    unsigned v = 0;
    while (i < s.size() && i - start < 4 && s[i] >= '0' && s[i] <= '9') {
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
      ++i;
    }
    const size_t len = i - start;
    if (len == 0 || len > 3 || v > 255 || (len > 1 && s[start] == '0')) return false;
    if (++parts == 4) return i == s.size();
    if (i >= s.size() || s[i] != '.') return false;
    ++i;
  }
}

// The IP in Go's canonical text form, or "" if `s` is not one.
std::string CanonicalIp(std::string_view s) {
  if (IsCanonicalIpv4(s)) return std::string(s);
  std::string text(s);
  char buf[INET6_ADDRSTRLEN];
  unsigned char bin[16];
  if (inet_pton(AF_INET, text.c_str(), bin) == 1) {
    return inet_ntop(AF_INET, bin, buf, sizeof(buf)) ? buf : "";
  }
  if (inet_pton(AF_INET6, text.c_str(), bin) == 1) {
    // Go prints an IPv4-mapped address as plain IPv4.
    static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::equal(kMapped, kMapped + 12, bin)) {
      return inet_ntop(AF_INET, bin + 12, buf, sizeof(buf)) ? buf : "";
    }
    return inet_ntop(AF_INET6, bin, buf, sizeof(buf)) ? buf : "";
  }
  return "";
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void Digits(char* at, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) {
    at[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
}

}  // namespace

// Two per event line, so without fmt or gmtime_r: digits into a fixed buffer.
void AppendMicroTime(Timestamp t, std::string* out) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  int64_t secs = micros / 1'000'000;
  int64_t frac = micros % 1'000'000;
  if (frac < 0) {
    frac += 1'000'000;
    --secs;
  }
  int64_t days = secs / 86400;
  int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  int64_t year;
  unsigned month, day;
  CivilFromDays(days, &year, &month, &day);
  if (year < 0 || year > 9999) {
    out->append(fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", year, month, day,
                            rem / 3600, rem / 60 % 60, rem % 60, frac));
    return;
  }
  char buf[] = "0000-00-00T00:00:00.000000Z";
  Digits(buf, static_cast<uint64_t>(year), 4);
  Digits(buf + 5, month, 2);
  Digits(buf + 8, day, 2);
  Digits(buf + 11, static_cast<uint64_t>(rem / 3600), 2);
  Digits(buf + 14, static_cast<uint64_t>(rem / 60 % 60), 2);
  Digits(buf + 17, static_cast<uint64_t>(rem % 60), 2);
  Digits(buf + 20, static_cast<uint64_t>(frac), 6);
  out->append(buf, sizeof(buf) - 1);
}

std::string FormatMicroTime(Timestamp t) {
  std::string out;
  AppendMicroTime(t, &out);
  return out;
}

std::vector<std::string> SourceIps(const http::Request& req) {
  std::vector<std::string> ips;
  if (auto fwd = req.Header("X-Forwarded-For"); fwd && !fwd->empty()) {
    std::string_view rest = *fwd;
    while (true) {
      size_t comma = rest.find(',');
      std::string ip = CanonicalIp(Trim(rest.substr(0, comma)));
      if (!ip.empty()) ips.push_back(std::move(ip));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (auto real = req.Header("X-Real-Ip"); real && !real->empty()) {
    std::string ip = CanonicalIp(*real);
    if (!ip.empty() && std::find(ips.begin(), ips.end(), ip) == ips.end()) {
      ips.push_back(std::move(ip));
    }
  }
  std::string_view remote = req.remote_address;
  std::string peer;
  if (size_t colon = remote.rfind(':'); colon != std::string_view::npos) {
    std::string_view host = remote.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    peer = CanonicalIp(host);
  }
  if (peer.empty()) peer = CanonicalIp(remote);
  if (!peer.empty() && (ips.empty() || ips.back() != peer)) ips.push_back(std::move(peer));
  return ips;
}

std::string TruncatedUserAgent(std::string_view user_agent) {
  if (user_agent.size() <= kMaxUserAgentLength) return std::string(user_agent);
  std::string out(user_agent.substr(0, kMaxUserAgentLength));
  out.append(kUserAgentTruncateSuffix);
  return out;
}

namespace {

void Time(std::string& out, std::string_view key, Timestamp t, bool& first) {
  Key(out, key, first);
  out.push_back('"');
  AppendMicroTime(t, &out);
  out.push_back('"');
}

// The event at `stage`; with `omit_for_stage`, what does not exist yet at that stage is left out.
void Encode(const Event& e, Stage stage, Timestamp stage_timestamp, bool omit_for_stage,
            std::string& out) {
  out.append(R"({"kind":"Event","apiVersion":"audit.k8s.io/v1")");
  bool first = false;
  Str(out, "level", LevelName(e.level), first);
  Str(out, "auditID", e.audit_id, first);
  Str(out, "stage", StageName(stage), first);
  Str(out, "requestURI", e.request_uri, first);
  Str(out, "verb", e.verb, first);
  Key(out, "user", first);
  User(out, e.user);
  if (e.impersonated_user) {
    Key(out, "impersonatedUser", first);
    User(out, *e.impersonated_user);
  }
  if (!e.source_ips.empty()) {
    Key(out, "sourceIPs", first);
    StringList(out, e.source_ips);
  }
  Str(out, "userAgent", e.user_agent, first);
  if (e.object_ref) {
    Key(out, "objectRef", first);
    ObjectRefJson(out, *e.object_ref);
  }
  // Nothing of the response exists when the request is received, and the body is decoded by
  // the handler, later.
  const bool received = omit_for_stage && stage == Stage::kRequestReceived;
  const bool started = omit_for_stage && stage == Stage::kResponseStarted;
  if (e.response_status && !received) {
    Key(out, "responseStatus", first);
    ResponseStatusJson(out, *e.response_status);
  }
  if (!e.request_object_json.empty() && !received) {
    Key(out, "requestObject", first);
    out.append(e.request_object_json);
  }
  if (!e.response_object_json.empty() && !received && !started) {
    Key(out, "responseObject", first);
    out.append(e.response_object_json);
  }
  Time(out, "requestReceivedTimestamp", e.request_received, first);
  Time(out, "stageTimestamp", stage_timestamp, first);
  if (!e.annotations.empty()) {
    Key(out, "annotations", first);
    out.push_back('{');
    bool afirst = true;
    for (const auto& [k, v] : e.annotations) {
      if (!afirst) out.push_back(',');
      afirst = false;
      AppendJsonString(out, k);
      out.push_back(':');
      AppendJsonString(out, v);  // an empty reason is still written (spec §5.2)
    }
    out.push_back('}');
  }
  out.push_back('}');
}

}  // namespace

void EncodeEvent(const Event& e, std::string* out) {
  Encode(e, e.stage, e.stage_timestamp, /*omit_for_stage=*/false, *out);
}

void EncodeEventAt(const Event& e, Stage stage, Timestamp stage_timestamp, std::string* out) {
  Encode(e, stage, stage_timestamp, /*omit_for_stage=*/true, *out);
}

}  // namespace svcplane::apiserver::audit
