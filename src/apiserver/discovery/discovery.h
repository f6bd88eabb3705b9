#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace svcplane::apiserver::discovery {

// The Content-Type of an aggregated discovery answer. client-go decides the body format from the
// response Content-Type alone, so it must be exactly this GVK (api-discovery §4).
inline constexpr std::string_view kAggregatedContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
inline constexpr std::string_view kJsonContentType = "application/json";

// True when the first acceptable clause of `accept` asks for the v2 APIGroupDiscoveryList
// (params in any order; "profile=nopeer" tolerated). A plain application/json or */* clause
// listed before it, or an empty header, means the legacy documents.
bool AcceptsAggregated(std::string_view accept);

// What /version reports. Defaults advertise v1.30.0 so kubectl 1.29-1.31 print no skew warning.
struct VersionInfo {
  std::string major = "1";
  std::string minor = "30";
  std::string git_version = "v1.30.0";
  std::string git_commit = "0000000000000000000000000000000000000000";
  std::string git_tree_state = "clean";
  std::string build_date = "2024-04-17T17:27:05Z";
  std::string go_version = "go1.22.2";
  std::string compiler = "gc";
  std::string platform = "linux/amd64";
};

// Every discovery document, generated once from api::AllResources() and kept as bytes.
// Immutable after construction; safe to read from any thread.
class Documents {
 public:
  // `server_address` ("host:port") goes into /api's serverAddressByClientCIDRs.
  explicit Documents(std::string_view server_address, const VersionInfo& version = {});

  const std::string& Version() const { return version_; }
  // /api: APIVersions. /apis: APIGroupList.
  const std::string& LegacyApi() const { return legacy_api_; }
  const std::string& LegacyApis() const { return legacy_apis_; }
  // /api and /apis as apidiscovery.k8s.io/v2 APIGroupDiscoveryList.
  const std::string& AggregatedApi() const { return aggregated_api_; }
  const std::string& AggregatedApis() const { return aggregated_apis_; }
  // /apis/{group}: APIGroup; nullptr when the group is not served (answer 404).
  const std::string* Group(std::string_view group) const;
  // /api/v1 (group "") and /apis/{group}/{version}: APIResourceList; nullptr → 404.
  const std::string* ResourceList(std::string_view group, std::string_view version) const;

 private:
  std::string version_;
  std::string legacy_api_;
  std::string legacy_apis_;
  std::string aggregated_api_;
  std::string aggregated_apis_;
  std::map<std::string, std::string, std::less<>> groups_;
  // Keyed by "group/version" ("/v1" for core).
  std::map<std::string, std::string, std::less<>> resource_lists_;
};

}  // namespace svcplane::apiserver::discovery
