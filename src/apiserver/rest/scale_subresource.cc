#include "apiserver/rest/scale_subresource.h"

#include <boost/json.hpp>

#include "api/autoscaling/v1/scale.h"
#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "api/selectors/label_selector.h"
#include "api/validation/field_errors.h"
#include "apiserver/patch/patch.h"
#include "apiserver/registry/errors.h"
#include "apiserver/rest/query.h"
#include "apiserver/rest/resource_handler.h"
#include "apiserver/rest/status_body.h"

namespace svcplane::apiserver::rest {
namespace {

using api::autoscaling::v1::Scale;

constexpr int kPatchAttempts = 5;

// scaleFromDeployment / scaleFromReplicaSet.
template <typename T>
Scale ScaleOf(const T& obj) {
  Scale s;
  s.kind = "Scale";
  s.api_version = std::string(api::autoscaling::v1::kGroupVersion);
  s.metadata.name = obj.metadata.name;
  s.metadata.namespace_ = obj.metadata.namespace_;
  s.metadata.uid = obj.metadata.uid;
  s.metadata.resource_version = obj.metadata.resource_version;
  s.metadata.creation_timestamp = obj.metadata.creation_timestamp;
  s.spec.replicas = obj.spec.replicas.value_or(0);
  s.status.replicas = obj.status.replicas;
  const auto& sel = obj.spec.selector;
  auto selector = api::selectors::SelectorFromSpec(sel ? &*sel : nullptr);
  if (selector.ok()) s.status.selector = selector->String();
  return s;
}

template <typename T>
class ScaleRequest {
 public:
  ScaleRequest(registry::Registry<T>& reg, const http::Request& req, const RequestInfo& info)
      : reg_(reg),
        req_(req),
        info_(info),
        sub_resource_(std::string(reg.info().resource) + "/scale"),
        protobuf_(AcceptsProtobuf(req.Header("Accept").value_or(""))) {}

  http::Reply Handle() {
    Result<Scale> r = Status(Code::kMethodNotAllowed,
                             "the server does not allow this method on the requested resource");
    if (req_.method == "GET") {
      r = Get();
    } else if (req_.method == "PUT") {
      r = Put();
    } else if (req_.method == "PATCH") {
      r = Patch();
    }
    if (!r.ok()) {
      return http::Reply(ErrorResponse(
          r.status(), StatusTarget{info_.name, reg_.info().group, sub_resource_, "Scale"},
          protobuf_));
    }
    if (protobuf_) {
      return http::Reply(ProtobufResponse(
          200, api::codec::EncodeProtobuf(*r, api::autoscaling::v1::kGroupVersion, "Scale")));
    }
    return http::Reply(JsonResponse(200, api::codec::EncodeJson(*r)));
  }

 private:
  // deployments/scale.apps "web" not found: the GroupResource of the subresource.
  Result<registry::Object<T>> Current() {
    auto cur = reg_.Get(info_.ns, info_.name);
    if (!cur.ok() && cur.status().code() == Code::kNotFound) {
      return NotFoundError(sub_resource_ + "." + std::string(reg_.info().group) + " \"" +
                           info_.name + "\" not found");
    }
    return cur;
  }

  Result<Scale> Get() {
    auto cur = Current();
    if (!cur.ok()) return cur.status();
    return ScaleOf(*cur->obj);
  }

  Result<Scale> Decode() {
    if (IsProtobufBody(req_)) return api::codec::DecodeProtobuf<Scale>(req_.body);
    auto json = RequestBodyJson(req_);
    if (!json.ok()) return json.status();
    auto s = api::codec::DecodeJson<Scale>(*json);
    if (!s.ok()) {
      return BadRequestError("Scale in version \"v1\" cannot be handled as a Scale: " +
                             s.status().message());
    }
    return s;
  }

  Result<Scale> Put() {
    auto scale = Decode();
    if (!scale.ok()) return scale.status();
    auto cur = Current();
    if (!cur.ok()) return cur.status();
    return Write(*cur, *scale);
  }

  // The patch applies to the Scale built from the stored object; a conflict with a concurrent
  // write (the patch sets no resourceVersion of its own) starts over, as upstream's patcher.
  Result<Scale> Patch() {
    auto type = patch::ParsePatchType(req_.Header("Content-Type").value_or(""));
    if (!type.ok()) return type.status();
    for (int attempt = 0;; ++attempt) {
      auto cur = Current();
      if (!cur.ok()) return cur.status();
      boost::json::value current = boost::json::parse(api::codec::EncodeJson(ScaleOf(*cur->obj)));
      auto patched = patch::ApplyPatch(*type, "Scale", current, req_.body);
      if (!patched.ok()) return patched.status();
      auto scale = api::codec::DecodeJson<Scale>(boost::json::serialize(*patched));
      if (!scale.ok()) return BadRequestError(scale.status().message());
      auto written = Write(*cur, *scale);
      if (written.ok() || written.status().code() != Code::kConflict ||
          attempt + 1 >= kPatchAttempts ||
          scale->metadata.resource_version != cur->obj->metadata.resource_version) {
        return written;
      }
    }
  }

  // scaleUpdatedObjectInfo.UpdatedObject: validate, check the uid precondition, move replicas
  // and resourceVersion into the object, then the object's own update.
  Result<Scale> Write(const registry::Object<T>& cur, const Scale& scale) {
    namespace v = api::validation;
    if (scale.spec.replicas < 0) {
      return v::ToInvalidStatus("Scale.autoscaling", info_.name,
                                {v::Invalid(v::Path("spec").Child("replicas"), scale.spec.replicas,
                                            "must be greater than or equal to 0")});
    }
    const T& obj = *cur.obj;
    if (!scale.metadata.uid.empty() && scale.metadata.uid != obj.metadata.uid) {
      return ConflictError("Operation cannot be fulfilled on " + registry::QualifiedResource<T>() +
                           " \"" + info_.name + "\": Precondition failed: UID in precondition: " +
                           scale.metadata.uid + ", UID in object meta: " + obj.metadata.uid);
    }
    auto dry = ParseDryRun(req_);
    if (!dry.ok()) return dry.status();
    T updated = obj;
    updated.spec.replicas = scale.spec.replicas;
    updated.metadata.resource_version = scale.metadata.resource_version;
    auto stored = reg_.Update(info_.ns, info_.name, registry::Subresource::kNone,
                              std::move(updated), {.dry_run = *dry});
    if (!stored.ok()) return stored.status();
    return ScaleOf(*stored->obj);
  }

  registry::Registry<T>& reg_;
  const http::Request& req_;
  const RequestInfo& info_;
  const std::string sub_resource_;
  const bool protobuf_;
};

}  // namespace

template <typename T>
http::Reply HandleScale(registry::Registry<T>& reg, const http::Request& req,
                        const RequestInfo& info) {
  return ScaleRequest<T>(reg, req, info).Handle();
}

template http::Reply HandleScale(registry::Registry<api::apps::v1::Deployment>&,
                                 const http::Request&, const RequestInfo&);
template http::Reply HandleScale(registry::Registry<api::apps::v1::ReplicaSet>&,
                                 const http::Request&, const RequestInfo&);

}  // namespace svcplane::apiserver::rest
