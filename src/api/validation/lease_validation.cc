#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

FieldErrorList ValidateLeaseSpec(const coordination::v1::LeaseSpec& spec, const FieldPath& path) {
  FieldErrorList errs;
  if (spec.lease_duration_seconds && *spec.lease_duration_seconds <= 0) {
    errs.push_back(Invalid(path.Child("leaseDurationSeconds"), *spec.lease_duration_seconds,
                           "must be greater than 0"));
  }
  if (spec.lease_transitions && *spec.lease_transitions < 0) {
    errs.push_back(Invalid(path.Child("leaseTransitions"), *spec.lease_transitions,
                           "must be greater than or equal to 0"));
  }
  if (spec.strategy) {
    // Upstream nests the child once more: the path really is spec.strategy.strategy.
    FieldPath strategy_path = path.Child("strategy").Child("strategy");
    const std::string& s = *spec.strategy;
    if (s.find('/') == std::string::npos) {
      if (s != "OldestEmulationVersion") {
        errs.push_back(NotSupported(strategy_path, s, {"OldestEmulationVersion"}));
      }
    } else {
      internal::Append(&errs, internal::QualifiedName(s, strategy_path));
    }
  }
  if (spec.preferred_holder && !spec.preferred_holder->empty() &&
      (!spec.strategy || spec.strategy->empty())) {
    errs.push_back(
        Forbidden(path.Child("preferredHolder"), "may only be specified if `strategy` is defined"));
  }
  return errs;
}

}  // namespace

FieldErrorList ValidateCreate(const coordination::v1::Lease& lease) {
  FieldErrorList errs =
      ValidateObjectMeta(lease.metadata, true, NameIsDNSSubdomain, Path("metadata"));
  internal::Append(&errs, ValidateLeaseSpec(lease.spec, Path("spec")));
  return errs;
}

FieldErrorList ValidateUpdate(const coordination::v1::Lease& lease,
                              const coordination::v1::Lease& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(lease.metadata, old.metadata, Path("metadata"));
  internal::Append(&errs, ValidateLeaseSpec(lease.spec, Path("spec")));
  return errs;
}

}  // namespace svcplane::api::validation
