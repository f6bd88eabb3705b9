#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta/types.h"

namespace svcplane::api::core::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

struct EndpointAddress {
  std::string ip;
  std::string hostname;
  std::optional<std::string> node_name;
  std::optional<meta::ObjectReference> target_ref;
  meta::UnknownFields unknown;
  bool operator==(const EndpointAddress&) const = default;
};
constexpr auto FieldsOf(Tag<EndpointAddress>) {
  using T = EndpointAddress;
  return std::make_tuple(F("ip", &T::ip, kAlways, 1), F("hostname", &T::hostname, kOmitEmpty, 3),
                         F("nodeName", &T::node_name, kOmitEmpty, 4),
                         F("targetRef", &T::target_ref, kOmitEmpty, 2));
}

struct EndpointPort {
  std::string name;
  int32_t port = 0;
  std::string protocol;
  std::optional<std::string> app_protocol;
  meta::UnknownFields unknown;
  bool operator==(const EndpointPort&) const = default;
};
constexpr auto FieldsOf(Tag<EndpointPort>) {
  using T = EndpointPort;
  return std::make_tuple(F("name", &T::name, kOmitEmpty, 1), F("port", &T::port, kAlways, 2),
                         F("protocol", &T::protocol, kOmitEmpty, 3),
                         F("appProtocol", &T::app_protocol, kOmitEmpty, 4));
}

struct EndpointSubset {
  std::vector<EndpointAddress> addresses;
  std::vector<EndpointAddress> not_ready_addresses;
  std::vector<EndpointPort> ports;
  meta::UnknownFields unknown;
  bool operator==(const EndpointSubset&) const = default;
};
constexpr auto FieldsOf(Tag<EndpointSubset>) {
  using T = EndpointSubset;
  return std::make_tuple(F("addresses", &T::addresses, kOmitEmpty, 1),
                         F("notReadyAddresses", &T::not_ready_addresses, kOmitEmpty, 2),
                         F("ports", &T::ports, kOmitEmpty, 3));
}

struct Endpoints {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  std::vector<EndpointSubset> subsets;
  meta::UnknownFields unknown;
  bool operator==(const Endpoints&) const = default;
};
constexpr auto FieldsOf(Tag<Endpoints>) {
  using T = Endpoints;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1),
                         F("subsets", &T::subsets, kOmitEmpty, 2));
}

}  // namespace svcplane::api::core::v1
