#pragma once

// Server-side field validation of write requests (`?fieldValidation=`), as kube-apiserver's
// handlers do it: Strict fails the request on unknown or duplicate fields, Warn (the default)
// answers with a `Warning: 299` header per problem, Ignore says nothing.

#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http/handler.h"
#include "base/result.h"

namespace svcplane::apiserver::rest {

enum class FieldValidation { kIgnore, kWarn, kStrict };

// The request's directive; absent or empty is Warn (upstream's fieldValidation()). Anything else
// is 422 Invalid, as ValidateFieldValidation: `CreateOptions.meta.k8s.io "" is invalid:
// fieldValidation: Unsupported value: "x": supported values: "", "Ignore", "Strict", "Warn"`.
// `options_kind` names the options of the verb ("CreateOptions.meta.k8s.io").
Result<FieldValidation> ParseFieldValidation(const http::Request& req,
                                             std::string_view options_kind);

// Problems found while decoding one request, turned into warnings or an error.
class StrictProblems {
 public:
  explicit StrictProblems(FieldValidation mode) : mode_(mode) {}
  FieldValidation mode() const { return mode_; }

  // Strict with problems: `error` (built from the joined message) is returned; Warn: the
  // problems become warnings; Ignore and no problems: OK.
  template <typename MakeError>
  Status Report(const std::vector<std::string>& problems, MakeError&& error) {
    if (problems.empty() || mode_ == FieldValidation::kIgnore) return Status::Ok();
    if (mode_ == FieldValidation::kStrict) return error(problems);
    for (const auto& p : problems) AddStrictWarning(p);
    return Status::Ok();
  }

  // A warning, once (upstream's recorder de-duplicates).
  void AddWarning(std::string text);
  // A strict decoding problem as warnings: a YAML error listing several keys ("yaml: unmarshal
  // errors:\n  line 3: ...\n  line 5: ...") gives one warning per line (parseYAMLWarnings).
  void AddStrictWarning(std::string_view problem);
  void ClearWarnings() { warnings_.clear(); }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Adds `Warning: 299 - "<text>"` headers to `reply` (a complete response; streams get none).
  void AttachTo(http::Reply* reply) const;

 private:
  FieldValidation mode_;
  std::vector<std::string> warnings_;
};

// The strict problem upstream reports for the duplicate keys of a YAML body (YamlDuplicateKeys):
// "error converting YAML to JSON: yaml: unmarshal errors:\n  line 3: key ...".
std::string YamlDuplicateKeysProblem(const std::vector<std::string>& lines);

// The warning header value upstream writes: `299 - "<text>"` with `"` and `\` escaped.
std::string WarningHeaderValue(std::string_view text);

// What fmt.Sprintf("%+v", m) prints for the map[string]interface{} a JSON object decodes to
// (kjson.UnmarshalStrict: integers as int64): `map[spec:map[bogus:1]]`, keys sorted. Upstream
// puts it in the Invalid error of a strategic merge patch that failed strict validation.
std::string GoSprintJsonMap(std::string_view json);

}  // namespace svcplane::apiserver::rest
