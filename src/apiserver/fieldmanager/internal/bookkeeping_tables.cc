#include "apiserver/fieldmanager/internal/bookkeeping_tables.h"

#include <map>
#include <string>

#include <boost/json/parse.hpp>

namespace svcplane::apiserver::fieldmanager::internal {
namespace {

Set PathsOf(std::initializer_list<std::initializer_list<std::string_view>> paths) {
  Set s;
  for (const auto& p : paths) {
    Path path;
    for (std::string_view name : p) path.push_back(PathElement::Field(std::string(name)));
    s.Insert(path);
  }
  return s;
}

}  // namespace

const Set& StripSet() {
  static const Set* strip = new Set(PathsOf({{"apiVersion"},
                                             {"kind"},
                                             {"metadata"},
                                             {"metadata", "name"},
                                             {"metadata", "namespace"},
                                             {"metadata", "creationTimestamp"},
                                             {"metadata", "selfLink"},
                                             {"metadata", "uid"},
                                             {"metadata", "clusterName"},
                                             {"metadata", "generation"},
                                             {"metadata", "managedFields"},
                                             {"metadata", "resourceVersion"}}));
  return *strip;
}

const Set& ResetFields(std::string_view kind, std::string_view subresource) {
  static const Set* none = new Set();
  static const Set* status = new Set(PathsOf({{"status"}}));
  static const Set* spec = new Set(PathsOf({{"spec"}}));
  // Pod status strategy: kubelet-style writers may not touch spec, deletion or ownership.
  static const Set* pod_status = new Set(
      PathsOf({{"spec"}, {"metadata", "deletionTimestamp"}, {"metadata", "ownerReferences"}}));
  bool main_with_status =
      kind == "Pod" || kind == "Service" || kind == "Node" || kind == "Namespace";
  if (!main_with_status) return *none;
  if (subresource.empty() || subresource == "finalize") return *status;  // finalize: §2.5
  if (subresource == "status") return kind == "Pod" ? *pod_status : *spec;
  return *none;
}

const boost::json::value& ZeroObject(std::string_view kind) {
  // Go's zero values through encoding/json: omitempty drops empty strings, slices and pointers,
  // but never structs; nil slices without omitempty are null; metav1.Time is null.
  static const auto* zeros = [] {
    auto* out = new std::map<std::string, boost::json::value, std::less<>>;
    const char* meta = R"("metadata":{"creationTimestamp":null})";
    auto add = [&](const char* kind, std::string rest) {
      out->emplace(kind, boost::json::parse("{" + std::string(meta) + rest + "}"));
    };
    add("Pod", R"(,"spec":{"containers":null},"status":{})");
    add("Service", R"(,"spec":{},"status":{"loadBalancer":{}})");
    add("Node",
        R"(,"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":""}})");
    add("Namespace", R"(,"spec":{},"status":{})");
    add("Endpoints", "");
    add("EndpointSlice", R"(,"addressType":"","endpoints":null,"ports":null)");
    add("Event",
        R"(,"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,"reportingComponent":"","reportingInstance":"")");
    add("Lease", R"(,"spec":{})");
    add("Role", R"(,"rules":null)");
    add("ClusterRole", R"(,"rules":null)");
    add("RoleBinding", R"(,"roleRef":{"apiGroup":"","kind":"","name":""})");
    add("ClusterRoleBinding", R"(,"roleRef":{"apiGroup":"","kind":"","name":""})");
    add("", "");
    return out;
  }();
  auto it = zeros->find(kind);
  return it != zeros->end() ? it->second : zeros->at("");
}

}  // namespace svcplane::apiserver::fieldmanager::internal
