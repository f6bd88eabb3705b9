#include "api/validation/internal/common.h"

#include <cstdio>
#include <ctime>

#include "api/validation/names.h"

namespace svcplane::api::validation::internal {

void Append(FieldErrorList* out, FieldErrorList more) {
  for (FieldError& e : more) out->push_back(std::move(e));
}

FieldErrorList DNS1123Label(std::string_view value, const FieldPath& path) {
  FieldErrorList errs;
  for (std::string& msg : IsDNS1123Label(value)) errs.push_back(Invalid(path, value, msg));
  return errs;
}

FieldErrorList DNS1123Subdomain(std::string_view value, const FieldPath& path) {
  FieldErrorList errs;
  for (std::string& msg : IsDNS1123Subdomain(value)) errs.push_back(Invalid(path, value, msg));
  return errs;
}

FieldErrorList QualifiedName(std::string_view value, const FieldPath& path) {
  FieldErrorList errs;
  for (std::string& msg : IsQualifiedName(value)) errs.push_back(Invalid(path, value, msg));
  return errs;
}

FieldErrorList NonSpecialIP(std::string_view ip, const FieldPath& path) {
  ParsedIP parsed;
  if (!ParseIPSloppy(ip, &parsed)) return {Invalid(path, ip, "must be a valid IP address")};
  const auto& b = parsed.bytes;
  FieldErrorList errs;
  bool v4 = parsed.Is4();
  bool unspecified = true;
  for (int i = v4 ? 12 : 0; i < 16; ++i) unspecified = unspecified && b[i] == 0;
  if (unspecified) {
    errs.push_back(Invalid(path, ip, "may not be unspecified (" + std::string(ip) + ")"));
  }
  bool loopback = v4 ? b[12] == 127 : [&] {
    for (int i = 0; i < 15; ++i)
      if (b[i] != 0) return false;
    return b[15] == 1;
  }();
  if (loopback) {
    errs.push_back(Invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  }
  bool link_local = v4 ? (b[12] == 169 && b[13] == 254) : (b[0] == 0xfe && (b[1] & 0xc0) == 0x80);
  if (link_local) {
    errs.push_back(
        Invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  }
  // Go's IsLinkLocalMulticast: 224.0.0.0/24, or ff02::/16 (the message says /10; upstream's).
  bool ll_multicast =
      v4 ? (b[12] == 224 && b[13] == 0 && b[14] == 0) : (b[0] == 0xff && (b[1] & 0x0f) == 0x02);
  if (ll_multicast) {
    errs.push_back(Invalid(
        path, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
  }
  return errs;
}

FieldErrorList Protocol(std::string_view protocol, const FieldPath& path) {
  if (protocol.empty()) return {Required(path)};
  if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
    return {NotSupported(path, protocol, {"SCTP", "TCP", "UDP"})};
  }
  return {};
}

std::string RenderOptionalString(const std::optional<std::string>& v) {
  return v ? GoQuote(*v) : std::string("null");
}

std::string RenderOptionalInt(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string("null");
}

std::string RenderGoTime(const meta::Time& t) {
  if (!t.set) return "0001-01-01 00:00:00 +0000 UTC";
  std::time_t secs = static_cast<std::time_t>(t.unix_seconds);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d +0000 UTC", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string RenderNamedStringSlice(std::string_view type_name,
                                   const std::vector<std::string>& values) {
  std::string out = "[]";
  out += type_name;
  if (values.empty()) return out + "(nil)";
  out += "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(values[i]);
  }
  return out + "}";
}

bool IsStandardFinalizerName(std::string_view name) {
  return name == "kubernetes" || name == "orphan" || name == "foregroundDeletion";
}

}  // namespace svcplane::api::validation::internal
