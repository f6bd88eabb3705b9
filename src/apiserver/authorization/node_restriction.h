#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/coordination/v1/lease.h"
#include "api/core/v1/node.h"
#include "api/core/v1/pod.h"
#include "api/meta/types.h"
#include "apiserver/authorization/node_authorizer.h"

// NodeRestriction admission (upstream plugin/pkg/admission/noderestriction), trimmed to our
// kinds (spec §3.8). Pure checks the registry calls for requests from a node identity
// (NodeNameOf(user) set) after authorization; each returns the 403 Status on violation.
// Messages read `<resource>[.<group>] "<name>" is forbidden: <msg>`.
namespace svcplane::apiserver::authorization {

enum class AdmissionOperation { kCreate, kUpdate, kDelete };

// Whether a label key may be set by a kubelet: non-Kubernetes prefixes are free; under
// kubernetes.io / k8s.io only the kubelet label set and kubelet.kubernetes.io/,
// node.kubernetes.io/ (and subdomains); node-restriction.kubernetes.io never.
bool KubeletMaySetLabel(std::string_view key);

// nodes and nodes/status create/update by node `node`. `requested_name` is the object's name
// (the path name, or the body's on create). On update `old_node` is the stored object.
std::optional<api::meta::StatusObject> AdmitNodeWrite(std::string_view node, AdmissionOperation op,
                                                      std::string_view requested_name,
                                                      const api::core::v1::Node& new_node,
                                                      const api::core::v1::Node* old_node);

// pods create: only mirror pods bound to itself, with exactly one controller ownerReference to
// its own Node (apiVersion v1, kind Node, uid = the stored node's).
std::optional<api::meta::StatusObject> AdmitPodCreate(std::string_view node,
                                                      const api::core::v1::Pod& pod,
                                                      const NodeGraph& graph);
// pods delete: only pods bound to itself. `existing` is the stored pod (nullptr → 404).
std::optional<api::meta::StatusObject> AdmitPodDelete(std::string_view node, std::string_view ns,
                                                      std::string_view name,
                                                      const api::core::v1::Pod* existing);
// pods/status update or patch (after the patch applied): the stored pod must be bound to itself
// and the labels must not change.
std::optional<api::meta::StatusObject> AdmitPodStatusUpdate(std::string_view node,
                                                            const api::core::v1::Pod& old_pod,
                                                            const api::core::v1::Pod& new_pod);
// What a node may never do to pods, whatever RBAC grants it: update a pod itself (`unexpected
// operation "UPDATE", node "<n>" can only create and delete mirror pods`), or write pods/status
// other than by an update (`unexpected operation "<OP>"`). Creates and deletes of pods and
// status updates go to the checks above.
std::optional<api::meta::StatusObject> AdmitPodOperation(std::string_view node,
                                                         AdmissionOperation op, bool status,
                                                         std::string_view name);
// A node identity naming no node (user exactly "system:node:"): every write is refused with
// `could not determine node from user "system:node:"`.
api::meta::StatusObject UnknownNodeStatus(std::string_view user, std::string_view group,
                                          std::string_view resource, std::string_view name);
// leases: namespace kube-node-lease, and the lease's name (the body's on create) = the node.
std::optional<api::meta::StatusObject> AdmitLease(std::string_view node, AdmissionOperation op,
                                                  std::string_view ns,
                                                  std::string_view requested_name,
                                                  const api::coordination::v1::Lease* new_lease);

}  // namespace svcplane::apiserver::authorization
