#include "api/validation/names.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace svcplane::api::validation {
namespace {

using testing::ElementsAre;
using testing::IsEmpty;

const std::string kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kDNS1035Msg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const std::string kNameTail =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

TEST(IsDNS1123Label, ValidAndInvalid) {
  for (std::string_view ok :
       {"a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "0-1", "1-0", "a-b",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaa"}) {
    EXPECT_THAT(IsDNS1123Label(ok), IsEmpty()) << ok;
  }
  for (std::string_view bad :
       {"",   "A",   "ABC", "aBc", "A1",  "A-1", "1-A", "-",  "a-",  "-a", "1-", "-1",  "_",  "a_",
        "_a", "a_b", "1_",  "_1",  "1_2", "*",   "a*",  "*a", "a*b", "1*", "*1", "1*2", "a b"}) {
    EXPECT_THAT(IsDNS1123Label(bad), ElementsAre(kLabelMsg)) << bad;
  }
  EXPECT_THAT(IsDNS1123Label("a.b"), ElementsAre("must not contain dots"));
  EXPECT_THAT(IsDNS1123Label(std::string(64, 'a')),
              ElementsAre("must be no more than 63 characters"));
  EXPECT_THAT(IsDNS1123Label(std::string(64, 'A')),
              ElementsAre("must be no more than 63 characters", kLabelMsg));
  EXPECT_THAT(IsDNS1123Label("Team-A"), ElementsAre(kLabelMsg));
}

TEST(IsDNS1123Subdomain, ValidAndInvalid) {
  for (std::string_view ok :
       {"a", "ab", "a.b", "a-b.c", "0.a", "a.b.c.d", "1.2.3.4", "my-app.default.svc"}) {
    EXPECT_THAT(IsDNS1123Subdomain(ok), IsEmpty()) << ok;
  }
  for (std::string_view bad : {"", "A", ".", "a.", ".a", "a..b", "a.-b", "a-.b", "a_b", "A.b"}) {
    EXPECT_THAT(IsDNS1123Subdomain(bad), ElementsAre(kSubdomainMsg)) << bad;
  }
  std::string long_ok = std::string(63, 'a') + "." + std::string(63, 'b') + "." +
                        std::string(63, 'c') + "." + std::string(61, 'd');
  ASSERT_EQ(long_ok.size(), 253u);
  EXPECT_THAT(IsDNS1123Subdomain(long_ok), IsEmpty());
  EXPECT_THAT(IsDNS1123Subdomain(long_ok + "d"),
              ElementsAre("must be no more than 253 characters"));
}

TEST(IsDNS1035Label, ValidAndInvalid) {
  for (std::string_view ok : {"a", "ab", "a1", "a-1", "a--1--2--b", "web"}) {
    EXPECT_THAT(IsDNS1035Label(ok), IsEmpty()) << ok;
  }
  for (std::string_view bad : {"", "0", "01", "1web", "A", "a-", "-a", "a_b", "a.b"}) {
    EXPECT_THAT(IsDNS1035Label(bad), ElementsAre(kDNS1035Msg)) << bad;
  }
  EXPECT_THAT(IsDNS1035Label(std::string(64, 'a')),
              ElementsAre("must be no more than 63 characters"));
}

TEST(IsQualifiedName, ValidAndInvalid) {
  for (std::string_view ok :
       {"simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple",
        "now-with-dashes/simple", "now-with-dashes/now-with-dashes", "now.with.dots/simple",
        "now-with.dashes-and.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678",
        "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo",
        "kubernetes.io/service-name"}) {
    EXPECT_THAT(IsQualifiedName(ok), IsEmpty()) << ok;
  }
  EXPECT_THAT(IsQualifiedName(std::string(63, 'a')), IsEmpty());
  EXPECT_THAT(IsQualifiedName(std::string(253, 'a') + "/" + std::string(63, 'b')), IsEmpty());

  for (std::string_view bad :
       {"nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash",
        "Example.com/abc", "example_com/abc", "example.com/", "/simple", ""}) {
    EXPECT_THAT(IsQualifiedName(bad), testing::Not(IsEmpty())) << bad;
  }
  EXPECT_THAT(IsQualifiedName("-a"), ElementsAre("name part " + kNameTail));
  EXPECT_THAT(IsQualifiedName(""),
              ElementsAre("name part must be non-empty", "name part " + kNameTail));
  EXPECT_THAT(IsQualifiedName("/a"), ElementsAre("prefix part must be non-empty"));
  EXPECT_THAT(IsQualifiedName("Example.com/abc"), ElementsAre("prefix part " + kSubdomainMsg));
  EXPECT_THAT(IsQualifiedName(std::string(254, 'a') + "/b"),
              ElementsAre("prefix part must be no more than 253 characters"));
  EXPECT_THAT(IsQualifiedName(std::string(64, 'a')),
              ElementsAre("name part must be no more than 63 characters"));
  EXPECT_THAT(IsQualifiedName("a/b/c"),
              ElementsAre("a qualified name " + kNameTail +
                          " with an optional DNS subdomain prefix and '/' (e.g. "
                          "'example.com/MyName')"));
}

TEST(IsValidLabelValue, ValidAndInvalid) {
  for (std::string_view ok : {"simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1",
                              "1234", "a", "", "A_B.c-1"}) {
    EXPECT_THAT(IsValidLabelValue(ok), IsEmpty()) << ok;
  }
  EXPECT_THAT(IsValidLabelValue(std::string(63, 'a')), IsEmpty());
  for (std::string_view bad : {"nospecialchars%^=@", "Tama-nui-te-rā.Atua-o-te-pō",
                               "Iñtërnâtiônàlizætiøn", "-a", "a-", "a b", "a/b", "_"}) {
    EXPECT_THAT(IsValidLabelValue(bad), ElementsAre(kValueMsg)) << bad;
  }
  EXPECT_THAT(IsValidLabelValue(std::string(64, 'a')),
              ElementsAre("must be no more than 63 characters"));
}

TEST(Ports, NumbersAndNames) {
  EXPECT_THAT(IsValidPortNum(1), IsEmpty());
  EXPECT_THAT(IsValidPortNum(65535), IsEmpty());
  EXPECT_THAT(IsValidPortNum(0), ElementsAre("must be between 1 and 65535, inclusive"));
  EXPECT_THAT(IsValidPortNum(65536), ElementsAre("must be between 1 and 65535, inclusive"));
  EXPECT_THAT(IsValidPortNum(-1), ElementsAre("must be between 1 and 65535, inclusive"));
  EXPECT_THAT(IsInRange(5, 1, 4), ElementsAre("must be between 1 and 4, inclusive"));

  for (std::string_view ok :
       {"telnet", "re-mail-ck", "pop3", "a", "a-1", "1-a", "a-1-b-2-c", "1-a-2-b-3", "http"}) {
    EXPECT_THAT(IsValidPortName(ok), IsEmpty()) << ok;
  }
  EXPECT_THAT(IsValidPortName("longerthan15characters"),
              ElementsAre("must be no more than 15 characters"));
  EXPECT_THAT(IsValidPortName(""),
              ElementsAre("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                          "must contain at least one letter (a-z)"));
  EXPECT_THAT(IsValidPortName("12345"), ElementsAre("must contain at least one letter (a-z)"));
  EXPECT_THAT(IsValidPortName("a--b"), ElementsAre("must not contain consecutive hyphens"));
  EXPECT_THAT(IsValidPortName("-a"), ElementsAre("must not begin or end with a hyphen"));
  EXPECT_THAT(IsValidPortName("a-"), ElementsAre("must not begin or end with a hyphen"));
  EXPECT_THAT(
      IsValidPortName("Http-Port"),
      ElementsAre("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"));
  EXPECT_THAT(
      IsValidPortName("-_-"),
      ElementsAre("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                  "must contain at least one letter (a-z)", "must not begin or end with a hyphen"));
}

TEST(PathSegmentNames, Rules) {
  EXPECT_THAT(IsValidPathSegmentName("ok"), IsEmpty());
  EXPECT_THAT(IsValidPathSegmentName("."), ElementsAre("may not be '.'"));
  EXPECT_THAT(IsValidPathSegmentName(".."), ElementsAre("may not be '..'"));
  EXPECT_THAT(IsValidPathSegmentName("a/b%c"),
              ElementsAre("may not contain '/'", "may not contain '%'"));
}

TEST(NameValidators, GenerateNamePrefixes) {
  EXPECT_THAT(NameIsDNSSubdomain("web-", true), IsEmpty());
  EXPECT_THAT(NameIsDNSSubdomain("web-", false), ElementsAre(kSubdomainMsg));
  EXPECT_THAT(NameIsDNSLabel("web-", true), IsEmpty());
  EXPECT_THAT(NameIsDNS1035Label("web-", true), IsEmpty());
  // Upstream drops two characters for the trailing dash: "1-" becomes "a" (valid DNS-1035).
  EXPECT_THAT(NameIsDNS1035Label("1-", true), IsEmpty());
  EXPECT_THAT(NameIsDNS1035Label("1web-", true), ElementsAre(kDNS1035Msg));
  EXPECT_THAT(NameIsDNSLabel("-", true), ElementsAre(kLabelMsg));
}

TEST(ValidateObjectName, NameAndGenerateName) {
  auto meta = Path("metadata");
  EXPECT_THAT(ValidateObjectName("web", "", NameIsDNS1035Label, meta), IsEmpty());
  auto errs = ValidateObjectName("1web", "", NameIsDNS1035Label, meta);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].Error(), "metadata.name: Invalid value: \"1web\": " + kDNS1035Msg);
  EXPECT_EQ(ToInvalidStatus("Service", "1web", errs).message(),
            "Service \"1web\" is invalid: metadata.name: Invalid value: \"1web\": " + kDNS1035Msg);
  auto missing = ValidateObjectName("", "", NameIsDNSSubdomain, meta);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].Error(), "metadata.name: Required value: name or generateName is required");
  auto gen = ValidateObjectName("", "Web-", NameIsDNSSubdomain, meta);
  ASSERT_EQ(gen.size(), 2u);
  EXPECT_EQ(gen[0].Error(), "metadata.generateName: Invalid value: \"Web-\": " + kSubdomainMsg);
}

TEST(ValidateLabels, KeysAndValues) {
  auto path = Path("metadata").Child("labels");
  EXPECT_THAT(ValidateLabels({{"app", "web"}, {"kubernetes.io/x", ""}}, path), IsEmpty());
  auto errs = ValidateLabels({{"-k", "ok"}, {"k", "-v"}}, path);
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_EQ(errs[0].Error(), "metadata.labels: Invalid value: \"-k\": name part " + kNameTail);
  EXPECT_EQ(errs[1].Error(), "metadata.labels: Invalid value: \"-v\": " + kValueMsg);
}

TEST(ValidateAnnotations, KeysCaseInsensitiveAndTotalSize) {
  auto path = Path("metadata").Child("annotations");
  EXPECT_THAT(ValidateAnnotations({{"Example.COM/Key", "anything at all: {json}"}}, path),
              IsEmpty());
  auto bad = ValidateAnnotations({{"a/b/c", "x"}}, path);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].type, FieldErrorType::kInvalid);

  meta::StringMap big = {{"a", std::string(kTotalAnnotationSizeLimitBytes - 1, 'x')}};
  EXPECT_THAT(ValidateAnnotations(big, path), IsEmpty());  // exactly at the limit
  big["a"] += "x";
  auto too_long = ValidateAnnotations(big, path);
  ASSERT_EQ(too_long.size(), 1u);
  EXPECT_EQ(too_long[0].Error(), "metadata.annotations: Too long: must have at most 262144 bytes");
  EXPECT_EQ(too_long[0].type, FieldErrorType::kTooLong);
  EXPECT_EQ(AnnotationsSize({{"ab", "cde"}}), 5);
}

TEST(IPs, SloppyParsingAsUpstream) {
  auto path = Path("spec").Child("clusterIP");
  for (std::string_view ok :
       {"1.2.3.4", "0.0.0.0", "255.255.255.255", "010.001.02.3", "::", "::1", "2001:db8::ffff",
        "::ffff:1.2.3.4", "fe80::1:2:3:4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
        "00001::", "::ffff:01.2.3.4", "::1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "ABCD:EF01::"}) {
    EXPECT_THAT(IsValidIP(path, ok), IsEmpty()) << ok;
  }
  for (std::string_view bad :
       {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.-4", " 1.2.3.4", "1.2.3.4 ", "a.b.c.d",
        "2001:db8::g", "fe80::1%eth0", "1.2.3.4/24", "::1::2"}) {
    auto errs = IsValidIP(path, bad);
    ASSERT_EQ(errs.size(), 1u) << bad;
    EXPECT_EQ(errs[0].detail, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
  }
  EXPECT_EQ(IsValidIP(path, "x")[0].Error(),
            "spec.clusterIP: Invalid value: \"x\": must be a valid IP address, (e.g. 10.9.8.7 or "
            "2001:db8::ffff)");
  EXPECT_THAT(IsValidIPv4Address(path, "10.0.0.1"), IsEmpty());
  EXPECT_THAT(IsValidIPv4Address(path, "::ffff:10.0.0.1"), IsEmpty());  // Go's To4() accepts
  EXPECT_EQ(IsValidIPv4Address(path, "::1")[0].detail, "must be a valid IPv4 address");
  EXPECT_THAT(IsValidIPv6Address(path, "2001:db8::1"), IsEmpty());
  EXPECT_EQ(IsValidIPv6Address(path, "10.0.0.1")[0].detail, "must be a valid IPv6 address");
  EXPECT_EQ(IsValidIPv6Address(path, "junk")[0].detail, "must be a valid IPv6 address");
}

TEST(IPs, CIDRs) {
  auto path = Path("spec").Child("cidr");
  for (std::string_view ok : {"10.0.0.0/8", "10.0.0.1/32", "0.0.0.0/0", "2001:db8::/64", "::/0",
                              "::1/128", "10.0.0.0/008", "::ffff:1.2.3.0/120"}) {
    EXPECT_THAT(IsValidCIDR(path, ok), IsEmpty()) << ok;
  }
  for (std::string_view bad : {"10.0.0.0", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "/8",
                               "2001:db8::/129", "10.0.0.0/8/8", "10.0.0.0/+8", "x/8"}) {
    auto errs = IsValidCIDR(path, bad);
    ASSERT_EQ(errs.size(), 1u) << bad;
    EXPECT_EQ(errs[0].detail, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)");
  }
}

TEST(Messages, Helpers) {
  EXPECT_EQ(MaxLenError(63), "must be no more than 63 characters");
  EXPECT_EQ(InclusiveRangeError(1, 65535), "must be between 1 and 65535, inclusive");
  EXPECT_EQ(EmptyError(), "must be non-empty");
  EXPECT_EQ(RegexError("m", "f", {}), "m (regex used for validation is 'f')");
  EXPECT_EQ(RegexError("m", "f", {"a"}), "m (e.g. 'a', regex used for validation is 'f')");
}

}  // namespace
}  // namespace svcplane::api::validation
