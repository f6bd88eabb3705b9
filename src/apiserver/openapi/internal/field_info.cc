#include "apiserver/openapi/internal/field_info.h"

#include <map>
#include <set>
#include <string>
#include <utility>

namespace svcplane::apiserver::openapi::internal {
namespace {

using Key = std::pair<std::string, std::string>;

constexpr std::string_view kCore = "io.k8s.api.core.v1.";
constexpr std::string_view kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";
constexpr std::string_view kDisc = "io.k8s.api.discovery.v1.";
constexpr std::string_view kCoord = "io.k8s.api.coordination.v1.";
constexpr std::string_view kRbac = "io.k8s.api.rbac.v1.";
constexpr std::string_view kApps = "io.k8s.api.apps.v1.";

std::string N(std::string_view prefix, std::string_view type) {
  return std::string(prefix) + std::string(type);
}

// Doc strings shortened from upstream's; list metadata copied from the +listType/+patch markers
// of k8s.io/api (api-wire §10).
constexpr std::string_view kKindDoc =
    "Kind is a string value representing the REST resource this object represents. Servers may "
    "infer this from the endpoint the client submits requests to. Cannot be updated. In "
    "CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#types-kinds";
constexpr std::string_view kApiVersionDoc =
    "APIVersion defines the versioned schema of this representation of an object. Servers "
    "should convert recognized schemas to the latest internal value, and may reject "
    "unrecognized values. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#resources";
constexpr std::string_view kMetadataDoc =
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";
constexpr std::string_view kListMetaDoc =
    "Standard list metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#types-kinds";

struct Tables {
  std::map<Key, FieldInfo> fields;
  std::map<std::string, std::string_view, std::less<>> types;
  std::set<std::string, std::less<>> partial;
};

FieldInfo Doc(std::string_view d) { return FieldInfo{d, {}, {}, {}, {}, false}; }
FieldInfo Req(std::string_view d) { return FieldInfo{d, {}, {}, {}, {}, true}; }
FieldInfo MapList(std::string_view d, std::string_view merge_key,
                  std::vector<std::string_view> keys, std::string_view strategy = "merge") {
  return FieldInfo{d, merge_key, strategy, "map", std::move(keys), false};
}
FieldInfo Atomic(std::string_view d) { return FieldInfo{d, {}, {}, "atomic", {}, false}; }
FieldInfo Set(std::string_view d, std::string_view strategy = {}) {
  return FieldInfo{d, {}, strategy, "set", {}, false};
}

Tables Build() {
  Tables t;
  auto f = [&](std::string_view prefix, std::string_view type, std::string_view field,
               FieldInfo info) {
    t.fields[{N(prefix, type), std::string(field)}] = std::move(info);
  };
  auto ty = [&](std::string_view prefix, std::string_view type, std::string_view doc) {
    t.types[N(prefix, type)] = doc;
  };

  // Every kind and list: kind, apiVersion, metadata, items.
  for (auto [prefix, kind] :
       std::vector<std::pair<std::string_view, std::string_view>>{{kCore, "Pod"},
                                                                  {kCore, "Service"},
                                                                  {kCore, "Node"},
                                                                  {kCore, "Endpoints"},
                                                                  {kCore, "Event"},
                                                                  {kCore, "Namespace"},
                                                                  {kDisc, "EndpointSlice"},
                                                                  {kCoord, "Lease"},
                                                                  {kRbac, "Role"},
                                                                  {kRbac, "ClusterRole"},
                                                                  {kRbac, "RoleBinding"},
                                                                  {kRbac, "ClusterRoleBinding"},
                                                                  {kApps, "Deployment"},
                                                                  {kApps, "ReplicaSet"},
                                                                  {kCore, "ConfigMap"},
                                                                  {kCore, "Secret"},
                                                                  {kCore, "ServiceAccount"}}) {
    f(prefix, kind, "kind", Doc(kKindDoc));
    f(prefix, kind, "apiVersion", Doc(kApiVersionDoc));
    f(prefix, kind, "metadata", Doc(kMetadataDoc));
    std::string list = std::string(kind) + "List";
    t.fields[{N(prefix, list), "kind"}] = Doc(kKindDoc);
    t.fields[{N(prefix, list), "apiVersion"}] = Doc(kApiVersionDoc);
    t.fields[{N(prefix, list), "metadata"}] = Doc(kListMetaDoc);
    t.fields[{N(prefix, list), "items"}] = Req("Items is the list of objects.");
    t.types[N(prefix, list)] = "A list of objects of one kind.";
  }
  f(kMeta, "Status", "kind", Doc(kKindDoc));
  f(kMeta, "Status", "apiVersion", Doc(kApiVersionDoc));

  // meta.v1
  ty(kMeta, "ObjectMeta",
     "ObjectMeta is metadata that all persisted resources must have, which includes all objects "
     "users must create.");
  f(kMeta, "ObjectMeta", "name",
    Doc("Name must be unique within a namespace. Is required when creating resources, although "
        "some resources may allow a client to request the generation of an appropriate name "
        "automatically. Cannot be updated."));
  f(kMeta, "ObjectMeta", "generateName",
    Doc("GenerateName is an optional prefix, used by the server, to generate a unique name ONLY "
        "IF the Name field has not been provided."));
  f(kMeta, "ObjectMeta", "namespace",
    Doc("Namespace defines the space within which each name must be unique. An empty namespace "
        "is equivalent to the \"default\" namespace. Cannot be updated."));
  f(kMeta, "ObjectMeta", "uid",
    Doc("UID is the unique in time and space value for this object. Populated by the system. "
        "Read-only."));
  f(kMeta, "ObjectMeta", "resourceVersion",
    Doc("An opaque value that represents the internal version of this object, used for "
        "optimistic concurrency and watch. Populated by the system. Read-only."));
  f(kMeta, "ObjectMeta", "generation",
    Doc("A sequence number representing a specific generation of the desired state. Populated "
        "by the system. Read-only."));
  f(kMeta, "ObjectMeta", "creationTimestamp",
    Doc("CreationTimestamp is a timestamp representing the server time when this object was "
        "created. Populated by the system. Read-only. Null for lists."));
  f(kMeta, "ObjectMeta", "deletionTimestamp",
    Doc("DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. "
        "Set by the server when a graceful deletion is requested by the user."));
  f(kMeta, "ObjectMeta", "labels",
    Doc("Map of string keys and values that can be used to organize and categorize (scope and "
        "select) objects. May match selectors of replication controllers and services."));
  f(kMeta, "ObjectMeta", "annotations",
    Doc("Annotations is an unstructured key value map stored with a resource that may be set by "
        "external tools to store and retrieve arbitrary metadata."));
  f(kMeta, "ObjectMeta", "ownerReferences",
    MapList("List of objects depended by this object. If ALL objects in the list have been "
            "deleted, this object will be garbage collected.",
            "uid", {"uid"}));
  f(kMeta, "ObjectMeta", "finalizers",
    Set("Must be empty before the object is deleted from the registry. Each entry is an "
        "identifier for the responsible component that will remove the entry from the list.",
        "merge"));
  f(kMeta, "ObjectMeta", "managedFields",
    Atomic("ManagedFields maps workflow-id and version to the set of fields that are managed by "
           "that workflow."));
  f(kMeta, "OwnerReference", "apiVersion", Req("API version of the referent."));
  f(kMeta, "OwnerReference", "kind", Req("Kind of the referent."));
  f(kMeta, "OwnerReference", "name", Req("Name of the referent."));
  f(kMeta, "OwnerReference", "uid", Req("UID of the referent."));
  f(kMeta, "OwnerReference", "controller",
    Doc("If true, this reference points to the managing "
        "controller."));
  ty(kMeta, "ListMeta", "ListMeta describes metadata that synthetic resources must have.");
  ty(kMeta, "Status", "Status is a return value for calls that don't return other objects.");
  f(kMeta, "StatusDetails", "causes", Atomic("The Causes array includes more details."));

  // core.v1 Service
  ty(kCore, "Service",
     "Service is a named abstraction of software service (for example, mysql) consisting of "
     "local port (for example 3306) that the proxy listens on, and the selector that "
     "determines which pods will answer requests sent through the proxy.");
  f(kCore, "Service", "spec",
    Doc("Spec defines the behavior of a service. "
        "https://git.k8s.io/community/contributors/devel/sig-architecture/"
        "api-conventions.md#spec-and-status"));
  f(kCore, "Service", "status",
    Doc("Most recently observed status of the service. Populated by the system. Read-only."));
  ty(kCore, "ServiceSpec",
     "ServiceSpec describes the attributes that a user creates on a "
     "service.");
  f(kCore, "ServiceSpec", "ports",
    MapList("The list of ports that are exposed by this service. More info: "
            "https://kubernetes.io/docs/concepts/services-networking/"
            "service/#virtual-ips-and-service-proxies",
            "port", {"port", "protocol"}));
  f(kCore, "ServiceSpec", "selector",
    Doc("Route service traffic to pods with label keys and values matching this selector. If "
        "empty or not present, the service is assumed to have an external process managing its "
        "endpoints, which Kubernetes will not modify."));
  f(kCore, "ServiceSpec", "clusterIP",
    Doc("clusterIP is the IP address of the service and is usually assigned randomly. If an "
        "address is specified manually, is in-range, and is not in use, it will be allocated "
        "to the service; otherwise creation of the service will fail. \"None\" makes a "
        "headless service."));
  f(kCore, "ServiceSpec", "clusterIPs",
    Atomic("ClusterIPs is a list of IP addresses assigned to this service; the first one "
           "matches clusterIP."));
  f(kCore, "ServiceSpec", "type",
    Doc("type determines how the Service is exposed. Defaults to ClusterIP. Valid options are "
        "ExternalName, ClusterIP, NodePort, and LoadBalancer."));
  f(kCore, "ServiceSpec", "externalIPs",
    Atomic("externalIPs is a list of IP addresses for which nodes in the cluster will also "
           "accept traffic for this service."));
  f(kCore, "ServiceSpec", "sessionAffinity",
    Doc("Supports \"ClientIP\" and \"None\". Used to maintain session affinity. Defaults to "
        "None."));
  f(kCore, "ServiceSpec", "loadBalancerSourceRanges",
    Atomic("If specified and supported by the platform, traffic through the cloud-provider "
           "load-balancer will be restricted to the specified client IPs."));
  f(kCore, "ServiceSpec", "externalName",
    Doc("externalName is the external reference that discovery mechanisms will return as an "
        "alias for this service (e.g. a DNS CNAME record). Requires `type` to be "
        "\"ExternalName\"."));
  f(kCore, "ServiceSpec", "externalTrafficPolicy",
    Doc("externalTrafficPolicy describes how nodes distribute service traffic they receive on "
        "one of the Service's \"externally-facing\" addresses: Cluster or Local."));
  f(kCore, "ServiceSpec", "publishNotReadyAddresses",
    Doc("publishNotReadyAddresses indicates that any agent which deals with endpoints for this "
        "Service should disregard any indications of ready/not-ready."));
  f(kCore, "ServiceSpec", "ipFamilies",
    Atomic("IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service."));
  f(kCore, "ServiceSpec", "ipFamilyPolicy",
    Doc("IPFamilyPolicy represents the dual-stack-ness requested or required by this Service: "
        "SingleStack, PreferDualStack or RequireDualStack."));
  f(kCore, "ServiceSpec", "internalTrafficPolicy",
    Doc("InternalTrafficPolicy describes how nodes distribute service traffic they receive on "
        "the ClusterIP: Cluster or Local."));
  ty(kCore, "ServicePort", "ServicePort contains information on service's port.");
  f(kCore, "ServicePort", "name",
    Doc("The name of this port within the service. This must be a DNS_LABEL. All ports within a "
        "ServiceSpec must have unique names."));
  f(kCore, "ServicePort", "protocol",
    Doc("The IP protocol for this port. Supports \"TCP\", \"UDP\", and \"SCTP\". Default is "
        "TCP."));
  f(kCore, "ServicePort", "appProtocol", Doc("The application protocol for this port."));
  f(kCore, "ServicePort", "port", Req("The port that will be exposed by this service."));
  f(kCore, "ServicePort", "targetPort",
    Doc("Number or name of the port to access on the pods targeted by the service. Number must "
        "be in the range 1 to 65535. Name must be an IANA_SVC_NAME. If this is a string, it "
        "will be looked up as a named port in the target Pod's container ports. If this is not "
        "specified, the value of the 'port' field is used (an identity map)."));
  f(kCore, "ServicePort", "nodePort",
    Doc("The port on each node on which this service is exposed when type is NodePort or "
        "LoadBalancer. Usually assigned by the system."));
  f(kCore, "ServiceStatus", "loadBalancer",
    Doc("LoadBalancer contains the current status of the load-balancer, if one is present."));
  f(kCore, "ServiceStatus", "conditions", MapList("Current service state", "type", {"type"}));

  // core.v1 Pod
  ty(kCore, "Pod",
     "Pod is a collection of containers that can run on a host. This resource is created by "
     "clients and scheduled onto hosts.");
  f(kCore, "Pod", "spec", Doc("Specification of the desired behavior of the pod."));
  f(kCore, "Pod", "status",
    Doc("Most recently observed status of the pod. This data may not be up to date. Populated "
        "by the system. Read-only."));
  f(kCore, "PodSpec", "volumes",
    MapList("List of volumes that can be mounted by containers belonging to the pod.", "name",
            {"name"}, "merge,retainKeys"));
  f(kCore, "PodSpec", "initContainers",
    MapList("List of initialization containers belonging to the pod.", "name", {"name"}));
  f(kCore, "PodSpec", "containers",
    FieldInfo{"List of containers belonging to the pod. Containers cannot currently be added or "
              "removed. There must be at least one container in a Pod. Cannot be updated.",
              "name",
              "merge",
              "map",
              {"name"},
              true});
  f(kCore, "PodSpec", "restartPolicy",
    Doc("Restart policy for all containers within the pod. One of Always, OnFailure, Never."));
  f(kCore, "PodSpec", "nodeName",
    Doc("NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
        "candidate for scheduling by the scheduler defined in schedulerName."));
  f(kCore, "PodSpec", "nodeSelector",
    Doc("NodeSelector is a selector which must be true for the pod to fit on a node."));
  f(kCore, "PodSpec", "tolerations", Atomic("If specified, the pod's tolerations."));
  f(kCore, "PodSpec", "readinessGates",
    Atomic("If specified, all readiness gates will be evaluated for pod readiness."));
  f(kCore, "PodSpec", "hostname", Doc("Specifies the hostname of the Pod."));
  f(kCore, "PodSpec", "subdomain",
    Doc("If specified, the fully qualified Pod hostname will be "
        "\"<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>\"."));
  f(kCore, "Container", "name",
    Req("Name of the container specified as a DNS_LABEL. Each container in a pod must have a "
        "unique name. Cannot be updated."));
  f(kCore, "Container", "image", Doc("Container image name."));
  f(kCore, "Container", "ports",
    MapList("List of ports to expose from the container.", "containerPort",
            {"containerPort", "protocol"}));
  f(kCore, "Container", "resources",
    Doc("Compute Resources required by this container. Cannot be updated."));
  f(kCore, "ContainerPort", "name",
    Doc("If specified, this must be an IANA_SVC_NAME and unique within the pod. Each named port "
        "in a pod must have a unique name. Name for the port that can be referred to by "
        "services."));
  f(kCore, "ContainerPort", "containerPort",
    Req("Number of port to expose on the pod's IP address. This must be a valid port number, 0 "
        "< x < 65536."));
  f(kCore, "ContainerPort", "protocol",
    Doc("Protocol for port. Must be UDP, TCP, or SCTP. Defaults to \"TCP\"."));
  f(kCore, "ContainerPort", "hostPort", Doc("Number of port to expose on the host."));
  f(kCore, "PodReadinessGate", "conditionType",
    Req("ConditionType refers to a condition in the pod's condition list with matching type."));
  f(kCore, "PodStatus", "phase",
    Doc("The phase of a Pod is a simple, high-level summary of where the Pod is in its "
        "lifecycle: Pending, Running, Succeeded, Failed or Unknown."));
  f(kCore, "PodStatus", "conditions", MapList("Current service state of pod.", "type", {"type"}));
  f(kCore, "PodStatus", "podIP",
    Doc("podIP address allocated to the pod. Routable at least within the cluster. Empty if "
        "not yet allocated."));
  f(kCore, "PodStatus", "podIPs",
    MapList("podIPs holds the IP addresses allocated to the pod.", "ip", {"ip"}));
  f(kCore, "PodStatus", "hostIPs",
    // +patchStrategy=merge +patchMergeKey=ip, but +listType=atomic wins (spec §3).
    FieldInfo{"hostIPs holds the IP addresses allocated to the host.",
              "ip",
              "merge",
              "atomic",
              {},
              false});
  f(kCore, "PodStatus", "containerStatuses",
    Atomic("The list has one entry per container in the manifest."));
  f(kCore, "PodStatus", "initContainerStatuses",
    Atomic("The list has one entry per init container in the manifest."));
  for (auto c : {"PodCondition", "NodeCondition", "NamespaceCondition"}) {
    f(kCore, c, "type", Req("Type of the condition."));
    f(kCore, c, "status", Req("Status of the condition: True, False or Unknown."));
  }

  // core.v1 Node
  ty(kCore, "Node",
     "Node is a worker node in Kubernetes. Each node will have a unique identifier "
     "in the cache (i.e. in etcd).");
  f(kCore, "NodeSpec", "podCIDRs",
    Set("podCIDRs represents the IP ranges assigned to the node for usage by Pods on that node.",
        "merge"));
  f(kCore, "NodeSpec", "taints", Atomic("If specified, the node's taints."));
  f(kCore, "NodeSpec", "unschedulable",
    Doc("Unschedulable controls node schedulability of new pods."));
  f(kCore, "NodeStatus", "conditions",
    MapList("Conditions is an array of current observed node conditions.", "type", {"type"}));
  f(kCore, "NodeStatus", "addresses",
    MapList("List of addresses reachable to the node.", "type", {"type"}));
  f(kCore, "NodeStatus", "images", Atomic("List of container images on this node"));
  f(kCore, "NodeAddress", "type",
    Req("Node address type, one of Hostname, ExternalIP or "
        "InternalIP."));
  f(kCore, "NodeAddress", "address", Req("The node address."));
  f(kCore, "DaemonEndpoint", "Port", Req("Port number of the given endpoint."));
  for (auto field :
       {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
        "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"}) {
    f(kCore, "NodeSystemInfo", field, Req(""));
  }
  f(kCore, "Taint", "key", Req("The taint key to be applied to a node."));
  f(kCore, "Taint", "effect",
    Req("The effect of the taint on pods that do not tolerate the taint: NoSchedule, "
        "PreferNoSchedule or NoExecute."));

  // core.v1 Endpoints
  ty(kCore, "Endpoints",
     "Endpoints is a collection of endpoints that implement the actual "
     "service.");
  f(kCore, "Endpoints", "subsets",
    Atomic("The set of all endpoints is the union of all subsets. Addresses are placed into "
           "subsets according to the IPs they share."));
  f(kCore, "EndpointSubset", "addresses",
    Atomic("IP addresses which offer the related ports that are marked as ready."));
  f(kCore, "EndpointSubset", "notReadyAddresses",
    Atomic("IP addresses which offer the related ports but are not currently marked as "
           "ready."));
  f(kCore, "EndpointSubset", "ports",
    Atomic("Port numbers available on the related IP "
           "addresses."));
  f(kCore, "EndpointAddress", "ip", Req("The IP of this endpoint."));
  f(kCore, "EndpointPort", "port", Req("The port number of the endpoint."));

  // core.v1 Event and Namespace
  ty(kCore, "Event", "Event is a report of an event somewhere in the cluster.");
  f(kCore, "Event", "involvedObject", Req("The object that this event is about."));
  f(kCore, "Event", "metadata", Req(kMetadataDoc));
  f(kCore, "Event", "reason",
    Doc("This should be a short, machine understandable string that gives the reason for the "
        "transition into the object's current status."));
  f(kCore, "Event", "message",
    Doc("A human-readable description of the status of this "
        "operation."));
  f(kCore, "Event", "count", Doc("The number of times this event has occurred."));
  f(kCore, "Event", "type", Doc("Type of this event (Normal, Warning)."));
  ty(kCore, "Namespace",
     "Namespace provides a scope for Names. Use of multiple namespaces is "
     "optional.");
  f(kCore, "NamespaceSpec", "finalizers",
    Atomic("Finalizers is an opaque list of values that must be empty to permanently remove "
           "object from storage."));
  f(kCore, "NamespaceStatus", "phase",
    Doc("Phase is the current lifecycle phase of the namespace: Active or Terminating."));
  f(kCore, "NamespaceStatus", "conditions",
    MapList("Represents the latest available observations of a namespace's current state.", "type",
            {"type"}));

  // discovery.v1
  ty(kDisc, "EndpointSlice",
     "EndpointSlice represents a subset of the endpoints that implement a service. For a given "
     "service there may be multiple EndpointSlice objects, selected by labels, which must be "
     "joined to produce the full set of endpoints.");
  f(kDisc, "EndpointSlice", "addressType",
    Req("addressType specifies the type of address carried by this EndpointSlice: IPv4, IPv6 or "
        "FQDN. Immutable after creation."));
  f(kDisc, "EndpointSlice", "endpoints",
    FieldInfo{"endpoints is a list of unique endpoints in this slice. Each slice may include a "
              "maximum of 1000 endpoints.",
              {},
              {},
              "atomic",
              {},
              true});
  f(kDisc, "EndpointSlice", "ports",
    Atomic("ports specifies the list of network ports exposed by each endpoint in this slice."));
  f(kDisc, "Endpoint", "addresses",
    FieldInfo{"addresses of this endpoint. Consumers must handle different types of addresses in "
              "the context of their own capabilities.",
              {},
              {},
              "set",
              {},
              true});
  f(kDisc, "Endpoint", "conditions",
    Doc("conditions contains information about the current "
        "status of the endpoint."));
  f(kDisc, "Endpoint", "nodeName",
    Doc("nodeName represents the name of the Node hosting this "
        "endpoint."));
  f(kDisc, "Endpoint", "zone", Doc("zone is the name of the Zone this endpoint exists in."));
  f(kDisc, "EndpointHints", "forZones",
    Atomic("forZones indicates the zone(s) this endpoint "
           "should be consumed by."));
  f(kDisc, "EndpointHints", "forNodes",
    Atomic("forNodes indicates the node(s) this endpoint "
           "should be consumed by."));
  f(kDisc, "ForZone", "name", Req("name represents the name of the zone."));
  f(kDisc, "ForNode", "name", Req("name represents the name of the node."));
  f(kDisc, "EndpointConditions", "ready",
    Doc("ready indicates that this endpoint is ready to receive traffic."));
  f(kDisc, "EndpointConditions", "serving",
    Doc("serving indicates that this endpoint is able to receive traffic, regardless of "
        "termination."));
  f(kDisc, "EndpointConditions", "terminating",
    Doc("terminating indicates that this endpoint is terminating."));
  f(kDisc, "EndpointPort", "port", Doc("port represents the port number of the endpoint."));

  // coordination.v1
  ty(kCoord, "Lease", "Lease defines a lease concept.");
  f(kCoord, "Lease", "spec", Doc("spec contains the specification of the Lease."));
  f(kCoord, "LeaseSpec", "holderIdentity",
    Doc("holderIdentity contains the identity of the holder of a current lease."));
  f(kCoord, "LeaseSpec", "leaseDurationSeconds",
    Doc("leaseDurationSeconds is a duration that candidates for a lease need to wait to force "
        "acquire it. This is measured against the time of last observed renewTime."));
  f(kCoord, "LeaseSpec", "acquireTime",
    Doc("acquireTime is a time when the current lease was "
        "acquired."));
  f(kCoord, "LeaseSpec", "renewTime",
    Doc("renewTime is a time when the current holder of a "
        "lease has last updated the lease."));
  f(kCoord, "LeaseSpec", "leaseTransitions",
    Doc("leaseTransitions is the number of transitions of a lease between holders."));

  // apps.v1: Deployment, ReplicaSet (k8s.io/api/apps/v1/types.go markers).
  ty(kApps, "Deployment", "Deployment enables declarative updates for Pods and ReplicaSets.");
  ty(kApps, "ReplicaSet",
     "ReplicaSet ensures that a specified number of pod replicas are running at any given time.");
  ty(kApps, "DeploymentSpec",
     "DeploymentSpec is the specification of the desired behavior of the Deployment.");
  ty(kApps, "DeploymentStatus",
     "DeploymentStatus is the most recently observed status of the Deployment.");
  ty(kApps, "ReplicaSetSpec", "ReplicaSetSpec is the specification of a ReplicaSet.");
  ty(kApps, "ReplicaSetStatus", "ReplicaSetStatus represents the current status of a ReplicaSet.");
  ty(kApps, "DeploymentStrategy",
     "DeploymentStrategy describes how to replace existing pods with new ones.");
  ty(kApps, "RollingUpdateDeployment", "Spec to control the desired behavior of rolling update.");
  ty(kApps, "DeploymentCondition",
     "DeploymentCondition describes the state of a deployment at a certain point.");
  ty(kApps, "ReplicaSetCondition",
     "ReplicaSetCondition describes the state of a replica set at a certain point.");
  ty(kCore, "PodTemplateSpec",
     "PodTemplateSpec describes the data a pod should have when created from a template");
  for (auto kind : {"Deployment", "ReplicaSet"}) {
    f(kApps, kind, "spec", Doc("Specification of the desired behavior of the object."));
    f(kApps, kind, "status", Doc("Most recently observed status of the object."));
  }
  f(kApps, "DeploymentSpec", "replicas",
    Doc("Number of desired pods. This is a pointer to distinguish between explicit zero and not "
        "specified. Defaults to 1."));
  f(kApps, "DeploymentSpec", "selector",
    Req("Label selector for pods. Existing ReplicaSets whose pods are selected by this will be "
        "the ones affected by this deployment. It must match the pod template's labels."));
  f(kApps, "DeploymentSpec", "template",
    Req("Template describes the pods that will be created. The only allowed "
        "template.spec.restartPolicy value is \"Always\"."));
  f(kApps, "DeploymentSpec", "strategy",
    FieldInfo{"The deployment strategy to use to replace existing pods with new ones.",
              {},
              "retainKeys",
              {},
              {},
              false});
  f(kApps, "DeploymentSpec", "minReadySeconds",
    Doc("Minimum number of seconds for which a newly created pod should be ready without any of "
        "its container crashing, for it to be considered available. Defaults to 0 (pod will be "
        "considered available as soon as it is ready)"));
  f(kApps, "DeploymentSpec", "revisionHistoryLimit",
    Doc("The number of old ReplicaSets to retain to allow rollback. This is a pointer to "
        "distinguish between explicit zero and not specified. Defaults to 10."));
  f(kApps, "DeploymentSpec", "paused", Doc("Indicates that the deployment is paused."));
  f(kApps, "DeploymentSpec", "progressDeadlineSeconds",
    Doc("The maximum time in seconds for a deployment to make progress before it is considered "
        "to be failed. Defaults to 600s."));
  f(kApps, "DeploymentStrategy", "type",
    Doc("Type of deployment. Can be \"Recreate\" or \"RollingUpdate\". Default is "
        "RollingUpdate."));
  f(kApps, "RollingUpdateDeployment", "maxUnavailable",
    Doc("The maximum number of pods that can be unavailable during the update. Defaults to "
        "25%."));
  f(kApps, "RollingUpdateDeployment", "maxSurge",
    Doc("The maximum number of pods that can be scheduled above the desired number of pods. "
        "Defaults to 25%."));
  f(kApps, "DeploymentStatus", "conditions",
    MapList("Represents the latest available observations of a deployment's current state.", "type",
            {"type"}));
  f(kApps, "DeploymentStatus", "replicas",
    Doc("Total number of non-terminating pods targeted by this deployment (their labels match "
        "the selector)."));
  f(kApps, "DeploymentStatus", "observedGeneration",
    Doc("The generation observed by the deployment controller."));
  f(kApps, "DeploymentCondition", "type", Req("Type of deployment condition."));
  f(kApps, "DeploymentCondition", "status",
    Req("Status of the condition, one of True, False, Unknown."));
  f(kApps, "ReplicaSetSpec", "replicas",
    Doc("Replicas is the number of desired pods. This is a pointer to distinguish between "
        "explicit zero and unspecified. Defaults to 1."));
  f(kApps, "ReplicaSetSpec", "selector",
    Req("Selector is a label query over pods that should match the replica count. Label keys "
        "and values that must match in order to be controlled by this replica set. It must "
        "match the pod template's labels."));
  f(kApps, "ReplicaSetSpec", "template",
    Doc("Template is the object that describes the pod that will be created if insufficient "
        "replicas are detected."));
  f(kApps, "ReplicaSetStatus", "replicas",
    Req("Replicas is the most recently observed number of non-terminating pods."));
  f(kApps, "ReplicaSetStatus", "conditions",
    MapList("Represents the latest available observations of a replica set's current state.",
            "type", {"type"}));
  f(kApps, "ReplicaSetCondition", "type", Req("Type of replica set condition."));
  f(kApps, "ReplicaSetCondition", "status",
    Req("Status of the condition, one of True, False, Unknown."));
  ty("io.k8s.api.autoscaling.v1.", "Scale", "Scale represents a scaling request for a resource.");
  f("io.k8s.api.autoscaling.v1.", "Scale", "metadata", Doc(kMetadataDoc));
  f("io.k8s.api.autoscaling.v1.", "ScaleSpec", "replicas",
    Doc("replicas is the desired number of instances for the scaled object."));
  f("io.k8s.api.autoscaling.v1.", "ScaleStatus", "replicas",
    Req("replicas is the actual number of observed instances of the scaled object."));
  f("io.k8s.api.autoscaling.v1.", "ScaleStatus", "selector",
    Doc("selector is the label query over pods that should match the replicas count."));
  f(kCore, "PodTemplateSpec", "metadata", Doc(kMetadataDoc));
  f(kCore, "PodTemplateSpec", "spec", Doc("Specification of the desired behavior of the pod."));

  // core.v1 ConfigMap, Secret, ServiceAccount (k8s.io/api/core/v1/types.go markers).
  ty(kCore, "ConfigMap", "ConfigMap holds configuration data for pods to consume.");
  ty(kCore, "Secret",
     "Secret holds secret data of a certain type. The total bytes of the values in the Data "
     "field must be less than MaxSecretSize bytes.");
  ty(kCore, "ServiceAccount",
     "ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral "
     "systems, for an identity * a principal that can be authenticated and authorized * a set "
     "of secrets");
  ty(kCore, "LocalObjectReference",
     "LocalObjectReference contains enough information to let you locate the referenced object "
     "inside the same namespace.");
  for (auto kind : {"ConfigMap", "Secret"}) {
    f(kCore, kind, "immutable",
      Doc("Immutable, if set to true, ensures that data stored in the object cannot be updated "
          "(only object metadata can be modified). If not set to true, the field can be "
          "modified at any time. Defaulted to nil."));
  }
  f(kCore, "ConfigMap", "data",
    Doc("Data contains the configuration data. Each key must consist of alphanumeric "
        "characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the "
        "BinaryData field. The keys stored in Data must not overlap with the keys in the "
        "BinaryData field, this is enforced during validation process."));
  f(kCore, "ConfigMap", "binaryData",
    Doc("BinaryData contains the binary data. Each key must consist of alphanumeric characters, "
        "'-', '_' or '.'. BinaryData can contain byte sequences that are not in the UTF-8 range. "
        "The keys stored in BinaryData must not overlap with the ones in the Data field, this is "
        "enforced during validation process. Using this field will require 1.10+ apiserver and "
        "kubelet."));
  f(kCore, "Secret", "data",
    Doc("Data contains the secret data. Each key must consist of alphanumeric characters, '-', "
        "'_' or '.'. The serialized form of the secret data is a base64 encoded string, "
        "representing the arbitrary (possibly non-string) data value here. Described in "
        "https://tools.ietf.org/html/rfc4648#section-4"));
  f(kCore, "Secret", "stringData",
    Doc("stringData allows specifying non-binary secret data in string form. It is provided as "
        "a write-only input field for convenience. All keys and values are merged into the data "
        "field on write, overwriting any existing values. The stringData field is never output "
        "when reading from the API."));
  f(kCore, "Secret", "type",
    Doc("Used to facilitate programmatic handling of secret data. More info: "
        "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"));
  f(kCore, "ServiceAccount", "secrets",
    MapList("Secrets is a list of the secrets in the same namespace that pods running using "
            "this ServiceAccount are allowed to use.",
            "name", {"name"}));
  f(kCore, "ServiceAccount", "imagePullSecrets",
    Atomic("ImagePullSecrets is a list of references to secrets in the same namespace to use "
           "for pulling any images in pods that reference this ServiceAccount."));
  f(kCore, "ServiceAccount", "automountServiceAccountToken",
    Doc("AutomountServiceAccountToken indicates whether pods running as this service account "
        "should have an API token automatically mounted. Can be overridden at the pod level."));
  f(kCore, "LocalObjectReference", "name",
    Doc("Name of the referent. This field is effectively required, but due to backwards "
        "compatibility is allowed to be empty. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"));

  // rbac.v1 (list types: rules, subjects and clusterRoleSelectors are atomic upstream).
  ty(kRbac, "Role",
     "Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by "
     "a RoleBinding.");
  ty(kRbac, "ClusterRole",
     "ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as "
     "a unit by a RoleBinding or ClusterRoleBinding.");
  ty(kRbac, "RoleBinding",
     "RoleBinding references a role, but does not contain it.  It can reference a Role in the "
     "same namespace or a ClusterRole in the global namespace. It adds who information via "
     "Subjects and namespace information by which namespace it exists in.  RoleBindings in a "
     "given namespace only have effect in that namespace.");
  ty(kRbac, "ClusterRoleBinding",
     "ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a "
     "ClusterRole in the global namespace, and adds who information via Subject.");
  f(kRbac, "Role", "rules", Atomic("Rules holds all the PolicyRules for this Role"));
  f(kRbac, "ClusterRole", "rules", Atomic("Rules holds all the PolicyRules for this ClusterRole"));
  for (auto kind : {"RoleBinding", "ClusterRoleBinding"}) {
    f(kRbac, kind, "subjects",
      Atomic("Subjects holds references to the objects the role applies to."));
    f(kRbac, kind, "roleRef",
      Req("RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
          "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. "
          "This field is immutable."));
  }
  f(kRbac, "ClusterRole", "aggregationRule",
    Doc("AggregationRule is an optional field that describes how to build the Rules for this "
        "ClusterRole. If AggregationRule is set, then the Rules are controller managed and "
        "direct changes to Rules will be stomped by the controller."));
  f(kRbac, "AggregationRule", "clusterRoleSelectors",
    Atomic("ClusterRoleSelectors holds a list of selectors which will be used to find "
           "ClusterRoles and create the rules. If any of the selectors match, then the "
           "ClusterRole's permissions will be added"));
  f(kRbac, "PolicyRule", "verbs",
    FieldInfo{"Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this "
              "rule. '*' represents all verbs.",
              {},
              {},
              "atomic",
              {},
              true});
  f(kRbac, "PolicyRule", "apiGroups",
    Atomic("APIGroups is the name of the APIGroup that contains the resources.  If multiple API "
           "groups are specified, any action requested against one of the enumerated resources "
           "in any API group will be allowed. \"\" represents the core API group and \"*\" "
           "represents all API groups."));
  f(kRbac, "PolicyRule", "resources",
    Atomic("Resources is a list of resources this rule applies to. '*' represents all "
           "resources."));
  f(kRbac, "PolicyRule", "resourceNames",
    Atomic("ResourceNames is an optional white list of names that the rule applies to.  An "
           "empty set means that everything is allowed."));
  f(kRbac, "PolicyRule", "nonResourceURLs",
    Atomic("NonResourceURLs is a set of partial urls that a user should have access to.  *s are "
           "allowed, but only as the full, final step in the path."));
  f(kRbac, "Subject", "kind",
    Req("Kind of object being referenced. Values defined by this API group are \"User\", "
        "\"Group\", and \"ServiceAccount\"."));
  f(kRbac, "Subject", "apiGroup",
    Doc("APIGroup holds the API group of the referenced subject. Defaults to \"\" for "
        "ServiceAccount subjects. Defaults to \"rbac.authorization.k8s.io\" for User and Group "
        "subjects."));
  f(kRbac, "Subject", "name", Req("Name of the object being referenced."));
  f(kRbac, "Subject", "namespace",
    Doc("Namespace of the referenced object.  If the object kind is non-namespace, such as "
        "\"User\" or \"Group\", and this value is not empty the Authorizer should report an "
        "error."));
  f(kRbac, "RoleRef", "apiGroup", Req("APIGroup is the group for the resource being referenced"));
  f(kRbac, "RoleRef", "kind", Req("Kind is the type of resource being referenced"));
  f(kRbac, "RoleRef", "name", Req("Name is the name of resource being referenced"));

  // Partially modelled types: upstream has fields we keep verbatim.
  for (auto c : {"Container", "PodSpec", "PodStatus", "ServiceSpec", "ServiceStatus", "NodeSpec",
                 "NodeStatus", "NodeSystemInfo", "Event", "EndpointAddress"}) {
    t.partial.insert(N(kCore, c));
  }
  t.partial.insert(N(kMeta, "ObjectMeta"));
  t.partial.insert(N(kCore, "PodTemplateSpec"));
  t.partial.insert(N(kDisc, "Endpoint"));
  t.partial.insert(N(kCoord, "LeaseSpec"));
  return t;
}

const Tables& Get() {
  static const Tables* tables = new Tables(Build());
  return *tables;
}

}  // namespace

const FieldInfo* LookupField(std::string_view schema, std::string_view field) {
  const auto& m = Get().fields;
  auto it = m.find(Key(std::string(schema), std::string(field)));
  return it == m.end() ? nullptr : &it->second;
}

std::string_view TypeDescription(std::string_view schema) {
  const auto& m = Get().types;
  auto it = m.find(schema);
  return it == m.end() ? std::string_view() : it->second;
}

bool IsPartiallyModelled(std::string_view schema) { return Get().partial.contains(schema); }

}  // namespace svcplane::apiserver::openapi::internal
