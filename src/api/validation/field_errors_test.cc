#include "api/validation/field_errors.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace svcplane::api::validation {
namespace {

TEST(FieldPath, Rendering) {
  EXPECT_EQ(Path("spec").Child("ports").Index(0).Key("x").String(), "spec.ports[0][x]");
  EXPECT_EQ(Path("metadata").Child("name").String(), "metadata.name");
  EXPECT_EQ(Path("spec").Index(3).Child("port").String(), "spec[3].port");
  EXPECT_EQ(FieldPath().String(), "<nil>");
  EXPECT_TRUE(FieldPath().IsNil());
  // Children of the nil path start a fresh root, as upstream's Child on a nil *Path does.
  EXPECT_EQ(FieldPath().Child("values").Index(0).Key("k").String(), "values[0][k]");
  EXPECT_EQ(FieldPath().Index(2).String(), "[2]");
}

TEST(GoQuote, MatchesStrconvQuote) {
  EXPECT_EQ(GoQuote("1web"), "\"1web\"");
  EXPECT_EQ(GoQuote(""), "\"\"");
  EXPECT_EQ(GoQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(GoQuote("tab\there\nnl"), "\"tab\\there\\nnl\"");
  EXPECT_EQ(GoQuote(std::string_view("\x00\x7f\x1b", 3)), "\"\\x00\\x7f\\x1b\"");
  EXPECT_EQ(GoQuote("\a\b\f\r\v"), "\"\\a\\b\\f\\r\\v\"");
  EXPECT_EQ(GoQuote("caf\xC3\xA9"), "\"caf\xC3\xA9\"");  // printable UTF-8 kept
  EXPECT_EQ(GoQuote("\xff"
                    "a"),
            "\"\\xffa\"");                                         // invalid byte
  EXPECT_EQ(GoQuote("\xC2\xA0"), "\"\\u00a0\"");                   // NBSP is not printable
  EXPECT_EQ(GoQuote("\xEF\xBB\xBF"), "\"\\ufeff\"");               // BOM
  EXPECT_EQ(GoQuote("\xF0\x9F\x98\x80"), "\"\xF0\x9F\x98\x80\"");  // emoji printable
  EXPECT_EQ(GoQuote("\xED\xA0\x80"), "\"\\xed\\xa0\\x80\"");       // surrogate: invalid
}

TEST(GoStringSlice, Forms) {
  EXPECT_EQ(GoStringSlice({}), "[]string{}");
  EXPECT_EQ(GoStringSlice({}, true), "[]string(nil)");
  EXPECT_EQ(GoStringSlice({"a", "b"}), "[]string{\"a\", \"b\"}");
}

TEST(FieldError, UpstreamRenderings) {
  EXPECT_EQ(Invalid(Path("metadata").Child("name"), "1web",
                    "a DNS-1035 label must consist of lower case alphanumeric characters or '-'")
                .Error(),
            "metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case "
            "alphanumeric characters or '-'");
  EXPECT_EQ(NotSupported(Path("spec").Child("ports").Index(0).Child("protocol"), "HTTP",
                         {"SCTP", "TCP", "UDP"})
                .Error(),
            "spec.ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", "
            "\"TCP\", \"UDP\"");
  EXPECT_EQ(NotSupported(Path("x"), "y", {}).Error(), "x: Unsupported value: \"y\"");
  EXPECT_EQ(TooMany(Path("endpoints"), 1001, 1000).Error(),
            "endpoints: Too many: 1001: must have at most 1000 items");
  EXPECT_EQ(TooMany(Path("endpoints"), -1, 1000).Error(),
            "endpoints: Too many: must have at most 1000 items");
  EXPECT_EQ(TooMany(Path("endpoints"), 5, -1).Error(),
            "endpoints: Too many: 5: has too many items");
  EXPECT_EQ(Required(Path("spec").Child("ports"), "").Error(), "spec.ports: Required value");
  EXPECT_EQ(Required(Path("metadata").Child("name"), "name or generateName is required").Error(),
            "metadata.name: Required value: name or generateName is required");
  EXPECT_EQ(Duplicate(Path("spec").Child("ports").Index(1).Child("name"), "http").Error(),
            "spec.ports[1].name: Duplicate value: \"http\"");
  EXPECT_EQ(Duplicate(Path("spec").Child("ports").Index(1), int64_t{80}).Error(),
            "spec.ports[1]: Duplicate value: 80");
  EXPECT_EQ(Forbidden(Path("spec").Child("nodePort"), "may not be used when `type` is 'ClusterIP'")
                .Error(),
            "spec.nodePort: Forbidden: may not be used when `type` is 'ClusterIP'");
  EXPECT_EQ(TooLong(Path("metadata").Child("annotations"), 262144).Error(),
            "metadata.annotations: Too long: must have at most 262144 bytes");
  EXPECT_EQ(Invalid(Path("spec").Child("ports").Index(0).Child("port"), int64_t{0},
                    "must be between 1 and 65535, inclusive")
                .Error(),
            "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive");
  EXPECT_EQ(InternalFieldError(Path("spec"), "boom").Error(), "spec: Internal error: boom");
  EXPECT_EQ(NotFound(Path("spec").Child("x"), "y").Error(), "spec.x: Not found: \"y\"");
  EXPECT_EQ(Invalid(Path("a"), "v", "").Error(), "a: Invalid value: \"v\"");
}

TEST(FieldError, CauseTypes) {
  EXPECT_EQ(CauseType(FieldErrorType::kInvalid), "FieldValueInvalid");
  EXPECT_EQ(CauseType(FieldErrorType::kRequired), "FieldValueRequired");
  EXPECT_EQ(CauseType(FieldErrorType::kDuplicate), "FieldValueDuplicate");
  EXPECT_EQ(CauseType(FieldErrorType::kNotSupported), "FieldValueNotSupported");
  EXPECT_EQ(CauseType(FieldErrorType::kForbidden), "FieldValueForbidden");
  EXPECT_EQ(CauseType(FieldErrorType::kTooLong), "FieldValueTooLong");
  EXPECT_EQ(CauseType(FieldErrorType::kTooMany), "FieldValueTooMany");
  EXPECT_EQ(CauseType(FieldErrorType::kNotFound), "FieldValueNotFound");
  EXPECT_EQ(CauseType(FieldErrorType::kInternal), "InternalError");
}

TEST(Aggregate, SingleSeveralAndDuplicates) {
  FieldErrorList one = {Required(Path("a"))};
  EXPECT_EQ(AggregateMessage(one), "a: Required value");
  FieldErrorList two = {Required(Path("a")), Invalid(Path("b"), "x", "bad")};
  EXPECT_EQ(AggregateMessage(two), "[a: Required value, b: Invalid value: \"x\": bad]");
  FieldErrorList dup = {Required(Path("a")), Required(Path("a"))};
  EXPECT_EQ(AggregateMessage(dup), "a: Required value");
  EXPECT_EQ(AggregateMessage({}), "");
}

TEST(ToInvalidStatus, MessageAndCauses) {
  FieldErrorList errs = {Invalid(Path("metadata").Child("name"), "1web", "bad name")};
  Status st = ToInvalidStatus("Service", "1web", errs);
  EXPECT_EQ(st.code(), Code::kInvalid);
  EXPECT_EQ(st.message(),
            "Service \"1web\" is invalid: metadata.name: Invalid value: \"1web\": "
            "bad name");
  ASSERT_EQ(st.causes().size(), 1u);
  EXPECT_EQ(st.causes()[0], (StatusCause{"FieldValueInvalid", "metadata.name",
                                         "Invalid value: \"1web\": bad name"}));

  FieldErrorList several = {Required(Path("spec").Child("ports").Index(0).Child("name")),
                            Required(Path("spec").Child("ports").Index(1).Child("name"))};
  Status st2 = ToInvalidStatus("Service", "web", several);
  EXPECT_EQ(st2.message(),
            "Service \"web\" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: "
            "Required value]");
  EXPECT_EQ(st2.causes().size(), 2u);
  EXPECT_EQ(st2.causes()[1].type, "FieldValueRequired");
  EXPECT_EQ(st2.causes()[1].message, "Required value");

  Status st3 = ToInvalidStatus("EndpointSlice.discovery.k8s.io", "s",
                               {TooMany(Path("endpoints"), 1001, 1000)});
  EXPECT_EQ(st3.message(),
            "EndpointSlice.discovery.k8s.io \"s\" is invalid: endpoints: Too many: 1001: must have "
            "at most 1000 items");
  EXPECT_EQ(st3.causes()[0].type, "FieldValueTooMany");
  EXPECT_EQ(ToInvalidStatus("Service", "x", {}).message(), "Service \"x\" is invalid");
}

}  // namespace
}  // namespace svcplane::api::validation
