#include "client/transport/rest_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <utility>
#include <vector>

#include "api/resources.h"
#include "client/errors.h"

namespace svcplane::client::transport {
namespace {

using Query = std::vector<std::pair<std::string, std::string>>;

std::string Encode(Query q) {
  if (q.empty()) return "";
  std::stable_sort(q.begin(), q.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "?";
  for (size_t i = 0; i < q.size(); ++i) {
    if (i > 0) out += '&';
    out += QueryEscape(q[i].first);
    out += '=';
    out += QueryEscape(q[i].second);
  }
  return out;
}

void AddWriteOptions(const WriteOptions& o, Query* q) {
  if (o.dry_run) q->emplace_back("dryRun", "All");
  if (!o.field_manager.empty()) q->emplace_back("fieldManager", o.field_manager);
  if (!o.field_validation.empty()) q->emplace_back("fieldValidation", o.field_validation);
  if (o.force) q->emplace_back("force", *o.force ? "true" : "false");
}

// Escapes a path segment (names may hold ':' for e.g. system:nodes leases; keep them readable).
std::string PathEscape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ':' || c == '@') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

Code CodeFromHttp(int http) {
  switch (http) {
    case 400:
      return Code::kBadRequest;
    case 401:
      return Code::kUnauthorized;
    case 403:
      return Code::kForbidden;
    case 404:
      return Code::kNotFound;
    case 405:
      return Code::kMethodNotAllowed;
    case 409:
      return Code::kConflict;
    case 410:
      return Code::kGone;
    case 413:
      return Code::kRequestEntityTooLarge;
    case 415:
      return Code::kUnsupportedMediaType;
    case 422:
      return Code::kInvalid;
    case 429:
      return Code::kTooManyRequests;
    case 502:
    case 503:
      return Code::kUnavailable;
    case 504:
      return Code::kTimeout;
    default:
      return http >= 500 ? Code::kInternal : Code::kBadRequest;
  }
}

std::optional<Code> CodeFromReason(std::string_view reason) {
  static const std::map<std::string_view, Code> kReasons = {
      {"NotFound", Code::kNotFound},
      {"AlreadyExists", Code::kAlreadyExists},
      {"Conflict", Code::kConflict},
      {"Invalid", Code::kInvalid},
      {"BadRequest", Code::kBadRequest},
      {"Gone", Code::kGone},
      {"Expired", Code::kGone},
      {"TooManyRequests", Code::kTooManyRequests},
      {"ServiceUnavailable", Code::kUnavailable},
      {"Timeout", Code::kTimeout},
      {"ServerTimeout", Code::kTimeout},
      {"Unauthorized", Code::kUnauthorized},
      {"Forbidden", Code::kForbidden},
      {"MethodNotAllowed", Code::kMethodNotAllowed},
      {"UnsupportedMediaType", Code::kUnsupportedMediaType},
      {"RequestEntityTooLarge", Code::kRequestEntityTooLarge},
      {"InternalError", Code::kInternal},
  };
  auto it = kReasons.find(reason);
  if (it == kReasons.end()) return std::nullopt;
  return it->second;
}

// client-go's messages for error responses without a Status body.
std::string GenericMessage(int http, std::string_view body) {
  switch (http) {
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
      return body.empty() ? "forbidden" : std::string(body);
    case 404:
      return "the server could not find the requested resource";
    case 405:
      return "the server does not allow this method on the requested resource";
    case 409:
      return "the server reported a conflict";
    case 410:
      return "the server responded with the status code 410 but did not return more information";
    case 413:
      return "the server has rejected the request because the request entity is too large";
    case 415:
      return "the server was unable to respond with a content type that the client supports";
    case 422:
      return "the server rejected our request due to an error in our request";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    case 500:
      return fmt::format(
          "an error on the server (\"{}\") has prevented the request from succeeding",
          body.substr(0, 200));
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be "
             "processing the request";
    default:
      return fmt::format(
          "the server responded with the status code {} but did not return more "
          "information",
          http);
  }
}

Status WithRetryAfter(Status s, int seconds) {
  if (seconds <= 0) return s;
  std::vector<StatusCause> causes = s.causes();
  causes.push_back({kRetryAfterCauseType, "", std::to_string(seconds)});
  s.WithCauses(std::move(causes));
  return s;
}

// Decodes a metav1.Status body; nullopt if the body is not one.
std::optional<api::meta::StatusObject> DecodeStatus(std::string_view body) {
  if (body.starts_with(api::codec::kProtobufMagic)) {  // a client that accepts protobuf
    auto st = api::codec::DecodeProtobuf<api::meta::StatusObject>(body);
    if (!st.ok() || st->kind != "Status") return std::nullopt;
    return *st;
  }
  if (body.empty() || body.front() != '{') return std::nullopt;
  auto st = api::codec::DecodeJson<api::meta::StatusObject>(body);
  if (!st.ok() || st->kind != "Status") return std::nullopt;
  return *st;
}

Status FromStatusObject(const api::meta::StatusObject& st, int http) {
  const int code_http = st.code != 0 ? st.code : http;
  const Code code = CodeFromReason(st.reason).value_or(CodeFromHttp(code_http));
  Status s(code, st.message.empty() ? GenericMessage(code_http, "") : st.message);
  int retry_after = 0;
  if (st.details) {
    std::vector<StatusCause> causes;
    for (const auto& c : st.details->causes) causes.push_back({c.reason, c.field, c.message});
    s.WithCauses(std::move(causes));
    retry_after = st.details->retry_after_seconds;
  }
  return WithRetryAfter(std::move(s), retry_after);
}

// client-go's checkWait: 429, or a 5xx with a Retry-After header of whole seconds.
std::optional<int> RetryAfterFromResponse(const HttpResponse& r) {
  if (r.status != 429 && r.status < 500) return std::nullopt;
  const std::string h = r.Header("Retry-After");
  if (h.empty() || h.size() > 6 ||
      !std::all_of(h.begin(), h.end(), [](char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::stoi(h);
}

}  // namespace

Result<ContentType> ParseContentType(std::string_view media_type) {
  if (media_type == api::codec::kProtobufContentType) return ContentType::kProtobuf;
  if (media_type == "application/json") return ContentType::kJson;
  return InvalidError(fmt::format(
      "content type \"{}\": want application/vnd.kubernetes.protobuf or application/json",
      media_type));
}

std::string_view PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

std::string QueryEscape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string ResourcePath(const ResourceRef& ref) {
  std::string path = ref.group.empty() ? fmt::format("/api/{}", ref.version)
                                       : fmt::format("/apis/{}/{}", ref.group, ref.version);
  if (!ref.namespace_.empty()) path += "/namespaces/" + PathEscape(ref.namespace_);
  path += "/" + ref.resource;
  if (!ref.name.empty()) path += "/" + PathEscape(ref.name);
  if (!ref.subresource.empty()) path += "/" + ref.subresource;
  return path;
}

std::string EncodeQuery(const ListOptions& o) {
  Query q;
  if (!o.label_selector.empty()) q.emplace_back("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) q.emplace_back("fieldSelector", o.field_selector);
  if (o.limit > 0) q.emplace_back("limit", std::to_string(o.limit));
  if (!o.continue_token.empty()) q.emplace_back("continue", o.continue_token);
  if (!o.resource_version.empty()) q.emplace_back("resourceVersion", o.resource_version);
  if (!o.resource_version_match.empty()) {
    q.emplace_back("resourceVersionMatch", o.resource_version_match);
  }
  if (o.timeout_seconds) q.emplace_back("timeoutSeconds", std::to_string(*o.timeout_seconds));
  if (o.allow_watch_bookmarks) q.emplace_back("allowWatchBookmarks", "true");
  if (o.watch) q.emplace_back("watch", "true");
  if (o.send_initial_events) {
    q.emplace_back("sendInitialEvents", *o.send_initial_events ? "true" : "false");
  }
  return Encode(std::move(q));
}

Status ErrorFromResponse(const HttpResponse& r) {
  int retry_after = 0;
  if (std::string h = r.Header("Retry-After"); !h.empty()) {
    try {
      retry_after = std::stoi(h);
    } catch (const std::exception&) {
      retry_after = 0;  // an HTTP date: client-go ignores it too
    }
  }
  if (auto st = DecodeStatus(r.body)) {
    Status s = FromStatusObject(*st, r.status);
    if (retry_after > 0 && !RetryAfterSeconds(s)) s = WithRetryAfter(std::move(s), retry_after);
    return s;
  }
  return WithRetryAfter(Status(CodeFromHttp(r.status), GenericMessage(r.status, r.body)),
                        retry_after);
}

Status ErrorFromStatusJson(std::string_view json, int fallback_http_code) {
  if (auto st = DecodeStatus(json)) return FromStatusObject(*st, fallback_http_code);
  return InternalError(
      fmt::format("watch ERROR event without a Status object: {}", json.substr(0, 200)));
}

RestClient::RestClient(std::shared_ptr<HttpTransport> transport, RestClientOptions options)
    : transport_(std::move(transport)),
      clock_(options.clock ? *options.clock : RealClock::Get()),
      max_retries_(options.max_retries),
      protobuf_(options.content_type == ContentType::kProtobuf) {}

std::string RestClient::GetTarget(const ResourceRef& ref, const GetOptions& options) {
  Query q;
  if (!options.resource_version.empty()) {
    q.emplace_back("resourceVersion", options.resource_version);
  }
  return ResourcePath(ref) + Encode(std::move(q));
}

std::string RestClient::ListTarget(const ResourceRef& ref, const ListOptions& options) {
  return ResourcePath(ref) + EncodeQuery(options);
}

std::string RestClient::WriteTarget(const ResourceRef& ref, const WriteOptions& options) {
  Query q;
  AddWriteOptions(options, &q);
  return ResourcePath(ref) + Encode(std::move(q));
}

std::pair<std::string, std::string> RestClient::TypeOf(const ResourceRef& ref) {
  const api::ResourceInfo* ri = api::FindResource(ref.group, ref.resource);
  if (!ri) return {ref.group.empty() ? ref.version : ref.group + "/" + ref.version, ""};
  return {ri->GroupVersion(), std::string(ri->kind)};
}

bool RestClient::IsProtobufResponse(const HttpResponse& r) {
  std::string ct = r.Header("Content-Type");
  return ct.substr(0, ct.find(';')) == api::codec::kProtobufContentType;
}

Result<HttpResponse> RestClient::SendNegotiated(std::string method, std::string target,
                                                std::string body, std::string_view content_type) {
  HttpRequest req;
  req.method = std::move(method);
  req.target = std::move(target);
  req.headers.emplace_back(
      "Accept", protobuf_ ? std::string(api::codec::kProtobufContentType) + ", application/json"
                          : std::string("application/json"));
  if (!content_type.empty()) req.headers.emplace_back("Content-Type", std::string(content_type));
  req.body = std::move(body);
  for (int attempt = 0;; ++attempt) {
    auto res = transport_->Do(req);
    if (!res.ok()) return res.status();
    if (res->status >= 200 && res->status < 300) return std::move(*res);
    if (attempt < max_retries_) {
      if (auto wait = RetryAfterFromResponse(*res)) {
        clock_.Sleep(std::chrono::seconds(*wait));
        continue;
      }
    }
    return ErrorFromResponse(*res);
  }
}

Status RestClient::StreamNegotiated(std::string target, const BytesHandler& on_bytes,
                                    bool* streamed) {
  HttpRequest req;
  req.target = std::move(target);
  req.headers.emplace_back(
      "Accept", protobuf_ ? std::string(api::codec::kProtobufContentType) + ", application/json"
                          : std::string("application/json"));
  *streamed = true;
  for (int attempt = 0;; ++attempt) {
    CancelToken cancel;
    auto res = transport_->StreamBytes(req, on_bytes, cancel);
    if (!res.ok()) {
      if (attempt == 0 && res.status().code() == Code::kMethodNotAllowed) *streamed = false;
      return res.status();
    }
    if (res->status >= 200 && res->status < 300) return Status::Ok();
    if (attempt < max_retries_) {
      if (auto wait = RetryAfterFromResponse(*res)) {
        clock_.Sleep(std::chrono::seconds(*wait));
        continue;
      }
    }
    return ErrorFromResponse(*res);
  }
}

Result<std::string> RestClient::Send(std::string method, std::string target, std::string body,
                                     std::string_view content_type) {
  HttpRequest req;
  req.method = std::move(method);
  req.target = std::move(target);
  req.headers.emplace_back("Accept", "application/json");
  if (!content_type.empty()) req.headers.emplace_back("Content-Type", std::string(content_type));
  req.body = std::move(body);
  for (int attempt = 0;; ++attempt) {
    auto res = transport_->Do(req);
    if (!res.ok()) return res.status();
    if (res->status >= 200 && res->status < 300) return std::move(res->body);
    if (attempt < max_retries_) {
      if (auto wait = RetryAfterFromResponse(*res)) {
        clock_.Sleep(std::chrono::seconds(*wait));
        continue;
      }
    }
    return ErrorFromResponse(*res);
  }
}

Result<std::string> RestClient::Get(const ResourceRef& ref, const GetOptions& options) {
  Query q;
  if (!options.resource_version.empty())
    q.emplace_back("resourceVersion", options.resource_version);
  return Send("GET", ResourcePath(ref) + Encode(std::move(q)), "", "");
}

Result<std::string> RestClient::List(const ResourceRef& ref, const ListOptions& options) {
  return Send("GET", ResourcePath(ref) + EncodeQuery(options), "", "");
}

Result<std::string> RestClient::Create(const ResourceRef& ref, std::string body,
                                       const WriteOptions& options) {
  Query q;
  AddWriteOptions(options, &q);
  return Send("POST", ResourcePath(ref) + Encode(std::move(q)), std::move(body),
              "application/json");
}

Result<std::string> RestClient::Update(const ResourceRef& ref, std::string body,
                                       const WriteOptions& options) {
  Query q;
  AddWriteOptions(options, &q);
  return Send("PUT", ResourcePath(ref) + Encode(std::move(q)), std::move(body), "application/json");
}

Result<std::string> RestClient::Patch(const ResourceRef& ref, PatchType type, std::string body,
                                      const WriteOptions& options) {
  Query q;
  AddWriteOptions(options, &q);
  return Send("PATCH", ResourcePath(ref) + Encode(std::move(q)), std::move(body),
              PatchContentType(type));
}

std::string RestClient::DeleteBody(const DeleteOptions& options) {
  boost::json::object body;
  body["kind"] = "DeleteOptions";
  body["apiVersion"] = "v1";
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (!options.precondition_uid.empty() || !options.precondition_resource_version.empty()) {
    boost::json::object pre;
    if (!options.precondition_uid.empty()) pre["uid"] = options.precondition_uid;
    if (!options.precondition_resource_version.empty()) {
      pre["resourceVersion"] = options.precondition_resource_version;
    }
    body["preconditions"] = std::move(pre);
  }
  if (options.dry_run) body["dryRun"] = boost::json::array{"All"};
  return boost::json::serialize(body);
}

Result<std::string> RestClient::Delete(const ResourceRef& ref, const DeleteOptions& options) {
  return Send("DELETE", ResourcePath(ref), DeleteBody(options), "application/json");
}

Status RestClient::Watch(const ResourceRef& ref, ListOptions options, const WatchHandler& handler,
                         CancelToken& cancel) {
  options.watch = true;
  HttpRequest req;
  req.target = ResourcePath(ref) + EncodeQuery(options);
  req.headers.emplace_back("Accept", "application/json");
  Status stream_error;
  auto on_line = [&](std::string_view line) {
    auto ev = api::codec::DecodeWatchEvent(line);
    if (!ev.ok()) {
      stream_error = InternalError("decoding watch event: " + ev.status().message());
      return false;
    }
    if (ev->type == "ERROR") {
      stream_error = ErrorFromStatusJson(ev->object, 500);
      return false;
    }
    return handler(*ev);
  };
  auto res = transport_->Stream(req, on_line, cancel);
  if (!res.ok()) return res.status();
  if (res->status < 200 || res->status >= 300) return ErrorFromResponse(*res);
  return stream_error;
}

Status RestClient::WatchFrames(const ResourceRef& ref, ListOptions options,
                               const WatchFrameHandler& handler, CancelToken& cancel) {
  auto json_event = [&handler](const api::codec::RawWatchEvent& ev) {
    return handler(WatchFrame{ev.type, ev.object, false});
  };
  if (!protobuf_) return Watch(ref, std::move(options), json_event, cancel);

  options.watch = true;
  HttpRequest req;
  req.target = ResourcePath(ref) + EncodeQuery(options);
  req.headers.emplace_back(
      "Accept", std::string(api::codec::kProtobufWatchContentType) + ", application/json");
  Status stream_error;
  bool got_head = false;
  bool frames = false;   // the server answered protobuf: length-prefixed frames, else lines
  std::string pending;   // bytes of an incomplete frame or line
  bool stopped = false;  // the handler (or a decode error) ended the watch
  // Hands one event to `handler`, or records why the stream must stop.
  auto dispatch = [&](std::string_view type, std::string_view object, bool protobuf) {
    if (type == "ERROR") {
      stream_error = ErrorFromStatusJson(object, 500);
      return false;
    }
    return handler(WatchFrame{type, object, protobuf});
  };
  auto on_bytes = [&](const HttpResponse& head, std::string_view chunk) {
    if (!got_head) {
      got_head = true;
      frames = IsProtobufResponse(head);
    }
    pending.append(chunk);
    std::string_view rest(pending);
    bool more = true;
    while (more) {
      if (frames) {
        auto frame = api::codec::NextProtobufWatchFrame(&rest);
        if (!frame.ok()) {
          stream_error = InternalError("decoding watch event: " + frame.status().message());
          stopped = true;
          return false;
        }
        if (!frame->has_value()) break;
        more = dispatch((*frame)->type, (*frame)->object, true);
      } else {
        const size_t nl = rest.find('\n');
        if (nl == std::string_view::npos) break;
        std::string_view line = rest.substr(0, nl);
        rest.remove_prefix(nl + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        auto ev = api::codec::DecodeWatchEvent(line);
        if (!ev.ok()) {
          stream_error = InternalError("decoding watch event: " + ev.status().message());
          stopped = true;
          return false;
        }
        more = dispatch(ev->type, ev->object, false);
      }
    }
    pending.erase(0, pending.size() - rest.size());
    stopped = !more;
    return more;
  };
  auto res = transport_->StreamBytes(req, on_bytes, cancel);
  if (!res.ok() && !got_head && res.status().code() == Code::kMethodNotAllowed) {
    return Watch(ref, std::move(options), json_event, cancel);
  }
  if (!res.ok()) return res.status();
  if (res->status < 200 || res->status >= 300) return ErrorFromResponse(*res);
  if (!stream_error.ok()) return stream_error;
  // A JSON stream may end without a final newline.
  if (!frames && !stopped && !pending.empty() && !cancel.cancelled()) {
    auto ev = api::codec::DecodeWatchEvent(pending);
    if (!ev.ok()) return InternalError("decoding watch event: " + ev.status().message());
    dispatch(ev->type, ev->object, false);
  }
  return stream_error;
}

}  // namespace svcplane::client::transport
