#include "apiserver/rest/query.h"

#include <boost/json.hpp>
#include <charconv>

#include "api/selectors/field_labels.h"
#include "api/validation/field_errors.h"

namespace svcplane::apiserver::rest {
namespace {

namespace v = api::validation;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<int64_t> QueryInt(std::string_view name, std::string_view value) {
  int64_t out = 0;
  auto r = std::from_chars(value.data(), value.data() + value.size(), out);
  if (value.empty() || r.ec != std::errc() || r.ptr != value.data() + value.size()) {
    return BadRequestError("invalid value for " + std::string(name) + ": \"" + std::string(value) +
                           "\" is not an integer");
  }
  return out;
}

Status ListOptionsInvalid(v::FieldErrorList errs) {
  return v::ToInvalidStatus("ListOptions.meta.k8s.io", "", errs);
}

}  // namespace

bool QueryBool(const http::Request& req, std::string_view name) {
  auto v = req.Query(name);
  if (!v) return false;
  return !(*v == "0" || Lower(*v) == "false");
}

Result<ListParams> ParseListParams(const http::Request& req, const api::ResourceInfo& resource,
                                   std::string_view item_name) {
  ListParams p;
  p.watch = QueryBool(req, "watch");
  p.allow_bookmarks = QueryBool(req, "allowWatchBookmarks");
  if (auto ls = req.Query("labelSelector"); ls && !ls->empty()) {
    auto sel = api::selectors::ParseLabelSelector(*ls);
    if (!sel.ok()) return sel.status();
    p.query.label = std::move(*sel);
  }
  api::selectors::FieldSelector field;
  if (auto fs = req.Query("fieldSelector"); fs && !fs->empty()) {
    auto sel = api::selectors::ParseFieldSelector(*fs);
    if (!sel.ok()) return sel.status();
    auto converted = api::selectors::ConvertFieldLabels(resource.resource, *sel);
    if (!converted.ok()) return converted.status();
    field = std::move(*converted);
  }
  if (!item_name.empty()) {
    auto named = api::selectors::SelectorForItemName(field, item_name);
    if (!named.ok()) return named.status();
    field = std::move(*named);
  }
  p.query.field = std::move(field);
  if (auto l = req.Query("limit"); l && !l->empty()) {
    auto n = QueryInt("limit", *l);
    if (!n.ok()) return n.status();
    p.query.limit = *n > 0 ? static_cast<size_t>(*n) : 0;
  }
  if (auto t = req.Query("timeoutSeconds"); t && !t->empty()) {
    auto n = QueryInt("timeoutSeconds", *t);
    if (!n.ok()) return n.status();
    p.timeout_seconds = *n;
  }
  p.query.continue_token = std::string(req.Query("continue").value_or(""));
  p.query.resource_version = std::string(req.Query("resourceVersion").value_or(""));
  std::string match(req.Query("resourceVersionMatch").value_or(""));
  std::optional<std::string_view> send_initial = req.Query("sendInitialEvents");
  p.send_initial_events = send_initial && QueryBool(req, "sendInitialEvents");

  v::FieldErrorList errs;
  auto match_path = v::Path("resourceVersionMatch");
  if (!match.empty()) {
    if (match != "Exact" && match != "NotOlderThan") {
      errs.push_back(v::NotSupported(match_path, match, {"Exact", "NotOlderThan"}));
    } else if (p.watch && !send_initial) {
      errs.push_back(
          v::Forbidden(match_path,
                       "resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                       "provided"));
    } else if (p.query.resource_version.empty()) {
      errs.push_back(v::Forbidden(
          match_path, "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    } else if (!p.query.continue_token.empty()) {
      errs.push_back(
          v::Forbidden(match_path, "resourceVersionMatch is forbidden when continue is provided"));
    } else if (match == "Exact" && p.query.resource_version == "0") {
      errs.push_back(v::Forbidden(
          match_path, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
    }
  }
  if (send_initial) {
    auto path = v::Path("sendInitialEvents");
    if (!p.watch) {
      errs.push_back(v::Forbidden(path, "sendInitialEvents is forbidden for list"));
    } else if (match != "NotOlderThan") {
      errs.push_back(v::Forbidden(path,
                                  "sendInitialEvents requires setting resourceVersionMatch to "
                                  "NotOlderThan"));
    }
  }
  if (!errs.empty()) return ListOptionsInvalid(std::move(errs));
  p.query.exact = match == "Exact";
  if (!p.query.continue_token.empty() && !p.query.resource_version.empty() &&
      p.query.resource_version != "0") {
    return BadRequestError("specifying resource version is not allowed when using continue");
  }
  return p;
}

Result<registry::DeleteOptions> ParseDeleteOptions(const http::Request& req) {
  registry::DeleteOptions opts;
  if (!req.body.empty()) {
    boost::system::error_code ec;
    boost::json::value body = boost::json::parse(req.body, ec);
    if (ec || !body.is_object()) {
      return BadRequestError("invalid DeleteOptions: " +
                             (ec ? ec.message() : std::string("expected a JSON object")));
    }
    const auto& o = body.as_object();
    if (const auto* g = o.if_contains("gracePeriodSeconds"); g && g->is_int64()) {
      opts.grace_period_seconds = g->as_int64();
    }
    if (const auto* pp = o.if_contains("propagationPolicy"); pp && pp->is_string()) {
      opts.propagation_policy = std::string(pp->as_string());
    }
    if (const auto* od = o.if_contains("orphanDependents"); od && od->is_bool()) {
      opts.orphan_dependents = od->as_bool();
    }
    if (const auto* pre = o.if_contains("preconditions"); pre && pre->is_object()) {
      if (const auto* uid = pre->as_object().if_contains("uid"); uid && uid->is_string()) {
        opts.precondition_uid = std::string(uid->as_string());
      }
      if (const auto* rv = pre->as_object().if_contains("resourceVersion"); rv && rv->is_string()) {
        opts.precondition_resource_version = std::string(rv->as_string());
      }
    }
    if (const auto* dr = o.if_contains("dryRun"); dr && dr->is_array()) {
      for (const auto& d : dr->as_array()) {
        if (!d.is_string() || d.as_string() != "All") {
          return v::ToInvalidStatus("DeleteOptions.meta.k8s.io", "",
                                    {v::NotSupported(v::Path("dryRun"), "", {"All"})});
        }
        opts.dry_run = true;
      }
    }
  } else {
    if (auto g = req.Query("gracePeriodSeconds"); g && !g->empty()) {
      auto n = QueryInt("gracePeriodSeconds", *g);
      if (!n.ok()) return n.status();
      opts.grace_period_seconds = *n;
    }
    opts.propagation_policy = std::string(req.Query("propagationPolicy").value_or(""));
    if (req.Query("orphanDependents")) opts.orphan_dependents = QueryBool(req, "orphanDependents");
    auto dry = ParseDryRun(req);
    if (!dry.ok()) return dry.status();
    opts.dry_run = *dry;
  }
  const auto& pp = opts.propagation_policy;
  if (!pp.empty() && pp != "Orphan" && pp != "Background" && pp != "Foreground") {
    return v::ToInvalidStatus("DeleteOptions.meta.k8s.io", "",
                              {v::NotSupported(v::Path("propagationPolicy"), pp,
                                               {"Foreground", "Background", "Orphan"})});
  }
  return opts;
}

Result<bool> ParseDryRun(const http::Request& req) {
  auto d = req.Query("dryRun");
  if (!d) return false;
  if (*d == "All") return true;
  return v::ToInvalidStatus("CreateOptions.meta.k8s.io", "",
                            {v::NotSupported(v::Path("dryRun"), *d, {"All"})});
}

}  // namespace svcplane::apiserver::rest
