#include "apiserver/registry/binding.h"

#include <string>

namespace svcplane::apiserver::registry {

using api::core::v1::Binding;
using api::core::v1::Pod;

api::validation::FieldErrorList ValidateBinding(const Binding& binding) {
  namespace v = api::validation;
  v::FieldErrorList errs;
  if (!binding.target.kind.empty() && binding.target.kind != "Node") {
    errs.push_back(
        v::NotSupported(v::Path("target").Child("kind"), binding.target.kind, {"Node", "<empty>"}));
  }
  if (binding.target.name.empty()) errs.push_back(v::Required(v::Path("target").Child("name")));
  return errs;
}

bool SetPodScheduled(api::core::v1::PodStatus& status, int64_t now_unix) {
  api::core::v1::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = "True";
  cond.last_transition_time = api::meta::Time::FromUnix(now_unix);
  for (auto& c : status.conditions) {
    if (c.type != cond.type) continue;
    if (c.status == cond.status) cond.last_transition_time = c.last_transition_time;
    const bool changed = c.status != cond.status || !c.rest->reason.empty() ||
                         !c.rest->message.empty() || !c.rest->last_probe_time.IsZero();
    cond.unknown = std::move(c.unknown);
    c = std::move(cond);
    return changed;
  }
  status.conditions.push_back(std::move(cond));
  return true;
}

Result<Object<Pod>> BindPod(Registry<Pod>& pods, std::string_view ns, std::string_view name,
                            const Binding& binding, const WriteOptions& wo) {
  if (binding.metadata.name != name) {
    return BadRequestError("name in URL does not match name in Binding object");
  }
  if (auto errs = ValidateBinding(binding); !errs.empty()) {
    return api::validation::ToInvalidStatus("Binding", binding.metadata.name, errs);
  }
  UpdatePreconditions pre;
  if (!binding.metadata.uid.empty()) pre.uid = binding.metadata.uid;
  if (!binding.metadata.resource_version.empty()) {
    pre.resource_version = binding.metadata.resource_version;
  }
  const int64_t now = pods.now_micros() / 1000000;
  const std::string& node = binding.target.name;
  auto conflict = [&](const std::string& why) {
    return ConflictError("Operation cannot be fulfilled on pods/binding \"" + std::string(name) +
                         "\": " + why);
  };
  return pods.GuaranteedUpdate(
      ns, name, pre,
      [&](Pod& pod) -> Status {
        if (pod.metadata.deletion_timestamp) {
          return conflict("pod " + pod.metadata.name +
                          " is being deleted, cannot be assigned to a host");
        }
        if (!pod.spec.node_name.empty()) {
          return conflict("pod " + pod.metadata.name + " is already assigned to node \"" +
                          pod.spec.node_name + "\"");
        }
        pod.spec.node_name = node;
        for (const auto& [k, v] : binding.metadata.annotations) pod.metadata.annotations[k] = v;
        SetPodScheduled(pod.status, now);
        return Status::Ok();
      },
      wo);
}

}  // namespace svcplane::apiserver::registry
