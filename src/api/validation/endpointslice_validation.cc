#include <set>

#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using internal::Append;

constexpr size_t kMaxTopologyLabels = 16;
constexpr size_t kMaxAddresses = 100;
constexpr size_t kMaxPorts = 20000;
constexpr size_t kMaxEndpoints = 1000;
constexpr size_t kMaxZoneHints = 8;
constexpr size_t kMaxNodeHints = 8;

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

// apimachinery IsFullyQualifiedDomainName: a subdomain (optional trailing dot) of >= 2 labels.
FieldErrorList IsFullyQualifiedDomainName(const FieldPath& path, std::string_view name) {
  if (name.empty()) return {Required(path)};
  if (name.back() == '.') name.remove_suffix(1);
  if (auto errs = IsDNS1123Subdomain(name); !errs.empty()) {
    return {Invalid(path, name, Join(errs, ","))};
  }
  std::vector<std::string_view> labels;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    labels.push_back(name.substr(start, dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (labels.size() < 2) {
    return {Invalid(path, name, "should be a domain with at least two segments separated by dots")};
  }
  for (std::string_view label : labels) {
    if (auto errs = IsDNS1123Label(label); !errs.empty()) {
      return {Invalid(path, label, Join(errs, ","))};
    }
  }
  return {};
}

FieldErrorList ValidateHints(const discovery::v1::EndpointHints& hints, const FieldPath& path) {
  FieldErrorList errs;
  FieldPath zones_path = path.Child("forZones");
  if (hints.for_zones.size() > kMaxZoneHints) {
    errs.push_back(
        TooMany(zones_path, static_cast<int64_t>(hints.for_zones.size()), kMaxZoneHints));
    return errs;
  }
  std::set<std::string> zones;
  for (size_t i = 0; i < hints.for_zones.size(); ++i) {
    const std::string& zone = hints.for_zones[i].name;
    FieldPath zone_path = zones_path.Index(static_cast<int64_t>(i)).Child("name");
    if (!zones.insert(zone).second) errs.push_back(Duplicate(zone_path, zone));
    for (std::string& msg : IsValidLabelValue(zone)) errs.push_back(Invalid(zone_path, zone, msg));
  }
  // forNodes (1.33+, PreferSameTrafficDistribution): same shape, node names.
  FieldPath nodes_path = path.Child("forNodes");
  if (hints.for_nodes.size() > kMaxNodeHints) {
    errs.push_back(
        TooMany(nodes_path, static_cast<int64_t>(hints.for_nodes.size()), kMaxNodeHints));
    return errs;
  }
  std::set<std::string> nodes;
  for (size_t i = 0; i < hints.for_nodes.size(); ++i) {
    const std::string& node = hints.for_nodes[i].name;
    FieldPath node_path = nodes_path.Index(static_cast<int64_t>(i)).Child("name");
    if (!nodes.insert(node).second) errs.push_back(Duplicate(node_path, node));
    for (std::string& msg : NameIsDNSSubdomain(node, false)) {
      errs.push_back(Invalid(node_path, node, msg));
    }
  }
  return errs;
}

FieldErrorList ValidateEndpoints(const std::vector<discovery::v1::Endpoint>& endpoints,
                                 std::string_view address_type, const FieldPath& path) {
  FieldErrorList errs;
  if (endpoints.size() > kMaxEndpoints) {
    errs.push_back(TooMany(path, static_cast<int64_t>(endpoints.size()), kMaxEndpoints));
    return errs;
  }
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const discovery::v1::Endpoint& ep = endpoints[i];
    FieldPath idx = path.Index(static_cast<int64_t>(i));
    FieldPath addr_path = idx.Child("addresses");
    if (ep.addresses.empty()) {
      errs.push_back(Required(addr_path, "must contain at least 1 address"));
    } else if (ep.addresses.size() > kMaxAddresses) {
      errs.push_back(TooMany(addr_path, static_cast<int64_t>(ep.addresses.size()), kMaxAddresses));
    }
    for (size_t a = 0; a < ep.addresses.size(); ++a) {
      const std::string& address = ep.addresses[a];
      FieldPath one = addr_path.Index(static_cast<int64_t>(a));
      // Unknown address types fall through unvalidated, as upstream.
      if (address_type == "IPv4") {
        Append(&errs, IsValidIPv4Address(one, address));
        Append(&errs, internal::NonSpecialIP(address, one));
      } else if (address_type == "IPv6") {
        Append(&errs, IsValidIPv6Address(one, address));
        Append(&errs, internal::NonSpecialIP(address, one));
      } else if (address_type == "FQDN") {
        Append(&errs, IsFullyQualifiedDomainName(one, address));
      }
    }
    if (ep.node_name) {
      for (std::string& msg : NameIsDNSSubdomain(*ep.node_name, false)) {
        errs.push_back(Invalid(idx.Child("nodeName"), *ep.node_name, msg));
      }
    }
    FieldPath topology = idx.Child("deprecatedTopology");
    if (ep.deprecated_topology.size() > kMaxTopologyLabels) {
      errs.push_back(TooMany(topology, static_cast<int64_t>(ep.deprecated_topology.size()),
                             kMaxTopologyLabels));
    }
    Append(&errs, ValidateLabels(ep.deprecated_topology, topology));
    // v1 moves this key into `zone` on conversion; seeing it here is upstream's internal error.
    if (ep.deprecated_topology.count("topology.kubernetes.io/zone")) {
      errs.push_back(InternalFieldError(topology.Key("topology.kubernetes.io/zone"),
                                        "reserved key was not removed in conversion"));
    }
    if (ep.hostname) Append(&errs, internal::DNS1123Label(*ep.hostname, idx.Child("hostname")));
    if (ep.hints) Append(&errs, ValidateHints(*ep.hints, idx.Child("hints")));
  }
  return errs;
}

FieldErrorList ValidatePorts(const std::optional<std::vector<discovery::v1::EndpointPort>>& ports,
                             const FieldPath& path) {
  FieldErrorList errs;
  if (!ports) return errs;
  if (ports->size() > kMaxPorts) {
    errs.push_back(TooMany(path, static_cast<int64_t>(ports->size()), kMaxPorts));
    return errs;
  }
  std::set<std::string> names;
  for (size_t i = 0; i < ports->size(); ++i) {
    const discovery::v1::EndpointPort& port = (*ports)[i];
    FieldPath idx = path.Index(static_cast<int64_t>(i));
    // Defaulting sets name to ""; treat a missing one the same.
    std::string name = port.name.value_or("");
    if (!name.empty()) Append(&errs, internal::DNS1123Label(name, idx.Child("name")));
    if (!names.insert(name).second) errs.push_back(Duplicate(idx.Child("name"), name));
    if (!port.protocol) {
      errs.push_back(Required(idx.Child("protocol")));
    } else if (*port.protocol != "TCP" && *port.protocol != "UDP" && *port.protocol != "SCTP") {
      errs.push_back(NotSupported(idx.Child("protocol"), *port.protocol, {"SCTP", "TCP", "UDP"}));
    }
    if (port.app_protocol) {
      Append(&errs, internal::QualifiedName(*port.app_protocol, idx.Child("appProtocol")));
    }
  }
  return errs;
}

FieldErrorList ValidateAddressType(std::string_view address_type) {
  if (address_type.empty()) return {Required(Path("addressType"))};
  if (address_type != "IPv4" && address_type != "IPv6" && address_type != "FQDN") {
    return {NotSupported(Path("addressType"), address_type, {"FQDN", "IPv4", "IPv6"})};
  }
  return {};
}

FieldErrorList ValidateSlice(const discovery::v1::EndpointSlice& slice) {
  FieldErrorList errs =
      ValidateObjectMeta(slice.metadata, true, NameIsDNSSubdomain, Path("metadata"));
  Append(&errs, ValidateAddressType(slice.address_type));
  Append(&errs, ValidateEndpoints(slice.endpoints, slice.address_type, Path("endpoints")));
  Append(&errs, ValidatePorts(slice.ports, Path("ports")));
  return errs;
}

}  // namespace

FieldErrorList ValidateCreate(const discovery::v1::EndpointSlice& slice) {
  return ValidateSlice(slice);
}

FieldErrorList ValidateUpdate(const discovery::v1::EndpointSlice& slice,
                              const discovery::v1::EndpointSlice& old) {
  // Upstream validates the update's metadata only through ValidateObjectMeta here.
  FieldErrorList errs = ValidateSlice(slice);
  if (slice.address_type != old.address_type) {
    errs.push_back(
        Invalid(Path("addressType"), slice.address_type, std::string(internal::kFieldImmutable)));
  }
  return errs;
}

}  // namespace svcplane::api::validation
