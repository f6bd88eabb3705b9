#include <algorithm>
#include <set>

#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using core::v1::Container;
using core::v1::Pod;
using core::v1::PodSpec;
using internal::Append;

constexpr int64_t kMaxInt32 = 2147483647;

bool HasEdgeWhitespace(std::string_view s) {
  return !s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) ||
                        std::isspace(static_cast<unsigned char>(s.back())));
}

FieldErrorList ValidateContainerPorts(const std::vector<core::v1::ContainerPort>& ports,
                                      const FieldPath& path) {
  FieldErrorList errs;
  std::set<std::string> names;
  for (size_t i = 0; i < ports.size(); ++i) {
    const core::v1::ContainerPort& port = ports[i];
    FieldPath idx = path.Index(static_cast<int64_t>(i));
    if (!port.name.empty()) {
      if (auto msgs = IsValidPortName(port.name); !msgs.empty()) {
        for (std::string& msg : msgs) errs.push_back(Invalid(idx.Child("name"), port.name, msg));
      } else if (!names.insert(port.name).second) {
        errs.push_back(Duplicate(idx.Child("name"), port.name));
      }
    }
    if (port.container_port == 0) {
      errs.push_back(Required(idx.Child("containerPort")));
    } else {
      for (std::string& msg : IsValidPortNum(port.container_port)) {
        errs.push_back(Invalid(idx.Child("containerPort"), port.container_port, msg));
      }
    }
    if (port.host_port != 0) {
      for (std::string& msg : IsValidPortNum(port.host_port)) {
        errs.push_back(Invalid(idx.Child("hostPort"), port.host_port, msg));
      }
    }
    Append(&errs, internal::Protocol(port.protocol, idx.Child("protocol")));
  }
  return errs;
}

// validateContainerCommon (the parts the model types): name, image, termination message
// policy, ports, pull policy.
FieldErrorList ValidateContainerCommon(const Container& c, const FieldPath& path) {
  FieldErrorList errs;
  if (c.name.empty()) {
    errs.push_back(Required(path.Child("name")));
  } else {
    Append(&errs, internal::DNS1123Label(c.name, path.Child("name")));
  }
  if (c.image.empty()) errs.push_back(Required(path.Child("image")));
  const std::string& tmp = c.rest->termination_message_policy;
  if (tmp.empty()) {
    errs.push_back(Required(path.Child("terminationMessagePolicy")));
  } else if (tmp != "File" && tmp != "FallbackToLogsOnError") {
    errs.push_back(NotSupported(path.Child("terminationMessagePolicy"), tmp,
                                {"File", "FallbackToLogsOnError"}));
  }
  Append(&errs, ValidateContainerPorts(c.ports, path.Child("ports")));
  const std::string& pull = c.rest->image_pull_policy;
  if (pull.empty()) {
    errs.push_back(Required(path.Child("imagePullPolicy")));
  } else if (pull != "Always" && pull != "IfNotPresent" && pull != "Never") {
    errs.push_back(
        NotSupported(path.Child("imagePullPolicy"), pull, {"Always", "IfNotPresent", "Never"}));
  }
  return errs;
}

// AccumulateUniqueHostPorts over one list of containers.
FieldErrorList CheckHostPortConflicts(const std::vector<const Container*>& containers,
                                      const std::vector<size_t>& indices, const FieldPath& path) {
  FieldErrorList errs;
  std::set<std::string> seen;
  for (size_t ci = 0; ci < containers.size(); ++ci) {
    const Container& c = *containers[ci];
    FieldPath ports = path.Index(static_cast<int64_t>(indices[ci])).Child("ports");
    for (size_t pi = 0; pi < c.ports.size(); ++pi) {
      const core::v1::ContainerPort& p = c.ports[pi];
      if (p.host_port == 0) continue;
      std::string key = p.protocol + "/" + p.rest->host_ip + "/" + std::to_string(p.host_port);
      if (!seen.insert(key).second) {
        errs.push_back(Duplicate(ports.Index(static_cast<int64_t>(pi)).Child("hostPort"), key));
      }
    }
  }
  return errs;
}

FieldErrorList ValidateContainers(const PodSpec& spec, const FieldPath& path) {
  if (spec.containers.empty()) return {Required(path)};
  FieldErrorList errs;
  std::set<std::string> names;
  std::vector<const Container*> all;
  std::vector<size_t> indices;
  for (size_t i = 0; i < spec.containers.size(); ++i) {
    const Container& c = spec.containers[i];
    FieldPath idx = path.Index(static_cast<int64_t>(i));
    Append(&errs, ValidateContainerCommon(c, idx));
    if (!names.insert(c.name).second) errs.push_back(Duplicate(idx.Child("name"), c.name));
    all.push_back(&c);
    indices.push_back(i);
  }
  Append(&errs, CheckHostPortConflicts(all, indices, path));
  return errs;
}

FieldErrorList ValidateInitContainers(const PodSpec& spec, const FieldPath& path) {
  FieldErrorList errs;
  std::set<std::string> names;
  for (const Container& c : spec.containers) names.insert(c.name);
  for (size_t i = 0; i < spec.rest->init_containers.size(); ++i) {
    const Container& c = spec.rest->init_containers[i];
    FieldPath idx = path.Index(static_cast<int64_t>(i));
    Append(&errs, ValidateContainerCommon(c, idx));
    if (names.count(c.name)) {
      errs.push_back(Duplicate(idx.Child("name"), c.name));
    } else if (!c.name.empty()) {
      names.insert(c.name);
    }
    // Init containers run one by one, so host ports only conflict within one container.
    Append(&errs, CheckHostPortConflicts({&c}, {i}, path));
  }
  return errs;
}

}  // namespace

FieldErrorList ValidatePodSpec(const PodSpec& spec, const FieldPath& path) {
  FieldErrorList errs;
  if (!spec.rest->termination_grace_period_seconds) {
    errs.push_back(Required(path.Child("terminationGracePeriodSeconds")));
  }
  Append(&errs, ValidateContainers(spec, path.Child("containers")));
  Append(&errs, ValidateInitContainers(spec, path.Child("initContainers")));
  if (spec.rest->host_network) {
    for (size_t i = 0; i < spec.containers.size(); ++i) {
      const Container& c = spec.containers[i];
      for (size_t p = 0; p < c.ports.size(); ++p) {
        if (c.ports[p].host_port != c.ports[p].container_port) {
          errs.push_back(Invalid(path.Child("containers")
                                     .Index(static_cast<int64_t>(i))
                                     .Child("ports")
                                     .Index(static_cast<int64_t>(p))
                                     .Child("hostPort"),
                                 c.ports[p].host_port,
                                 "must match `containerPort` when `hostNetwork` is true"));
        }
      }
    }
  }
  const std::string& rp = spec.rest->restart_policy;
  if (rp.empty()) {
    errs.push_back(Required(path.Child("restartPolicy")));
  } else if (rp != "Always" && rp != "OnFailure" && rp != "Never") {
    errs.push_back(NotSupported(path.Child("restartPolicy"), rp, {"Always", "OnFailure", "Never"}));
  }
  const std::string& dns = spec.rest->dns_policy;
  if (dns.empty()) {
    errs.push_back(Required(path.Child("dnsPolicy")));
  } else if (dns != "ClusterFirstWithHostNet" && dns != "ClusterFirst" && dns != "Default" &&
             dns != "None") {
    errs.push_back(NotSupported(path.Child("dnsPolicy"), dns,
                                {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"}));
  }
  Append(&errs, ValidateLabels(spec.rest->node_selector, path.Child("nodeSelector")));
  for (size_t i = 0; i < spec.readiness_gates.size(); ++i) {
    Append(&errs,
           internal::QualifiedName(
               spec.readiness_gates[i].condition_type,
               path.Child("readinessGates").Index(static_cast<int64_t>(i)).Child("conditionType")));
  }
  if (!spec.rest->service_account_name.empty()) {
    for (std::string& msg : NameIsDNSSubdomain(spec.rest->service_account_name, false)) {
      errs.push_back(
          Invalid(path.Child("serviceAccountName"), spec.rest->service_account_name, msg));
    }
  }
  if (!spec.node_name.empty()) {
    for (std::string& msg : NameIsDNSSubdomain(spec.node_name, false)) {
      errs.push_back(Invalid(path.Child("nodeName"), spec.node_name, msg));
    }
  }
  if (spec.rest->active_deadline_seconds) {
    int64_t v = *spec.rest->active_deadline_seconds;
    if (v < 1 || v > kMaxInt32) {
      errs.push_back(
          Invalid(path.Child("activeDeadlineSeconds"), v, InclusiveRangeError(1, kMaxInt32)));
    }
  }
  if (!spec.hostname.empty())
    Append(&errs, internal::DNS1123Label(spec.hostname, path.Child("hostname")));
  if (!spec.subdomain.empty()) {
    Append(&errs, internal::DNS1123Label(spec.subdomain, path.Child("subdomain")));
  }
  if (spec.rest->preemption_policy) {
    const std::string& pp = *spec.rest->preemption_policy;
    if (pp.empty()) {
      errs.push_back(Required(path.Child("preemptionPolicy")));
    } else if (pp != "PreemptLowerPriority" && pp != "Never") {
      errs.push_back(
          NotSupported(path.Child("preemptionPolicy"), pp, {"PreemptLowerPriority", "Never"}));
    }
  }
  return errs;
}

namespace {

// validatePodMetadataAndSpec plus validateContainersOnlyForPod.
FieldErrorList ValidatePodMetadataAndSpec(const Pod& pod) {
  FieldPath spec = Path("spec");
  FieldErrorList errs =
      ValidateObjectMeta(pod.metadata, true, NameIsDNSSubdomain, Path("metadata"));
  Append(&errs, ValidatePodSpec(pod.spec, spec));
  auto only_for_pod = [&](const std::vector<Container>& cs, const FieldPath& path) {
    for (size_t i = 0; i < cs.size(); ++i) {
      if (HasEdgeWhitespace(cs[i].image)) {
        errs.push_back(Invalid(path.Index(static_cast<int64_t>(i)).Child("image"), cs[i].image,
                               "must not have leading or trailing whitespace"));
      }
    }
  };
  only_for_pod(pod.spec.containers, spec.Child("containers"));
  only_for_pod(pod.spec.rest->init_containers, spec.Child("initContainers"));
  return errs;
}

// ValidateContainerUpdates; returns true when the container count changed (upstream stops).
bool ValidateContainerUpdates(const std::vector<Container>& updated,
                              const std::vector<Container>& old, const FieldPath& path,
                              FieldErrorList* errs) {
  if (updated.size() != old.size()) {
    errs->push_back(Forbidden(path, "pod updates may not add or remove containers"));
    return true;
  }
  for (size_t i = 0; i < updated.size(); ++i) {
    FieldPath image = path.Index(static_cast<int64_t>(i)).Child("image");
    if (updated[i].image.empty()) errs->push_back(Required(image));
    if (HasEdgeWhitespace(updated[i].image)) {
      errs->push_back(
          Invalid(image, updated[i].image, "must not have leading or trailing whitespace"));
    }
  }
  return false;
}

// The names of PodSpec fields that differ, in the style of go-cmp's report. Upstream appends a
// full cmp.Diff of the specs; we name the fields that changed instead.
std::string SpecDiff(const PodSpec& old, const PodSpec& munged) {
  std::vector<std::string> changed;
  auto check = [&](bool differs, const char* name) {
    if (differs) changed.push_back(name);
  };
  check(old.rest->volumes != munged.rest->volumes, "Volumes");
  check(old.rest->init_containers != munged.rest->init_containers, "InitContainers");
  check(old.containers != munged.containers, "Containers");
  check(old.rest->restart_policy != munged.rest->restart_policy, "RestartPolicy");
  check(old.rest->termination_grace_period_seconds != munged.rest->termination_grace_period_seconds,
        "TerminationGracePeriodSeconds");
  check(old.rest->dns_policy != munged.rest->dns_policy, "DNSPolicy");
  check(old.rest->node_selector != munged.rest->node_selector, "NodeSelector");
  check(old.rest->service_account_name != munged.rest->service_account_name, "ServiceAccountName");
  check(old.rest->service_account != munged.rest->service_account, "DeprecatedServiceAccount");
  check(old.node_name != munged.node_name, "NodeName");
  check(old.rest->host_network != munged.rest->host_network, "HostNetwork");
  check(old.rest->security_context != munged.rest->security_context, "SecurityContext");
  check(old.hostname != munged.hostname, "Hostname");
  check(old.subdomain != munged.subdomain, "Subdomain");
  check(old.rest->scheduler_name != munged.rest->scheduler_name, "SchedulerName");
  check(old.rest->priority != munged.rest->priority, "Priority");
  check(old.readiness_gates != munged.readiness_gates, "ReadinessGates");
  check(old.rest->enable_service_links != munged.rest->enable_service_links, "EnableServiceLinks");
  check(old.rest->preemption_policy != munged.rest->preemption_policy, "PreemptionPolicy");
  check(old.rest->set_hostname_as_fqdn != munged.rest->set_hostname_as_fqdn, "SetHostnameAsFQDN");
  check(old.unknown != munged.unknown, "(other fields)");
  std::string out = "  core.PodSpec{\n";
  for (const std::string& name : changed) out += "~ \t" + name + ": ...,\n";
  return out + "  }\n";
}

}  // namespace

FieldErrorList ValidateCreate(const Pod& pod) { return ValidatePodMetadataAndSpec(pod); }

FieldErrorList ValidateUpdate(const Pod& pod, const Pod& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(pod.metadata, old.metadata, Path("metadata"));
  Append(&errs, ValidatePodMetadataAndSpec(pod));
  FieldPath spec = Path("spec");
  if (ValidateContainerUpdates(pod.spec.containers, old.spec.containers, spec.Child("containers"),
                               &errs)) {
    return errs;
  }
  if (ValidateContainerUpdates(pod.spec.rest->init_containers, old.spec.rest->init_containers,
                               spec.Child("initContainers"), &errs)) {
    return errs;
  }
  // activeDeadlineSeconds: nil -> positive, or positive -> lower non-negative.
  FieldPath ads = spec.Child("activeDeadlineSeconds");
  if (pod.spec.rest->active_deadline_seconds) {
    int64_t v = *pod.spec.rest->active_deadline_seconds;
    if (v < 0 || v > kMaxInt32) {
      errs.push_back(Invalid(ads, v, InclusiveRangeError(0, kMaxInt32)));
      return errs;
    }
    if (old.spec.rest->active_deadline_seconds && *old.spec.rest->active_deadline_seconds < v) {
      errs.push_back(Invalid(ads, v, "must be less than or equal to previous value"));
      return errs;
    }
  } else if (old.spec.rest->active_deadline_seconds) {
    errs.push_back(
        InvalidRendered(ads, "null", "must not update from a positive integer to nil value"));
  }
  // Tolerations are raw JSON in the model: only additions (old ones kept verbatim) are allowed.
  for (const meta::RawJson& t : old.spec.rest->tolerations) {
    if (std::find(pod.spec.rest->tolerations.begin(), pod.spec.rest->tolerations.end(), t) ==
        pod.spec.rest->tolerations.end()) {
      errs.push_back(Forbidden(spec.Child("tolerations"),
                               "existing toleration can not be modified except its "
                               "tolerationSeconds"));
      break;
    }
  }
  if (pod.spec == old.spec) return errs;

  PodSpec munged = pod.spec;
  for (size_t i = 0; i < munged.containers.size(); ++i) {
    munged.containers[i].image = old.spec.containers[i].image;
  }
  for (size_t i = 0; i < munged.rest->init_containers.size(); ++i) {
    munged.rest->init_containers[i].image = old.spec.rest->init_containers[i].image;
  }
  munged.rest->active_deadline_seconds = old.spec.rest->active_deadline_seconds;
  munged.rest->tolerations = old.spec.rest->tolerations;
  if (old.spec.rest->termination_grace_period_seconds &&
      *old.spec.rest->termination_grace_period_seconds < 0 &&
      munged.rest->termination_grace_period_seconds &&
      *munged.rest->termination_grace_period_seconds == 1) {
    munged.rest->termination_grace_period_seconds = old.spec.rest->termination_grace_period_seconds;
  }
  if (munged != old.spec) {
    errs.push_back(Forbidden(
        spec,
        "pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
        "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
        "set to 1 if it was previously negative)\n" +
            SpecDiff(old.spec, munged)));
  }
  return errs;
}

FieldErrorList ValidateStatusUpdate(const Pod& pod, const Pod& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(pod.metadata, old.metadata, Path("metadata"));
  // Upstream puts these under metadata.conditions (sic).
  for (size_t i = 0; i < pod.status.conditions.size(); ++i) {
    const std::string& type = pod.status.conditions[i].type;
    if (type == "PodScheduled" || type == "Ready" || type == "Initialized") continue;
    Append(&errs,
           internal::QualifiedName(
               type,
               Path("metadata").Child("conditions").Index(static_cast<int64_t>(i)).Child("Type")));
  }
  FieldPath status = Path("status");
  if (pod.spec.node_name != old.spec.node_name) {
    errs.push_back(Forbidden(status.Child("nodeName"), "may not be changed directly"));
  }
  if (pod.status.rest->nominated_node_name != old.status.rest->nominated_node_name &&
      !pod.status.rest->nominated_node_name.empty()) {
    for (std::string& msg : NameIsDNSSubdomain(pod.status.rest->nominated_node_name, false)) {
      errs.push_back(
          Invalid(status.Child("nominatedNodeName"), pod.status.rest->nominated_node_name, msg));
    }
  }
  if (pod.status.rest->qos_class != old.status.rest->qos_class) {
    errs.push_back(Invalid(status.Child("qosClass"), pod.status.rest->qos_class,
                           std::string(internal::kFieldImmutable)));
  }
  auto validate_ips = [&](const std::vector<core::v1::PodIP>& ips, const FieldPath& path) {
    for (size_t i = 0; i < ips.size(); ++i) {
      Append(&errs, IsValidIP(path.Index(static_cast<int64_t>(i)), ips[i].ip));
    }
    if (ips.size() > 1) {
      bool v4 = false, v6 = false;
      for (const auto& ip : ips) {
        ParsedIP parsed;
        if (ParseIPSloppy(ip.ip, &parsed)) (parsed.Is4() ? v4 : v6) = true;
      }
      std::string rendered = "[]core.PodIP{";
      for (size_t i = 0; i < ips.size(); ++i) {
        rendered += (i ? ", " : "") + std::string("core.PodIP{IP:") + GoQuote(ips[i].ip) + "}";
      }
      rendered += "}";
      if (!(v4 && v6) || ips.size() > 2) {
        errs.push_back(
            InvalidRendered(path, rendered, "may specify no more than one IP for each IP family"));
      }
      std::set<std::string> seen;
      for (size_t i = 0; i < ips.size(); ++i) {
        if (!seen.insert(ips[i].ip).second) {
          errs.push_back(FieldError{FieldErrorType::kDuplicate,
                                    path.Index(static_cast<int64_t>(i)).String(),
                                    "core.PodIP{IP:" + GoQuote(ips[i].ip) + "}", ""});
        }
      }
    }
  };
  validate_ips(pod.status.pod_ips, status.Child("podIPs"));
  if (!pod.status.rest->host_ips.empty()) {
    if (pod.status.rest->host_ip != pod.status.rest->host_ips[0].ip) {
      errs.push_back(Invalid(status.Child("hostIPs").Index(0).Child("ip"),
                             pod.status.rest->host_ips[0].ip, "must be equal to `hostIP`"));
    }
    validate_ips(pod.status.rest->host_ips, status.Child("hostIPs"));
  }
  return errs;
}

}  // namespace svcplane::api::validation
