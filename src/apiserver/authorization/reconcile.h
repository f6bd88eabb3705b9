#pragma once

#include "api/rbac/v1/rbac.h"

// Reconciliation of the bootstrap policy with what is stored (spec §4.3; upstream
// pkg/registry/rbac/reconciliation, as the rbac/bootstrap-roles post-start hook runs it:
// confirm, union, never remove). Pure: the caller reads the current object, calls these, and
// writes what they say.
namespace svcplane::apiserver::authorization {

enum class ReconcileAction {
  kNone,      // leave as it is (up to date, or annotated autoupdate "false")
  kCreate,    // store `object` (it did not exist)
  kUpdate,    // replace the stored object with `object` (same resourceVersion precondition)
  kRecreate,  // delete the stored binding and create `object` (roleRef cannot change in place)
};

template <typename T>
struct Reconciled {
  ReconcileAction action = ReconcileAction::kNone;
  T object;  // what to write for kCreate / kUpdate / kRecreate
};

// Missing → create. Annotation autoupdate exactly "false" → leave. Otherwise: labels and
// annotations merged (existing values win), missing rules added (as the uncovered atoms; extra
// rules kept), missing aggregationRule selectors added (an aggregationRule the bootstrap role
// lacks is removed); update only if something changed.
Reconciled<api::rbac::v1::ClusterRole> ReconcileClusterRole(
    const api::rbac::v1::ClusterRole* existing, const api::rbac::v1::ClusterRole& bootstrap);

// Missing → create. autoupdate "false" → leave. A different roleRef → recreate as bootstrap.
// Otherwise labels/annotations merged and missing subjects appended (extra kept).
Reconciled<api::rbac::v1::ClusterRoleBinding> ReconcileClusterRoleBinding(
    const api::rbac::v1::ClusterRoleBinding* existing,
    const api::rbac::v1::ClusterRoleBinding& bootstrap);

}  // namespace svcplane::apiserver::authorization
