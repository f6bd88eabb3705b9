#pragma once

// The whole upstream write path for one object, in upstream's order, for the API server's
// registry: defaulting, strategy preparation, an optional allocation step, kind validation and
// the generic metadata checks, ending in OK or the 422 Invalid Status kube-apiserver returns.
// Pure: uid, creationTimestamp and resourceVersion are still the registry's to set.
//
//   Status st = AdmitCreate(svc, [&](core::v1::Service& s) { return allocator.Allocate(s); });
//   if (!st.ok()) return st;  // 422 with causes, or the allocator's own error

#include <string_view>

#include "api/types.h"
#include "api/validation/defaults.h"
#include "api/validation/field_errors.h"
#include "api/validation/strategy.h"
#include "api/validation/validation.h"
#include "base/status.h"

namespace svcplane::api::validation {

// Per kind: the GroupKind string used in 422 messages and whether the kind is namespaced.
template <typename T>
struct KindTraits;
template <>
struct KindTraits<core::v1::Namespace> {
  static constexpr std::string_view kQualifiedKind = "Namespace";
  static constexpr bool kNamespaced = false;
};
template <>
struct KindTraits<core::v1::Service> {
  static constexpr std::string_view kQualifiedKind = "Service";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<core::v1::Pod> {
  static constexpr std::string_view kQualifiedKind = "Pod";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<core::v1::Node> {
  static constexpr std::string_view kQualifiedKind = "Node";
  static constexpr bool kNamespaced = false;
};
template <>
struct KindTraits<core::v1::Endpoints> {
  static constexpr std::string_view kQualifiedKind = "Endpoints";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<core::v1::Event> {
  static constexpr std::string_view kQualifiedKind = "Event";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<discovery::v1::EndpointSlice> {
  static constexpr std::string_view kQualifiedKind = "EndpointSlice.discovery.k8s.io";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<coordination::v1::Lease> {
  static constexpr std::string_view kQualifiedKind = "Lease.coordination.k8s.io";
  static constexpr bool kNamespaced = true;
};

template <>
struct KindTraits<rbac::v1::Role> {
  static constexpr std::string_view kQualifiedKind = "Role.rbac.authorization.k8s.io";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<rbac::v1::ClusterRole> {
  static constexpr std::string_view kQualifiedKind = "ClusterRole.rbac.authorization.k8s.io";
  static constexpr bool kNamespaced = false;
};
template <>
struct KindTraits<rbac::v1::RoleBinding> {
  static constexpr std::string_view kQualifiedKind = "RoleBinding.rbac.authorization.k8s.io";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<rbac::v1::ClusterRoleBinding> {
  static constexpr std::string_view kQualifiedKind = "ClusterRoleBinding.rbac.authorization.k8s.io";
  static constexpr bool kNamespaced = false;
};

template <>
struct KindTraits<apps::v1::Deployment> {
  static constexpr std::string_view kQualifiedKind = "Deployment.apps";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<apps::v1::ReplicaSet> {
  static constexpr std::string_view kQualifiedKind = "ReplicaSet.apps";
  static constexpr bool kNamespaced = true;
};

template <>
struct KindTraits<core::v1::ConfigMap> {
  static constexpr std::string_view kQualifiedKind = "ConfigMap";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<core::v1::Secret> {
  static constexpr std::string_view kQualifiedKind = "Secret";
  static constexpr bool kNamespaced = true;
};
template <>
struct KindTraits<core::v1::ServiceAccount> {
  static constexpr std::string_view kQualifiedKind = "ServiceAccount";
  static constexpr bool kNamespaced = true;
};

// An allocation step that does nothing (every kind but Service).
struct NoAllocation {
  template <typename T>
  Status operator()(T& /*obj*/) const {
    return Status::Ok();
  }
};

// Default -> PrepareForCreate -> allocate -> ValidateCreate; only if that passes,
// ValidateCommonCreate (upstream shows the kind's own messages first). Expects the name to be
// generated already when generateName is used.
template <typename T, typename Allocate = NoAllocation>
Status AdmitCreate(T& obj, Allocate&& allocate = {}) {
  Default(obj);
  PrepareForCreate(obj);
  if (Status st = allocate(obj); !st.ok()) return st;
  FieldErrorList errs = ValidateCreate(obj);
  if (errs.empty()) errs = ValidateCommonCreate(obj.metadata, KindTraits<T>::kNamespaced);
  if (errs.empty()) return Status::Ok();
  return ToInvalidStatus(KindTraits<T>::kQualifiedKind, obj.metadata.name, errs);
}

// Default -> PrepareForUpdate(obj, old) -> allocate -> ValidateCommonUpdate + ValidateUpdate.
// For an unconditional update (no resourceVersion in the request) the registry copies the
// stored resourceVersion into `obj` first, as upstream does.
template <typename T, typename Allocate = NoAllocation>
Status AdmitUpdate(T& obj, const T& old, Allocate&& allocate = {}) {
  Default(obj);
  PrepareForUpdate(obj, old);
  if (Status st = allocate(obj); !st.ok()) return st;
  FieldErrorList errs =
      ValidateCommonUpdate(obj.metadata, old.metadata, KindTraits<T>::kNamespaced);
  for (FieldError& e : ValidateUpdate(obj, old)) errs.push_back(std::move(e));
  if (errs.empty()) return Status::Ok();
  return ToInvalidStatus(KindTraits<T>::kQualifiedKind, obj.metadata.name, errs);
}

// /status of Namespace, Service, Pod, Node.
template <typename T>
Status AdmitStatusUpdate(T& obj, const T& old) {
  Default(obj);
  PrepareForStatusUpdate(obj, old);
  FieldErrorList errs =
      ValidateCommonUpdate(obj.metadata, old.metadata, KindTraits<T>::kNamespaced);
  for (FieldError& e : ValidateStatusUpdate(obj, old)) errs.push_back(std::move(e));
  if (errs.empty()) return Status::Ok();
  return ToInvalidStatus(KindTraits<T>::kQualifiedKind, obj.metadata.name, errs);
}

// PUT /api/v1/namespaces/{name}/finalize.
inline Status AdmitFinalizeUpdate(core::v1::Namespace& ns, const core::v1::Namespace& old) {
  Default(ns);
  PrepareForFinalizeUpdate(ns, old);
  FieldErrorList errs = ValidateCommonUpdate(ns.metadata, old.metadata, false);
  for (FieldError& e : ValidateFinalizeUpdate(ns, old)) errs.push_back(std::move(e));
  if (errs.empty()) return Status::Ok();
  return ToInvalidStatus("Namespace", ns.metadata.name, errs);
}

}  // namespace svcplane::api::validation
