#include "api/selectors/field_labels.h"

#include <string>
#include <utility>

namespace svcplane::api::selectors {
namespace {

constexpr std::string_view kPodLabels[] = {
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.podIPs",
    "status.nominatedNodeName",
};
constexpr std::string_view kNodeLabels[] = {"metadata.name", "spec.unschedulable"};
constexpr std::string_view kNamespaceLabels[] = {"metadata.name", "status.phase"};
constexpr std::string_view kServiceLabels[] = {"metadata.name", "metadata.namespace",
                                               "spec.clusterIP", "spec.type"};
constexpr std::string_view kEventLabels[] = {
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
    "metadata.namespace",
    "metadata.name",
};

}  // namespace

std::span<const std::string_view> SupportedFieldLabels(std::string_view resource) {
  if (resource == "pods") return kPodLabels;
  if (resource == "nodes") return kNodeLabels;
  if (resource == "namespaces") return kNamespaceLabels;
  if (resource == "services") return kServiceLabels;
  if (resource == "events") return kEventLabels;
  return {};
}

Result<FieldSelector> ConvertFieldLabels(std::string_view resource, const FieldSelector& selector) {
  std::span<const std::string_view> allowed = SupportedFieldLabels(resource);
  if (allowed.empty()) {
    Status st = CheckDefaultFieldLabels(selector);
    if (!st.ok()) return st;
    return selector;
  }
  bool pods = resource == "pods";
  return selector.Transform(
      [&](std::string_view field,
          std::string_view value) -> Result<std::pair<std::string, std::string>> {
        if (pods && field == "spec.host") {
          return std::pair<std::string, std::string>("spec.nodeName", value);
        }
        for (std::string_view a : allowed) {
          if (a == field) return std::pair<std::string, std::string>(field, value);
        }
        return BadRequestError("field label not supported: " + std::string(field));
      });
}

}  // namespace svcplane::api::selectors
