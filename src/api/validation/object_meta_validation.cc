#include <set>
#include <string>

#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using internal::Append;

// %#v of a metav1.OwnerReference; pointers print as Go does for nil, else as "(*bool)(true)"
// (Go would print an address there, which no client can rely on).
std::string RenderOwnerReference(const meta::OwnerReference& ref) {
  auto ptr = [](const std::optional<bool>& b) {
    if (!b) return std::string("(*bool)(nil)");
    return std::string("(*bool)(") + (*b ? "true" : "false") + ")";
  };
  return "v1.OwnerReference{APIVersion:" + GoQuote(ref.api_version) +
         ", Kind:" + GoQuote(ref.kind) + ", Name:" + GoQuote(ref.name) +
         ", UID:" + GoQuote(ref.uid) + ", Controller:" + ptr(ref.controller) +
         ", BlockOwnerDeletion:" + ptr(ref.block_owner_deletion) + "}";
}

std::string RenderOwnerReferences(const std::vector<meta::OwnerReference>& refs) {
  std::string out = "[]v1.OwnerReference{";
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i > 0) out += ", ";
    out += RenderOwnerReference(refs[i]).substr(std::string_view("v1.OwnerReference").size());
  }
  return out + "}";
}

// schema.FromAPIVersionAndKind: "v1" -> ("", "v1"), "g/v" -> ("g", "v"), more slashes -> ("", "").
void SplitAPIVersion(std::string_view api_version, std::string* group, std::string* version) {
  group->clear();
  version->clear();
  size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) {
    *version = std::string(api_version);
  } else if (api_version.find('/', slash + 1) == std::string_view::npos) {
    *group = std::string(api_version.substr(0, slash));
    *version = std::string(api_version.substr(slash + 1));
  }
}

FieldErrorList ValidateOwnerReference(const meta::OwnerReference& ref, const FieldPath& path) {
  FieldErrorList errs;
  std::string group, version;
  SplitAPIVersion(ref.api_version, &group, &version);
  if (version.empty()) {
    errs.push_back(Invalid(path.Child("apiVersion"), ref.api_version, "version must not be empty"));
  }
  if (ref.kind.empty()) {
    errs.push_back(Invalid(path.Child("kind"), ref.kind, "kind must not be empty"));
  }
  if (ref.name.empty()) {
    errs.push_back(Invalid(path.Child("name"), ref.name, "name must not be empty"));
  }
  if (ref.uid.empty()) errs.push_back(Invalid(path.Child("uid"), ref.uid, "uid must not be empty"));
  // BannedOwners: core/v1 Event.
  if (group.empty() && version == "v1" && ref.kind == "Event") {
    errs.push_back(InvalidRendered(path, RenderOwnerReference(ref),
                                   "/v1, Kind=Event is disallowed from being an owner"));
  }
  return errs;
}

FieldErrorList ValidateOwnerReferences(const std::vector<meta::OwnerReference>& refs,
                                       const FieldPath& path) {
  FieldErrorList errs;
  std::string first_controller;
  for (const meta::OwnerReference& ref : refs) {
    Append(&errs, ValidateOwnerReference(ref, path));
    if (ref.controller.value_or(false)) {
      std::string current = ref.kind + "/" + ref.name;
      if (!first_controller.empty()) {
        errs.push_back(InvalidRendered(
            path, RenderOwnerReferences(refs),
            "Only one reference can have Controller set to true. Found \"true\" in references "
            "for " +
                first_controller + " and " + current));
      } else {
        first_controller = current;
      }
    }
  }
  return errs;
}

FieldErrorList ValidateFinalizers(const std::vector<std::string>& finalizers,
                                  const FieldPath& path) {
  FieldErrorList errs;
  bool orphan = false;
  bool foreground = false;
  for (const std::string& f : finalizers) {
    Append(&errs, internal::QualifiedName(f, path));
    orphan = orphan || f == "orphan";
    foreground = foreground || f == "foregroundDeletion";
  }
  if (orphan && foreground) {
    errs.push_back(InvalidRendered(path, GoStringSlice(finalizers),
                                   "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  return errs;
}

// Core's validateKubeFinalizerName: a name without a '/' must be one of Kubernetes' own.
FieldErrorList ValidateKubeFinalizerNames(const std::vector<std::string>& finalizers,
                                          const FieldPath& path) {
  FieldErrorList errs;
  for (size_t i = 0; i < finalizers.size(); ++i) {
    const std::string& f = finalizers[i];
    if (f.find('/') == std::string::npos && !internal::IsStandardFinalizerName(f)) {
      errs.push_back(
          Invalid(path.Index(static_cast<int64_t>(i)), f,
                  "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
  return errs;
}

// path.ValidatePathSegmentName as a ValidateNameFunc.
std::vector<std::string> PathSegmentName(std::string_view name, bool prefix) {
  if (!prefix) return IsValidPathSegmentName(name);
  std::vector<std::string> errs;
  if (name.find('/') != std::string_view::npos) errs.push_back("may not contain '/'");
  if (name.find('%') != std::string_view::npos) errs.push_back("may not contain '%'");
  return errs;
}

// apimachinery's ValidateObjectMetaAccessor (no core finalizer-name rule).
FieldErrorList ValidateObjectMetaGeneric(const meta::ObjectMeta& meta, bool requires_namespace,
                                         NameValidator name_fn, const FieldPath& path) {
  FieldErrorList errs = ValidateObjectName(meta.name, meta.rest->generate_name, name_fn, path);
  if (requires_namespace) {
    if (meta.namespace_.empty()) {
      errs.push_back(Required(path.Child("namespace")));
    } else {
      for (std::string& msg : NameIsDNSLabel(meta.namespace_, false)) {
        errs.push_back(Invalid(path.Child("namespace"), meta.namespace_, msg));
      }
    }
  } else if (!meta.namespace_.empty()) {
    errs.push_back(Forbidden(path.Child("namespace"), "not allowed on this type"));
  }
  if (meta.rest->generation < 0) {
    errs.push_back(Invalid(path.Child("generation"), meta.rest->generation,
                           std::string(internal::kIsNegative)));
  }
  Append(&errs, ValidateLabels(meta.labels, path.Child("labels")));
  Append(&errs, ValidateAnnotations(meta.annotations, path.Child("annotations")));
  Append(&errs, ValidateOwnerReferences(meta.owner_references, path.Child("ownerReferences")));
  Append(&errs, ValidateFinalizers(meta.finalizers, path.Child("finalizers")));
  return errs;
}

// apimachinery's ValidateObjectMetaAccessorUpdate (no core finalizer-name rule).
FieldErrorList ValidateObjectMetaUpdateGeneric(const meta::ObjectMeta& new_meta,
                                               const meta::ObjectMeta& old_meta,
                                               const FieldPath& path);

}  // namespace

FieldErrorList ValidateObjectMeta(const meta::ObjectMeta& meta, bool requires_namespace,
                                  NameValidator name_fn, const FieldPath& path) {
  FieldErrorList errs = ValidateObjectMetaGeneric(meta, requires_namespace, name_fn, path);
  Append(&errs, ValidateKubeFinalizerNames(meta.finalizers, path.Child("finalizers")));
  return errs;
}

FieldErrorList ValidateObjectMetaUpdate(const meta::ObjectMeta& new_meta,
                                        const meta::ObjectMeta& old_meta, const FieldPath& path) {
  FieldErrorList errs = ValidateObjectMetaUpdateGeneric(new_meta, old_meta, path);
  Append(&errs, ValidateKubeFinalizerNames(new_meta.finalizers, path.Child("finalizers")));
  return errs;
}

FieldErrorList ValidateCommonCreate(const meta::ObjectMeta& meta, bool namespaced) {
  return ValidateObjectMetaGeneric(meta, namespaced, PathSegmentName, Path("metadata"));
}

FieldErrorList ValidateCommonUpdate(const meta::ObjectMeta& new_meta,
                                    const meta::ObjectMeta& old_meta, bool namespaced) {
  FieldErrorList errs =
      ValidateObjectMetaGeneric(new_meta, namespaced, PathSegmentName, Path("metadata"));
  Append(&errs, ValidateObjectMetaUpdateGeneric(new_meta, old_meta, Path("metadata")));
  return errs;
}

namespace {

FieldErrorList ValidateObjectMetaUpdateGeneric(const meta::ObjectMeta& new_meta,
                                               const meta::ObjectMeta& old_meta,
                                               const FieldPath& path) {
  FieldErrorList errs;
  if (old_meta.deletion_timestamp) {
    std::set<std::string> old_set(old_meta.finalizers.begin(), old_meta.finalizers.end());
    std::set<std::string> extra;
    for (const std::string& f : new_meta.finalizers) {
      if (!old_set.count(f)) extra.insert(f);
    }
    if (!extra.empty()) {
      errs.push_back(Forbidden(
          path.Child("finalizers"),
          "no new finalizers can be added if the object is being deleted, found new finalizers " +
              GoStringSlice(std::vector<std::string>(extra.begin(), extra.end()))));
    }
  }
  if (new_meta.resource_version.empty()) {
    errs.push_back(Invalid(path.Child("resourceVersion"), new_meta.resource_version,
                           "must be specified for an update"));
  }
  if (new_meta.rest->generation < old_meta.rest->generation) {
    errs.push_back(
        Invalid(path.Child("generation"), new_meta.rest->generation, "must not be decremented"));
  }
  const std::string immutable(internal::kFieldImmutable);
  if (new_meta.name != old_meta.name) {
    errs.push_back(Invalid(path.Child("name"), new_meta.name, immutable));
  }
  if (new_meta.namespace_ != old_meta.namespace_) {
    errs.push_back(Invalid(path.Child("namespace"), new_meta.namespace_, immutable));
  }
  if (new_meta.uid != old_meta.uid) {
    errs.push_back(Invalid(path.Child("uid"), new_meta.uid, immutable));
  }
  if (new_meta.creation_timestamp != old_meta.creation_timestamp) {
    errs.push_back(InvalidRendered(path.Child("creationTimestamp"),
                                   internal::RenderGoTime(new_meta.creation_timestamp), immutable));
  }
  if (new_meta.deletion_timestamp != old_meta.deletion_timestamp) {
    errs.push_back(InvalidRendered(path.Child("deletionTimestamp"),
                                   new_meta.deletion_timestamp
                                       ? internal::RenderGoTime(*new_meta.deletion_timestamp)
                                       : std::string("null"),
                                   immutable));
  }
  if (new_meta.rest->deletion_grace_period_seconds !=
      old_meta.rest->deletion_grace_period_seconds) {
    errs.push_back(InvalidRendered(
        path.Child("deletionGracePeriodSeconds"),
        internal::RenderOptionalInt(new_meta.rest->deletion_grace_period_seconds), immutable));
  }
  Append(&errs, ValidateLabels(new_meta.labels, path.Child("labels")));
  Append(&errs, ValidateAnnotations(new_meta.annotations, path.Child("annotations")));
  Append(&errs, ValidateOwnerReferences(new_meta.owner_references, path.Child("ownerReferences")));
  return errs;
}

}  // namespace
}  // namespace svcplane::api::validation
