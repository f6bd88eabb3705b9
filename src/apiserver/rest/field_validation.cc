#include "apiserver/rest/field_validation.h"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>

#include "api/validation/field_errors.h"

namespace svcplane::apiserver::rest {
namespace {

namespace v = api::validation;

// go-yaml's error for several problems, as sigs.k8s.io/yaml wraps it (handlers/rest.go).
constexpr std::string_view kYamlShortPrefix = "yaml: unmarshal errors:\n";
constexpr std::string_view kYamlLongPrefix =
    "error converting YAML to JSON: yaml: unmarshal errors:\n";

// fmt's %v of a float64: the shortest representation, %e form when the exponent is < -4 or
// >= 21.
std::string GoFloat(double d) {
  char buf[64];
  auto sci = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string s(buf, sci.ptr);
  size_t e = s.find('e');
  int exp = e == std::string::npos ? 0 : std::atoi(s.c_str() + e + 1);
  if (exp < -4 || exp >= 21) return s;
  auto fixed = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed);
  return std::string(buf, fixed.ptr);
}

void GoSprint(const boost::json::value& jv, std::string* out) {
  switch (jv.kind()) {
    case boost::json::kind::null:
      *out += "<nil>";
      return;
    case boost::json::kind::bool_:
      *out += jv.get_bool() ? "true" : "false";
      return;
    case boost::json::kind::int64:
      *out += std::to_string(jv.get_int64());
      return;
    case boost::json::kind::uint64:  // beyond int64: a float64 in Go
      *out += GoFloat(static_cast<double>(jv.get_uint64()));
      return;
    case boost::json::kind::double_:
      *out += GoFloat(jv.get_double());
      return;
    case boost::json::kind::string:
      *out += std::string_view(jv.get_string());
      return;
    case boost::json::kind::array: {
      *out += '[';
      bool first = true;
      for (const auto& item : jv.get_array()) {
        if (!first) *out += ' ';
        first = false;
        GoSprint(item, out);
      }
      *out += ']';
      return;
    }
    case boost::json::kind::object: {
      std::vector<const boost::json::key_value_pair*> members;
      for (const auto& kv : jv.get_object()) members.push_back(&kv);
      std::sort(members.begin(), members.end(),
                [](auto* a, auto* b) { return a->key() < b->key(); });
      *out += "map[";
      bool first = true;
      for (const auto* kv : members) {
        if (!first) *out += ' ';
        first = false;
        *out += std::string_view(kv->key());
        *out += ':';
        GoSprint(kv->value(), out);
      }
      *out += ']';
      return;
    }
  }
}

}  // namespace

Result<FieldValidation> ParseFieldValidation(const http::Request& req,
                                             std::string_view options_kind) {
  auto d = req.Query("fieldValidation");
  if (!d || d->empty() || *d == "Warn") return FieldValidation::kWarn;
  if (*d == "Strict") return FieldValidation::kStrict;
  if (*d == "Ignore") return FieldValidation::kIgnore;
  return v::ToInvalidStatus(
      options_kind, "",
      {v::NotSupported(v::Path("fieldValidation"), *d, {"", "Ignore", "Strict", "Warn"})});
}

void StrictProblems::AddWarning(std::string text) {
  if (std::find(warnings_.begin(), warnings_.end(), text) == warnings_.end()) {
    warnings_.push_back(std::move(text));
  }
}

void StrictProblems::AddStrictWarning(std::string_view problem) {
  for (std::string_view prefix : {kYamlShortPrefix, kYamlLongPrefix}) {
    if (!problem.starts_with(prefix)) continue;
    std::string_view rest = problem.substr(prefix.size());
    while (true) {
      size_t nl = rest.find('\n');
      std::string_view line = rest.substr(0, nl);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
      AddWarning(std::string(line));
      if (nl == std::string_view::npos) return;
      rest = rest.substr(nl + 1);
    }
  }
  AddWarning(std::string(problem));
}

std::string YamlDuplicateKeysProblem(const std::vector<std::string>& lines) {
  std::string out(kYamlLongPrefix);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) out += '\n';
    out += "  ";
    out += lines[i];
  }
  return out;
}

void StrictProblems::AttachTo(http::Reply* reply) const {
  if (warnings_.empty()) return;
  auto* response = std::get_if<http::Response>(reply);
  if (!response) return;
  for (const auto& w : warnings_) response->headers.emplace_back("Warning", WarningHeaderValue(w));
}

std::string WarningHeaderValue(std::string_view text) {
  std::string out = "299 - \"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    // A header value cannot hold line breaks or other controls: upstream replaces them too.
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  }
  out += '"';
  return out;
}

std::string GoSprintJsonMap(std::string_view json) {
  boost::system::error_code ec;
  auto jv = boost::json::parse(json, ec);
  if (ec) return {};
  std::string out;
  GoSprint(jv, &out);
  return out;
}

}  // namespace svcplane::apiserver::rest
