#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using internal::Append;

FieldErrorList ValidateAddress(const core::v1::EndpointAddress& addr, const FieldPath& path) {
  FieldErrorList errs = IsValidIP(path.Child("ip"), addr.ip);
  if (!addr.hostname.empty())
    Append(&errs, internal::DNS1123Label(addr.hostname, path.Child("hostname")));
  if (addr.node_name) {
    for (std::string& msg : NameIsDNSSubdomain(*addr.node_name, false)) {
      errs.push_back(Invalid(path.Child("nodeName"), *addr.node_name, msg));
    }
  }
  Append(&errs, internal::NonSpecialIP(addr.ip, path.Child("ip")));
  return errs;
}

FieldErrorList ValidatePort(const core::v1::EndpointPort& port, bool require_name,
                            const FieldPath& path) {
  FieldErrorList errs;
  if (require_name && port.name.empty()) {
    errs.push_back(Required(path.Child("name")));
  } else if (!port.name.empty()) {
    Append(&errs, internal::DNS1123Label(port.name, path.Child("name")));
  }
  for (std::string& msg : IsValidPortNum(port.port)) {
    errs.push_back(Invalid(path.Child("port"), port.port, msg));
  }
  Append(&errs, internal::Protocol(port.protocol, path.Child("protocol")));
  if (port.app_protocol) {
    Append(&errs, internal::QualifiedName(*port.app_protocol, path.Child("appProtocol")));
  }
  return errs;
}

FieldErrorList ValidateSubsets(const std::vector<core::v1::EndpointSubset>& subsets,
                               const FieldPath& path) {
  FieldErrorList errs;
  for (size_t i = 0; i < subsets.size(); ++i) {
    const core::v1::EndpointSubset& ss = subsets[i];
    FieldPath idx = path.Index(static_cast<int64_t>(i));
    if (ss.addresses.empty() && ss.not_ready_addresses.empty()) {
      errs.push_back(Required(idx, "must specify `addresses` or `notReadyAddresses`"));
    }
    for (size_t a = 0; a < ss.addresses.size(); ++a) {
      Append(&errs, ValidateAddress(ss.addresses[a],
                                    idx.Child("addresses").Index(static_cast<int64_t>(a))));
    }
    for (size_t a = 0; a < ss.not_ready_addresses.size(); ++a) {
      Append(&errs, ValidateAddress(ss.not_ready_addresses[a],
                                    idx.Child("notReadyAddresses").Index(static_cast<int64_t>(a))));
    }
    for (size_t p = 0; p < ss.ports.size(); ++p) {
      Append(&errs, ValidatePort(ss.ports[p], ss.ports.size() > 1,
                                 idx.Child("ports").Index(static_cast<int64_t>(p))));
    }
  }
  return errs;
}

FieldErrorList ValidateEndpoints(const core::v1::Endpoints& ep) {
  FieldErrorList errs = ValidateObjectMeta(ep.metadata, true, NameIsDNSSubdomain, Path("metadata"));
  Append(&errs, ValidateSubsets(ep.subsets, Path("subsets")));
  return errs;
}

}  // namespace

FieldErrorList ValidateCreate(const core::v1::Endpoints& ep) { return ValidateEndpoints(ep); }

FieldErrorList ValidateUpdate(const core::v1::Endpoints& ep, const core::v1::Endpoints& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(ep.metadata, old.metadata, Path("metadata"));
  Append(&errs, ValidateEndpoints(ep));
  return errs;
}

}  // namespace svcplane::api::validation
