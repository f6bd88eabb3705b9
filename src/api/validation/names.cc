#include "api/validation/names.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace svcplane::api::validation {
namespace {

constexpr std::string_view kDNS1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDNS1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDNS1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDNS1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDNS1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDNS1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
bool MatchesDNS1123Label(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

bool MatchesDNS1123Subdomain(std::string_view s) {
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    if (!MatchesDNS1123Label(s.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool MatchesDNS1035Label(std::string_view s) {
  if (s.empty() || !(s.front() >= 'a' && s.front() <= 'z') || !IsLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$
bool MatchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

std::vector<std::string> PrefixEach(std::vector<std::string> msgs, std::string_view prefix) {
  for (std::string& m : msgs) m.insert(0, prefix);
  return msgs;
}

std::string QualifiedNameRegexError() {
  return RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"});
}

// Upstream's maskTrailingDash: "abc-" -> "aba" (drops two characters, not one).
std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return std::string(name.substr(0, name.size() - 2)) + "a";
  }
  return std::string(name);
}

}  // namespace

std::string MaxLenError(int length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

std::string RegexError(std::string_view msg, std::string_view fmt,
                       const std::vector<std::string_view>& examples) {
  std::string out(msg);
  if (examples.empty()) {
    out += " (regex used for validation is '";
    out += fmt;
    out += "')";
    return out;
  }
  out += " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'";
    out += examples[i];
    out += "', ";
  }
  out += "regex used for validation is '";
  out += fmt;
  out += "')";
  return out;
}

std::string InclusiveRangeError(int64_t lo, int64_t hi) {
  return "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", inclusive";
}

std::string EmptyError() { return "must be non-empty"; }

std::vector<std::string> IsDNS1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123LabelMaxLength) errs.push_back(MaxLenError(kDNS1123LabelMaxLength));
  if (!MatchesDNS1123Label(value)) {
    if (MatchesDNS1123Subdomain(value)) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDNS1123LabelErrMsg, kDNS1123LabelFmt, {"my-name", "123-abc"}));
    }
  }
  return errs;
}

std::vector<std::string> IsDNS1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123SubdomainMaxLength) {
    errs.push_back(MaxLenError(kDNS1123SubdomainMaxLength));
  }
  if (!MatchesDNS1123Subdomain(value)) {
    errs.push_back(RegexError(kDNS1123SubdomainErrMsg, kDNS1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsDNS1035Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1035LabelMaxLength) errs.push_back(MaxLenError(kDNS1035LabelMaxLength));
  if (!MatchesDNS1035Label(value)) {
    errs.push_back(RegexError(kDNS1035LabelErrMsg, kDNS1035LabelFmt, {"my-name", "abc-123"}));
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name;
  size_t slash = value.find('/');
  if (slash == std::string_view::npos) {
    name = value;
  } else if (value.find('/', slash + 1) == std::string_view::npos) {
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part " + EmptyError());
    } else if (auto msgs = IsDNS1123Subdomain(prefix); !msgs.empty()) {
      for (std::string& m : PrefixEach(std::move(msgs), "prefix part ")) errs.push_back(m);
    }
  } else {
    errs.push_back("a qualified name " + QualifiedNameRegexError() +
                   " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.push_back("name part " + EmptyError());
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + MaxLenError(kQualifiedNameMaxLength));
  }
  if (!MatchesQualifiedNamePart(name)) errs.push_back("name part " + QualifiedNameRegexError());
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(MaxLenError(kLabelValueMaxLength));
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> IsValidPortNum(int64_t port) { return IsInRange(port, 1, 65535); }

std::vector<std::string> IsInRange(int64_t value, int64_t min, int64_t max) {
  if (value >= min && value <= max) return {};
  return {InclusiveRangeError(min, max)};
}

std::vector<std::string> IsValidPortName(std::string_view port) {
  std::vector<std::string> errs;
  if (port.size() > 15) errs.push_back(MaxLenError(15));
  bool charset_ok = !port.empty() && std::all_of(port.begin(), port.end(), [](char c) {
    return IsLowerAlnum(c) || c == '-';
  });
  if (!charset_ok) {
    errs.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (std::none_of(port.begin(), port.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
    errs.push_back("must contain at least one letter (a-z)");
  }
  if (port.find("--") != std::string_view::npos) {
    errs.push_back("must not contain consecutive hyphens");
  }
  if (!port.empty() && (port.front() == '-' || port.back() == '-')) {
    errs.push_back("must not begin or end with a hyphen");
  }
  return errs;
}

std::vector<std::string> IsValidPathSegmentName(std::string_view name) {
  if (name == ".") return {"may not be '.'"};
  if (name == "..") return {"may not be '..'"};
  std::vector<std::string> errs;
  if (name.find('/') != std::string_view::npos) errs.push_back("may not contain '/'");
  if (name.find('%') != std::string_view::npos) errs.push_back("may not contain '%'");
  return errs;
}

std::vector<std::string> NameIsDNSSubdomain(std::string_view name, bool prefix) {
  return prefix ? IsDNS1123Subdomain(MaskTrailingDash(name)) : IsDNS1123Subdomain(name);
}

std::vector<std::string> NameIsDNSLabel(std::string_view name, bool prefix) {
  return prefix ? IsDNS1123Label(MaskTrailingDash(name)) : IsDNS1123Label(name);
}

std::vector<std::string> NameIsDNS1035Label(std::string_view name, bool prefix) {
  return prefix ? IsDNS1035Label(MaskTrailingDash(name)) : IsDNS1035Label(name);
}

FieldErrorList ValidateObjectName(std::string_view name, std::string_view generate_name,
                                  NameValidator validator, const FieldPath& meta_path) {
  FieldErrorList errs;
  if (!generate_name.empty()) {
    for (std::string& msg : validator(generate_name, true)) {
      errs.push_back(Invalid(meta_path.Child("generateName"), generate_name, std::move(msg)));
    }
  }
  if (name.empty()) {
    errs.push_back(Required(meta_path.Child("name"), "name or generateName is required"));
  } else {
    for (std::string& msg : validator(name, false)) {
      errs.push_back(Invalid(meta_path.Child("name"), name, std::move(msg)));
    }
  }
  return errs;
}

FieldErrorList ValidateLabelName(std::string_view name, const FieldPath& path) {
  FieldErrorList errs;
  for (std::string& msg : IsQualifiedName(name))
    errs.push_back(Invalid(path, name, std::move(msg)));
  return errs;
}

FieldErrorList ValidateLabels(const meta::StringMap& labels, const FieldPath& path) {
  FieldErrorList errs;
  for (const auto& [k, v] : labels) {
    for (FieldError& e : ValidateLabelName(k, path)) errs.push_back(std::move(e));
    for (std::string& msg : IsValidLabelValue(v)) errs.push_back(Invalid(path, v, std::move(msg)));
  }
  return errs;
}

int64_t AnnotationsSize(const meta::StringMap& annotations) {
  int64_t total = 0;
  for (const auto& [k, v] : annotations) total += static_cast<int64_t>(k.size() + v.size());
  return total;
}

FieldErrorList ValidateAnnotations(const meta::StringMap& annotations, const FieldPath& path) {
  FieldErrorList errs;
  for (const auto& [k, v] : annotations) {
    // Annotation keys are case-insensitive qualified names; the original key is reported.
    std::string lower(k);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (std::string& msg : IsQualifiedName(lower))
      errs.push_back(Invalid(path, k, std::move(msg)));
  }
  if (AnnotationsSize(annotations) > kTotalAnnotationSizeLimitBytes) {
    errs.push_back(TooLong(path, kTotalAnnotationSizeLimitBytes));
  }
  return errs;
}

// ---- IP addresses ----

bool ParsedIP::Is4() const {
  static constexpr uint8_t kV4InV6Prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(bytes.data(), kV4InV6Prefix, sizeof(kV4InV6Prefix)) == 0;
}

namespace {

// Go's parseIPv4 as of Go 1.16 (what k8s.io/utils/net.ParseIPSloppy keeps): four decimal
// fields, each <= 255, leading zeros allowed and ignored.
bool ParseIPv4Sloppy(std::string_view s, uint8_t out[4]) {
  for (int i = 0; i < 4; ++i) {
    if (i > 0) {
      if (s.empty() || s.front() != '.') return false;
      s.remove_prefix(1);
    }
    size_t n = 0;
    int value = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') {
      value = value * 10 + (s[n] - '0');
      if (value > 0xFF) return false;
      ++n;
    }
    if (n == 0) return false;
    out[i] = static_cast<uint8_t>(value);
    s.remove_prefix(n);
  }
  return s.empty();
}

}  // namespace

namespace {

// Go's xtoi: hex digits, at least one, stopping before overflow of 0xFFFFFF.
bool HexToInt(std::string_view s, int* n, size_t* consumed) {
  int v = 0;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      break;
    }
    v = v * 16 + d;
    if (v >= 0xFFFFFF) return false;
  }
  if (i == 0) return false;
  *n = v;
  *consumed = i;
  return true;
}

// Go 1.16's parseIPv6 (kept by ParseIPSloppy): groups of any number of hex digits up to 0xFFFF,
// one "::", an optional trailing dotted quad (sloppy IPv4 rules), no zone.
bool ParseIPv6Sloppy(std::string_view s, std::array<uint8_t, 16>* ip) {
  ip->fill(0);
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return true;
  }
  int i = 0;
  while (i < 16) {
    int n;
    size_t c;
    if (!HexToInt(s, &n, &c) || n > 0xFFFF) return false;
    if (c < s.size() && s[c] == '.') {
      if ((ellipsis < 0 && i != 12) || i + 4 > 16) return false;
      if (!ParseIPv4Sloppy(s, &(*ip)[i])) return false;
      s = {};
      i += 4;
      break;
    }
    (*ip)[i] = static_cast<uint8_t>(n >> 8);
    (*ip)[i + 1] = static_cast<uint8_t>(n);
    i += 2;
    s.remove_prefix(c);
    if (s.empty()) break;
    if (s[0] != ':' || s.size() == 1) return false;
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return false;
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return false;
  if (i < 16) {
    if (ellipsis < 0) return false;
    int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) (*ip)[j + n] = (*ip)[j];
    for (int j = ellipsis + n - 1; j >= ellipsis; --j) (*ip)[j] = 0;
  } else if (ellipsis >= 0) {
    return false;  // "::" must stand for at least one zero group
  }
  return true;
}

}  // namespace

bool ParseIPSloppy(std::string_view value, ParsedIP* out) {
  // Like net.ParseIP, the first '.' or ':' decides the family.
  size_t sep = value.find_first_of(".:");
  if (sep == std::string_view::npos) return false;
  ParsedIP ip;
  if (value[sep] == '.') {
    ip.bytes[10] = ip.bytes[11] = 0xff;
    if (!ParseIPv4Sloppy(value, &ip.bytes[12])) return false;
    ip.textual_v4 = true;
  } else if (!ParseIPv6Sloppy(value, &ip.bytes)) {
    return false;
  }
  *out = ip;
  return true;
}

FieldErrorList IsValidIP(const FieldPath& path, std::string_view value) {
  ParsedIP ip;
  if (ParseIPSloppy(value, &ip)) return {};
  return {Invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")};
}

FieldErrorList IsValidIPv4Address(const FieldPath& path, std::string_view value) {
  ParsedIP ip;
  if (ParseIPSloppy(value, &ip) && ip.Is4()) return {};
  return {Invalid(path, value, "must be a valid IPv4 address")};
}

FieldErrorList IsValidIPv6Address(const FieldPath& path, std::string_view value) {
  ParsedIP ip;
  if (ParseIPSloppy(value, &ip) && !ip.Is4()) return {};
  return {Invalid(path, value, "must be a valid IPv6 address")};
}

FieldErrorList IsValidCIDR(const FieldPath& path, std::string_view value) {
  auto invalid = [&] {
    return FieldErrorList{
        Invalid(path, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")};
  };
  size_t slash = value.find('/');
  if (slash == std::string_view::npos) return invalid();
  ParsedIP ip;
  if (!ParseIPSloppy(value.substr(0, slash), &ip)) return invalid();
  std::string_view mask = value.substr(slash + 1);
  int bits = ip.textual_v4 ? 32 : 128;
  int n = 0;
  if (mask.empty()) return invalid();
  for (char c : mask) {
    if (c < '0' || c > '9') return invalid();
    n = n * 10 + (c - '0');
    if (n > bits) return invalid();  // leading zeros are fine, as in Go's dtoi
  }
  if (n > bits) return invalid();
  return {};
}

}  // namespace svcplane::api::validation
