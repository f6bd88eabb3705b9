#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/authentication/v1/self_subject_review.h"
#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "base/clock.h"
#include "base/result.h"
#include "client/transport/http.h"

namespace svcplane::client::transport {

// Which resource a request addresses: /api/v1/namespaces/{ns}/{resource}/{name}/{subresource}
// for the core group, /apis/{group}/{version}/... otherwise. Empty namespace: cluster-scoped
// resource, or a list/watch across all namespaces. Empty name: the collection.
struct ResourceRef {
  std::string group;  // "" for core
  std::string version = "v1";
  std::string resource;  // plural, lower case: "pods", "endpointslices"
  std::string namespace_;
  std::string name;
  std::string subresource;  // "status", "finalize", ...
};

// metav1.ListOptions as query parameters.
struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;
  std::string continue_token;
  std::string resource_version;
  std::string resource_version_match;  // "NotOlderThan" | "Exact"
  std::optional<int64_t> timeout_seconds;
  bool allow_watch_bookmarks = false;
  bool watch = false;
  std::optional<bool> send_initial_events;
};

struct GetOptions {
  std::string resource_version;
};

// Create/update/patch query parameters.
struct WriteOptions {
  std::string field_manager;
  bool dry_run = false;          // dryRun=All
  std::string field_validation;  // "Strict" | "Warn" | "Ignore"
  std::optional<bool> force;     // server-side apply only
  // In-process clients only: who the write is made as, for the server's admission (the loopback
  // hands it to the registry; apiserver/registry WriteOptions::user). A REST client is whoever
  // its credentials say and ignores it. Borrowed for the call.
  const api::authentication::v1::UserInfo* user = nullptr;
};

// metav1.DeleteOptions, sent as the body.
struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "Orphan" | "Background" | "Foreground"
  std::string precondition_uid;
  std::string precondition_resource_version;
  bool dry_run = false;
  const api::authentication::v1::UserInfo* user = nullptr;  // as WriteOptions::user
};

enum class PatchType {
  kJson,            // application/json-patch+json
  kMerge,           // application/merge-patch+json
  kStrategicMerge,  // application/strategic-merge-patch+json
  kApply,           // application/apply-patch+yaml
};

std::string_view PatchContentType(PatchType type);
std::string ResourcePath(const ResourceRef& ref);
// "?k=v&..." with keys sorted and values query-escaped as Go's url.Values.Encode; "" if none.
std::string EncodeQuery(const ListOptions& options);
std::string QueryEscape(std::string_view s);

// Maps an error response to a Status, by the metav1.Status `reason` in the body when there is
// one, else by HTTP code (as client-go's errors.FromObject / NewGenericServerResponse).
// Field causes are kept; a Retry-After (header or details.retryAfterSeconds) is attached as a
// cause of type client::kRetryAfterCauseType.
Status ErrorFromResponse(const HttpResponse& response);
// The Status carried by a watch ERROR event's object.
Status ErrorFromStatusJson(std::string_view json, int fallback_http_code);

// Handles one watch event (ADDED, MODIFIED, DELETED, BOOKMARK). Return false to stop watching.
using WatchHandler = std::function<bool(const api::codec::RawWatchEvent& event)>;

// One watch event in whichever encoding the server answered: `object` is the enveloped protobuf
// object ("k8s\0"...) when `protobuf`, else the object's JSON. Views valid during the call only.
struct WatchFrame {
  std::string_view type;  // ADDED | MODIFIED | DELETED | BOOKMARK
  std::string_view object;
  bool protobuf = false;
};
using WatchFrameHandler = std::function<bool(const WatchFrame& event)>;

// The encoding of the typed calls (GetAs, ListAs, CreateAs, UpdateAs), as client-go's
// ContentType / kube-controller-manager's --kube-api-content-type. With kProtobuf they send
// protobuf bodies and ask for "application/vnd.kubernetes.protobuf, application/json", decoding
// whichever the server answers. The raw-body calls always speak JSON.
enum class ContentType { kJson, kProtobuf };

// Parses --kube-api-content-type: "application/vnd.kubernetes.protobuf" or "application/json".
Result<ContentType> ParseContentType(std::string_view media_type);

struct RestClientOptions {
  const Clock* clock = nullptr;  // null means RealClock; used to wait out Retry-After
  // As client-go: a 429, or a 5xx with a Retry-After header, is retried after the suggested
  // delay up to this many times before the error is returned.
  int max_retries = 10;
  ContentType content_type = ContentType::kJson;
};

// A Kubernetes REST client over an HttpTransport, speaking JSON. Bodies are raw JSON so that
// callers pick the decode (typed via *As, or raw for a reflector). Safe from any thread.
class RestClient {
 public:
  explicit RestClient(std::shared_ptr<HttpTransport> transport, RestClientOptions options = {});

  Result<std::string> Get(const ResourceRef& ref, const GetOptions& options = {});
  Result<std::string> List(const ResourceRef& ref, const ListOptions& options = {});
  Result<std::string> Create(const ResourceRef& ref, std::string body,
                             const WriteOptions& options = {});
  Result<std::string> Update(const ResourceRef& ref, std::string body,
                             const WriteOptions& options = {});
  Result<std::string> Patch(const ResourceRef& ref, PatchType type, std::string body,
                            const WriteOptions& options = {});
  // Returns the response body (the deleted object, or a Success Status).
  Result<std::string> Delete(const ResourceRef& ref, const DeleteOptions& options = {});

  // Opens a watch (options.watch is forced on) and hands each event to `handler` as it arrives,
  // until the server ends the stream (OK), `handler` returns false (OK), `cancel` fires (OK), an
  // ERROR event arrives (its Status, e.g. kGone for "too old resource version"), the watch is
  // refused (the mapped error), or the connection breaks (kUnavailable).
  Status Watch(const ResourceRef& ref, ListOptions options, const WatchHandler& handler,
               CancelToken& cancel);

  template <typename T>
  Result<T> GetAs(const ResourceRef& ref, const GetOptions& options = {}) {
    if (protobuf_) return DecodeTyped<T>(SendTyped("GET", GetTarget(ref, options), ""));
    return DecodeBody<T>(Get(ref, options));
  }
  template <typename T>
  Result<T> ListAs(const ResourceRef& ref, const ListOptions& options = {}) {
    if (protobuf_) return DecodeTyped<T>(SendTyped("GET", ListTarget(ref, options), ""));
    return DecodeBody<T>(List(ref, options));
  }
  template <typename T>
  Result<T> CreateAs(const ResourceRef& ref, const T& obj, const WriteOptions& options = {}) {
    if (protobuf_) {
      return DecodeTyped<T>(SendTyped("POST", WriteTarget(ref, options), EncodeTyped(ref, obj)));
    }
    return DecodeBody<T>(Create(ref, api::codec::EncodeJson(obj), options));
  }
  template <typename T>
  Result<T> UpdateAs(const ResourceRef& ref, const T& obj, const WriteOptions& options = {}) {
    if (protobuf_) {
      return DecodeTyped<T>(SendTyped("PUT", WriteTarget(ref, options), EncodeTyped(ref, obj)));
    }
    return DecodeBody<T>(Update(ref, api::codec::EncodeJson(obj), options));
  }

  // As Watch, in the client's content type: with kProtobuf it asks for
  // "application/vnd.kubernetes.protobuf;stream=watch, application/json" and reads
  // length-prefixed frames, or lines if the server answers JSON (as client-go checks the
  // response Content-Type). Transports without StreamBytes fall back to the JSON watch.
  Status WatchFrames(const ResourceRef& ref, ListOptions options, const WatchFrameHandler& handler,
                     CancelToken& cancel);

  // --- negotiated requests, for typed clients that decode by the response Content-Type ---
  bool protobuf() const { return protobuf_; }
  // Sends `body` (of `content_type`, if any) with Accept protobuf-then-JSON when kProtobuf, else
  // JSON; retries as the raw calls do; the 2xx response or the mapped error.
  Result<HttpResponse> SendNegotiated(std::string method, std::string target, std::string body,
                                      std::string_view content_type);
  // A GET negotiated as SendNegotiated whose 2xx body goes to `on_bytes` as it arrives (the
  // head with each chunk), for lists decoded item by item. Errors as SendNegotiated, plus
  // on_bytes returning false (OK: the caller knows why). *streamed is false when the transport
  // cannot stream (no StreamBytes): nothing was sent, use SendNegotiated.
  Status StreamNegotiated(std::string target, const BytesHandler& on_bytes, bool* streamed);
  static bool IsProtobufResponse(const HttpResponse& r);
  static std::string GetTarget(const ResourceRef& ref, const GetOptions& options);
  static std::string ListTarget(const ResourceRef& ref, const ListOptions& options);
  static std::string WriteTarget(const ResourceRef& ref, const WriteOptions& options);
  // metav1.DeleteOptions as JSON (kube-apiserver accepts it whatever the Accept).
  static std::string DeleteBody(const DeleteOptions& options);

  HttpTransport& transport() { return *transport_; }

 private:
  template <typename T>
  static Result<T> DecodeBody(Result<std::string> body) {
    if (!body.ok()) return body.status();
    return api::codec::DecodeJson<T>(*body);
  }
  Result<std::string> Send(std::string method, std::string target, std::string body,
                           std::string_view content_type);

  // --- protobuf for the typed calls (ContentType::kProtobuf) ---
  // The envelope's apiVersion and kind for `ref`'s resource (kind "" if we do not serve it).
  static std::pair<std::string, std::string> TypeOf(const ResourceRef& ref);
  template <typename T>
  static std::string EncodeTyped(const ResourceRef& ref, const T& obj) {
    auto [api_version, kind] = TypeOf(ref);
    return api::codec::EncodeProtobuf(obj, obj.api_version.empty() ? api_version : obj.api_version,
                                      obj.kind.empty() ? kind : obj.kind);
  }
  // Sends with Accept protobuf-then-JSON (and a protobuf body if any); the 2xx response.
  Result<HttpResponse> SendTyped(std::string method, std::string target, std::string body) {
    std::string_view ct = body.empty() ? "" : api::codec::kProtobufContentType;
    return SendNegotiated(std::move(method), std::move(target), std::move(body), ct);
  }
  template <typename T>
  static Result<T> DecodeTyped(Result<HttpResponse> r) {
    if (!r.ok()) return r.status();
    if (IsProtobufResponse(*r)) return api::codec::DecodeProtobuf<T>(r->body);
    return api::codec::DecodeJson<T>(r->body);
  }

  const std::shared_ptr<HttpTransport> transport_;
  const Clock& clock_;
  const int max_retries_;
  const bool protobuf_ = false;
};

}  // namespace svcplane::client::transport
