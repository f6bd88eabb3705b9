#pragma once

// Helpers shared by the per-kind validators: the pieces of apimachinery and core validation that
// several kinds call, and the renderings of Go values that upstream prints in messages.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta/types.h"
#include "api/validation/field_errors.h"

namespace svcplane::api::validation::internal {

inline constexpr std::string_view kFieldImmutable = "field is immutable";
inline constexpr std::string_view kIsNegative = "must be greater than or equal to 0";

// Appends `more` to `*out`.
void Append(FieldErrorList* out, FieldErrorList more);

// ValidateDNS1123Label / ValidateDNS1123Subdomain / ValidateQualifiedName of core validation:
// each message as Invalid(path, value).
FieldErrorList DNS1123Label(std::string_view value, const FieldPath& path);
FieldErrorList DNS1123Subdomain(std::string_view value, const FieldPath& path);
FieldErrorList QualifiedName(std::string_view value, const FieldPath& path);

// ValidateNonSpecialIP / ValidateEndpointIP: a parsable IP that is not unspecified, loopback,
// link-local unicast or link-local multicast.
FieldErrorList NonSpecialIP(std::string_view ip, const FieldPath& path);

// "TCP"/"UDP"/"SCTP" check: Required when empty, NotSupported otherwise.
FieldErrorList Protocol(std::string_view protocol, const FieldPath& path);

// Go renderings used for bad values.
// An optional value the way field.Error prints a pointer: "null" when unset.
std::string RenderOptionalString(const std::optional<std::string>& v);
std::string RenderOptionalInt(const std::optional<int64_t>& v);
// time.Time.String() of a UTC second: "2024-05-01 10:00:00 +0000 UTC" (zero time for unset).
std::string RenderGoTime(const meta::Time& t);
// %#v of a []T where T is a named string type: `[]core.IPFamily{"IPv4"}`.
std::string RenderNamedStringSlice(std::string_view type_name,
                                   const std::vector<std::string>& values);

// Kubernetes' "special" finalizer names that need no domain prefix.
bool IsStandardFinalizerName(std::string_view name);

}  // namespace svcplane::api::validation::internal
