#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta/string_map.h"
#include "api/validation/field_errors.h"

namespace svcplane::api::validation {

// apimachinery/pkg/util/validation equivalents. The Is* functions return the list of problems
// as upstream words them (empty = valid); callers wrap each one in Invalid(path, value, msg).

inline constexpr int kDNS1123LabelMaxLength = 63;
inline constexpr int kDNS1123SubdomainMaxLength = 253;
inline constexpr int kDNS1035LabelMaxLength = 63;
inline constexpr int kQualifiedNameMaxLength = 63;
inline constexpr int kLabelValueMaxLength = 63;
inline constexpr int64_t kTotalAnnotationSizeLimitBytes = 256 * 1024;

// "must be no more than 63 characters"
std::string MaxLenError(int length);
// "<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')" including upstream's
// double space before "or".
std::string RegexError(std::string_view msg, std::string_view fmt,
                       const std::vector<std::string_view>& examples);
// "must be between 1 and 65535, inclusive"
std::string InclusiveRangeError(int64_t lo, int64_t hi);
// "must be non-empty"
std::string EmptyError();

// Namespaces, port names, hostnames: [a-z0-9]([-a-z0-9]*[a-z0-9])?, <= 63.
std::vector<std::string> IsDNS1123Label(std::string_view value);
// Pods, nodes, endpoints, slices, leases, events: dot-joined DNS-1123 labels, <= 253.
std::vector<std::string> IsDNS1123Subdomain(std::string_view value);
// Services: [a-z]([-a-z0-9]*[a-z0-9])?, <= 63.
std::vector<std::string> IsDNS1035Label(std::string_view value);
// Label and annotation keys: optional DNS-1123 subdomain prefix + '/' + name (<= 63 of
// [-A-Za-z0-9_.], alphanumeric at both ends). Wording as in k8s <= 1.33 ("a qualified name").
std::vector<std::string> IsQualifiedName(std::string_view value);
// Empty, or <= 63 chars shaped like the name part of a qualified name.
std::vector<std::string> IsValidLabelValue(std::string_view value);
// 1..65535.
std::vector<std::string> IsValidPortNum(int64_t port);
std::vector<std::string> IsInRange(int64_t value, int64_t min, int64_t max);
// IANA_SVC_NAME: <= 15 chars of [-a-z0-9], at least one letter, no "--", no leading or
// trailing '-'. Every applicable message is returned, in upstream's order.
std::vector<std::string> IsValidPortName(std::string_view port);

// Names that become a URL path segment: not "." or "..", no '/' or '%'.
std::vector<std::string> IsValidPathSegmentName(std::string_view name);

// Name validators as in apimachinery/pkg/api/validation (ValidateNameFunc). With prefix=true
// the value is a generateName prefix: a trailing '-' is allowed, emulated as upstream does by
// replacing the last two characters with "a" before validating.
using NameValidator = std::vector<std::string> (*)(std::string_view name, bool prefix);
std::vector<std::string> NameIsDNSSubdomain(std::string_view name, bool prefix);
std::vector<std::string> NameIsDNSLabel(std::string_view name, bool prefix);
std::vector<std::string> NameIsDNS1035Label(std::string_view name, bool prefix);

// The name/generateName part of ValidateObjectMeta: generateName checked with prefix=true at
// <meta>.generateName; empty name -> `<meta>.name: Required value: name or generateName is
// required`; else each message as Invalid at <meta>.name.
FieldErrorList ValidateObjectName(std::string_view name, std::string_view generate_name,
                                  NameValidator validator, const FieldPath& meta_path);

// ValidateLabelName / ValidateLabels / ValidateAnnotations (metav1 and api validation). Errors
// are Invalid at `path` itself (upstream does not index by key). Annotation keys are checked
// lower-cased, and the total size of keys+values over 256 KiB gives
// `<path>: Too long: must have at most 262144 bytes`.
FieldErrorList ValidateLabelName(std::string_view name, const FieldPath& path);
FieldErrorList ValidateLabels(const meta::StringMap& labels, const FieldPath& path);
FieldErrorList ValidateAnnotations(const meta::StringMap& annotations, const FieldPath& path);
// Sum of key and value lengths, as ValidateAnnotationsSize counts it.
int64_t AnnotationsSize(const meta::StringMap& annotations);

// An IP address parsed exactly as k8s.io/utils/net.ParseIPSloppy (Go 1.16's net.ParseIP, which
// upstream validation uses): IPv4 dotted quads may carry leading zeros (read as decimal), IPv6
// groups may have leading zeros beyond four digits, no zones. A hand port rather than inet_pton,
// which is stricter than upstream on both counts.
struct ParsedIP {
  std::array<uint8_t, 16> bytes{};  // IPv4 as IPv4-mapped IPv6, like Go's net.IP
  bool textual_v4 = false;          // written as a dotted quad (decides the CIDR bit length)
  // Go's ip.To4() != nil: a dotted quad or an IPv4-mapped IPv6 address.
  bool Is4() const;
};
bool ParseIPSloppy(std::string_view value, ParsedIP* out);

// `must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)` etc., as Invalid at path.
FieldErrorList IsValidIP(const FieldPath& path, std::string_view value);
FieldErrorList IsValidIPv4Address(const FieldPath& path, std::string_view value);
FieldErrorList IsValidIPv6Address(const FieldPath& path, std::string_view value);
// `must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`.
FieldErrorList IsValidCIDR(const FieldPath& path, std::string_view value);

}  // namespace svcplane::api::validation
