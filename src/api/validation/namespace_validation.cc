#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

// Core's validateFinalizerName for spec.finalizers: a qualified name that, without a '/', must
// be one of Kubernetes' own.
FieldErrorList ValidateSpecFinalizer(std::string_view name, const FieldPath& path) {
  FieldErrorList errs = internal::QualifiedName(name, path);
  if (name.find('/') == std::string_view::npos && !internal::IsStandardFinalizerName(name)) {
    errs.push_back(
        Invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified"));
  }
  return errs;
}

}  // namespace

FieldErrorList ValidateCreate(const core::v1::Namespace& ns) {
  FieldErrorList errs = ValidateObjectMeta(ns.metadata, false, NameIsDNSLabel, Path("metadata"));
  // Upstream reports these at spec.finalizers without an index.
  for (const std::string& f : ns.spec.finalizers) {
    internal::Append(&errs, ValidateSpecFinalizer(f, Path("spec").Child("finalizers")));
  }
  return errs;
}

FieldErrorList ValidateUpdate(const core::v1::Namespace& ns, const core::v1::Namespace& old) {
  return ValidateObjectMetaUpdate(ns.metadata, old.metadata, Path("metadata"));
}

FieldErrorList ValidateStatusUpdate(const core::v1::Namespace& ns, const core::v1::Namespace& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(ns.metadata, old.metadata, Path("metadata"));
  // "Phase" (capitalised) is upstream's path.
  FieldPath phase = Path("status").Child("Phase");
  if (!ns.metadata.deletion_timestamp) {
    if (ns.status.phase != "Active") {
      errs.push_back(
          Invalid(phase, ns.status.phase, "may only be 'Active' if `deletionTimestamp` is empty"));
    }
  } else if (ns.status.phase != "Terminating") {
    errs.push_back(Invalid(phase, ns.status.phase,
                           "may only be 'Terminating' if `deletionTimestamp` is not empty"));
  }
  return errs;
}

FieldErrorList ValidateFinalizeUpdate(const core::v1::Namespace& ns,
                                      const core::v1::Namespace& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(ns.metadata, old.metadata, Path("metadata"));
  FieldPath path = Path("spec").Child("finalizers");
  for (size_t i = 0; i < ns.spec.finalizers.size(); ++i) {
    internal::Append(
        &errs, ValidateSpecFinalizer(ns.spec.finalizers[i], path.Index(static_cast<int64_t>(i))));
  }
  return errs;
}

}  // namespace svcplane::api::validation
