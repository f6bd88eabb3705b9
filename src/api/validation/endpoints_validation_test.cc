#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/internal/test_util.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using core::v1::Endpoints;
using ::testing::ElementsAre;
using testing::Errs;
using ::testing::IsEmpty;

Endpoints ValidEndpoints() {
  Endpoints ep;
  ep.metadata.name = "web";
  ep.metadata.namespace_ = "default";
  ep.metadata.resource_version = "1";
  ep.subsets.resize(1);
  ep.subsets[0].addresses.push_back({"10.1.2.3", "", std::string("node-1"), std::nullopt, {}});
  ep.subsets[0].ports.push_back({"", 8080, "", std::nullopt, {}});
  Default(ep);
  return ep;
}

TEST(EndpointsValidationTest, ValidPasses) {
  EXPECT_THAT(Errs(ValidateCreate(ValidEndpoints())), IsEmpty());
}

TEST(EndpointsValidationTest, SubsetNeedsAddresses) {
  Endpoints ep = ValidEndpoints();
  ep.subsets[0].addresses.clear();
  EXPECT_THAT(Errs(ValidateCreate(ep)),
              ElementsAre("subsets[0]: Required value: must specify `addresses` or "
                          "`notReadyAddresses`"));
  ep.subsets[0].not_ready_addresses.push_back({"10.1.2.4", "", std::nullopt, std::nullopt, {}});
  EXPECT_THAT(Errs(ValidateCreate(ep)), IsEmpty());
}

TEST(EndpointsValidationTest, AddressRules) {
  Endpoints ep = ValidEndpoints();
  ep.subsets[0].addresses[0].ip = "127.0.0.1";
  ep.subsets[0].addresses[0].hostname = "Host";
  ep.subsets[0].addresses[0].node_name = "Node";
  ep.subsets[0].not_ready_addresses.push_back({"bad", "", std::nullopt, std::nullopt, {}});
  EXPECT_THAT(
      Errs(ValidateCreate(ep)),
      ElementsAre(std::string("subsets[0].addresses[0].hostname: Invalid value: \"Host\": ") +
                      testing::kLabelMsg,
                  std::string("subsets[0].addresses[0].nodeName: Invalid value: \"Node\": ") +
                      testing::kSubdomainMsg,
                  "subsets[0].addresses[0].ip: Invalid value: \"127.0.0.1\": may not be in the "
                  "loopback range (127.0.0.0/8, ::1/128)",
                  "subsets[0].notReadyAddresses[0].ip: Invalid value: \"bad\": must be a valid IP "
                  "address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                  "subsets[0].notReadyAddresses[0].ip: Invalid value: \"bad\": must be a valid IP "
                  "address"));
}

TEST(EndpointsValidationTest, PortRules) {
  Endpoints ep = ValidEndpoints();
  ep.subsets[0].ports.push_back({"", 0, "HTTP", std::string("bad proto"), {}});
  std::vector<std::string> errs = Errs(ValidateCreate(ep));
  ASSERT_EQ(errs.size(), 5u);
  EXPECT_EQ(errs[0], "subsets[0].ports[0].name: Required value");
  EXPECT_EQ(errs[1], "subsets[0].ports[1].name: Required value");
  EXPECT_EQ(errs[2],
            "subsets[0].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive");
  EXPECT_EQ(errs[3],
            "subsets[0].ports[1].protocol: Unsupported value: \"HTTP\": supported values: "
            "\"SCTP\", \"TCP\", \"UDP\"");
  EXPECT_THAT(errs[4], ::testing::StartsWith("subsets[0].ports[1].appProtocol: Invalid value: "
                                             "\"bad proto\""));
  ep = ValidEndpoints();
  ep.subsets[0].ports[0].protocol = "";
  EXPECT_THAT(Errs(ValidateCreate(ep)),
              ElementsAre("subsets[0].ports[0].protocol: Required value"));
}

TEST(EndpointsValidationTest, UpdateChecksMetadataAndContent) {
  Endpoints old = ValidEndpoints();
  Endpoints ep = old;
  ep.subsets[0].addresses[0].node_name = "node-2";  // allowed: IPs get reused
  EXPECT_THAT(Errs(ValidateUpdate(ep, old)), IsEmpty());
  ep.metadata.namespace_ = "other";
  ep.subsets[0].ports[0].port = 0;
  EXPECT_THAT(Errs(ValidateUpdate(ep, old)),
              ElementsAre("metadata.namespace: Invalid value: \"other\": field is immutable",
                          "subsets[0].ports[0].port: Invalid value: 0: must be between 1 and "
                          "65535, inclusive"));
}

}  // namespace
}  // namespace svcplane::api::validation
