#include "apiserver/discovery/discovery.h"

#include <boost/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "api/resources.h"
#include "apiserver/table/accept.h"

namespace svcplane::apiserver::discovery {
namespace {

namespace json = boost::json;
using api::ResourceInfo;

// Upstream's storage version hashes (api-discovery §3), so caches keyed on them stay valid.
std::string_view StorageVersionHash(std::string_view resource) {
  static const std::map<std::string_view, std::string_view> kHashes = {
      {"pods", "xPOwRZ+Yhw8="},
      {"services", "0/CO1lhkEBI="},
      {"endpoints", "fWeeMqaN/OA="},
      {"events", "r2yiGXH7wu8="},
      {"namespaces", "Q3oi5N2YM8M="},
      {"nodes", "XwShjMxG9Fs="},
      {"endpointslices", "Nx3SIv6I0mE="},
      {"leases", "gqkMMb/YqFM="},
      {"clusterrolebindings", "48tpQ8gZHFc="},
      {"clusterroles", "bYE5ZWDrJ44="},
      {"rolebindings", "eGsCzGH6b1g="},
      {"roles", "7FuwZcIIItM="},
      {"deployments", "8aSe+NMegvE="},
      {"replicasets", "P1RzHs8/mWQ="},
      {"configmaps", "qFsyl6wFWjQ="},
      {"secrets", "S6u1pOWzb84="},
      {"serviceaccounts", "pbx9ZvyFpBE="}};
  auto it = kHashes.find(resource);
  return it == kHashes.end() ? std::string_view() : it->second;
}

json::array Strings(const std::vector<std::string_view>& v) {
  json::array a;
  for (auto s : v) a.emplace_back(json::string_view(s.data(), s.size()));
  return a;
}

json::string_view Js(std::string_view s) { return json::string_view(s.data(), s.size()); }

json::object GroupVersionEntry(std::string_view group, std::string_view version) {
  json::object o;
  o["groupVersion"] = std::string(group) + "/" + std::string(version);
  o["version"] = Js(version);
  return o;
}

// The versions each group serves, preferred first. Every group we serve has only v1.
std::vector<std::string_view> VersionsOf(std::string_view group) {
  std::vector<std::string_view> out;
  for (const auto& r : api::AllResources()) {
    if (r.group == group && std::find(out.begin(), out.end(), r.version) == out.end()) {
      out.push_back(r.version);
    }
  }
  return out;
}

json::object ApiGroup(std::string_view group) {
  json::object g;
  g["name"] = Js(group);
  json::array versions;
  for (auto v : VersionsOf(group)) versions.push_back(GroupVersionEntry(group, v));
  g["versions"] = std::move(versions);
  g["preferredVersion"] = GroupVersionEntry(group, VersionsOf(group).front());
  return g;
}

// The group and version of a subresource's kind when it is not the resource's own: the scale
// subresource of apps/v1 takes an autoscaling/v1 Scale.
std::pair<std::string_view, std::string_view> ForeignGroupVersion(std::string_view sub_kind) {
  if (sub_kind == "Scale") return {"autoscaling", "v1"};
  return {};
}

json::object ApiResource(const ResourceInfo& r, std::string_view sub,
                         const std::vector<std::string_view>& verbs, std::string_view kind) {
  json::object o;
  o["name"] =
      sub.empty() ? std::string(r.resource) : std::string(r.resource) + "/" + std::string(sub);
  // Upstream writes "" for subresources; the Python client rejects a missing singularName.
  o["singularName"] = sub.empty() ? Js(r.singular) : "";
  o["namespaced"] = r.namespaced;
  if (auto [group, version] = ForeignGroupVersion(kind); !group.empty()) {
    o["group"] = Js(group);
    o["version"] = Js(version);
  }
  o["kind"] = Js(kind);
  o["verbs"] = Strings(verbs);
  if (sub.empty()) {
    if (!r.short_names.empty()) o["shortNames"] = Strings(r.short_names);
    if (!r.categories.empty()) o["categories"] = Strings(r.categories);
    if (auto h = StorageVersionHash(r.resource); !h.empty()) o["storageVersionHash"] = Js(h);
  }
  return o;
}

std::string ResourceListJson(std::string_view group, std::string_view version) {
  json::object o;
  o["kind"] = "APIResourceList";
  // Upstream omits apiVersion on /api/v1 but writes it on /apis/{g}/{v}.
  if (!group.empty()) o["apiVersion"] = "v1";
  o["groupVersion"] =
      group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  json::array resources;
  for (const auto& r : api::AllResources()) {
    if (r.group != group || r.version != version) continue;
    resources.push_back(ApiResource(r, {}, r.verbs, r.kind));
    for (const auto& s : r.subresources) {
      resources.push_back(ApiResource(r, s.name, s.verbs, s.kind.empty() ? r.kind : s.kind));
    }
  }
  o["resources"] = std::move(resources);
  return json::serialize(o);
}

json::object ResponseKind(std::string_view kind) {
  // group/version are "" when equal to the containing group/version (upstream style).
  json::object k;
  auto [group, version] = ForeignGroupVersion(kind);
  k["group"] = Js(group);
  k["version"] = Js(version);
  k["kind"] = Js(kind);
  return k;
}

json::object DiscoveryResource(const ResourceInfo& r) {
  json::object o;
  o["resource"] = Js(r.resource);
  o["responseKind"] = ResponseKind(r.kind);
  o["scope"] = r.namespaced ? "Namespaced" : "Cluster";
  o["singularResource"] = Js(r.singular);
  o["verbs"] = Strings(r.verbs);
  if (!r.short_names.empty()) o["shortNames"] = Strings(r.short_names);
  if (!r.categories.empty()) o["categories"] = Strings(r.categories);
  if (!r.subresources.empty()) {
    json::array subs;
    for (const auto& s : r.subresources) {
      json::object so;
      so["subresource"] = Js(s.name);
      so["responseKind"] = ResponseKind(s.kind.empty() ? r.kind : s.kind);
      so["verbs"] = Strings(s.verbs);
      subs.push_back(std::move(so));
    }
    o["subresources"] = std::move(subs);
  }
  return o;
}

json::object GroupDiscovery(std::string_view group) {
  json::object g;
  json::object meta;
  meta["name"] = Js(group);
  meta["creationTimestamp"] = nullptr;
  g["metadata"] = std::move(meta);
  json::array versions;
  for (auto v : VersionsOf(group)) {
    json::object vo;
    vo["version"] = Js(v);
    json::array resources;
    for (const auto& r : api::AllResources()) {
      if (r.group == group && r.version == v) resources.push_back(DiscoveryResource(r));
    }
    vo["resources"] = std::move(resources);
    // Stale would make client-go report the group-version as failed.
    vo["freshness"] = "Current";
    versions.push_back(std::move(vo));
  }
  g["versions"] = std::move(versions);
  return g;
}

std::string AggregatedJson(const std::vector<std::string_view>& groups) {
  json::object o;
  o["kind"] = "APIGroupDiscoveryList";
  o["apiVersion"] = "apidiscovery.k8s.io/v2";
  o["metadata"] = json::object();
  json::array items;
  for (auto g : groups) items.push_back(GroupDiscovery(g));
  o["items"] = std::move(items);
  return json::serialize(o);
}

std::string VersionJson(const VersionInfo& v) {
  json::object o;
  o["major"] = v.major;
  o["minor"] = v.minor;
  o["gitVersion"] = v.git_version;
  o["gitCommit"] = v.git_commit;
  o["gitTreeState"] = v.git_tree_state;
  o["buildDate"] = v.build_date;
  o["goVersion"] = v.go_version;
  o["compiler"] = v.compiler;
  o["platform"] = v.platform;
  return json::serialize(o);
}

}  // namespace

bool AcceptsAggregated(std::string_view accept) {
  for (const auto& mr : table::ParseAccept(accept)) {
    bool json_type = (mr.type == "application" && (mr.subtype == "json" || mr.subtype == "*")) ||
                     (mr.type == "*" && mr.subtype == "*");
    if (!json_type) continue;
    std::string_view g = mr.Param("g"), v = mr.Param("v"), as = mr.Param("as");
    if (g.empty() && v.empty() && as.empty()) return false;
    if (mr.subtype == "json" && g == "apidiscovery.k8s.io" && v == "v2" &&
        as == "APIGroupDiscoveryList") {
      return true;
    }
    // v2beta1 and other conversions are not served: skip the clause, as upstream does.
  }
  return false;
}

Documents::Documents(std::string_view server_address, const VersionInfo& version) {
  version_ = VersionJson(version);

  json::object api;
  api["kind"] = "APIVersions";
  api["versions"] = Strings(VersionsOf(""));
  json::object cidr;
  cidr["clientCIDR"] = "0.0.0.0/0";
  cidr["serverAddress"] = Js(server_address);
  api["serverAddressByClientCIDRs"] = json::array{std::move(cidr)};
  legacy_api_ = json::serialize(api);

  json::object apis;
  apis["kind"] = "APIGroupList";
  apis["apiVersion"] = "v1";
  json::array groups;
  for (auto g : api::ApiGroups()) {
    groups.push_back(ApiGroup(g));
    json::object one = ApiGroup(g);
    json::object with_kind;
    with_kind["kind"] = "APIGroup";
    with_kind["apiVersion"] = "v1";
    for (auto& [k, v] : one) with_kind[k] = v;
    groups_.emplace(std::string(g), json::serialize(with_kind));
  }
  apis["groups"] = std::move(groups);
  legacy_apis_ = json::serialize(apis);

  std::set<std::pair<std::string, std::string>> gvs;
  for (const auto& r : api::AllResources()) gvs.emplace(r.group, r.version);
  for (const auto& [g, v] : gvs) resource_lists_.emplace(g + "/" + v, ResourceListJson(g, v));

  aggregated_api_ = AggregatedJson({""});
  aggregated_apis_ = AggregatedJson(api::ApiGroups());
}

const std::string* Documents::Group(std::string_view group) const {
  auto it = groups_.find(group);
  return it == groups_.end() ? nullptr : &it->second;
}

const std::string* Documents::ResourceList(std::string_view group, std::string_view version) const {
  std::string key = std::string(group) + "/" + std::string(version);
  auto it = resource_lists_.find(key);
  return it == resource_lists_.end() ? nullptr : &it->second;
}

}  // namespace svcplane::apiserver::discovery
