#pragma once

// Server-side apply over a registry (spec server-side-apply.md §1.4 steps 2-10): the field
// manager merges the applied configuration into the stored object inside the registry's
// GuaranteedUpdate loop, then the ordinary update (or create-on-apply) path stores the result.

#include <string>
#include <string_view>
#include <utility>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "api/codec/json.h"
#include "apiserver/fieldmanager/field_manager.h"
#include "apiserver/registry/registry.h"

namespace svcplane::apiserver::registry {

struct ApplyRequest {
  std::string_view ns;
  std::string_view name;  // from the URL
  Subresource sub = Subresource::kNone;
  const boost::json::object* config = nullptr;  // the applied body
  std::string manager;                          // fieldManager (required for apply)
  bool force = false;
};

// Applies `req.config`; `*created` tells a create-on-apply (201) from an update. With
// `wo.check_patched` set, it is called with each merged object (fieldValidation's duplicate
// key check comes after the field manager, as upstream orders it).
template <typename T>
Result<Object<T>> ApplyConfiguration(Registry<T>& reg, const ApplyRequest& req,
                                     const WriteOptions& wo, bool* created) {
  const api::ResourceInfo& ri = reg.info();
  const auto* fm = fieldmanager::FieldManager::ForKind(ri.kind);
  if (fm == nullptr) return InternalError("no merge schema for " + std::string(ri.kind));
  fieldmanager::Operation op;
  op.manager = req.manager;
  op.subresource = SubresourceName(req.sub);
  op.api_version = ri.GroupVersion();
  WriteOptions stored = wo;
  stored.managed_fields_preset = true;
  stored.field_manager = req.manager;

  auto build = [&](const Object<T>* current) -> Result<T> {
    op.now_seconds = reg.now_micros() / 1000000;
    boost::json::object live;
    if (current != nullptr) {
      boost::system::error_code ec;
      boost::json::value parsed = boost::json::parse(current->json.str(), ec);
      if (ec || !parsed.is_object()) return InternalError("stored object is not JSON");
      live = std::move(parsed.as_object());
    }
    auto merged = fm->Apply(current != nullptr ? &live : nullptr, *req.config, op, req.force);
    if (!merged.ok()) return merged.status();
    const std::string json = boost::json::serialize(*merged);
    if (wo.check_patched) SVC_RETURN_IF_ERROR(wo.check_patched(json).status());
    auto obj = api::codec::DecodeJson<T>(json);
    if (!obj.ok()) {
      return BadRequestError(std::string(ri.kind) + " in version \"" + std::string(ri.version) +
                             "\" cannot be handled as a " + std::string(ri.kind) + ": " +
                             obj.status().message());
    }
    if (current == nullptr && !obj->metadata.uid.empty()) {
      return ConflictError("Operation cannot be fulfilled on " + QualifiedResource<T>() + " \"" +
                           std::string(req.name) +
                           "\": uid mismatch: the provided object specified uid " +
                           obj->metadata.uid + ", and no existing object was found");
    }
    std::string& ns = obj->metadata.namespace_;
    if (!reg.namespaced()) {
      ns.clear();
    } else if (ns.empty()) {
      ns = std::string(req.ns);
    } else if (ns != req.ns) {
      return BadRequestError(
          "the namespace of the provided object does not match the namespace sent on the "
          "request");
    }
    if (obj->metadata.name != req.name) {
      return BadRequestError("the name of the object (" + obj->metadata.name +
                             ") does not match the name on the URL (" + std::string(req.name) +
                             ")");
    }
    return std::move(*obj);
  };
  return reg.UpdateWith(req.ns, req.name, req.sub, build, stored, created);
}

}  // namespace svcplane::apiserver::registry
