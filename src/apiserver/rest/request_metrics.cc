#include "apiserver/rest/request_metrics.h"

#include <charconv>
#include <string>
#include <vector>

namespace svcplane::apiserver::rest {
namespace {

bool IsWatch(const http::Request& req) {
  auto w = req.Query("watch");
  return w.has_value() && *w != "false" && *w != "0";
}

std::vector<double> DurationBuckets() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25,
          0.3,    0.35,  0.4,    0.45,  0.5,  0.6,   0.7,  0.8, 0.9,  1,   1.25,
          1.5,    1.75,  2,      2.5,   3,    3.5,   4,    4.5, 5,    6,   7,
          8,      9,     10,     15,    20,   25,    30,   40,  50,   60};
}

}  // namespace

std::string_view ReportedVerb(const http::Request& req, const RequestInfo& info) {
  if (IsWatch(req)) return "WATCH";
  const std::string_view m = req.method;
  if (m == "GET" || m == "HEAD") return info.name.empty() ? "LIST" : "GET";
  if (m == "PATCH") {
    auto type = req.Header("Content-Type").value_or("");
    return type.starts_with("application/apply-patch") ? "APPLY" : "PATCH";
  }
  if (m == "POST" || m == "PUT" || m == "DELETE") return m;
  // Any other method would make a series per made-up method name; upstream reports "other".
  return "other";
}

std::string_view RequestScope(const RequestInfo& info) {
  if (!info.name.empty()) return "resource";
  return info.ns.empty() ? "cluster" : "namespace";
}

void RequestMetrics::Record(const http::Request& req, const RequestInfo& info, int code,
                            std::chrono::steady_clock::duration elapsed) {
  const std::string_view verb = ReportedVerb(req, info);
  const std::string_view scope = RequestScope(info);
  auto dry = req.Query("dryRun");
  const std::string_view dry_run = dry && *dry == "All" ? "All" : "";
  const api::ResourceInfo& r = *info.resource;
  char code_text[16];
  const std::string_view code_str(
      code_text,
      static_cast<size_t>(std::to_chars(code_text, code_text + sizeof(code_text), code).ptr -
                          code_text));
  std::string key;
  key.reserve(96);
  for (std::string_view part : {verb, r.group, r.version, r.resource,
                                std::string_view(info.subresource), scope, dry_run, code_str}) {
    key.append(part).push_back('|');
  }
  Series series;
  {
    std::lock_guard lock(mu_);
    if (auto it = series_.find(key); it != series_.end()) series = it->second;
  }
  if (!series.total) {
    MetricLabels labels{{"component", "apiserver"},      {"dry_run", std::string(dry_run)},
                        {"group", std::string(r.group)}, {"resource", std::string(r.resource)},
                        {"scope", std::string(scope)},   {"subresource", info.subresource},
                        {"verb", std::string(verb)},     {"version", std::string(r.version)}};
    if (verb != "WATCH") {
      series.duration = &registry_->GetHistogram(
          "apiserver_request_duration_seconds",
          "Response latency distribution in seconds for each verb, dry run value, group, "
          "version, resource, subresource, scope and component.",
          labels, DurationBuckets());
    }
    labels.insert(labels.begin(), {"code", std::string(code_str)});
    series.total = &registry_->GetCounter(
        "apiserver_request_total",
        "Counter of apiserver requests broken out for each verb, dry run value, group, version, "
        "resource, scope, component, and HTTP response code.",
        std::move(labels));
    std::lock_guard lock(mu_);
    series_.emplace(std::move(key), series);
  }
  if (series.duration) series.duration->Observe(std::chrono::duration<double>(elapsed).count());
  series.total->Inc();
}

}  // namespace svcplane::apiserver::rest
