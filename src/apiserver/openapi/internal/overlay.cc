#include "apiserver/openapi/internal/overlay.h"

#include <string>

namespace svcplane::apiserver::openapi::internal {
namespace {

namespace json = boost::json;

// Compact notation expanded by Expand(): a string "@Name" in schema position is a reference to
// io.k8s.api.core.v1.Name ("@io.k8s..." for a full name); "s", "b", "i32", "i64" are scalars;
// ["@X"] / ["s"] is an array of that; {"map": X} a string-keyed map. Objects with "props" are
// structs. "mk"/"keys" give the patch merge key and list-map keys (strategy merge).
constexpr std::string_view kOverlay = R"json({
 "extend": {
  "Container": {
   "command": {"atomic": ["s"], "d": "Entrypoint array. Not executed within a shell."},
   "args": {"atomic": ["s"], "d": "Arguments to the entrypoint."},
   "workingDir": "s",
   "env": {"list": "@EnvVar", "mk": "name", "keys": ["name"],
           "d": "List of environment variables to set in the container."},
   "envFrom": {"atomic": ["@EnvFromSource"]},
   "resources": {"ref": "@ResourceRequirements",
                 "d": "Compute Resources required by this container."},
   "resizePolicy": {"atomic": ["@ContainerResizePolicy"]},
   "restartPolicy": "s",
   "volumeMounts": {"list": "@VolumeMount", "mk": "mountPath", "keys": ["mountPath"],
                    "d": "Pod volumes to mount into the container's filesystem."},
   "volumeDevices": {"list": "@VolumeDevice", "mk": "devicePath", "keys": ["devicePath"]},
   "livenessProbe": {"ref": "@Probe", "d": "Periodic probe of container liveness."},
   "readinessProbe": {"ref": "@Probe", "d": "Periodic probe of container service readiness."},
   "startupProbe": {"ref": "@Probe", "d": "StartupProbe indicates that the Pod has successfully initialized."},
   "lifecycle": "@Lifecycle",
   "securityContext": "@SecurityContext",
   "stdin": "b", "stdinOnce": "b", "tty": "b"
  },
  "PodSpec": {
   "volumes": {"list": "@Volume", "mk": "name", "keys": ["name"], "strategy": "merge,retainKeys",
               "d": "List of volumes that can be mounted by containers belonging to the pod."},
   "ephemeralContainers": {"list": "@Container", "mk": "name", "keys": ["name"]},
   "tolerations": {"atomic": ["@Toleration"], "d": "If specified, the pod's tolerations."},
   "imagePullSecrets": {"list": "@LocalObjectReference", "mk": "name", "keys": ["name"]},
   "hostAliases": {"list": "@HostAlias", "mk": "ip", "keys": ["ip"]},
   "topologySpreadConstraints": {"list": "@TopologySpreadConstraint", "mk": "topologyKey",
                                 "keys": ["topologyKey", "whenUnsatisfiable"]},
   "affinity": "@Affinity",
   "securityContext": "@PodSecurityContext",
   "dnsConfig": "@PodDNSConfig",
   "automountServiceAccountToken": "b", "hostPID": "b", "hostIPC": "b", "hostUsers": "b",
   "shareProcessNamespace": "b", "priorityClassName": "s", "runtimeClassName": "s",
   "overhead": {"map": "@io.k8s.apimachinery.pkg.api.resource.Quantity"},
   "os": {"props": {"name": "s"}},
   "schedulingGates": {"list": "@PodSchedulingGate", "mk": "name", "keys": ["name"],
                       "d": "SchedulingGates is an opaque list of values that if specified will block scheduling the pod."},
   "resourceClaims": {"list": "@PodResourceClaim", "mk": "name", "keys": ["name"],
                      "strategy": "merge,retainKeys",
                      "d": "ResourceClaims defines which ResourceClaims must be allocated and reserved before the Pod is allowed to start."}
  },
  "PodStatus": {
   "resourceClaimStatuses": {"list": "@PodResourceClaimStatus", "mk": "name", "keys": ["name"],
                             "strategy": "merge,retainKeys",
                             "d": "Status of resource claims."}
  }
 },
 "components": {
  "PodSchedulingGate": {"props": {"name": "s"}, "req": ["name"]},
  "PodResourceClaim": {"props": {"name": "s", "resourceClaimName": "s",
                                 "resourceClaimTemplateName": "s"}, "req": ["name"]},
  "PodResourceClaimStatus": {"props": {"name": "s", "resourceClaimName": "s"}, "req": ["name"]},
  "EnvVar": {"props": {"name": "s", "value": "s", "valueFrom": "@EnvVarSource"}, "req": ["name"]},
  "EnvVarSource": {"props": {"fieldRef": "@ObjectFieldSelector",
                             "resourceFieldRef": "@ResourceFieldSelector",
                             "configMapKeyRef": "@ConfigMapKeySelector",
                             "secretKeyRef": "@SecretKeySelector"}},
  "ObjectFieldSelector": {"props": {"apiVersion": "s", "fieldPath": "s"}, "req": ["fieldPath"]},
  "ResourceFieldSelector": {"props": {"containerName": "s", "resource": "s",
                            "divisor": "@io.k8s.apimachinery.pkg.api.resource.Quantity"}},
  "ConfigMapKeySelector": {"props": {"name": "s", "key": "s", "optional": "b"}},
  "SecretKeySelector": {"props": {"name": "s", "key": "s", "optional": "b"}},
  "EnvFromSource": {"props": {"prefix": "s", "configMapRef": "@ConfigMapEnvSource",
                              "secretRef": "@SecretEnvSource"}},
  "ConfigMapEnvSource": {"props": {"name": "s", "optional": "b"}},
  "SecretEnvSource": {"props": {"name": "s", "optional": "b"}},
  "ResourceRequirements": {"props": {
     "limits": {"map": "@io.k8s.apimachinery.pkg.api.resource.Quantity"},
     "requests": {"map": "@io.k8s.apimachinery.pkg.api.resource.Quantity"},
     "claims": {"list": "@ResourceClaim", "keys": ["name"]}}},
  "ResourceClaim": {"props": {"name": "s"}, "req": ["name"]},
  "ContainerResizePolicy": {"props": {"resourceName": "s", "restartPolicy": "s"}},
  "VolumeMount": {"props": {"name": "s", "mountPath": "s", "subPath": "s", "subPathExpr": "s",
                            "readOnly": "b", "mountPropagation": "s",
                            "recursiveReadOnly": "s"}, "req": ["name", "mountPath"]},
  "VolumeDevice": {"props": {"name": "s", "devicePath": "s"}},
  "Probe": {"props": {"exec": "@ExecAction", "httpGet": "@HTTPGetAction",
                      "tcpSocket": "@TCPSocketAction", "grpc": "@GRPCAction",
                      "initialDelaySeconds": "i32", "timeoutSeconds": "i32",
                      "periodSeconds": "i32", "successThreshold": "i32",
                      "failureThreshold": "i32", "terminationGracePeriodSeconds": "i64"}},
  "ExecAction": {"props": {"command": {"atomic": ["s"]}}},
  "HTTPGetAction": {"props": {"path": "s",
                              "port": "@io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                              "host": "s", "scheme": "s",
                              "httpHeaders": {"atomic": ["@HTTPHeader"]}}, "req": ["port"]},
  "HTTPHeader": {"props": {"name": "s", "value": "s"}},
  "TCPSocketAction": {"props": {"port": "@io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                                "host": "s"}, "req": ["port"]},
  "GRPCAction": {"props": {"port": "i32", "service": "s"}},
  "SleepAction": {"props": {"seconds": "i64"}},
  "Lifecycle": {"props": {"postStart": "@LifecycleHandler", "preStop": "@LifecycleHandler"}},
  "LifecycleHandler": {"props": {"exec": "@ExecAction", "httpGet": "@HTTPGetAction",
                                 "tcpSocket": "@TCPSocketAction", "sleep": "@SleepAction"}},
  "Capabilities": {"props": {"add": {"atomic": ["s"]}, "drop": {"atomic": ["s"]}}},
  "SeccompProfile": {"props": {"type": "s", "localhostProfile": "s"}},
  "SELinuxOptions": {"props": {"user": "s", "role": "s", "type": "s", "level": "s"}},
  "SecurityContext": {"props": {"capabilities": "@Capabilities", "privileged": "b",
                                "runAsUser": "i64", "runAsGroup": "i64", "runAsNonRoot": "b",
                                "readOnlyRootFilesystem": "b", "allowPrivilegeEscalation": "b",
                                "procMount": "s", "seccompProfile": "@SeccompProfile",
                                "seLinuxOptions": "@SELinuxOptions"}},
  "Sysctl": {"props": {"name": "s", "value": "s"}},
  "PodSecurityContext": {"props": {"runAsUser": "i64", "runAsGroup": "i64",
                                   "runAsNonRoot": "b", "fsGroup": "i64",
                                   "fsGroupChangePolicy": "s",
                                   "supplementalGroups": {"atomic": ["i64"]},
                                   "seccompProfile": "@SeccompProfile",
                                   "seLinuxOptions": "@SELinuxOptions",
                                   "sysctls": {"atomic": ["@Sysctl"]}}},
  "Toleration": {"props": {"key": "s", "operator": "s", "value": "s", "effect": "s",
                           "tolerationSeconds": "i64"}},
  "LocalObjectReference": {"props": {"name": "s"}},
  "HostAlias": {"props": {"ip": "s", "hostnames": {"atomic": ["s"]}}, "req": ["ip"]},
  "PodDNSConfigOption": {"props": {"name": "s", "value": "s"}},
  "PodDNSConfig": {"props": {"nameservers": {"atomic": ["s"]}, "searches": {"atomic": ["s"]},
                             "options": {"atomic": ["@PodDNSConfigOption"]}}},
  "LabelSelectorRequirement": {"full": "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
                               "props": {"key": "s", "operator": "s",
                                         "values": {"atomic": ["s"]}}, "req": ["key", "operator"]},
  "LabelSelector": {"full": "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
                    "props": {"matchLabels": {"map": "s"},
                              "matchExpressions": {"atomic": ["@io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"]}}},
  "TopologySpreadConstraint": {"props": {"maxSkew": "i32", "topologyKey": "s",
                                         "whenUnsatisfiable": "s",
                                         "labelSelector": "@io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
                                         "minDomains": "i32", "nodeAffinityPolicy": "s",
                                         "nodeTaintsPolicy": "s",
                                         "matchLabelKeys": {"atomic": ["s"]}},
                               "req": ["maxSkew", "topologyKey", "whenUnsatisfiable"]},
  "NodeSelectorRequirement": {"props": {"key": "s", "operator": "s",
                                        "values": {"atomic": ["s"]}}, "req": ["key", "operator"]},
  "NodeSelectorTerm": {"props": {"matchExpressions": {"atomic": ["@NodeSelectorRequirement"]},
                                 "matchFields": {"atomic": ["@NodeSelectorRequirement"]}}},
  "NodeSelector": {"props": {"nodeSelectorTerms": {"atomic": ["@NodeSelectorTerm"]}}},
  "PreferredSchedulingTerm": {"props": {"weight": "i32", "preference": "@NodeSelectorTerm"}},
  "NodeAffinity": {"props": {
     "requiredDuringSchedulingIgnoredDuringExecution": "@NodeSelector",
     "preferredDuringSchedulingIgnoredDuringExecution": {"atomic": ["@PreferredSchedulingTerm"]}}},
  "PodAffinityTerm": {"props": {
     "labelSelector": "@io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
     "namespaceSelector": "@io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
     "namespaces": {"atomic": ["s"]}, "topologyKey": "s",
     "matchLabelKeys": {"atomic": ["s"]}, "mismatchLabelKeys": {"atomic": ["s"]}},
     "req": ["topologyKey"]},
  "WeightedPodAffinityTerm": {"props": {"weight": "i32", "podAffinityTerm": "@PodAffinityTerm"}},
  "PodAffinity": {"props": {
     "requiredDuringSchedulingIgnoredDuringExecution": {"atomic": ["@PodAffinityTerm"]},
     "preferredDuringSchedulingIgnoredDuringExecution": {"atomic": ["@WeightedPodAffinityTerm"]}}},
  "PodAntiAffinity": {"props": {
     "requiredDuringSchedulingIgnoredDuringExecution": {"atomic": ["@PodAffinityTerm"]},
     "preferredDuringSchedulingIgnoredDuringExecution": {"atomic": ["@WeightedPodAffinityTerm"]}}},
  "Affinity": {"props": {"nodeAffinity": "@NodeAffinity", "podAffinity": "@PodAffinity",
                         "podAntiAffinity": "@PodAntiAffinity"}},
  "KeyToPath": {"props": {"key": "s", "path": "s", "mode": "i32"}, "req": ["key", "path"]},
  "EmptyDirVolumeSource": {"props": {"medium": "s",
                           "sizeLimit": "@io.k8s.apimachinery.pkg.api.resource.Quantity"}},
  "ConfigMapVolumeSource": {"props": {"name": "s", "items": {"atomic": ["@KeyToPath"]},
                                      "defaultMode": "i32", "optional": "b"}},
  "SecretVolumeSource": {"props": {"secretName": "s", "items": {"atomic": ["@KeyToPath"]},
                                   "defaultMode": "i32", "optional": "b"}},
  "HostPathVolumeSource": {"props": {"path": "s", "type": "s"}, "req": ["path"]},
  "PersistentVolumeClaimVolumeSource": {"props": {"claimName": "s", "readOnly": "b"}},
  "DownwardAPIVolumeFile": {"props": {"path": "s", "fieldRef": "@ObjectFieldSelector",
                                      "resourceFieldRef": "@ResourceFieldSelector",
                                      "mode": "i32"}, "req": ["path"]},
  "DownwardAPIVolumeSource": {"props": {"items": {"atomic": ["@DownwardAPIVolumeFile"]},
                                        "defaultMode": "i32"}},
  "ServiceAccountTokenProjection": {"props": {"audience": "s", "expirationSeconds": "i64",
                                              "path": "s"}},
  "VolumeProjection": {"props": {"configMap": "@ConfigMapVolumeSource",
                                 "secret": "@SecretVolumeSource",
                                 "downwardAPI": "@DownwardAPIVolumeSource",
                                 "serviceAccountToken": "@ServiceAccountTokenProjection"}},
  "ProjectedVolumeSource": {"props": {"sources": {"atomic": ["@VolumeProjection"]},
                                      "defaultMode": "i32"}},
  "Volume": {"props": {"name": "s", "emptyDir": "@EmptyDirVolumeSource",
                       "configMap": "@ConfigMapVolumeSource", "secret": "@SecretVolumeSource",
                       "hostPath": "@HostPathVolumeSource",
                       "persistentVolumeClaim": "@PersistentVolumeClaimVolumeSource",
                       "downwardAPI": "@DownwardAPIVolumeSource",
                       "projected": "@ProjectedVolumeSource"},
             "req": ["name"], "preserve": true}
 }
})json";

std::string FullName(std::string_view n) {
  if (n.find('.') != std::string_view::npos) return std::string(n);
  return "io.k8s.api.core.v1." + std::string(n);
}

json::object Ref(std::string_view at_name) {
  return {{"allOf", json::array{json::object{
                        {"$ref", "#/components/schemas/" + FullName(at_name.substr(1))}}}}};
}

json::value Expand(const json::value& v);

json::object Scalar(std::string_view s) {
  if (s == "s") return {{"type", "string"}};
  if (s == "b") return {{"type", "boolean"}};
  if (s == "i32") return {{"type", "integer"}, {"format", "int32"}};
  if (s == "i64") return {{"type", "integer"}, {"format", "int64"}};
  return Ref(s);  // "@Name"
}

json::object Struct(const json::object& o) {
  json::object s{{"type", "object"}};
  json::object props;
  for (const auto& [k, v] : o.at("props").as_object()) props[k] = Expand(v);
  s["properties"] = std::move(props);
  if (o.contains("req")) s["required"] = o.at("req");
  if (o.contains("preserve")) s["x-kubernetes-preserve-unknown-fields"] = true;
  return s;
}

json::value Expand(const json::value& v) {
  if (v.is_string()) return Scalar(v.as_string());
  const json::object& o = v.as_object();
  json::object out;
  if (o.contains("props")) {
    out = Struct(o);
  } else if (o.contains("ref")) {
    out = Scalar(o.at("ref").as_string());
  } else if (o.contains("map")) {
    out = {{"type", "object"}, {"additionalProperties", Expand(o.at("map"))}};
  } else if (o.contains("atomic")) {
    out = {{"type", "array"},
           {"items", Expand(o.at("atomic").at(0))},
           {"x-kubernetes-list-type", "atomic"}};
  } else if (o.contains("list")) {
    out = {{"type", "array"}, {"items", Expand(o.at("list"))}};
    out["x-kubernetes-list-type"] = "map";
    out["x-kubernetes-list-map-keys"] = o.at("keys");
    if (o.contains("mk")) {
      out["x-kubernetes-patch-merge-key"] = o.at("mk");
      out["x-kubernetes-patch-strategy"] = o.contains("strategy") ? o.at("strategy") : "merge";
    }
  }
  if (o.contains("d")) out["description"] = o.at("d");
  return out;
}

struct Parsed {
  json::object extend;      // full component name → properties
  json::object components;  // full component name → schema
};

const Parsed& Get() {
  static const Parsed* p = [] {
    auto* out = new Parsed;
    json::object root = json::parse(kOverlay).as_object();
    for (const auto& [name, props] : root.at("extend").as_object()) {
      json::object expanded;
      for (const auto& [k, v] : props.as_object()) expanded[k] = Expand(v);
      out->extend[FullName(name)] = std::move(expanded);
    }
    for (const auto& [name, schema] : root.at("components").as_object()) {
      const auto& o = schema.as_object();
      std::string full =
          o.contains("full") ? std::string(o.at("full").as_string()) : FullName(name);
      out->components[full] = Struct(o);
    }
    return out;
  }();
  return *p;
}

}  // namespace

const boost::json::object* OverlayProperties(std::string_view schema) {
  const auto& e = Get().extend;
  auto it = e.find(json::string_view(schema.data(), schema.size()));
  return it == e.end() ? nullptr : &it->value().as_object();
}

const boost::json::object& OverlayComponents() { return Get().components; }

}  // namespace svcplane::apiserver::openapi::internal
