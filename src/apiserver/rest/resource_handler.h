#pragma once

// REST verbs of one resource over its registry (api-wire §2): get, list, watch, create, update,
// patch, delete, deletecollection, the status/finalize subresources and pods/binding.

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "api/codec/encoded_size_memo.h"
#include "api/codec/encoding_cache.h"
#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "api/codec/strict.h"
#include "api/codec/yaml.h"
#include "api/validation/field_errors.h"
#include "apiserver/http/handler.h"
#include "apiserver/patch/patch.h"
#include "apiserver/registry/apply.h"
#include "apiserver/registry/binding.h"
#include "apiserver/registry/registry.h"
#include "apiserver/rest/field_validation.h"
#include "apiserver/rest/query.h"
#include "apiserver/rest/request_info.h"
#include "apiserver/rest/scale_subresource.h"
#include "apiserver/rest/status_body.h"
#include "apiserver/rest/watch_hub.h"
#include "apiserver/rest/write_options.h"
#include "apiserver/table/accept.h"
#include "apiserver/table/table.h"
#include "base/logging.h"

namespace svcplane::apiserver::rest {

// One resource's REST endpoint, type-erased for the router.
class Endpoint {
 public:
  virtual ~Endpoint() = default;
  virtual http::Reply Handle(const http::Request& req, const RequestInfo& info) = 0;
};

http::Response JsonResponse(int status, std::string body, std::string_view content_type = {});
// The body of a create/update as JSON: JSON as is, YAML converted; anything else is 415.
Result<std::string> RequestBodyJson(const http::Request& req);
// The body of a server-side apply as a JSON object (YAML, or JSON, which is YAML): anything else
// is 400 `error decoding YAML: ...` in the words of Go's json.Unmarshal into a map.
Result<boost::json::object> ApplyBody(std::string_view body);
// A watch event line: {"type":"ADDED","object":...}\n
std::string WatchLine(std::string_view type, std::string_view object_json);
// The same for a stored object, appended to `out` without an intermediate copy.
void AppendWatchLine(std::string_view type, const registry::ObjectJson& object, std::string* out);

// True when the first clause of an Accept header that we can serve asks for protobuf
// (application/vnd.kubernetes.protobuf without a conversion such as as=Table): kubectl 1.33 and
// client-go send "application/vnd.kubernetes.protobuf, application/json". A JSON or Table clause
// before it wins, as in kube-apiserver.
bool AcceptsProtobuf(std::string_view accept);
// The request body is application/vnd.kubernetes.protobuf.
bool IsProtobufBody(const http::Request& req);
// The request body is JSON (as RequestBodyJson reads it: no Content-Type is JSON too).
bool IsJsonBody(const http::Request& req);
http::Response ProtobufResponse(int status, std::string body);

template <typename T>
class WatchPumpFor;

// The protobuf message of a stored object, encoded once and shared by every response and watch
// that sends it (stored objects are immutable). With `remember_size` (objects as stored, e.g.
// watch events; not write responses, which for a dry run carry an unstored object under a
// stored uid and resourceVersion), its size is also remembered, for longer than the message is
// cached: a protobuf list of objects watched before streams from its first byte (see
// ProtobufListReply).
template <typename T>
std::shared_ptr<const std::string> CachedProtobufMessage(const std::shared_ptr<const T>& obj,
                                                         bool remember_size = false) {
  return api::codec::EncodingCache::Shared().Get(obj, [remember_size](const T& o) {
    std::string message;
    api::codec::EncodeProtobufMessage(o, &message);
    if (remember_size) api::codec::EncodedSizeMemo::Shared().Remember(o, message.size());
    return message;
  });
}

template <typename T>
std::string EnvelopedProtobuf(const std::shared_ptr<const T>& obj, bool remember_size = false) {
  const auto& ri = registry::InfoOf<T>();
  std::string out;
  api::codec::EncodeProtobufEnvelope(ri.GroupVersion(), ri.kind,
                                     *CachedProtobufMessage(obj, remember_size), &out);
  return out;
}

template <typename T>
class ResourceHandler final : public Endpoint {
 public:
  ResourceHandler(registry::Registry<T>* registry, WatchHub* hub) : reg_(registry), hub_(hub) {}

  http::Reply Handle(const http::Request& req, const RequestInfo& info) override {
    const auto& m = req.method;
    StrictProblems problems(FieldValidation::kIgnore);  // set by the writes that decode a body
    Result<http::Reply> r = Status(Code::kMethodNotAllowed,
                                   "the server does not allow this method on the requested "
                                   "resource");
    if (info.subresource == "scale") {
      if constexpr (kHasScale<T>) return HandleScale(*reg_, req, info);
    } else if (info.subresource == "binding") {
      // POST only; creates nothing, assigns the pod (upstream's BindingREST).
      if constexpr (std::is_same_v<T, api::core::v1::Pod>) {
        if (m == "POST") {
          http::Reply reply = Bind(req, info, &problems);
          problems.AttachTo(&reply);
          return reply;
        }
      }
    } else if (m == "GET") {
      if (info.name.empty() || QueryBool(req, "watch")) {
        r = ListOrWatch(req, info);
      } else {
        r = Get(req, info);
      }
    } else if (m == "POST" && info.name.empty() && info.subresource.empty()) {
      r = Create(req, info, &problems);
    } else if (m == "PUT" && !info.name.empty()) {
      r = Update(req, info, &problems);
    } else if (m == "PATCH" && !info.name.empty()) {
      r = Patch(req, info, &problems);
    } else if (m == "DELETE" && !info.name.empty() && info.subresource.empty()) {
      r = Delete(req, info);
    } else if (m == "DELETE" && info.name.empty() && !info.ns.empty() &&
               reg_->info().resource != "namespaces") {
      r = DeleteCollection(req, info);
    }
    http::Reply reply =
        r.ok() ? std::move(*r)
               : http::Reply(ErrorResponse(r.status(), Target(info.name), WantsProtobuf(req)));
    problems.AttachTo(&reply);  // upstream sends warnings with failures too
    return reply;
  }

 private:
  StatusTarget Target(std::string_view name) const {
    const auto& ri = reg_->info();
    return {name, ri.group, ri.resource, ri.kind};
  }

  // The requesting user for the registry's admission (WriteOptions::user), copied only when the
  // registry admits writes.
  std::optional<api::authentication::v1::UserInfo> UserOf(const http::Request& req) const {
    if (!reg_->admits()) return std::nullopt;
    const http::Identity& id = req.identity;
    return api::authentication::v1::UserInfo{id.user, id.uid, id.groups, id.extra};
  }
  static const api::authentication::v1::UserInfo* Ptr(
      const std::optional<api::authentication::v1::UserInfo>& user) {
    return user ? &*user : nullptr;
  }

  // Invalid write options name their kind in meta.k8s.io and no object, as upstream's
  // errors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "PatchOptions"}, "", errs).
  static http::Reply OptionsError(const http::Request& req, const Status& st,
                                  std::string_view options_kind) {
    return http::Reply(ErrorResponse(st, StatusTarget{.group = "meta.k8s.io", .kind = options_kind},
                                     WantsProtobuf(req)));
  }

  static registry::Subresource Sub(const RequestInfo& info) {
    if (info.subresource == "status") return registry::Subresource::kStatus;
    if (info.subresource == "finalize") return registry::Subresource::kFinalize;
    return registry::Subresource::kNone;
  }

  table::TableOptions TableOpts(const http::Request& req, table::ResponseFormat f,
                                Status* error) const {
    table::TableOptions o;
    o.v1beta1 = f == table::ResponseFormat::kTableV1beta1;
    o.now = std::chrono::system_clock::now();
    if (auto inc = req.Query("includeObject")) {
      auto parsed = table::ParseIncludeObject(*inc);
      if (!parsed) {
        *error = BadRequestError("invalid includeObject: \"" + std::string(*inc) + "\"");
      } else {
        o.include_object = *parsed;
      }
    }
    return o;
  }

  // kJson also stands for the object itself in protobuf: see WantsProtobuf.
  static Result<table::ResponseFormat> Negotiate(const http::Request& req) {
    if (WantsProtobuf(req)) return table::ResponseFormat::kJson;
    auto f = table::NegotiateResponse(req.Header("Accept").value_or(""));
    if (f == table::ResponseFormat::kNotAcceptable) {
      return Status(Code::kUnsupportedMediaType,
                    "only the following media types are accepted: application/json, "
                    "application/vnd.kubernetes.protobuf, "
                    "application/json;as=Table;v=v1;g=meta.k8s.io");
    }
    return f;
  }

  static bool WantsProtobuf(const http::Request& req) {
    return AcceptsProtobuf(req.Header("Accept").value_or(""));
  }

  // One stored object as the response, in the negotiated encoding.
  http::Reply ObjectReply(const http::Request& req, int code, const registry::Object<T>& obj) {
    if (WantsProtobuf(req)) return http::Reply(ProtobufResponse(code, EnvelopedProtobuf(obj.obj)));
    return http::Reply(JsonResponse(code, obj.json.str()));
  }

  // The items' JSON written out, for encoders that need a contiguous view of each object.
  static std::vector<std::string> Jsons(const std::vector<registry::Object<T>>& items) {
    std::vector<std::string> out;
    out.reserve(items.size());
    for (const auto& o : items) out.push_back(o.json.str());
    return out;
  }

  http::Reply ListReply(const http::Request& req, const api::meta::ListMeta& meta,
                        std::vector<registry::Object<T>> items) {
    const auto& ri = reg_->info();
    if (WantsProtobuf(req)) return ProtobufListReply(meta, std::move(items));
    std::string head;
    head += "{\"kind\":\"";
    head += ri.list_kind;
    head += "\",\"apiVersion\":\"";
    head += ri.GroupVersion();
    head += "\",\"metadata\":";
    api::codec::EncodeJson(meta, &head);
    head += ",\"items\":[";
    // Streamed item by item as the connection sends it (http::BodySource): a 100k-Pod list is
    // never assembled into one 260 MB string. Chunked, as kube-apiserver sends a large list:
    // an exact Content-Length meant reading every object before the first byte went out (a
    // fifth of the time to that byte), and the items then find their splice as they are
    // written (ObjectJson::FindSpliceWhenWritten), not up front.
    http::Response r = JsonResponse(200, {});
    r.body_source = [items = std::move(items), head = std::move(head), i = size_t{0},
                     started = false](std::string* body) mutable {
      if (!started) {
        *body += head;
        started = true;
      }
      if (i == items.size()) {
        *body += "]}";
        return false;
      }
      if (i) body->push_back(',');
      items[i].json.AppendTo(body);
      ++i;
      return true;
    };
    return http::Reply(std::move(r));
  }

  // A protobuf List streamed as the connection sends it, with an exact Content-Length. Its
  // lengths come first (ProtobufListFrame), so every item's message size must be known before
  // the first byte: from the encoding cache, from the size memo (the item was encoded before),
  // or by encoding the item now and keeping its message until it is sent. Items whose size
  // was remembered are encoded only when their turn comes, piece by piece while the client
  // reads and decodes the previous pieces. A size that turns out wrong (it cannot, for an
  // immutable object version) ends the body short, and the connection, which checks the
  // promised length, closes: the client sees a truncated list and lists again.
  http::Reply ProtobufListReply(const api::meta::ListMeta& meta,
                                std::vector<registry::Object<T>> items) {
    const auto& ri = reg_->info();
    auto& cache = api::codec::EncodingCache::Shared();
    auto& sizes = api::codec::EncodedSizeMemo::Shared();
    // A list adds to the cache only until it filled a quarter of it: a scan of more objects
    // than the cache holds would only flush it, for every later list and watch too.
    size_t cache_budget = cache.capacity_bytes() / 4;
    std::vector<std::shared_ptr<const std::string>> messages(items.size());
    std::vector<size_t> message_sizes(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      const auto& obj = items[i].obj;
      if (auto hit = cache.Find(obj)) {
        message_sizes[i] = hit->size();
        messages[i] = std::move(hit);
      } else if (auto size = sizes.Find(*obj)) {
        message_sizes[i] = *size;
      } else {
        std::string message;
        api::codec::EncodeProtobufMessage(*obj, &message);
        auto bytes = std::make_shared<const std::string>(std::move(message));
        message_sizes[i] = bytes->size();
        sizes.Remember(*obj, bytes->size());
        if (bytes->size() <= cache_budget) {
          cache_budget -= bytes->size();
          cache.Put(obj, bytes);
        }
        messages[i] = std::move(bytes);
      }
    }
    auto frame =
        api::codec::FrameProtobufList(meta, message_sizes, ri.GroupVersion(), ri.list_kind);
    http::Response r = ProtobufResponse(200, {});
    r.body_source_size = frame.size;
    r.body_source = [items = std::move(items), messages = std::move(messages),
                     message_sizes = std::move(message_sizes), frame = std::move(frame),
                     i = size_t{0}, started = false](std::string* body) mutable {
      if (!started) {
        *body += frame.head;
        started = true;
      }
      if (i == items.size()) {
        *body += frame.tail;
        return false;
      }
      if (messages[i]) {
        api::codec::AppendProtobufListItem(*messages[i], body);
        messages[i].reset();  // memory back as the list goes out
      } else if (!api::codec::AppendProtobufListItemEncoded(*items[i].obj, message_sizes[i],
                                                            body)) {
        SPDLOG_ERROR("protobuf list: the message of item {} is not the size remembered", i);
        return false;  // short of the promised length: the connection closes
      }
      items[i] = {};
      ++i;
      return true;
    };
    return http::Reply(std::move(r));
  }

  Result<http::Reply> Get(const http::Request& req, const RequestInfo& info) {
    auto format = Negotiate(req);
    if (!format.ok()) return format.status();
    auto obj = reg_->Get(info.ns, info.name);
    if (!obj.ok()) return obj.status();
    return EncodeOne(req, *format, *obj);
  }

  Result<http::Reply> EncodeOne(const http::Request& req, table::ResponseFormat format,
                                const registry::Object<T>& obj) {
    using F = table::ResponseFormat;
    if (format == F::kJson) return ObjectReply(req, 200, obj);
    if (format == F::kPartialObjectMetadata) {
      return http::Reply(JsonResponse(200, table::EncodePartialObjectMetadata(obj.json.str()),
                                      table::ResponseContentType(format, false)));
    }
    Status err;
    auto opts = TableOpts(req, format, &err);
    if (!err.ok()) return err;
    const std::string json = obj.json.str();
    table::TableItem<T> item{obj.obj.get(), json};
    return http::Reply(JsonResponse(200, table::EncodeObjectTable(item, opts),
                                    table::ResponseContentType(format, false)));
  }

  Result<http::Reply> ListOrWatch(const http::Request& req, const RequestInfo& info) {
    auto format = Negotiate(req);
    if (!format.ok()) return format.status();
    auto params = ParseListParams(req, reg_->info(), info.name);
    if (!params.ok()) return params.status();
    if (params->watch) return Watch(req, info, *format, std::move(*params));
    using F = table::ResponseFormat;
    params->query.json_only =
        !WantsProtobuf(req) && (*format == F::kJson || *format == F::kPartialObjectMetadata);
    auto list = reg_->List(info.ns, params->query);
    if (!list.ok()) return list.status();
    api::meta::ListMeta meta;
    meta.resource_version = std::to_string(list->revision);
    meta.continue_ = list->continue_token;
    meta.remaining_item_count = list->remaining_item_count;
    if (*format == F::kTableV1 || *format == F::kTableV1beta1) {
      Status err;
      auto opts = TableOpts(req, *format, &err);
      if (!err.ok()) return err;
      const auto jsons = Jsons(list->items);
      std::vector<table::TableItem<T>> items;
      items.reserve(list->items.size());
      for (size_t i = 0; i < jsons.size(); ++i)
        items.push_back({list->items[i].obj.get(), jsons[i]});
      return http::Reply(JsonResponse(200, table::EncodeListTable<T>(items, meta, opts),
                                      table::ResponseContentType(*format, true)));
    }
    if (*format == F::kPartialObjectMetadata) {
      const auto jsons = Jsons(list->items);
      const std::vector<std::string_view> views(jsons.begin(), jsons.end());
      return http::Reply(JsonResponse(200, table::EncodePartialObjectMetadataList(views, meta),
                                      table::ResponseContentType(*format, true)));
    }
    return ListReply(req, meta, std::move(list->items));
  }

  Result<http::Reply> Watch(const http::Request& req, const RequestInfo& info,
                            table::ResponseFormat format, ListParams params);

  std::string CannotBeHandled(std::string_view why) const {
    const auto& ri = reg_->info();
    return std::string(ri.kind) + " in version \"" + std::string(ri.version) +
           "\" cannot be handled as a " + std::string(ri.kind) + ": " + std::string(why);
  }

  static bool HasUnknownField(const std::vector<std::string>& problems) {
    return std::any_of(problems.begin(), problems.end(),
                       [](const std::string& p) { return p.starts_with("unknown field "); });
  }

  // Strict problems of a JSON or YAML body (protobuf has no unknown-field notion upstream: its
  // strict serializer is the plain one). For YAML, duplicate keys are go-yaml's error and the
  // JSON it becomes has none (the last value wins), as upstream's YAMLToJSON.
  std::vector<std::string> BodyProblems(const http::Request& req, std::string_view json) const {
    std::vector<std::string> problems;
    api::codec::StrictOptions opts;
    if (!IsJsonBody(req)) {
      auto dups = api::codec::YamlDuplicateKeys(req.body);
      if (!dups.empty()) problems.push_back(YamlDuplicateKeysProblem(dups));
      opts.duplicate_fields = false;
    }
    auto found = api::codec::StrictDecodingErrors<T>(json, opts);
    problems.insert(problems.end(), found.begin(), found.end());
    return problems;
  }

  Result<T> DecodeBody(const http::Request& req, const RequestInfo& info,
                       StrictProblems* problems) {
    const auto& ri = reg_->info();
    const bool protobuf = IsProtobufBody(req);
    std::string json;
    auto obj = [&]() -> Result<T> {
      if (protobuf) return api::codec::DecodeProtobuf<T>(req.body);
      auto body = RequestBodyJson(req);
      if (!body.ok()) return body.status();
      json = std::move(*body);
      return api::codec::DecodeJson<T>(json);
    }();
    if (!obj.ok() && obj.status().code() == Code::kUnsupportedMediaType) return obj.status();
    if (!obj.ok()) return BadRequestError(CannotBeHandled(obj.status().message()));
    if (!protobuf) {
      auto found = BodyProblems(req, json);
      SVC_RETURN_IF_ERROR(problems->Report(found, [&](const auto& all) {
        return BadRequestError(CannotBeHandled(api::codec::StrictDecodingErrorMessage(all)));
      }));
      if (HasUnknownField(found)) {
        // Warn and Ignore keep the object without them, as upstream's decoder does.
        obj = api::codec::DecodeJson<T>(api::codec::PruneUnknownFields<T>(json));
        if (!obj.ok()) return BadRequestError(CannotBeHandled(obj.status().message()));
      }
    }
    if (!obj->api_version.empty() && obj->api_version != ri.GroupVersion()) {
      return BadRequestError("the API version in the data (" + obj->api_version +
                             ") does not match the expected API version (" + ri.GroupVersion() +
                             ")");
    }
    if (!obj->kind.empty() && obj->kind != ri.kind) {
      return BadRequestError("the kind in the data (" + obj->kind +
                             ") does not match the expected kind (" + std::string(ri.kind) + ")");
    }
    if (ri.namespaced && !obj->metadata.namespace_.empty() && obj->metadata.namespace_ != info.ns) {
      return BadRequestError(
          "the namespace of the provided object does not match the namespace sent on the "
          "request");
    }
    if (!info.name.empty() && !obj->metadata.name.empty() && obj->metadata.name != info.name) {
      return BadRequestError("the name of the object (" + obj->metadata.name +
                             ") does not match the name on the URL (" + info.name + ")");
    }
    if (!info.name.empty()) obj->metadata.name = info.name;
    return obj;
  }

  Result<http::Reply> Create(const http::Request& req, const RequestInfo& info,
                             StrictProblems* problems) {
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    auto fv = ParseFieldValidation(req, "CreateOptions.meta.k8s.io");
    if (!fv.ok()) return fv.status();
    auto mo = ParseManagerOptions(req, "CreateOptions.meta.k8s.io", std::nullopt);
    if (!mo.ok()) return OptionsError(req, mo.status(), "CreateOptions");
    *problems = StrictProblems(*fv);
    auto obj = DecodeBody(req, info, problems);
    if (!obj.ok()) return obj.status();
    std::string name = obj->metadata.name;
    const auto user = UserOf(req);
    auto created = reg_->Create(
        info.ns, std::move(*obj),
        {.dry_run = *dry, .user = Ptr(user), .field_manager = std::move(mo->field_manager)});
    if (!created.ok()) {
      return http::Reply(ErrorResponse(created.status(), Target(name), WantsProtobuf(req)));
    }
    return ObjectReply(req, 201, *created);
  }

  // POST pods/{name}/binding: answers 201 with a Success Status (code 201), as upstream's
  // create handler does for a create that returns a Status.
  http::Reply Bind(const http::Request& req, const RequestInfo& info, StrictProblems* problems) {
    const bool protobuf = WantsProtobuf(req);
    // Errors name the pod; a bad target names the Binding kind, a bind conflict pods/binding.
    StatusTarget target{info.name, "", "pods", "Binding"};
    auto fail = [&](const Status& st) {
      StatusTarget t = target;
      if (st.code() == Code::kConflict &&
          st.message().starts_with("Operation cannot be fulfilled on pods/binding")) {
        t.resource = "pods/binding";
      }
      return http::Reply(ErrorResponse(st, t, protobuf));
    };
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return fail(dry.status());
    auto fv = ParseFieldValidation(req, "CreateOptions.meta.k8s.io");
    if (!fv.ok()) return fail(fv.status());
    *problems = StrictProblems(*fv);
    std::string json;
    auto binding = [&]() -> Result<api::core::v1::Binding> {
      if (IsProtobufBody(req)) return api::codec::DecodeProtobuf<api::core::v1::Binding>(req.body);
      auto body = RequestBodyJson(req);
      if (!body.ok()) return body.status();
      json = std::move(*body);
      return api::codec::DecodeJson<api::core::v1::Binding>(json);
    }();
    constexpr std::string_view kCannot =
        "Binding in version \"v1\" cannot be handled as a Binding: ";
    if (!binding.ok()) {
      if (binding.status().code() == Code::kUnsupportedMediaType) return fail(binding.status());
      return fail(BadRequestError(std::string(kCannot) + binding.status().message()));
    }
    if (!IsProtobufBody(req)) {
      // Nothing of a Binding but its target and metadata is used: unknown fields need no pruning.
      Status st = problems->Report(
          api::codec::StrictDecodingErrors<api::core::v1::Binding>(json), [&](const auto& all) {
            return BadRequestError(std::string(kCannot) +
                                   api::codec::StrictDecodingErrorMessage(all));
          });
      if (!st.ok()) return fail(st);
    }
    if (!binding->api_version.empty() && binding->api_version != "v1") {
      return fail(BadRequestError("the API version in the data (" + binding->api_version +
                                  ") does not match the expected API version (v1)"));
    }
    if (!binding->kind.empty() && binding->kind != "Binding") {
      return fail(BadRequestError("the kind in the data (" + binding->kind +
                                  ") does not match the expected kind (Binding)"));
    }
    if (binding->metadata.namespace_.empty()) binding->metadata.namespace_ = info.ns;
    if (binding->metadata.namespace_ != info.ns) {
      return fail(BadRequestError(
          "the namespace of the provided object does not match the namespace sent on the "
          "request"));
    }
    auto bound = registry::BindPod(*reg_, info.ns, info.name, *binding, {.dry_run = *dry});
    if (!bound.ok()) return fail(bound.status());
    api::meta::StatusObject ok;
    ok.status = "Success";
    ok.code = 201;
    if (protobuf) {
      return http::Reply(ProtobufResponse(201, api::codec::EncodeProtobuf(ok, "v1", "Status")));
    }
    return http::Reply(JsonResponse(201, api::codec::EncodeJson(ok)));
  }

  Result<http::Reply> Update(const http::Request& req, const RequestInfo& info,
                             StrictProblems* problems) {
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    auto fv = ParseFieldValidation(req, "UpdateOptions.meta.k8s.io");
    if (!fv.ok()) return fv.status();
    auto mo = ParseManagerOptions(req, "UpdateOptions.meta.k8s.io", std::nullopt);
    if (!mo.ok()) return OptionsError(req, mo.status(), "UpdateOptions");
    *problems = StrictProblems(*fv);
    auto obj = DecodeBody(req, info, problems);
    if (!obj.ok()) return obj.status();
    bool created = false;
    const auto user = UserOf(req);
    auto updated = reg_->Update(
        info.ns, info.name, Sub(info), std::move(*obj),
        {.dry_run = *dry, .user = Ptr(user), .field_manager = std::move(mo->field_manager)},
        &created);
    if (!updated.ok()) return updated.status();
    return ObjectReply(req, created ? 201 : 200, *updated);
  }

  Result<http::Reply> Patch(const http::Request& req, const RequestInfo& info,
                            StrictProblems* problems) {
    // 415 before anything else, as upstream's patch handler.
    auto type = patch::ParsePatchType(req.Header("Content-Type").value_or(""));
    if (!type.ok()) return type.status();
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    auto fv = ParseFieldValidation(req, "PatchOptions.meta.k8s.io");
    if (!fv.ok()) return fv.status();
    auto mo = ParseManagerOptions(req, "PatchOptions.meta.k8s.io", *type);
    if (!mo.ok()) return OptionsError(req, mo.status(), "PatchOptions");
    *problems = StrictProblems(*fv);
    const auto user = UserOf(req);
    registry::WriteOptions wo{
        .dry_run = *dry, .user = Ptr(user), .field_manager = std::move(mo->field_manager)};
    if (*type == patch::PatchType::kApply) return Apply(req, info, mo->force, wo, problems);
    bool strict_failed = false;
    wo.check_patched = PatchChecker(req, problems, &strict_failed);
    auto patched = reg_->Patch(info.ns, info.name, Sub(info),
                               req.Header("Content-Type").value_or(""), req.body, wo);
    if (!patched.ok() && strict_failed) {
      // Upstream's NewInvalid(schema.GroupKind{}, "", ...): details name no kind and no object.
      return http::Reply(ErrorResponse(patched.status(), StatusTarget{}, WantsProtobuf(req)));
    }
    if (!patched.ok()) return patched.status();
    return ObjectReply(req, 200, *patched);
  }

  // PATCH with application/apply-patch+yaml (spec server-side-apply.md §1.4).
  Result<http::Reply> Apply(const http::Request& req, const RequestInfo& info, bool force,
                            registry::WriteOptions wo, StrictProblems* problems) {
    auto config = ApplyBody(req.body);
    if (!config.ok()) return config.status();
    // Duplicate keys are all fieldValidation checks for apply: unknown fields always fail.
    std::vector<std::string> duplicates;
    if (problems->mode() != FieldValidation::kIgnore) {
      auto keys = api::codec::YamlDuplicateKeys(req.body);
      if (!keys.empty()) duplicates.push_back(YamlDuplicateKeysProblem(keys));
    }
    wo.check_patched = [problems,
                        &duplicates](std::string_view) -> Result<std::optional<std::string>> {
      problems->ClearWarnings();
      SVC_RETURN_IF_ERROR(problems->Report(duplicates, [](const auto& all) {
        return BadRequestError("error strict decoding YAML: " + all.front());
      }));
      return std::optional<std::string>();
    };
    registry::ApplyRequest ar{.ns = info.ns,
                              .name = info.name,
                              .sub = Sub(info),
                              .config = &*config,
                              .manager = wo.field_manager,
                              .force = force};
    bool created = false;
    auto applied = registry::ApplyConfiguration(*reg_, ar, wo, &created);
    if (!applied.ok()) {
      // Field manager conflicts carry only their causes, and its plain errors (500) nothing:
      // upstream builds neither from the request's object.
      const Status& st = applied.status();
      if (st.code() == Code::kInternal || (st.code() == Code::kConflict && !st.causes().empty())) {
        return http::Reply(ErrorResponse(st, StatusTarget{}, WantsProtobuf(req)));
      }
      return st;
    }
    return ObjectReply(req, created ? 201 : 200, *applied);
  }

  // Upstream's patchers: duplicates in the patch body itself (decoded strictly into a map, or
  // into []jsonPatchOp for a JSON patch), then unknown fields of the patched object. Strict
  // fails with 422 Invalid on field "patch" whose value is the patched JSON (the patch map for
  // a strategic merge patch).
  decltype(registry::WriteOptions::check_patched) PatchChecker(const http::Request& req,
                                                               StrictProblems* problems,
                                                               bool* strict_failed) {
    auto type = patch::ParsePatchType(req.Header("Content-Type").value_or(""));
    const bool smp = type.ok() && *type == patch::PatchType::kStrategicMerge;
    std::vector<std::string> body_problems;
    if (type.ok() && *type == patch::PatchType::kJsonPatch) {
      body_problems = api::codec::JsonPatchStrictErrors(req.body);
    } else if (type.ok()) {
      body_problems = api::codec::StrictDecodingErrors(req.body, "");
    }
    return [problems, smp, strict_failed, body_problems = std::move(body_problems),
            body = std::string_view(req.body)](
               std::string_view patched) -> Result<std::optional<std::string>> {
      problems->ClearWarnings();  // a retry re-checks a fresh result
      auto found = body_problems;
      auto more = api::codec::StrictDecodingErrors<T>(patched);
      found.insert(found.end(), more.begin(), more.end());
      SVC_RETURN_IF_ERROR(problems->Report(found, [&](const auto& all) {
        *strict_failed = true;
        std::string value = smp ? GoSprintJsonMap(body) : std::string(patched);
        return api::validation::ToInvalidStatus(
            "", "",
            {api::validation::Invalid(api::validation::Path("patch"), value,
                                      api::codec::StrictDecodingErrorMessage(all))});
      }));
      if (!HasUnknownField(more)) return std::optional<std::string>();
      return std::optional<std::string>(api::codec::PruneUnknownFields<T>(patched));
    };
  }

  Result<http::Reply> Delete(const http::Request& req, const RequestInfo& info) {
    auto opts = ParseDeleteOptions(req);
    if (!opts.ok()) return opts.status();
    const auto user = UserOf(req);
    opts->user = Ptr(user);
    auto del = reg_->Delete(info.ns, info.name, *opts);
    if (!del.ok()) return del.status();
    if (!del->deleted || std::is_same_v<T, api::core::v1::Pod>) {
      return ObjectReply(req, 200, del->object);
    }
    if (WantsProtobuf(req)) {
      return http::Reply(ProtobufResponse(
          200,
          api::codec::EncodeProtobuf(
              SuccessStatus(Target(info.name), del->object.obj->metadata.uid), "v1", "Status")));
    }
    return http::Reply(
        JsonResponse(200, SuccessStatusJson(Target(info.name), del->object.obj->metadata.uid)));
  }

  Result<http::Reply> DeleteCollection(const http::Request& req, const RequestInfo& info) {
    auto params = ParseListParams(req, reg_->info(), "");
    if (!params.ok()) return params.status();
    auto opts = ParseDeleteOptions(req);
    if (!opts.ok()) return opts.status();
    const auto user = UserOf(req);
    opts->user = Ptr(user);  // each item is admitted as its own delete
    auto list = reg_->List(info.ns, params->query);
    if (!list.ok()) return list.status();
    std::vector<registry::Object<T>> deleted;
    for (const auto& o : list->items) {
      auto del = reg_->Delete(o.obj->metadata.namespace_, o.obj->metadata.name, *opts);
      if (!del.ok()) {
        if (del.status().code() == Code::kNotFound) continue;
        return del.status();
      }
      deleted.push_back(std::move(del->object));
    }
    return ListReply(req, api::meta::ListMeta{}, std::move(deleted));
  }

  registry::Registry<T>* reg_;
  WatchHub* hub_;
};

// Feeds one TypedWatch into one chunked HTTP stream (api-wire §6).
template <typename T>
class WatchPumpFor final : public WatchPump {
 public:
  struct Options {
    table::ResponseFormat format = table::ResponseFormat::kJson;
    table::TableOptions table;
    bool bookmarks = false;
    bool send_initial_events = false;
    bool protobuf = false;  // length-prefixed WatchEvent frames instead of JSON lines
    std::chrono::steady_clock::time_point deadline;
  };

  WatchPumpFor(std::shared_ptr<http::StreamWriter> writer, Options options)
      : writer_(std::move(writer)), options_(std::move(options)) {
    next_bookmark_ = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  }

  void SetWatch(std::unique_ptr<registry::TypedWatch<T>> watch, size_t initial_events) {
    std::lock_guard lock(mu);
    watch_ = std::move(watch);
    initial_left_ = initial_events;
  }

  bool Drain() override {
    if (ended_ || !watch_) return false;
    if (writer_->ended()) {
      End(false);
      return false;
    }
    for (int round = 0; round < 64; ++round) {
      auto batch = watch_->Poll(256);
      if (!batch.ok()) {
        Fail(batch.status());
        return false;
      }
      if (batch->empty()) {
        if (options_.send_initial_events && !initial_end_sent_ && initial_left_ == 0) {
          std::string out;
          AppendBookmark(true, &out);
          if (writer_->Write(out) != http::WriteResult::kOk) End(false);
        }
        return false;  // drained: the storage watch notifies again on news
      }
      std::string out;
      for (const auto& item : *batch) {
        AppendEvent(item, &out);
        if (initial_left_ > 0 && --initial_left_ == 0 && options_.send_initial_events) {
          AppendBookmark(true, &out);
        }
      }
      if (writer_->Write(out) != http::WriteResult::kOk) {
        End(false);
        return false;
      }
    }
    // Not drained yet (a large initial state, a burst): give other watches a turn, then resume.
    // The storage watch will not notify while unread events remain, so we must come back.
    return true;
  }

  bool Tick(std::chrono::steady_clock::time_point now) override {
    if (ended_) return false;
    if (writer_->ended()) {
      End(false);
      return false;
    }
    if (!watch_) return true;
    // Safety net for a lost wakeup: draining here bounds any stall to one tick (500 ms). The
    // lost wakeup once seen here was the hub's workers and ticker sharing one condition variable
    // (issue 20, fixed in WatchHub); this stays so that another such bug costs a tick, not a
    // stream.
    Drain();
    if (ended_) return false;
    if (now >= options_.deadline) {
      End(true);
      return false;
    }
    if (options_.bookmarks &&
        (now >= next_bookmark_ || options_.deadline - now < std::chrono::seconds(2))) {
      next_bookmark_ = now + std::chrono::seconds(60);
      if (watch_->last_revision() > last_bookmark_) {
        std::string out;
        AppendBookmark(false, &out);
        if (writer_->Write(out) != http::WriteResult::kOk) End(false);
      }
    }
    return !ended_;
  }

 private:
  void AppendEvent(const registry::WatchItem<T>& item, std::string* out) {
    auto type = registry::WatchEventTypeName(item.type);
    using F = table::ResponseFormat;
    if (options_.format == F::kTableV1 || options_.format == F::kTableV1beta1) {
      const std::string json = item.object.json.str();
      table::TableItem<T> row{item.object.obj.get(), json};
      out->append(WatchLine(type, table::EncodeWatchTable(row, first_table_, options_.table)));
      first_table_ = false;
    } else if (options_.format == F::kPartialObjectMetadata) {
      out->append(WatchLine(type, table::EncodePartialObjectMetadata(item.object.json.str())));
    } else if (options_.protobuf) {
      api::codec::AppendProtobufWatchFrame(type, EnvelopedProtobuf(item.object.obj, true), out);
    } else {
      AppendWatchLine(type, item.object.json, out);
    }
  }

  void AppendBookmark(bool initial_end, std::string* out) {
    if (initial_end) initial_end_sent_ = true;
    last_bookmark_ = watch_->last_revision();
    const auto& ri = registry::InfoOf<T>();
    if (options_.protobuf) {
      T obj{};
      obj.metadata.resource_version = std::to_string(watch_->last_revision());
      if (initial_end) obj.metadata.annotations["k8s.io/initial-events-end"] = "true";
      api::codec::AppendProtobufWatchFrame(
          "BOOKMARK", api::codec::EncodeProtobuf(obj, ri.GroupVersion(), ri.kind), out);
      return;
    }
    std::string obj = "{\"kind\":\"" + std::string(ri.kind) + "\",\"apiVersion\":\"" +
                      ri.GroupVersion() + "\",\"metadata\":{\"resourceVersion\":\"" +
                      std::to_string(watch_->last_revision()) + "\",\"creationTimestamp\":null";
    if (initial_end) obj += ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}";
    obj += "}}";
    out->append(WatchLine("BOOKMARK", obj));
  }

  void Fail(const Status& st) {
    if (st.code() == Code::kGone) writer_->Write(ErrorEvent(st, options_.protobuf));
    // Dropped (too slow) or store closing: end the stream; the client re-watches from its RV.
    End(false);
  }

  void End(bool bookmark) {
    if (ended_) return;
    if (bookmark && options_.bookmarks && watch_) {
      std::string out;
      AppendBookmark(false, &out);
      writer_->Write(out);
    }
    ended_ = true;
    if (watch_) watch_->Stop();
    writer_->Close();
  }

  std::shared_ptr<http::StreamWriter> writer_;
  Options options_;

 public:
  // A watch ERROR event carrying the Status for `st`, in the stream's encoding.
  static std::string ErrorEvent(const Status& st, bool protobuf) {
    if (!protobuf) return WatchLine("ERROR", FailureStatusJson(st, {}));
    std::string out;
    api::codec::AppendProtobufWatchFrame("ERROR", FailureStatusProtobuf(st, {}), &out);
    return out;
  }

 private:
  std::unique_ptr<registry::TypedWatch<T>> watch_;
  size_t initial_left_ = 0;
  bool initial_end_sent_ = false;
  bool first_table_ = true;
  bool ended_ = false;
  storage::Revision last_bookmark_ = 0;
  std::chrono::steady_clock::time_point next_bookmark_;
};

template <typename T>
Result<http::Reply> ResourceHandler<T>::Watch(const http::Request& req, const RequestInfo& info,
                                              table::ResponseFormat format, ListParams params) {
  typename WatchPumpFor<T>::Options opts;
  opts.format = format;
  Status err;
  opts.table = TableOpts(req, format, &err);
  if (!err.ok()) return err;
  opts.bookmarks = params.allow_bookmarks;
  opts.protobuf = format == table::ResponseFormat::kJson && WantsProtobuf(req);
  opts.send_initial_events = params.send_initial_events;
  int64_t timeout = params.timeout_seconds.value_or(0);
  if (timeout <= 0) {
    thread_local std::mt19937 rng(std::random_device{}());
    timeout = 1800 + static_cast<int64_t>(rng() % 1800);  // upstream: [1, 2) x 30 min
  }
  opts.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
  if (params.send_initial_events && params.query.resource_version != "0") {
    // sendInitialEvents with an RV: the state at least that fresh, as initial events.
    params.query.resource_version.clear();
  }
  http::StreamHead head;
  head.content_type = opts.protobuf ? std::string(api::codec::kProtobufWatchContentType)
                                    : std::string("application/json");
  if (format == table::ResponseFormat::kTableV1 || format == table::ResponseFormat::kTableV1beta1 ||
      format == table::ResponseFormat::kPartialObjectMetadata) {
    head.content_type = std::string(table::ResponseContentType(format, false));
  }
  const bool protobuf = opts.protobuf;
  auto writer = http::StreamWriter::Create(std::move(head));
  auto pump = std::make_shared<WatchPumpFor<T>>(writer, std::move(opts));
  std::weak_ptr<WatchPump> weak = pump;
  WatchHub* hub = hub_;
  storage::WatchOptions wopts;
  wopts.notify = [weak, hub] {
    if (auto p = weak.lock()) hub->Schedule(p);
  };
  auto watch = reg_->Watch(info.ns, params.query, std::move(wopts));
  if (!watch.ok()) {
    if (watch.status().code() == Code::kGone) {
      // 410 travels inside the stream, as upstream's cacher sends it: 200 + one ERROR event.
      writer->Write(WatchPumpFor<T>::ErrorEvent(watch.status(), protobuf));
      writer->Close();
      return http::Reply(writer);
    }
    return watch.status();
  }
  size_t initial = 0;
  if (params.query.resource_version.empty() || params.query.resource_version == "0") {
    initial = (*watch)->initial_count();
  }
  pump->SetWatch(std::move(*watch), initial);
  hub_->Register(pump);
  hub_->Schedule(pump);
  return http::Reply(writer);
}

}  // namespace svcplane::apiserver::rest
