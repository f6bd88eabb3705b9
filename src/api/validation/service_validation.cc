#include <algorithm>
#include <set>
#include <utility>

#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using core::v1::Service;
using core::v1::ServicePort;
using internal::Append;

constexpr int32_t kMaxClientIPServiceAffinitySeconds = 86400;

bool IsHeadless(const Service& svc) {
  return svc.spec.cluster_ips.size() == 1 && svc.spec.cluster_ips[0] == "None";
}

// apiservice.ExternallyAccessible.
bool ExternallyAccessible(const Service& svc) {
  const std::string& t = svc.spec.type;
  return t == "LoadBalancer" || t == "NodePort" ||
         (t == "ClusterIP" && !svc.spec.external_ips.empty());
}

bool NeedsHealthCheck(const Service& svc) {
  return svc.spec.type == "LoadBalancer" && svc.spec.external_traffic_policy == "Local";
}

bool IsIPv6String(std::string_view ip) {
  ParsedIP parsed;
  return ParseIPSloppy(ip, &parsed) && !parsed.Is4();
}

std::string RenderIPFamilies(const std::vector<std::string>& families) {
  return internal::RenderNamedStringSlice("core.IPFamily", families);
}

// %#v of the core.ServicePort key upstream builds for the duplicate (protocol, port) check.
std::string RenderPortKey(const ServicePort& p) {
  return "core.ServicePort{Name:\"\", Protocol:" + GoQuote(p.protocol) +
         ", AppProtocol:(*string)(nil), Port:" + std::to_string(p.port) +
         ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}";
}

// ValidatePortNumOrName.
FieldErrorList ValidatePortNumOrName(const meta::IntOrString& port, const FieldPath& path) {
  FieldErrorList errs;
  if (!port.is_string) {
    for (std::string& msg : IsValidPortNum(port.int_value)) {
      errs.push_back(Invalid(path, port.int_value, msg));
    }
  } else {
    for (std::string& msg : IsValidPortName(port.str_value)) {
      errs.push_back(Invalid(path, port.str_value, msg));
    }
  }
  return errs;
}

FieldErrorList ValidateServicePort(const ServicePort& sp, bool require_name,
                                   std::set<std::string>* names, const FieldPath& path) {
  FieldErrorList errs;
  if (require_name && sp.name.empty()) {
    errs.push_back(Required(path.Child("name")));
  } else if (!sp.name.empty()) {
    Append(&errs, internal::DNS1123Label(sp.name, path.Child("name")));
    if (!names->insert(sp.name).second) errs.push_back(Duplicate(path.Child("name"), sp.name));
  }
  for (std::string& msg : IsValidPortNum(sp.port)) {
    errs.push_back(Invalid(path.Child("port"), sp.port, msg));
  }
  Append(&errs, internal::Protocol(sp.protocol, path.Child("protocol")));
  Append(&errs, ValidatePortNumOrName(sp.target_port, path.Child("targetPort")));
  if (sp.app_protocol) {
    Append(&errs, internal::QualifiedName(*sp.app_protocol, path.Child("appProtocol")));
  }
  return errs;
}

FieldErrorList ValidateClientIPAffinityConfig(
    const std::optional<core::v1::SessionAffinityConfig>& config, const FieldPath& path) {
  const std::string when = "when session affinity type is ClientIP";
  if (!config) return {Required(path, when)};
  if (!config->client_ip) return {Required(path.Child("clientIP"), when)};
  FieldPath timeout_path = path.Child("clientIP").Child("timeoutSeconds");
  const std::optional<int32_t>& timeout = config->client_ip->timeout_seconds;
  if (!timeout) return {Required(timeout_path, when)};
  if (*timeout <= 0 || *timeout > kMaxClientIPServiceAffinitySeconds) {
    return {Invalid(timeout_path, *timeout,
                    "must be greater than 0 and less than " +
                        std::to_string(kMaxClientIPServiceAffinitySeconds))};
  }
  return {};
}

// ValidateServiceClusterIPsRelatedFields: clusterIP/clusterIPs agreement, families, policy.
FieldErrorList ValidateClusterIPsRelatedFields(const Service& svc) {
  if (svc.spec.type == "ExternalName") return {};
  FieldErrorList errs;
  const auto& ips = svc.spec.cluster_ips;
  FieldPath spec = Path("spec");
  FieldPath ips_path = spec.Child("clusterIPs");
  FieldPath families_path = spec.Child("ipFamilies");
  bool has_invalid_ips = false;

  if (!svc.spec.cluster_ip.empty()) {
    if (ips.empty()) {
      errs.push_back(Required(ips_path));
    } else if (ips[0] != svc.spec.cluster_ip) {
      errs.push_back(
          InvalidRendered(ips_path, GoStringSlice(ips), "first value must match `clusterIP`"));
    }
  } else if (!ips.empty()) {
    errs.push_back(InvalidRendered(ips_path, GoStringSlice(ips),
                                   "must be empty when `clusterIP` is not specified"));
  }

  std::set<std::string> seen;
  for (size_t i = 0; i < svc.spec.ip_families.size(); ++i) {
    const std::string& family = svc.spec.ip_families[i];
    FieldPath idx = families_path.Index(static_cast<int64_t>(i));
    if (family != "IPv4" && family != "IPv6") {
      errs.push_back(NotSupported(idx, family, {"IPv4", "IPv6"}));
    }
    if (!seen.insert(family).second) errs.push_back(Duplicate(idx, family));
  }

  if (svc.spec.ip_family_policy) {
    const std::string& policy = *svc.spec.ip_family_policy;
    if (policy != "SingleStack" && policy != "PreferDualStack" && policy != "RequireDualStack") {
      errs.push_back(NotSupported(spec.Child("ipFamilyPolicy"), policy,
                                  {"PreferDualStack", "RequireDualStack", "SingleStack"}));
    }
  }

  for (size_t i = 0; i < ips.size(); ++i) {
    if (i == 0 && ips[i] == "None") {
      if (ips.size() > 1) {
        has_invalid_ips = true;
        errs.push_back(InvalidRendered(ips_path, GoStringSlice(ips),
                                       "'None' must be the first and only value"));
      }
      continue;
    }
    FieldErrorList e = IsValidIP(ips_path.Index(static_cast<int64_t>(i)), ips[i]);
    has_invalid_ips = has_invalid_ips || !e.empty();
    Append(&errs, std::move(e));
  }
  if (ips.size() > 2) {
    errs.push_back(InvalidRendered(ips_path, GoStringSlice(ips), "may only hold up to 2 values"));
  }
  // Bad IPs would skew the family checks below; upstream stops here too.
  if (has_invalid_ips) return errs;

  if (ips.size() > 1) {
    bool v4 = false, v6 = false;
    for (const std::string& ip : ips) (IsIPv6String(ip) ? v6 : v4) = true;
    if (!(v4 && v6)) {
      errs.push_back(InvalidRendered(ips_path, GoStringSlice(ips),
                                     "may specify no more than one IP for each IP family"));
    }
  }
  if (!IsHeadless(svc) && !ips.empty() && !svc.spec.ip_families.empty()) {
    for (size_t i = 0; i < ips.size() && i < svc.spec.ip_families.size(); ++i) {
      const std::string& family = svc.spec.ip_families[i];
      FieldPath idx = ips_path.Index(static_cast<int64_t>(i));
      if (family == "IPv4" && IsIPv6String(ips[i])) {
        errs.push_back(Invalid(
            idx, ips[i],
            "expected an IPv4 value as indicated by `ipFamilies[" + std::to_string(i) + "]`"));
      }
      if (family == "IPv6" && !IsIPv6String(ips[i])) {
        errs.push_back(Invalid(
            idx, ips[i],
            "expected an IPv6 value as indicated by `ipFamilies[" + std::to_string(i) + "]`"));
      }
    }
  }
  return errs;
}

FieldErrorList ValidateLoadBalancerClass(const Service* old, const Service& svc) {
  FieldErrorList errs;
  FieldPath path = Path("spec").Child("loadBalancerClass");
  const auto& cls = svc.spec.load_balancer_class;
  if (old && old->spec.type == "LoadBalancer" && svc.spec.type == "LoadBalancer" &&
      old->spec.load_balancer_class != cls) {
    errs.push_back(
        InvalidRendered(path, internal::RenderOptionalString(cls), "may not change once set"));
  }
  if (svc.spec.type != "LoadBalancer" && cls) {
    errs.push_back(Forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
  }
  if (cls) Append(&errs, internal::QualifiedName(*cls, path));
  return errs;
}

FieldErrorList ValidateExternalTrafficPolicy(const Service& svc) {
  FieldErrorList errs;
  FieldPath spec = Path("spec");
  const std::string& etp = svc.spec.external_traffic_policy;
  if (!ExternallyAccessible(svc)) {
    if (!etp.empty()) {
      errs.push_back(Invalid(spec.Child("externalTrafficPolicy"), etp,
                             "may only be set for externally-accessible services"));
    }
  } else if (etp.empty()) {
    errs.push_back(Required(spec.Child("externalTrafficPolicy")));
  } else if (etp != "Cluster" && etp != "Local") {
    errs.push_back(NotSupported(spec.Child("externalTrafficPolicy"), etp, {"Cluster", "Local"}));
  }
  int32_t hc = svc.spec.health_check_node_port;
  if (!NeedsHealthCheck(svc)) {
    if (hc != 0) {
      errs.push_back(Invalid(
          spec.Child("healthCheckNodePort"), hc,
          "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    }
  } else if (hc == 0) {
    errs.push_back(Required(spec.Child("healthCheckNodePort")));
  } else {
    for (std::string& msg : IsValidPortNum(hc)) {
      errs.push_back(Invalid(spec.Child("healthCheckNodePort"), hc, msg));
    }
  }
  return errs;
}

FieldErrorList ValidateTypeSpecific(const Service& svc) {
  FieldErrorList errs;
  FieldPath spec = Path("spec");
  const std::string& type = svc.spec.type;
  if (type == "LoadBalancer" || type == "NodePort") {
    if (IsHeadless(svc)) {
      errs.push_back(Invalid(spec.Child("clusterIPs").Index(0), svc.spec.cluster_ips[0],
                             "may not be set to 'None' for " + type + " services"));
    }
  } else if (type == "ExternalName") {
    if (!svc.spec.cluster_ips.empty()) {
      errs.push_back(
          Forbidden(spec.Child("clusterIPs"), "may not be set for ExternalName services"));
    }
    if (!svc.spec.ip_families.empty()) {
      errs.push_back(
          Forbidden(spec.Child("ipFamilies"), "may not be set for ExternalName services"));
    }
    if (svc.spec.ip_family_policy) {
      errs.push_back(
          Forbidden(spec.Child("ipFamilyPolicy"), "may not be set for ExternalName services"));
    }
    // A trailing dot marks the CNAME fully qualified.
    std::string_view cname = svc.spec.external_name;
    if (!cname.empty() && cname.back() == '.') cname.remove_suffix(1);
    if (!cname.empty()) {
      Append(&errs, internal::DNS1123Subdomain(cname, spec.Child("externalName")));
    } else {
      errs.push_back(Required(spec.Child("externalName")));
    }
  }
  return errs;
}

FieldErrorList ValidateSourceRanges(const Service& svc) {
  FieldErrorList errs;
  const std::string lb_only = "may only be used when `type` is 'LoadBalancer'";
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  if (!svc.spec.load_balancer_source_ranges.empty()) {
    // Upstream's path really is capitalised here.
    FieldPath path = Path("spec").Child("LoadBalancerSourceRanges");
    if (svc.spec.type != "LoadBalancer") errs.push_back(Forbidden(path, lb_only));
    for (size_t i = 0; i < svc.spec.load_balancer_source_ranges.size(); ++i) {
      Append(&errs, IsValidCIDR(path.Index(static_cast<int64_t>(i)),
                                trim(svc.spec.load_balancer_source_ranges[i])));
    }
    return errs;
  }
  constexpr std::string_view kAnnotation = "service.beta.kubernetes.io/load-balancer-source-ranges";
  auto it = svc.metadata.annotations.find(kAnnotation);
  if (it == svc.metadata.annotations.end()) return errs;
  FieldPath path = Path("metadata").Child("annotations").Key(kAnnotation);
  if (svc.spec.type != "LoadBalancer") errs.push_back(Forbidden(path, lb_only));
  std::string_view val = trim(it->second);
  while (!val.empty()) {
    size_t comma = val.find(',');
    Append(&errs, IsValidCIDR(path, trim(val.substr(0, comma))));
    if (comma == std::string_view::npos) break;
    val.remove_prefix(comma + 1);
  }
  return errs;
}

FieldErrorList ValidateService(const Service& svc) {
  FieldPath meta = Path("metadata");
  FieldPath spec = Path("spec");
  FieldErrorList errs = ValidateObjectMeta(svc.metadata, true, NameIsDNS1035Label, meta);

  const auto& ann = svc.metadata.annotations;
  auto hints = ann.find("service.kubernetes.io/topology-aware-hints");
  auto mode = ann.find("service.kubernetes.io/topology-mode");
  if (hints != ann.end() && mode != ann.end() && hints->second != mode->second) {
    errs.push_back(
        Invalid(meta.Child("annotations").Key("service.kubernetes.io/topology-mode"), mode->second,
                "must match annotations[service.kubernetes.io/topology-aware-hints] when both are "
                "specified"));
  }

  if (svc.spec.ports.empty() && !IsHeadless(svc) && svc.spec.type != "ExternalName") {
    errs.push_back(Required(spec.Child("ports")));
  }
  Append(&errs, ValidateTypeSpecific(svc));

  std::set<std::string> port_names;
  FieldPath ports_path = spec.Child("ports");
  for (size_t i = 0; i < svc.spec.ports.size(); ++i) {
    Append(&errs, ValidateServicePort(svc.spec.ports[i], svc.spec.ports.size() > 1, &port_names,
                                      ports_path.Index(static_cast<int64_t>(i))));
  }

  Append(&errs, ValidateLabels(svc.spec.selector, spec.Child("selector")));

  const std::string& affinity = svc.spec.session_affinity;
  if (affinity.empty()) {
    errs.push_back(Required(spec.Child("sessionAffinity")));
  } else if (affinity != "ClientIP" && affinity != "None") {
    errs.push_back(NotSupported(spec.Child("sessionAffinity"), affinity, {"ClientIP", "None"}));
  }
  if (affinity == "ClientIP") {
    Append(&errs, ValidateClientIPAffinityConfig(svc.spec.session_affinity_config,
                                                 spec.Child("sessionAffinityConfig")));
  } else if (affinity == "None" && svc.spec.session_affinity_config) {
    errs.push_back(Forbidden(spec.Child("sessionAffinityConfig"),
                             "must not be set when session affinity is None"));
  }

  Append(&errs, ValidateClusterIPsRelatedFields(svc));

  for (size_t i = 0; i < svc.spec.external_ips.size(); ++i) {
    FieldPath idx = spec.Child("externalIPs").Index(static_cast<int64_t>(i));
    FieldErrorList e = IsValidIP(idx, svc.spec.external_ips[i]);
    if (!e.empty()) {
      Append(&errs, std::move(e));
    } else {
      Append(&errs, internal::NonSpecialIP(svc.spec.external_ips[i], idx));
    }
  }

  const std::string& type = svc.spec.type;
  if (type.empty()) {
    errs.push_back(Required(spec.Child("type")));
  } else if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer" &&
             type != "ExternalName") {
    errs.push_back(NotSupported(spec.Child("type"), type,
                                {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}));
  }
  if (type == "ClusterIP") {
    for (size_t i = 0; i < svc.spec.ports.size(); ++i) {
      if (svc.spec.ports[i].node_port != 0) {
        errs.push_back(Forbidden(ports_path.Index(static_cast<int64_t>(i)).Child("nodePort"),
                                 "may not be used when `type` is 'ClusterIP'"));
      }
    }
  }

  std::set<std::pair<std::string, int32_t>> node_ports;
  for (size_t i = 0; i < svc.spec.ports.size(); ++i) {
    const ServicePort& p = svc.spec.ports[i];
    if (p.node_port == 0) continue;
    if (!node_ports.insert({p.protocol, p.node_port}).second) {
      errs.push_back(
          Duplicate(ports_path.Index(static_cast<int64_t>(i)).Child("nodePort"), p.node_port));
    }
  }
  std::set<std::pair<std::string, int32_t>> ports;
  for (size_t i = 0; i < svc.spec.ports.size(); ++i) {
    const ServicePort& p = svc.spec.ports[i];
    if (!ports.insert({p.protocol, p.port}).second) {
      errs.push_back(FieldError{FieldErrorType::kDuplicate,
                                ports_path.Index(static_cast<int64_t>(i)).String(),
                                RenderPortKey(p), ""});
    }
  }

  Append(&errs, ValidateSourceRanges(svc));

  if (svc.spec.allocate_load_balancer_node_ports && type != "LoadBalancer") {
    errs.push_back(Forbidden(spec.Child("allocateLoadBalancerNodePorts"),
                             "may only be used when `type` is 'LoadBalancer'"));
  }
  if (type == "LoadBalancer" && !svc.spec.allocate_load_balancer_node_ports) {
    // Upstream's path has no "spec." here.
    errs.push_back(Required(Path("allocateLoadBalancerNodePorts")));
  }
  Append(&errs, ValidateLoadBalancerClass(nullptr, svc));
  Append(&errs, ValidateExternalTrafficPolicy(svc));

  if (!svc.spec.internal_traffic_policy) {
    if (type == "NodePort" || type == "LoadBalancer" || type == "ClusterIP") {
      errs.push_back(Required(spec.Child("internalTrafficPolicy")));
    }
  } else if (*svc.spec.internal_traffic_policy != "Cluster" &&
             *svc.spec.internal_traffic_policy != "Local") {
    errs.push_back(NotSupported(spec.Child("internalTrafficPolicy"),
                                *svc.spec.internal_traffic_policy, {"Cluster", "Local"}));
  }
  if (svc.spec.traffic_distribution && *svc.spec.traffic_distribution != "PreferClose") {
    errs.push_back(NotSupported(spec.Child("trafficDistribution"), *svc.spec.traffic_distribution,
                                {"PreferClose"}));
  }
  return errs;
}

// validateUpgradeDowngradeClusterIPs: the primary clusterIP never changes except around
// ExternalName; a secondary may be added, or released together with policy SingleStack.
FieldErrorList ValidateClusterIPsUpdate(const Service& old, const Service& svc) {
  FieldErrorList errs;
  if (svc.spec.type == "ExternalName" || old.spec.type == "ExternalName") return errs;
  if (IsHeadless(old) && IsHeadless(svc)) return errs;
  const auto& o = old.spec.cluster_ips;
  const auto& n = svc.spec.cluster_ips;
  FieldPath path = Path("spec").Child("clusterIPs");
  const std::string immutable = "may not change once set";
  if (o.size() == n.size()) {
    for (size_t i = 0; i < o.size(); ++i) {
      if (o[i] != n[i]) {
        errs.push_back(
            InvalidRendered(path.Index(static_cast<int64_t>(i)), GoStringSlice(n), immutable));
      }
    }
  } else if (o.size() > n.size()) {
    if (n.empty()) {
      errs.push_back(InvalidRendered(path.Index(0), GoStringSlice(n, true),
                                     "primary clusterIP can not be unset"));
    }
    if (!o.empty() && !n.empty() && n[0] != o[0]) {
      errs.push_back(InvalidRendered(path.Index(0), GoStringSlice(n), immutable));
    }
    if (n.size() == 1 && svc.spec.ip_family_policy.value_or("") != "SingleStack") {
      errs.push_back(InvalidRendered(Path("spec").Child("ipFamilyPolicy"),
                                     internal::RenderOptionalString(svc.spec.ip_family_policy),
                                     "must be set to 'SingleStack' when releasing the secondary "
                                     "clusterIP"));
    }
  } else if (!o.empty() && n[0] != o[0]) {
    errs.push_back(InvalidRendered(path.Index(0), GoStringSlice(n), immutable));
  }
  return errs;
}

FieldErrorList ValidateIPFamiliesUpdate(const Service& old, const Service& svc) {
  FieldErrorList errs;
  if (svc.spec.type == "ExternalName" || old.spec.type == "ExternalName") return errs;
  if (IsHeadless(old) != IsHeadless(svc) || IsHeadless(svc)) return errs;
  const auto& o = old.spec.ip_families;
  const auto& n = svc.spec.ip_families;
  FieldPath first = Path("spec").Child("ipFamilies").Index(0);
  const std::string immutable = "may not change once set";
  if (o.size() == n.size()) {
    for (size_t i = 0; i < o.size(); ++i) {
      if (o[i] != n[i]) errs.push_back(InvalidRendered(first, RenderIPFamilies(n), immutable));
    }
  } else if (o.size() > n.size()) {
    if (n.empty()) {
      errs.push_back(
          InvalidRendered(first, RenderIPFamilies(n), "primary ipFamily can not be unset"));
    }
    // Upstream prints clusterIPs as the bad value here.
    if (!n.empty() && n[0] != o[0]) {
      errs.push_back(InvalidRendered(first, GoStringSlice(svc.spec.cluster_ips), immutable));
    }
    if (n.size() == 1 && svc.spec.ip_family_policy.value_or("") != "SingleStack") {
      errs.push_back(InvalidRendered(Path("spec").Child("ipFamilyPolicy"),
                                     internal::RenderOptionalString(svc.spec.ip_family_policy),
                                     "must be set to 'SingleStack' when releasing the secondary "
                                     "ipFamily"));
    }
  } else if (!o.empty() && !n.empty() && n[0] != o[0]) {
    errs.push_back(InvalidRendered(first, GoStringSlice(svc.spec.cluster_ips), immutable));
  }
  return errs;
}

}  // namespace

FieldErrorList ValidateCreate(const Service& svc) { return ValidateService(svc); }

FieldErrorList ValidateUpdate(const Service& svc, const Service& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(svc.metadata, old.metadata, Path("metadata"));
  Append(&errs, ValidateClusterIPsUpdate(old, svc));
  Append(&errs, ValidateIPFamiliesUpdate(old, svc));
  Append(&errs, ValidateLoadBalancerClass(&old, svc));
  if (NeedsHealthCheck(old) && NeedsHealthCheck(svc) &&
      old.spec.health_check_node_port != svc.spec.health_check_node_port) {
    errs.push_back(Forbidden(Path("spec").Child("healthCheckNodePort"),
                             std::string(internal::kFieldImmutable)));
  }
  Append(&errs, ValidateService(svc));
  return errs;
}

FieldErrorList ValidateStatusUpdate(const Service& svc, const Service& old) {
  // status.loadBalancer.ingress is kept as raw JSON by the model, so its per-field rules
  // (ip/hostname/ipMode) are not checked here.
  return ValidateObjectMetaUpdate(svc.metadata, old.metadata, Path("metadata"));
}

}  // namespace svcplane::api::validation
