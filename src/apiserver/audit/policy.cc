#include "apiserver/audit/policy.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "api/codec/yaml.h"

namespace svcplane::apiserver::audit {
namespace {

namespace json = boost::json;

constexpr std::string_view kGroupVersion = "audit.k8s.io/v1";

bool Has(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// "*" matches all; "/healthz*" is a prefix; anything else is exact.
bool PathMatches(std::string_view path, std::string_view spec) {
  if (spec == "*" || spec == path) return true;
  return spec.ends_with('*') && path.starts_with(spec.substr(0, spec.size() - 1));
}

bool MatchesNonResource(const PolicyRule& r, const authorization::Attributes& a) {
  if (a.resource_request) return false;
  return std::any_of(r.non_resource_urls.begin(), r.non_resource_urls.end(),
                     [&](const std::string& spec) { return PathMatches(a.path, spec); });
}

bool MatchesResource(const PolicyRule& r, const authorization::Attributes& a) {
  if (!a.resource_request) return false;
  if (!r.namespaces.empty() && !Has(r.namespaces, a.ns)) return false;
  if (r.resources.empty()) return true;
  const std::string combined =
      a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (const auto& gr : r.resources) {
    if (gr.group != a.api_group) continue;
    if (gr.resources.empty()) return true;
    if (!gr.resource_names.empty() && !Has(gr.resource_names, a.name)) continue;
    for (std::string_view res : gr.resources) {
      if (res == combined || res == "*") return true;
      if (!a.subresource.empty() && res.starts_with("*/") && res.substr(2) == a.subresource) {
        return true;
      }
      if (res.ends_with("/*") && res.substr(0, res.size() - 2) == a.resource) return true;
    }
  }
  return false;
}

bool RuleMatches(const PolicyRule& r, const authorization::Attributes& a) {
  if (!r.users.empty() && (a.user == nullptr || !Has(r.users, a.user->user))) return false;
  if (!r.user_groups.empty()) {
    if (a.user == nullptr) return false;
    if (std::none_of(a.user->groups.begin(), a.user->groups.end(),
                     [&](const std::string& g) { return Has(r.user_groups, g); })) {
      return false;
    }
  }
  if (!r.verbs.empty() && !Has(r.verbs, a.verb)) return false;
  if (!r.namespaces.empty() || !r.resources.empty()) return MatchesResource(r, a);
  if (!r.non_resource_urls.empty()) return MatchesNonResource(r, a);
  return true;
}

// --- decoding ---------------------------------------------------------------------------

Result<std::vector<std::string>> Strings(const json::value* v, std::string_view field) {
  std::vector<std::string> out;
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) return InvalidError(fmt::format("{}: expected a list of strings", field));
  for (const auto& item : v->get_array()) {
    if (!item.is_string()) return InvalidError(fmt::format("{}: expected a string", field));
    out.emplace_back(item.get_string());
  }
  return out;
}

Result<Level> ParseLevel(const json::value* v, std::string_view field) {
  std::string_view s = v != nullptr && v->is_string() ? std::string_view(v->get_string()) : "";
  for (Level l : {Level::kNone, Level::kMetadata, Level::kRequest, Level::kRequestResponse}) {
    if (s == LevelName(l)) return l;
  }
  if (s.empty()) return InvalidError(fmt::format("{}: Required value", field));
  return InvalidError(fmt::format(
      "{}: Unsupported value: \"{}\": supported values: \"None\", \"Metadata\", \"Request\", "
      "\"RequestResponse\"",
      field, s));
}

Result<std::vector<Stage>> ParseStages(const json::value* v, std::string_view field) {
  auto names = Strings(v, field);
  if (!names.ok()) return names.status();
  std::vector<Stage> out;
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& s = (*names)[i];
    bool found = false;
    for (Stage st : {Stage::kRequestReceived, Stage::kResponseStarted, Stage::kResponseComplete,
                     Stage::kPanic}) {
      if (s == StageName(st)) {
        out.push_back(st);
        found = true;
      }
    }
    if (!found) {
      return InvalidError(
          fmt::format("{}[{}]: Unsupported value: \"{}\": supported values: \"RequestReceived\", "
                      "\"ResponseStarted\", \"ResponseComplete\", \"Panic\"",
                      field, i, s));
    }
  }
  return out;
}

Result<PolicyRule> ParseRule(const json::value& v, size_t index) {
  const std::string at = fmt::format("rules[{}]", index);
  if (!v.is_object()) return InvalidError(at + ": expected an object");
  const json::object& o = v.get_object();
  PolicyRule r;
  auto level = ParseLevel(o.if_contains("level"), at + ".level");
  if (!level.ok()) return level.status();
  r.level = *level;
  auto take = [&](const char* key, std::vector<std::string>* out) -> Status {
    auto list = Strings(o.if_contains(key), at + "." + key);
    if (!list.ok()) return list.status();
    *out = std::move(*list);
    return Status::Ok();
  };
  SVC_RETURN_IF_ERROR(take("users", &r.users));
  SVC_RETURN_IF_ERROR(take("userGroups", &r.user_groups));
  SVC_RETURN_IF_ERROR(take("verbs", &r.verbs));
  SVC_RETURN_IF_ERROR(take("namespaces", &r.namespaces));
  SVC_RETURN_IF_ERROR(take("nonResourceURLs", &r.non_resource_urls));
  if (const json::value* res = o.if_contains("resources"); res != nullptr && !res->is_null()) {
    if (!res->is_array()) return InvalidError(at + ".resources: expected a list");
    for (size_t i = 0; i < res->get_array().size(); ++i) {
      const json::value& g = res->get_array()[i];
      const std::string gat = fmt::format("{}.resources[{}]", at, i);
      if (!g.is_object()) return InvalidError(gat + ": expected an object");
      GroupResources gr;
      if (const json::value* group = g.get_object().if_contains("group")) {
        if (!group->is_string()) return InvalidError(gat + ".group: expected a string");
        gr.group = std::string(group->get_string());
      }
      auto names = Strings(g.get_object().if_contains("resources"), gat + ".resources");
      if (!names.ok()) return names.status();
      gr.resources = std::move(*names);
      auto rn = Strings(g.get_object().if_contains("resourceNames"), gat + ".resourceNames");
      if (!rn.ok()) return rn.status();
      gr.resource_names = std::move(*rn);
      r.resources.push_back(std::move(gr));
    }
  }
  // Upstream's validation: a rule is about resources or about non-resource URLs, not both.
  if (!r.non_resource_urls.empty() && (!r.resources.empty() || !r.namespaces.empty())) {
    return InvalidError(at +
                        ".nonResourceURLs: Invalid value: rules cannot apply to both regular "
                        "resources and non-resource URLs");
  }
  auto omit = ParseStages(o.if_contains("omitStages"), at + ".omitStages");
  if (!omit.ok()) return omit.status();
  r.omit_stages = std::move(*omit);
  return r;
}

std::string Compact(const json::value& v) { return json::serialize(v); }

}  // namespace

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kNone:
      return "None";
    case Level::kMetadata:
      return "Metadata";
    case Level::kRequest:
      return "Request";
    case Level::kRequestResponse:
      return "RequestResponse";
  }
  return "None";
}

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::kRequestReceived:
      return "RequestReceived";
    case Stage::kResponseStarted:
      return "ResponseStarted";
    case Stage::kResponseComplete:
      return "ResponseComplete";
    case Stage::kPanic:
      return "Panic";
  }
  return "Panic";
}

bool RuleEvaluation::Omits(Stage s) const {
  return std::find(omit_stages.begin(), omit_stages.end(), s) != omit_stages.end();
}

RuleEvaluation Policy::Evaluate(const authorization::Attributes& attributes) const {
  for (const PolicyRule& r : rules) {
    if (!RuleMatches(r, attributes)) continue;
    RuleEvaluation e{r.level, omit_stages};
    for (Stage s : r.omit_stages) {
      if (!e.Omits(s)) e.omit_stages.push_back(s);
    }
    return e;
  }
  return RuleEvaluation{Level::kNone, omit_stages};
}

Result<Policy> ParsePolicy(std::string_view text) {
  auto docs = api::codec::YamlToJson(text);
  if (!docs.ok()) return InvalidError(std::string(docs.status().message()));
  if (docs->empty()) return InvalidError("Object 'Kind' is missing in ''");
  boost::system::error_code ec;
  json::value doc = json::parse(docs->front(), ec);
  if (ec || !doc.is_object()) return InvalidError("couldn't decode the policy: not an object");
  const json::object& o = doc.get_object();
  const json::value* kind = o.if_contains("kind");
  const json::value* api_version = o.if_contains("apiVersion");
  if (kind == nullptr || !kind->is_string() || kind->get_string().empty()) {
    return InvalidError(fmt::format("Object 'Kind' is missing in '{}'", Compact(doc)));
  }
  if (api_version == nullptr || !api_version->is_string() || api_version->get_string().empty()) {
    return InvalidError(fmt::format("Object 'apiVersion' is missing in '{}'", Compact(doc)));
  }
  if (api_version->get_string() != kGroupVersion || kind->get_string() != "Policy") {
    return InvalidError(fmt::format("no kind \"{}\" is registered for version \"{}\"",
                                    std::string_view(kind->get_string()),
                                    std::string_view(api_version->get_string())));
  }
  Policy p;
  auto omit = ParseStages(o.if_contains("omitStages"), "omitStages");
  if (!omit.ok()) return omit.status();
  p.omit_stages = std::move(*omit);
  if (const json::value* rules = o.if_contains("rules"); rules != nullptr && !rules->is_null()) {
    if (!rules->is_array()) return InvalidError("rules: expected a list");
    for (size_t i = 0; i < rules->get_array().size(); ++i) {
      auto r = ParseRule(rules->get_array()[i], i);
      if (!r.ok()) return r.status();
      p.rules.push_back(std::move(*r));
    }
  }
  if (p.rules.empty()) return InvalidError("loaded illegal policy with 0 rules");
  return p;
}

Result<Policy> LoadPolicyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidError(fmt::format("failed to read file path \"{}\"", path));
  std::stringstream text;
  text << in.rdbuf();
  auto p = ParsePolicy(text.str());
  if (!p.ok() && p.status().message() != "loaded illegal policy with 0 rules") {
    return InvalidError(fmt::format("failed decoding file \"{}\": {}", path, p.status().message()));
  }
  return p;
}

}  // namespace svcplane::apiserver::audit
