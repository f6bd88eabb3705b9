#include "api/codec/json.h"

#include "api/authentication/v1/self_subject_review.h"
#include "api/authorization/v1/reviews.h"
#include "api/autoscaling/v1/scale.h"

#include "api/codec/internal/json_decode.h"
#include "api/codec/internal/json_encode.h"
#include "api/codec/internal/minify.h"
#include "api/codec/internal/padded_parser.h"

namespace svcplane::api::codec {
namespace {

namespace od = simdjson::ondemand;

using ThreadParser = internal::PaddedParser;

ThreadParser& LocalParser() {
  thread_local ThreadParser p;
  return p;
}

Status DecodeError(std::string_view what) {
  return BadRequestError("invalid JSON: " + std::string(what));
}

// Parses `json` as one object and runs `fn(object, ctx)`; checks nothing trails it.
template <typename Fn>
Status WithObject(std::string_view json, Fn&& fn) {
  auto& tp = LocalParser();
  od::document doc;
  if (auto err = tp.parser.iterate(tp.Pad(json)).get(doc)) {
    return DecodeError(simdjson::error_message(err));
  }
  internal::DecodeContext ctx(&doc);
  od::object obj;
  if (auto err = doc.get_object().get(obj)) {
    if (err == simdjson::INCORRECT_TYPE) return DecodeError("expected a JSON object");
    return DecodeError(simdjson::error_message(err));
  }
  if (!fn(obj, ctx)) return BadRequestError(ctx.error());
  // current_location() fails with OUT_OF_BOUNDS exactly when nothing follows the object.
  const char* trailing = nullptr;
  if (!doc.current_location().get(trailing)) {
    return DecodeError("unexpected data after the top-level object");
  }
  return Status::Ok();
}

}  // namespace

template <typename T>
Result<T> DecodeJson(std::string_view json) {
  T out{};
  Status st = WithObject(json, [&](od::object obj, internal::DecodeContext& ctx) {
    return internal::DecodeObject(obj, out, ctx);
  });
  if (!st.ok()) return st;
  return out;
}

template <typename T>
void EncodeJson(const T& obj, std::string* out) {
  internal::JsonWriter w(out);
  internal::EncodeValue(w, obj);
}

Result<TypeMeta> PeekTypeMeta(std::string_view json) {
  TypeMeta tm;
  Status st = WithObject(json, [&](od::object obj, internal::DecodeContext& ctx) {
    for (auto field : obj) {
      std::string_view key;
      if (auto err = field.unescaped_key().get(key)) return ctx.FailSimdjson(err, "key", nullptr);
      od::value v;
      if (auto err = field.value().get(v)) return ctx.FailSimdjson(err, "value", nullptr);
      ctx.Push(key);
      bool ok = true;
      if (key == "kind") {
        ok = internal::DecodeValue(v, tm.kind, ctx);
      } else if (key == "apiVersion") {
        ok = internal::DecodeValue(v, tm.api_version, ctx);
      } else {
        std::string ignored;
        ok = internal::CaptureRaw(v, &ignored, ctx);
      }
      if (!ok) return false;
      ctx.Pop();
    }
    return true;
  });
  if (!st.ok()) return st;
  return tm;
}

// simdjson's DOM parser validates the whole text (structure and UTF-8) at GB/s and its minifier
// drops the whitespace: several times faster than a Boost.JSON round trip, which mattered at one
// per create.
Result<LoggedJson> JsonForLog(std::string_view json, bool want_json) {
  thread_local simdjson::dom::parser parser;
  LoggedJson out;
  simdjson::dom::element root;
  bool parsed = false;
  if (want_json) {
    // Minified first, into a buffer with simdjson's padding. A client's body usually has no
    // whitespace to drop; then the output is the input byte for byte and is parsed in place,
    // without the padded copy. (Otherwise the input itself is parsed: dropping whitespace can
    // make invalid text valid, as in `tr ue`.)
    out.json.resize(json.size() + simdjson::SIMDJSON_PADDING);
    size_t n = 0;
    if (internal::Minify(json.data(), json.size(), out.json.data(), n) == simdjson::SUCCESS &&
        n == json.size()) {
      out.json.resize(n);
      if (auto err = parser.parse(out.json.data(), n, /*realloc_if_needed=*/false).get(root)) {
        return BadRequestError(std::string("invalid JSON: ") + simdjson::error_message(err));
      }
      parsed = true;
    }
  }
  if (!parsed) {
    simdjson::padded_string padded(json);
    if (auto err = parser.parse(padded).get(root)) {
      return BadRequestError(std::string("invalid JSON: ") + simdjson::error_message(err));
    }
    if (want_json) {
      // Valid JSON (parsed above), so the raw SIMD minifier only drops whitespace.
      out.json.resize(json.size() + simdjson::SIMDJSON_PADDING);
      size_t n = 0;
      if (internal::Minify(padded.data(), json.size(), out.json.data(), n) != simdjson::SUCCESS) {
        out.json = simdjson::minify(root);
      } else {
        out.json.resize(n);
      }
    }
  }
  simdjson::dom::object meta;
  if (root["metadata"].get(meta) == simdjson::SUCCESS) {
    auto take = [&](const char* key, std::string* field) {
      std::string_view v;
      if (meta[key].get(v) == simdjson::SUCCESS) *field = std::string(v);
    };
    take("namespace", &out.ns);
    take("name", &out.name);
    take("uid", &out.uid);
    take("resourceVersion", &out.resource_version);
  }
  return out;
}

void EncodeWatchEvent(std::string_view type, std::string_view object_json, std::string* out) {
  out->append("{\"type\":\"");
  out->append(type);
  out->append("\",\"object\":");
  out->append(object_json);
  out->push_back('}');
}

Result<RawWatchEvent> DecodeWatchEvent(std::string_view json) {
  RawWatchEvent ev;
  Status st = WithObject(json, [&](od::object obj, internal::DecodeContext& ctx) {
    for (auto field : obj) {
      std::string_view key;
      if (auto err = field.unescaped_key().get(key)) return ctx.FailSimdjson(err, "key", nullptr);
      od::value v;
      if (auto err = field.value().get(v)) return ctx.FailSimdjson(err, "value", nullptr);
      ctx.Push(key);
      bool ok = key == "type"
                    ? internal::DecodeValue(v, ev.type, ctx)
                    : internal::CaptureRaw(v, key == "object" ? &ev.object : nullptr, ctx);
      if (!ok) return false;
      ctx.Pop();
    }
    return true;
  });
  if (!st.ok()) return st;
  if (ev.type.empty()) return BadRequestError("invalid watch event: missing \"type\"");
  return ev;
}

#define SVCPLANE_INSTANTIATE(T)                            \
  template Result<T> DecodeJson<T>(std::string_view json); \
  template void EncodeJson<T>(const T& obj, std::string* out);

SVCPLANE_INSTANTIATE(core::v1::Namespace)
SVCPLANE_INSTANTIATE(core::v1::Service)
SVCPLANE_INSTANTIATE(core::v1::Pod)
SVCPLANE_INSTANTIATE(core::v1::Node)
SVCPLANE_INSTANTIATE(core::v1::Endpoints)
SVCPLANE_INSTANTIATE(core::v1::Event)
SVCPLANE_INSTANTIATE(core::v1::Binding)
SVCPLANE_INSTANTIATE(authentication::v1::SelfSubjectReview)
SVCPLANE_INSTANTIATE(autoscaling::v1::Scale)
SVCPLANE_INSTANTIATE(authorization::v1::SelfSubjectAccessReview)
SVCPLANE_INSTANTIATE(authorization::v1::SelfSubjectRulesReview)
SVCPLANE_INSTANTIATE(discovery::v1::EndpointSlice)
SVCPLANE_INSTANTIATE(coordination::v1::Lease)
SVCPLANE_INSTANTIATE(rbac::v1::Role)
SVCPLANE_INSTANTIATE(rbac::v1::ClusterRole)
SVCPLANE_INSTANTIATE(rbac::v1::RoleBinding)
SVCPLANE_INSTANTIATE(rbac::v1::ClusterRoleBinding)
SVCPLANE_INSTANTIATE(apps::v1::Deployment)
SVCPLANE_INSTANTIATE(apps::v1::ReplicaSet)
SVCPLANE_INSTANTIATE(core::v1::ConfigMap)
SVCPLANE_INSTANTIATE(core::v1::Secret)
SVCPLANE_INSTANTIATE(core::v1::ServiceAccount)
SVCPLANE_INSTANTIATE(NamespaceList)
SVCPLANE_INSTANTIATE(ServiceList)
SVCPLANE_INSTANTIATE(PodList)
SVCPLANE_INSTANTIATE(NodeList)
SVCPLANE_INSTANTIATE(EndpointsList)
SVCPLANE_INSTANTIATE(EventList)
SVCPLANE_INSTANTIATE(EndpointSliceList)
SVCPLANE_INSTANTIATE(LeaseList)
SVCPLANE_INSTANTIATE(RoleList)
SVCPLANE_INSTANTIATE(ClusterRoleList)
SVCPLANE_INSTANTIATE(RoleBindingList)
SVCPLANE_INSTANTIATE(ClusterRoleBindingList)
SVCPLANE_INSTANTIATE(DeploymentList)
SVCPLANE_INSTANTIATE(ReplicaSetList)
SVCPLANE_INSTANTIATE(ConfigMapList)
SVCPLANE_INSTANTIATE(SecretList)
SVCPLANE_INSTANTIATE(ServiceAccountList)
SVCPLANE_INSTANTIATE(meta::StatusObject)
SVCPLANE_INSTANTIATE(meta::ListMeta)
SVCPLANE_INSTANTIATE(meta::ObjectMeta)
#undef SVCPLANE_INSTANTIATE

}  // namespace svcplane::api::codec
