#include "apiserver/audit/auditor.h"

#include <exception>
#include <variant>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "api/codec/yaml.h"
#include "apiserver/authorization/request_attributes.h"
#include "base/uuid.h"

namespace svcplane::apiserver::audit {
namespace {

namespace json = boost::json;

bool StartsWithIgnoringCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char a = s[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (a != prefix[i]) return false;
  }
  return true;
}

// Sets *text to a body as JSON text: protobuf transcoded and YAML converted into *storage, JSON
// as it is. False for anything else (or malformed), which the event then leaves out.
bool AsJsonText(std::string_view content_type, std::string_view body, std::string* storage,
                std::string_view* text) {
  if (body.empty()) return false;
  *text = body;
  if (body.starts_with(api::codec::kProtobufMagic)) {
    auto j = api::codec::ProtobufToJson(body);
    if (!j.ok()) return false;
    *storage = std::move(*j);
    *text = *storage;
  } else if (StartsWithIgnoringCase(content_type, "application/yaml")) {
    auto docs = api::codec::YamlToJson(body);
    if (!docs.ok() || docs->empty()) return false;
    *storage = std::move(docs->front());
    *text = *storage;
  }
  return true;
}

// A body as a parsed JSON value (for Status bodies, which are small and rare).
std::optional<json::value> BodyValue(std::string_view content_type, std::string_view body) {
  std::string storage;
  std::string_view text;
  if (!AsJsonText(content_type, body, &storage, &text)) return std::nullopt;
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return std::nullopt;
  return v;
}

// A body validated and minified for the event, with its metadata.
std::optional<api::codec::LoggedJson> LoggedBody(std::string_view content_type,
                                                 std::string_view body, bool want_json) {
  std::string storage;
  std::string_view text;
  if (!AsJsonText(content_type, body, &storage, &text)) return std::nullopt;
  auto logged = api::codec::JsonForLog(text, want_json);
  if (!logged.ok()) return std::nullopt;
  return std::move(*logged);
}

std::string StringAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool IsStatus(const json::value& v) {
  return v.is_object() && StringAt(v.get_object(), "kind") == "Status";
}

ResponseStatus StatusOf(int code, const std::optional<json::value>& body) {
  ResponseStatus s;
  s.code = code;
  if (!body || !IsStatus(*body)) return s;
  const json::object& o = body->get_object();
  s.status = StringAt(o, "status");
  s.message = StringAt(o, "message");
  s.reason = StringAt(o, "reason");
  if (const json::value* d = o.if_contains("details"); d != nullptr && d->is_object()) {
    s.details_json = json::serialize(*d);
  }
  if (const json::value* c = o.if_contains("code"); c != nullptr && c->is_int64()) {
    s.code = static_cast<int>(c->get_int64());
  }
  return s;
}

// Whether a response body can be a Status (error or success Status), worth parsing at
// Metadata level: JSON or protobuf whose first bytes name the kind.
bool MayBeStatus(std::string_view body) {
  if (body.starts_with(api::codec::kProtobufMagic)) {
    return body.substr(0, 32).find("Status") != std::string_view::npos;
  }
  return body.starts_with(R"({"kind":"Status")");
}

}  // namespace

struct Auditor::Shared {
  Policy policy;
  std::shared_ptr<Sink> sink;
  Now now;

  void Emit(const RequestContext& ctx, Stage stage, bool may_wait) const {
    if (ctx.Omits(stage)) return;
    std::string line;
    ctx.EncodeAt(stage, now(), &line);
    sink->Write(std::move(line), may_wait);
  }

  // The event fields known before the handler runs.
  Event BaseEvent(const http::Request& req, const authorization::Attributes& a, Level level) const {
    Event e;
    e.level = level;
    e.audit_id = AuditIdOf(req);
    e.request_uri = req.target;
    e.verb = a.verb;
    e.user = req.identity;
    e.source_ips = SourceIps(req);
    e.user_agent = TruncatedUserAgent(req.Header("User-Agent").value_or(""));
    if (a.resource_request) {
      e.object_ref = ObjectRef{.resource = a.resource,
                               .ns = a.ns,
                               .name = a.name,
                               .api_group = a.api_group,
                               .api_version = a.api_version,
                               .subresource = a.subresource};
    }
    e.request_received =
        req.received_at == Timestamp() ? now() : req.received_at;  // set by the HTTP layer
    return e;
  }

  // requestObject (and objectRef's name... on create and update) from the raw body, unless a
  // handler already logged the decoded object. Patches are logged as sent.
  void LogBody(const http::Request& req, const authorization::Attributes& a,
               RequestContext& ctx) const {
    if (ctx.HasRequestObject() || req.body.empty()) return;
    const bool writes_object = a.verb == "create" || a.verb == "update";
    if (!writes_object && ctx.level() < Level::kRequest) return;
    const bool want_json = ctx.level() >= Level::kRequest;
    auto body = LoggedBody(req.Header("Content-Type").value_or(""), req.body, want_json);
    if (!body) return;
    DecodedObjectMeta meta;
    if (writes_object) {
      meta = {std::move(body->ns), std::move(body->name), std::move(body->uid),
              std::move(body->resource_version)};
    }
    ctx.LogRequestObject(meta, std::move(body->json));
  }

  void LogResponse(const http::Response& r, RequestContext& ctx) const {
    std::optional<json::value> status;
    if (MayBeStatus(r.body)) status = BodyValue(r.content_type, r.body);
    std::string object;
    if (ctx.level() >= Level::kRequestResponse) {
      if (auto body = LoggedBody(r.content_type, r.body, true)) object = std::move(body->json);
    }
    ctx.SetResponse(StatusOf(r.status, status), std::move(object));
  }

  // A body produced while it is sent, at RequestResponse level: its bytes are kept as they go
  // out, and ResponseComplete is written once the last piece was produced (or, if the client
  // left first, when the source is dropped, without the object).
  http::BodySource TeeBody(http::Response& r, std::shared_ptr<RequestContext> ctx) const {
    struct Tee {
      std::shared_ptr<const Shared> shared;
      std::shared_ptr<RequestContext> ctx;
      http::BodySource source;
      int status;
      std::string content_type;
      std::string bytes;
      bool done = false;
      ~Tee() {
        if (done) return;
        ctx->SetResponse(StatusOf(status, std::nullopt), "");
        shared->Emit(*ctx, Stage::kResponseComplete, false);
      }
    };
    auto tee = std::make_shared<Tee>();
    tee->shared = SharedFromThis();
    tee->ctx = std::move(ctx);
    tee->source = std::move(r.body_source);
    tee->status = r.status;
    tee->content_type = r.content_type;
    return [tee](std::string* out) {
      const size_t from = out->size();
      const bool more = tee->source(out);
      tee->bytes.append(*out, from, std::string::npos);
      if (!more && !tee->done) {
        tee->done = true;
        std::optional<json::value> status;
        if (MayBeStatus(tee->bytes)) status = BodyValue(tee->content_type, tee->bytes);
        auto body = LoggedBody(tee->content_type, tee->bytes, true);
        tee->ctx->SetResponse(StatusOf(tee->status, status),
                              body ? std::move(body->json) : std::string());
        tee->bytes = std::string();
        tee->shared->Emit(*tee->ctx, Stage::kResponseComplete, false);
      }
      return more;
    };
  }

  static bool IsSecretRequest(const authorization::Attributes& a) {
    return a.resource_request && a.api_group.empty() && a.resource == "secrets";
  }

  std::weak_ptr<const Shared> self_weak;
  std::shared_ptr<const Shared> SharedFromThis() const { return self_weak.lock(); }

  http::Reply Handle(const http::Handler& inner, const http::Request& req) const {
    const authorization::Attributes attrs = authorization::AttributesFromRequest(req);
    RuleEvaluation rule = policy.Evaluate(attrs);
    if (rule.level == Level::kNone) return inner(req);
    // Secret values never reach the audit log, whatever the policy asks: a Secret request is
    // logged at Metadata level at most (no requestObject, no responseObject). The event's
    // level says so. Upstream would log them; its recommended policies put Secrets at
    // Metadata for this reason.
    if (IsSecretRequest(attrs) && rule.level > Level::kMetadata) rule.level = Level::kMetadata;
    const Level level = rule.level;
    auto ctx = std::make_shared<RequestContext>(rule, BaseEvent(req, attrs, level));
    req.audit = ctx;
    Emit(*ctx, Stage::kRequestReceived, true);
    http::Reply reply;
    try {
      reply = inner(req);
    } catch (const std::exception& e) {
      ctx->SetResponse(ResponseStatus{.status = "Failure",
                                      .message = fmt::format("APIServer panic'd: {}", e.what()),
                                      .reason = "InternalError",
                                      .code = 500},
                       "");
      Emit(*ctx, Stage::kPanic, true);
      req.audit.reset();
      throw;
    }
    LogBody(req, attrs, *ctx);
    if (auto* response = std::get_if<http::Response>(&reply)) {
      if (response->body_source && level >= Level::kRequestResponse) {
        response->body_source = TeeBody(*response, ctx);
      } else {
        LogResponse(*response, *ctx);
        Emit(*ctx, Stage::kResponseComplete, true);
      }
    } else if (auto& writer = std::get<std::shared_ptr<http::StreamWriter>>(reply)) {
      // A watch: never a responseObject.
      ctx->SetResponse(StatusOf(writer->head().status, std::nullopt), "");
      auto self = SharedFromThis();
      writer->OnHeadWritten([self, ctx] { self->Emit(*ctx, Stage::kResponseStarted, false); });
      writer->OnEnd(
          [self, ctx](http::StreamEnd) { self->Emit(*ctx, Stage::kResponseComplete, false); });
    }
    req.audit.reset();  // the request may outlive this call (a fiber's capture); the context not
    return reply;
  }
};

Auditor::Auditor(Policy policy, std::shared_ptr<Sink> sink, Now now)
    : shared_(std::make_shared<Shared>()), policy_(shared_->policy) {
  shared_->policy = std::move(policy);
  shared_->sink = std::move(sink);
  shared_->now = now ? std::move(now) : [] { return std::chrono::system_clock::now(); };
  shared_->self_weak = shared_;
}

http::Handler Auditor::Wrap(http::Handler inner) const {
  return [shared = shared_, inner = std::move(inner)](const http::Request& req) {
    return shared->Handle(inner, req);
  };
}

void Auditor::LogFailedAuthentication(const http::Request& req,
                                      const http::Response& response) const {
  const authorization::Attributes attrs = [&] {
    authorization::Attributes a = authorization::AttributesFromRequest(req);
    a.user = nullptr;  // rules naming users or groups do not match
    return a;
  }();
  const RuleEvaluation rule = shared_->policy.Evaluate(attrs);
  if (rule.level == Level::kNone) return;
  Event base = shared_->BaseEvent(req, attrs, rule.level);
  base.user = http::Identity{};
  RequestContext ctx(rule, std::move(base));
  std::optional<json::value> body = BodyValue(response.content_type, response.body);
  ctx.SetResponse(StatusOf(response.status, body), "");
  shared_->Emit(ctx, Stage::kResponseStarted, false);
}

std::string AuditIdOf(const http::Request& req) {
  // The server set it before authentication, and echoes it in the response's Audit-ID.
  if (!req.audit_id.empty()) return req.audit_id;
  if (auto id = req.Header("Audit-ID"); id && !id->empty()) return std::string(*id);
  return NewUuid();
}

Result<std::unique_ptr<Auditor>> NewAuditor(const AuditOptions& options) {
  if (options.log.path.empty()) return std::unique_ptr<Auditor>();
  SVC_RETURN_IF_ERROR(ValidateLogOptions(options.log));
  if (options.policy_file.empty()) return std::unique_ptr<Auditor>();
  auto policy = LoadPolicyFile(options.policy_file);
  if (!policy.ok()) return policy.status();
  auto backend = LogBackend::Open(options.log);
  if (!backend.ok()) return backend.status();
  return std::make_unique<Auditor>(std::move(*policy), std::shared_ptr<Sink>(std::move(*backend)));
}

}  // namespace svcplane::apiserver::audit
