#include <map>

#include "apiserver/table/table.h"

namespace svcplane::apiserver::table {
namespace {

// Upstream takes these from the types' SwaggerDoc(); the first two are verbatim.
constexpr std::string_view kNameDoc =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
constexpr std::string_view kAgeDoc =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";

constexpr Column kName{"Name", "string", "name", kNameDoc, 0};
constexpr Column kAge{"Age", "string", "", kAgeDoc, 0};

const std::vector<Column> kPod = {
    kName,
    {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0},
    {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
    {"Restarts", "string", "",
     "The number of times the containers in this pod have been restarted and when the last "
     "container in this pod has restarted.",
     0},
    kAge,
    {"IP", "string", "",
     "podIP address allocated to the pod. Routable at least within the cluster. Empty if not "
     "yet allocated.",
     1},
    {"Node", "string", "",
     "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate "
     "for scheduling by the scheduler defined in schedulerName.",
     1},
    {"Nominated Node", "string", "",
     "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
     "cannot be scheduled right away as preemption victims receive their graceful termination "
     "periods.",
     1},
    {"Readiness Gates", "string", "",
     "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready "
     "when all its containers are ready AND all conditions specified in the readiness gates "
     "have status equal to \"True\"",
     1},
};

const std::vector<Column> kService = {
    kName,
    {"Type", "string", "",
     "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are "
     "ExternalName, ClusterIP, NodePort, and LoadBalancer.",
     0},
    {"Cluster-IP", "string", "",
     "clusterIP is the IP address of the service and is usually assigned randomly.", 0},
    {"External-IP", "string", "",
     "externalIPs is a list of IP addresses for which nodes in the cluster will also accept "
     "traffic for this service.",
     0},
    {"Port(s)", "string", "", "The list of ports that are exposed by this service.", 0},
    kAge,
    {"Selector", "string", "",
     "Route service traffic to pods with label keys and values matching this selector.", 1},
};

const std::vector<Column> kEndpoints = {
    kName,
    {"Endpoints", "string", "",
     "The set of all endpoints is the union of all subsets. Addresses are placed into subsets "
     "according to the IPs they share.",
     0},
    kAge,
};

const std::vector<Column> kEndpointSlice = {
    kName,
    {"AddressType", "string", "", "The IP protocol for this slice", 0},
    {"Ports", "string", "", "The ports for this slice", 0},
    {"Endpoints", "string", "", "The endpoints for this slice", 0},
    kAge,
};

const std::vector<Column> kNode = {
    kName,
    {"Status", "string", "", "The status of the node", 0},
    {"Roles", "string", "", "The roles of the node", 0},
    kAge,
    {"Version", "string", "", "Kubelet Version reported by the node.", 0},
    {"Internal-IP", "string", "", "List of addresses reachable to the node.", 1},
    {"External-IP", "string", "", "List of addresses reachable to the node.", 1},
    {"OS-Image", "string", "",
     "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1},
    {"Kernel-Version", "string", "",
     "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1},
    {"Container-Runtime", "string", "",
     "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
     "containerd://1.4.2).",
     1},
};

const std::vector<Column> kNamespace = {
    kName,
    {"Status", "string", "", "The status of the namespace", 0},
    kAge,
};

const std::vector<Column> kEvent = {
    {"Last Seen", "string", "",
     "The time at which the most recent occurrence of this event was "
     "recorded.",
     0},
    {"Type", "string", "",
     "Type of this event (Normal, Warning), new types could be added in "
     "the future",
     0},
    {"Reason", "string", "",
     "This should be a short, machine understandable string that gives "
     "the reason for the transition into the object's current status.",
     0},
    {"Object", "string", "", "The object that this event is about.", 0},
    {"Subobject", "string", "",
     "If referring to a piece of an object instead of an entire object, this string should "
     "contain a valid JSON/Go field access statement, such as "
     "desiredState.manifest.containers[2].",
     1},
    {"Source", "string", "",
     "The component reporting this event. Should be a short machine "
     "understandable string.",
     1},
    {"Message", "string", "", "A human-readable description of the status of this operation.", 0},
    {"First Seen", "string", "",
     "The time at which the event was first recorded. (Time of "
     "server receipt is in TypeMeta.)",
     1},
    {"Count", "string", "", "The number of times this event has occurred.", 1},
    {"Name", "string", "name", kNameDoc, 1},
};

const std::vector<Column> kLease = {
    kName,
    {"Holder", "string", "",
     "holderIdentity contains the identity of the holder of a current lease. If Coordinated "
     "Leader Election is used, the holder identity must be equal to the elected "
     "LeaseCandidate.metadata.name field.",
     0},
    kAge,
};

// Roles and ClusterRoles have no printer upstream: their storage uses the default table
// convertor (name and creation time as RFC 3339, type "date").
const std::vector<Column> kRole = {kName, {"Created At", "date", "", kAgeDoc, 0}};

// printRoleBinding / printClusterRoleBinding: the subjects only with -o wide.
const std::vector<Column> kRoleBinding = {
    kName,
    {"Role", "string", "",
     "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
     "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
     0},
    kAge,
    {"Users", "string", "", "Users in the roleBinding", 1},
    {"Groups", "string", "", "Groups in the roleBinding", 1},
    {"ServiceAccounts", "string", "", "ServiceAccounts in the roleBinding", 1},
};
const std::vector<Column> kClusterRoleBinding = {
    kName,
    {"Role", "string", "",
     "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot "
     "be resolved, the Authorizer must return an error.",
     0},
    kAge,
    {"Users", "string", "", "Users in the clusterRoleBinding", 1},
    {"Groups", "string", "", "Groups in the clusterRoleBinding", 1},
    {"ServiceAccounts", "string", "", "ServiceAccounts in the clusterRoleBinding", 1},
};

// printDeployment / printReplicaSet (pkg/printers/internalversion); the descriptions are the
// extensions/v1beta1 SwaggerDoc strings upstream uses. Up-to-date and Available are declared
// "string" while their cells are integers (upstream quirk).
constexpr Column kTemplateContainers{"Containers", "string", "",
                                     "Names of each container in the template.", 1};
constexpr Column kTemplateImages{"Images", "string", "",
                                 "Images referenced by each container in the template.", 1};
const std::vector<Column> kDeployment = {
    kName,
    {"Ready", "string", "", "Number of the pod with ready state", 0},
    {"Up-to-date", "string", "",
     "Total number of non-terminated pods targeted by this deployment that have the desired "
     "template spec.",
     0},
    {"Available", "string", "",
     "Total number of available pods (ready for at least minReadySeconds) targeted by this "
     "deployment.",
     0},
    kAge,
    kTemplateContainers,
    kTemplateImages,
    {"Selector", "string", "",
     "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the "
     "ones affected by this deployment.",
     1},
};
const std::vector<Column> kReplicaSet = {
    kName,
    {"Desired", "integer", "",
     "Replicas is the number of desired replicas. This is a pointer to distinguish between "
     "explicit zero and unspecified. Defaults to 1. More info: "
     "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/"
     "#what-is-a-replicationcontroller",
     0},
    {"Current", "integer", "",
     "Replicas is the most recently observed number of replicas. More info: "
     "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/"
     "#what-is-a-replicationcontroller",
     0},
    {"Ready", "integer", "", "The number of ready replicas for this replica set.", 0},
    kAge,
    kTemplateContainers,
    kTemplateImages,
    {"Selector", "string", "",
     "Selector is a label query over pods that should match the replica count. If the selector "
     "is empty, it is defaulted to the labels present on the pod template. Label keys and "
     "values that must match in order to be controlled by this replica set. More info: "
     "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
     "#label-selectors",
     1},
};

// printConfigMap / printSecret / printServiceAccount: the counts are int64 cells in columns of
// type "string", as upstream declares them.
const std::vector<Column> kConfigMap = {
    kName,
    {"Data", "string", "",
     "Data contains the configuration data. Each key must consist of alphanumeric characters, "
     "'-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The "
     "keys stored in Data must not overlap with the keys in the BinaryData field, this is "
     "enforced during validation process.",
     0},
    kAge,
};

const std::vector<Column> kSecret = {
    kName,
    {"Type", "string", "",
     "Used to facilitate programmatic handling of secret data. More info: "
     "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
     0},
    {"Data", "string", "",
     "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' "
     "or '.'. The serialized form of the secret data is a base64 encoded string, representing "
     "the arbitrary (possibly non-string) data value here. Described in "
     "https://tools.ietf.org/html/rfc4648#section-4",
     0},
    kAge,
};

const std::vector<Column> kServiceAccount = {
    kName,
    {"Secrets", "string", "",
     "Secrets is a list of the secrets in the same namespace that pods running using this "
     "ServiceAccount are allowed to use. Pods are only limited to this list if this service "
     "account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The "
     "\"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer "
     "separate namespaces to isolate access to mounted secrets. This field should not be used to "
     "find auto-generated service account token secrets for use outside of pods. Instead, tokens "
     "can be requested directly using the TokenRequest API, or service account token secrets can "
     "be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret",
     0},
    kAge,
};

}  // namespace

std::span<const Column> Columns(std::string_view kind) {
  static const std::map<std::string_view, const std::vector<Column>*> kByKind = {
      {"Pod", &kPod},
      {"Service", &kService},
      {"Endpoints", &kEndpoints},
      {"EndpointSlice", &kEndpointSlice},
      {"Node", &kNode},
      {"Namespace", &kNamespace},
      {"Event", &kEvent},
      {"Lease", &kLease},
      {"Role", &kRole},
      {"ClusterRole", &kRole},
      {"RoleBinding", &kRoleBinding},
      {"ClusterRoleBinding", &kClusterRoleBinding},
      {"Deployment", &kDeployment},
      {"ReplicaSet", &kReplicaSet},
      {"ConfigMap", &kConfigMap},
      {"Secret", &kSecret},
      {"ServiceAccount", &kServiceAccount}};
  auto it = kByKind.find(kind);
  if (it == kByKind.end()) return {};
  return *it->second;
}

}  // namespace svcplane::apiserver::table
