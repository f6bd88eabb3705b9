#include "apiserver/table/accept.h"

#include <gtest/gtest.h>

namespace svcplane::apiserver::table {
namespace {

TEST(AcceptTest, ParsesClausesAndParams) {
  auto r = ParseAccept("application/json;as=Table;v=v1;g=meta.k8s.io, Text/Plain ; q=\"0.5\"");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].type, "application");
  EXPECT_EQ(r[0].subtype, "json");
  EXPECT_EQ(r[0].Param("as"), "Table");
  EXPECT_EQ(r[0].Param("g"), "meta.k8s.io");
  EXPECT_EQ(r[1].subtype, "plain");
  EXPECT_EQ(r[1].Param("q"), "0.5");
  EXPECT_EQ(r[1].Param("missing"), "");
}

TEST(AcceptTest, KubectlGetAsksForTableV1) {
  EXPECT_EQ(NegotiateResponse("application/json;as=Table;v=v1;g=meta.k8s.io,application/"
                              "json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"),
            ResponseFormat::kTableV1);
}

TEST(AcceptTest, FallsThroughUnsupportedClauses) {
  EXPECT_EQ(NegotiateResponse("application/json;as=Table;v=v2;g=meta.k8s.io,application/"
                              "json;as=Table;v=v1beta1;g=meta.k8s.io"),
            ResponseFormat::kTableV1beta1);
  EXPECT_EQ(NegotiateResponse("application/vnd.kubernetes.protobuf,application/json"),
            ResponseFormat::kJson);
  EXPECT_EQ(NegotiateResponse("application/json;as=Deployment;v=v1;g=apps,*/*"),
            ResponseFormat::kJson);
  EXPECT_EQ(
      NegotiateResponse(
          "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json"),
      ResponseFormat::kPartialObjectMetadata);
}

TEST(AcceptTest, EmptyAndWildcardsAreJson) {
  EXPECT_EQ(NegotiateResponse(""), ResponseFormat::kJson);
  EXPECT_EQ(NegotiateResponse("*/*"), ResponseFormat::kJson);
  EXPECT_EQ(NegotiateResponse("application/*"), ResponseFormat::kJson);
}

TEST(AcceptTest, NothingAcceptableIs406) {
  EXPECT_EQ(NegotiateResponse("application/vnd.kubernetes.protobuf"),
            ResponseFormat::kNotAcceptable);
  EXPECT_EQ(NegotiateResponse("text/html"), ResponseFormat::kNotAcceptable);
  EXPECT_EQ(NegotiateResponse("application/json;as=Table;v=v1;g=apps"),
            ResponseFormat::kNotAcceptable);
  EXPECT_EQ(NegotiateResponse("application/cbor"), ResponseFormat::kNotAcceptable);
}

TEST(AcceptTest, ResponseContentTypes) {
  EXPECT_EQ(ResponseContentType(ResponseFormat::kJson, true), "application/json");
  EXPECT_EQ(ResponseContentType(ResponseFormat::kTableV1, true),
            "application/json;as=Table;v=v1;g=meta.k8s.io");
  EXPECT_EQ(ResponseContentType(ResponseFormat::kTableV1beta1, false),
            "application/json;as=Table;v=v1beta1;g=meta.k8s.io");
  EXPECT_EQ(ResponseContentType(ResponseFormat::kPartialObjectMetadata, true),
            "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io");
  EXPECT_EQ(ResponseContentType(ResponseFormat::kNotAcceptable, false), "");
}

}  // namespace
}  // namespace svcplane::apiserver::table
