#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/audit/policy.h"
#include "apiserver/http/handler.h"

// One audit.k8s.io/v1 Event (spec authn-authz-audit §5.1) and its JSON line.
namespace svcplane::apiserver::audit {

struct ObjectRef {
  std::string resource;
  std::string ns;
  std::string name;
  std::string uid;
  std::string api_group;
  std::string api_version;
  std::string resource_version;
  std::string subresource;
};

// metav1.Status as an event's responseStatus: `{"metadata":{},"code":200}` for a success,
// the Status body's fields when the response was one.
struct ResponseStatus {
  std::string status;  // "Success" | "Failure"; empty: left out
  std::string message;
  std::string reason;
  std::string details_json;  // the Status's details object verbatim; empty: left out
  int code = 0;
};

using Timestamp = std::chrono::system_clock::time_point;

struct Event {
  Level level = Level::kNone;
  std::string audit_id;
  Stage stage = Stage::kRequestReceived;
  std::string request_uri;
  std::string verb;
  http::Identity user;  // empty ({}): the request failed authentication
  std::optional<http::Identity> impersonated_user;
  std::vector<std::string> source_ips;
  std::string user_agent;
  std::optional<ObjectRef> object_ref;
  std::optional<ResponseStatus> response_status;
  std::string request_object_json;   // level >= Request; empty: left out
  std::string response_object_json;  // level RequestResponse; empty: left out
  Timestamp request_received;
  Timestamp stage_timestamp;
  std::map<std::string, std::string, std::less<>> annotations;  // Go sorts map keys
};

// Appends the event as one JSON object (no newline), fields in upstream's struct order, empty
// optional fields left out. request/response objects must be valid JSON; they go in verbatim.
void EncodeEvent(const Event& e, std::string* out);

// EncodeEvent of the event as it stands at `stage` (written at `stage_timestamp`), without
// copying it: `e.stage` and `e.stage_timestamp` are not read, and what does not exist yet at
// that stage is left out (RequestReceived: responseStatus, requestObject and responseObject, the
// body being decoded later; ResponseStarted: responseObject).
void EncodeEventAt(const Event& e, Stage stage, Timestamp stage_timestamp, std::string* out);

// RFC 3339 in UTC with exactly 6 fractional digits: "2025-06-01T10:00:00.123456Z".
std::string FormatMicroTime(Timestamp t);
// The same, appended.
void AppendMicroTime(Timestamp t, std::string* out);

// X-Forwarded-For's valid IPs, then X-Real-Ip unless already listed, then the peer's address
// unless it is the last entry (upstream's utilnet.SourceIPs).
std::vector<std::string> SourceIps(const http::Request& req);

// At most 1024 bytes, then "...TRUNCATED" (upstream's maxUserAgentLength).
std::string TruncatedUserAgent(std::string_view user_agent);

}  // namespace svcplane::apiserver::audit
