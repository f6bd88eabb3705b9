#pragma once

// pods/{name}/binding (upstream's BindingREST in pkg/registry/core/pod/storage): how
// kube-scheduler assigns a Pod to a Node without replacing it.

#include <string_view>

#include "api/core/v1/binding.h"
#include "api/core/v1/pod.h"
#include "apiserver/registry/registry.h"

namespace svcplane::apiserver::registry {

// Validates `binding` (target.kind "Node" or empty, target.name set, metadata.name equal to
// `name`, the Pod's name in the URL) and assigns the Pod: spec.nodeName = target.name, the
// binding's annotations merged in, condition PodScheduled=True. One compare-and-swap update of
// the stored Pod (retried on storage conflicts); uid and resourceVersion in binding.metadata are
// preconditions. Errors, as upstream:
//   BadRequest  the names differ
//   Invalid     a bad target (upstream returns these unwrapped, so 500; 422 is what they mean)
//   NotFound    `pods "p" not found`
//   Conflict    `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to
//               node "n"` (or is being deleted); failed preconditions.
// Returns the updated Pod (the HTTP answer is a Success Status, not the Pod).
Result<Object<api::core::v1::Pod>> BindPod(Registry<api::core::v1::Pod>& pods, std::string_view ns,
                                           std::string_view name,
                                           const api::core::v1::Binding& binding,
                                           const WriteOptions& wo);

// ValidatePodBinding: the target must name a Node.
api::validation::FieldErrorList ValidateBinding(const api::core::v1::Binding& binding);

// podutil.UpdatePodCondition for PodScheduled=True: adds the condition, or replaces it keeping
// lastTransitionTime when the status did not change. True if the status changed.
bool SetPodScheduled(api::core::v1::PodStatus& status, int64_t now_unix);

}  // namespace svcplane::apiserver::registry
