#pragma once

// Test-only helpers for the per-kind validation tests: rendered errors and valid fixtures.

#include <string>
#include <vector>

#include "api/types.h"
#include "api/validation/defaults.h"
#include "api/validation/field_errors.h"
#include "api/validation/strategy.h"

namespace svcplane::api::validation::testing {

// "field: Type: value: detail" for each error, in order.
inline std::vector<std::string> Errs(const FieldErrorList& errs) {
  std::vector<std::string> out;
  for (const FieldError& e : errs) out.push_back(e.Error());
  return out;
}

inline constexpr char kDNS1035Msg[] =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
inline constexpr char kLabelMsg[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
inline constexpr char kSubdomainMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

// A defaulted, prepared ClusterIP Service with one port that validates cleanly.
inline core::v1::Service ValidService() {
  core::v1::Service svc;
  svc.metadata.name = "web";
  svc.metadata.namespace_ = "default";
  svc.metadata.resource_version = "1";
  svc.spec.selector = {{"app", "web"}};
  core::v1::ServicePort port;
  port.port = 80;
  svc.spec.ports.push_back(port);
  svc.spec.cluster_ip = "10.0.0.10";
  Default(svc);
  PrepareForCreate(svc);
  svc.spec.ip_families = {"IPv4"};
  svc.spec.ip_family_policy = "SingleStack";
  return svc;
}

inline core::v1::Pod ValidPod() {
  core::v1::Pod pod;
  pod.metadata.name = "web-1";
  pod.metadata.namespace_ = "default";
  pod.metadata.resource_version = "1";
  core::v1::Container c;
  c.name = "app";
  c.image = "nginx:1.25";
  core::v1::ContainerPort p;
  p.name = "http";
  p.container_port = 8080;
  c.ports.push_back(p);
  pod.spec.containers.push_back(c);
  Default(pod);
  return pod;
}

inline discovery::v1::EndpointSlice ValidSlice() {
  discovery::v1::EndpointSlice slice;
  slice.metadata.name = "web-abc12";
  slice.metadata.namespace_ = "default";
  slice.metadata.resource_version = "1";
  slice.address_type = "IPv4";
  discovery::v1::Endpoint ep;
  ep.addresses = {"10.1.2.3"};
  slice.endpoints.push_back(ep);
  discovery::v1::EndpointPort port;
  port.port = 80;
  slice.ports = std::vector<discovery::v1::EndpointPort>{port};
  Default(slice);
  return slice;
}

}  // namespace svcplane::api::validation::testing
