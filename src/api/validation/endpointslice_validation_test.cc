#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using discovery::v1::EndpointSlice;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;
using testing::ValidSlice;

TEST(EndpointSliceValidationTest, ValidPasses) {
  EXPECT_THAT(Errs(ValidateCreate(ValidSlice())), IsEmpty());
}

TEST(EndpointSliceValidationTest, AddressType) {
  EndpointSlice slice = ValidSlice();
  slice.address_type = "foo";
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("addressType: Unsupported value: \"foo\": supported values: \"FQDN\", "
                          "\"IPv4\", \"IPv6\""));
  slice.address_type = "IP";  // deprecated, not accepted
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("addressType: Unsupported value: \"IP\": supported values: \"FQDN\", "
                          "\"IPv4\", \"IPv6\""));
  slice.address_type = "";
  EXPECT_THAT(Errs(ValidateCreate(slice)), ElementsAre("addressType: Required value"));
}

TEST(EndpointSliceValidationTest, TooManyEndpoints) {
  EndpointSlice slice = ValidSlice();
  slice.endpoints.resize(1001, slice.endpoints[0]);
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("endpoints: Too many: 1001: must have at most 1000 items"));
  slice.endpoints.resize(1000);
  EXPECT_THAT(Errs(ValidateCreate(slice)), IsEmpty());
}

TEST(EndpointSliceValidationTest, AddressCount) {
  EndpointSlice slice = ValidSlice();
  slice.endpoints[0].addresses.clear();
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("endpoints[0].addresses: Required value: must contain at least 1 "
                          "address"));
  slice.endpoints[0].addresses.assign(101, "10.1.2.3");
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("endpoints[0].addresses: Too many: 101: must have at most 100 items"));
}

TEST(EndpointSliceValidationTest, IPv4Addresses) {
  EndpointSlice slice = ValidSlice();
  slice.endpoints[0].addresses = {"127.0.0.1", "fd00::1", "0.0.0.0", "169.254.1.1", "224.0.0.5"};
  EXPECT_THAT(
      Errs(ValidateCreate(slice)),
      ElementsAre("endpoints[0].addresses[0]: Invalid value: \"127.0.0.1\": may not be in the "
                  "loopback range (127.0.0.0/8, ::1/128)",
                  "endpoints[0].addresses[1]: Invalid value: \"fd00::1\": must be a valid IPv4 "
                  "address",
                  "endpoints[0].addresses[2]: Invalid value: \"0.0.0.0\": may not be unspecified "
                  "(0.0.0.0)",
                  "endpoints[0].addresses[3]: Invalid value: \"169.254.1.1\": may not be in the "
                  "link-local range (169.254.0.0/16, fe80::/10)",
                  "endpoints[0].addresses[4]: Invalid value: \"224.0.0.5\": may not be in the "
                  "link-local multicast range (224.0.0.0/24, ff02::/10)"));
  slice.endpoints[0].addresses = {"not-an-ip"};
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("endpoints[0].addresses[0]: Invalid value: \"not-an-ip\": must be a "
                          "valid IPv4 address",
                          "endpoints[0].addresses[0]: Invalid value: \"not-an-ip\": must be a "
                          "valid IP address"));
}

TEST(EndpointSliceValidationTest, IPv6Addresses) {
  EndpointSlice slice = ValidSlice();
  slice.address_type = "IPv6";
  slice.endpoints[0].addresses = {"fd00::1", "::1", "fe80::1", "ff02::1", "10.0.0.1"};
  EXPECT_THAT(
      Errs(ValidateCreate(slice)),
      ElementsAre("endpoints[0].addresses[1]: Invalid value: \"::1\": may not be in the "
                  "loopback range (127.0.0.0/8, ::1/128)",
                  "endpoints[0].addresses[2]: Invalid value: \"fe80::1\": may not be in the "
                  "link-local range (169.254.0.0/16, fe80::/10)",
                  "endpoints[0].addresses[3]: Invalid value: \"ff02::1\": may not be in the "
                  "link-local multicast range (224.0.0.0/24, ff02::/10)",
                  "endpoints[0].addresses[4]: Invalid value: \"10.0.0.1\": must be a valid IPv6 "
                  "address"));
}

TEST(EndpointSliceValidationTest, FQDNAddresses) {
  EndpointSlice slice = ValidSlice();
  slice.address_type = "FQDN";
  slice.endpoints[0].addresses = {"db.example.com.", "localhost", "Bad.example.com"};
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("endpoints[0].addresses[1]: Invalid value: \"localhost\": should be a "
                          "domain with at least two segments separated by dots",
                          std::string("endpoints[0].addresses[2]: Invalid value: "
                                      "\"Bad.example.com\": ") +
                              testing::kSubdomainMsg));
  slice.endpoints[0].addresses = {""};
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("endpoints[0].addresses[0]: Required value"));
}

TEST(EndpointSliceValidationTest, EndpointFields) {
  EndpointSlice slice = ValidSlice();
  auto& ep = slice.endpoints[0];
  ep.hostname = "Pod-1";
  ep.node_name = "node_1";
  ep.zone = "us-east-1a";
  ep.deprecated_topology = {{"topology.kubernetes.io/zone", "a"}};
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre(std::string("endpoints[0].nodeName: Invalid value: \"node_1\": ") +
                              testing::kSubdomainMsg,
                          "endpoints[0].deprecatedTopology[topology.kubernetes.io/zone]: Internal "
                          "error: reserved key was not removed in conversion",
                          std::string("endpoints[0].hostname: Invalid value: \"Pod-1\": ") +
                              testing::kLabelMsg));
  ep = ValidSlice().endpoints[0];
  for (int i = 0; i < 17; ++i) ep.deprecated_topology["k" + std::to_string(i)] = "v";
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("endpoints[0].deprecatedTopology: Too many: 17: must have at most 16 "
                          "items"));
}

TEST(EndpointSliceValidationTest, Hints) {
  EndpointSlice slice = ValidSlice();
  discovery::v1::EndpointHints hints;
  hints.for_zones = {{"a", {}}, {"a", {}}, {"-bad", {}}};
  hints.for_nodes = {{"node-1", {}}, {"Node", {}}};
  slice.endpoints[0].hints = hints;
  EXPECT_THAT(
      Errs(ValidateCreate(slice)),
      ElementsAre("endpoints[0].hints.forZones[1].name: Duplicate value: \"a\"",
                  ::testing::StartsWith("endpoints[0].hints.forZones[2].name: Invalid value: "
                                        "\"-bad\": a valid label must be an empty string"),
                  std::string("endpoints[0].hints.forNodes[1].name: Invalid value: \"Node\": ") +
                      testing::kSubdomainMsg));
  hints.for_zones.assign(9, {"z", {}});
  slice.endpoints[0].hints = hints;
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("endpoints[0].hints.forZones: Too many: 9: must have at most 8 items"));
}

TEST(EndpointSliceValidationTest, Ports) {
  EndpointSlice slice = ValidSlice();
  discovery::v1::EndpointPort p = (*slice.ports)[0];
  slice.ports->push_back(p);
  p.name = "Http";
  p.protocol = "HTTP";
  p.app_protocol = "kubernetes.io/h2c";
  slice.ports->push_back(p);
  (*slice.ports)[0].protocol.reset();
  EXPECT_THAT(
      Errs(ValidateCreate(slice)),
      ElementsAre("ports[0].protocol: Required value", "ports[1].name: Duplicate value: \"\"",
                  std::string("ports[2].name: Invalid value: \"Http\": ") + testing::kLabelMsg,
                  "ports[2].protocol: Unsupported value: \"HTTP\": supported values: "
                  "\"SCTP\", \"TCP\", \"UDP\""));
  slice.ports = std::vector<discovery::v1::EndpointPort>(20001, p);
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("ports: Too many: 20001: must have at most 20000 items"));
  slice.ports.reset();
  EXPECT_THAT(Errs(ValidateCreate(slice)), IsEmpty());
}

TEST(EndpointSliceValidationTest, GenerateNameAndNamespace) {
  EndpointSlice slice = ValidSlice();
  slice.metadata.name.clear();
  slice.metadata.rest->generate_name = "web-";
  EXPECT_THAT(Errs(ValidateCreate(slice)),
              ElementsAre("metadata.name: Required value: name or generateName is required"));
  slice = ValidSlice();
  slice.metadata.namespace_.clear();
  EXPECT_THAT(Errs(ValidateCreate(slice)), ElementsAre("metadata.namespace: Required value"));
}

TEST(EndpointSliceUpdateTest, AddressTypeImmutable) {
  EndpointSlice old = ValidSlice();
  EndpointSlice slice = old;
  slice.address_type = "IPv6";
  slice.endpoints[0].addresses = {"fd00::1"};
  EXPECT_THAT(Errs(ValidateUpdate(slice, old)),
              ElementsAre("addressType: Invalid value: \"IPv6\": field is immutable"));
  slice = old;
  slice.endpoints.clear();
  EXPECT_THAT(Errs(ValidateUpdate(slice, old)), IsEmpty());
}

}  // namespace
}  // namespace svcplane::api::validation
