#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta/types.h"

namespace svcplane::api::discovery::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

struct EndpointConditions {
  std::optional<bool> ready;
  std::optional<bool> serving;
  std::optional<bool> terminating;
  meta::UnknownFields unknown;
  bool operator==(const EndpointConditions&) const = default;
};
constexpr auto FieldsOf(Tag<EndpointConditions>) {
  using T = EndpointConditions;
  return std::make_tuple(F("ready", &T::ready, kOmitEmpty, 1),
                         F("serving", &T::serving, kOmitEmpty, 2),
                         F("terminating", &T::terminating, kOmitEmpty, 3));
}

struct ForZone {
  std::string name;
  meta::UnknownFields unknown;
  bool operator==(const ForZone&) const = default;
};
constexpr auto FieldsOf(Tag<ForZone>) {
  return std::make_tuple(F("name", &ForZone::name, kAlways, 1));
}

struct ForNode {
  std::string name;
  meta::UnknownFields unknown;
  bool operator==(const ForNode&) const = default;
};
constexpr auto FieldsOf(Tag<ForNode>) {
  return std::make_tuple(F("name", &ForNode::name, kAlways, 1));
}

struct EndpointHints {
  std::vector<ForZone> for_zones;
  std::vector<ForNode> for_nodes;
  meta::UnknownFields unknown;
  bool operator==(const EndpointHints&) const = default;
};
constexpr auto FieldsOf(Tag<EndpointHints>) {
  return std::make_tuple(F("forZones", &EndpointHints::for_zones, kOmitEmpty, 1),
                         F("forNodes", &EndpointHints::for_nodes, kOmitEmpty, 2));
}

struct Endpoint {
  std::vector<std::string> addresses;
  EndpointConditions conditions;
  std::optional<std::string> hostname;
  std::optional<meta::ObjectReference> target_ref;
  meta::StringMap deprecated_topology;
  std::optional<std::string> node_name;
  std::optional<std::string> zone;
  std::optional<EndpointHints> hints;
  meta::UnknownFields unknown;
  bool operator==(const Endpoint&) const = default;
};
constexpr auto FieldsOf(Tag<Endpoint>) {
  using T = Endpoint;
  return std::make_tuple(
      F("addresses", &T::addresses, kAlways, 1), F("conditions", &T::conditions, kAlways, 2),
      F("hostname", &T::hostname, kOmitEmpty, 3), F("targetRef", &T::target_ref, kOmitEmpty, 4),
      F("deprecatedTopology", &T::deprecated_topology, kOmitEmpty, 5),
      F("nodeName", &T::node_name, kOmitEmpty, 6), F("zone", &T::zone, kOmitEmpty, 7),
      F("hints", &T::hints, kOmitEmpty, 8));
}

struct EndpointPort {
  std::optional<std::string> name;
  std::optional<std::string> protocol;
  std::optional<int32_t> port;
  std::optional<std::string> app_protocol;
  meta::UnknownFields unknown;
  bool operator==(const EndpointPort&) const = default;
};
constexpr auto FieldsOf(Tag<EndpointPort>) {
  using T = EndpointPort;
  return std::make_tuple(
      F("name", &T::name, kOmitEmpty, 1), F("protocol", &T::protocol, kOmitEmpty, 2),
      F("port", &T::port, kOmitEmpty, 3), F("appProtocol", &T::app_protocol, kOmitEmpty, 4));
}

struct EndpointSlice {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  std::string address_type;  // IPv4 | IPv6 | FQDN
  // Upstream writes `null` for no endpoints; we write [] on purpose (spec api-types §1).
  std::vector<Endpoint> endpoints;
  // Go's nil-vs-empty distinction is visible here (`"ports": null` vs `[]`), so keep it.
  std::optional<std::vector<EndpointPort>> ports;
  meta::UnknownFields unknown;
  bool operator==(const EndpointSlice&) const = default;
};
constexpr auto FieldsOf(Tag<EndpointSlice>) {
  using T = EndpointSlice;
  return std::make_tuple(
      F("kind", &T::kind), F("apiVersion", &T::api_version),
      F("metadata", &T::metadata, kAlways, 1), F("addressType", &T::address_type, kAlways, 4),
      F("endpoints", &T::endpoints, kAlways, 2), F("ports", &T::ports, kAlways, 3));
}

}  // namespace svcplane::api::discovery::v1
