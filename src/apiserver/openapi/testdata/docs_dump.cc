// Writes every discovery and OpenAPI document to a directory, for kubectl_check.py: a fake API
// server in Python serves these exact bytes to a real kubectl.
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <utility>

#include "api/codec/json.h"
#include "api/resources.h"
#include "apiserver/discovery/discovery.h"
#include "apiserver/openapi/openapi.h"
#include "apiserver/table/table.h"

namespace {

void Write(const std::string& dir, const std::string& name, const std::string& body) {
  std::ofstream(dir + "/" + name, std::ios::binary) << body;
}

// Two Services and a Pod created five minutes ago, as Tables for `kubectl get`.
void WriteTables(const std::string& dir) {
  using namespace svcplane;
  auto now = std::chrono::system_clock::now();
  int64_t created =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count() - 300;
  api::core::v1::Service web;
  web.kind = "Service";
  web.api_version = "v1";
  web.metadata.name = "web";
  web.metadata.namespace_ = "default";
  web.metadata.resource_version = "7";
  web.metadata.creation_timestamp = api::meta::Time::FromUnix(created);
  web.metadata.labels = {{"app", "web"}};
  web.spec.type = "NodePort";
  web.spec.cluster_ip = "10.96.0.10";
  web.spec.cluster_ips = {"10.96.0.10"};
  web.spec.selector = {{"app", "web"}};
  api::core::v1::ServicePort port;
  port.port = 80;
  port.protocol = "TCP";
  port.node_port = 30080;
  web.spec.ports = {port};
  api::core::v1::Service db = web;
  db.metadata.name = "db";
  db.metadata.labels = {{"app", "db"}};
  db.spec.type = "ClusterIP";
  db.spec.cluster_ip = "None";
  db.spec.cluster_ips = {"None"};
  db.spec.ports[0].node_port = 0;
  db.spec.ports[0].port = 5432;
  db.spec.selector.clear();
  std::vector<apiserver::table::TableItem<api::core::v1::Service>> items = {{&web, {}}, {&db, {}}};
  api::meta::ListMeta lm;
  lm.resource_version = "9";
  apiserver::table::TableOptions opt;
  opt.now = now;
  Write(dir, "table_services",
        apiserver::table::EncodeListTable<api::core::v1::Service>(items, lm, opt));

  // One pending Pod listed, then a watch that modifies it and adds a second one: kubectl get -w
  // must print one header only.
  api::core::v1::Pod pod;
  pod.kind = "Pod";
  pod.api_version = "v1";
  pod.metadata.name = "web-0";
  pod.metadata.namespace_ = "default";
  pod.metadata.resource_version = "10";
  pod.metadata.creation_timestamp = api::meta::Time::FromUnix(created);
  pod.spec.containers.resize(1);
  pod.spec.containers[0].name = "app";
  pod.status.phase = "Pending";
  std::vector<apiserver::table::TableItem<api::core::v1::Pod>> pods = {{&pod, {}}};
  lm.resource_version = "10";
  Write(dir, "table_pods", apiserver::table::EncodeListTable<api::core::v1::Pod>(pods, lm, opt));
  api::core::v1::Pod running = pod;
  running.metadata.resource_version = "11";
  running.status.phase = "Running";
  running.status.rest->container_statuses = {
      api::meta::RawJson{R"({"name":"app","ready":true,"state":{"running":{}}})"}};
  api::core::v1::Pod second = pod;
  second.metadata.name = "web-1";
  second.metadata.resource_version = "12";
  std::string events;
  api::codec::EncodeWatchEvent(
      "MODIFIED", apiserver::table::EncodeWatchTable<api::core::v1::Pod>({&running, {}}, true, opt),
      &events);
  events += "\n";
  api::codec::EncodeWatchEvent(
      "ADDED", apiserver::table::EncodeWatchTable<api::core::v1::Pod>({&second, {}}, false, opt),
      &events);
  events += "\n";
  Write(dir, "watch_pods", events);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: docs_dump <dir> <host:port>\n";
    return 2;
  }
  const std::string dir = argv[1];
  svcplane::apiserver::discovery::Documents d(argv[2]);
  svcplane::apiserver::openapi::Documents o;
  Write(dir, "version", d.Version());
  Write(dir, "api", d.LegacyApi());
  Write(dir, "apis", d.LegacyApis());
  Write(dir, "aggregated_api", d.AggregatedApi());
  Write(dir, "aggregated_apis", d.AggregatedApis());
  Write(dir, "api_v1", *d.ResourceList("", "v1"));
  // Every served group-version: kubectl gives up when one of them is missing.
  std::set<std::pair<std::string, std::string>> gvs;
  for (const auto& r : svcplane::api::AllResources()) gvs.emplace(r.group, r.version);
  for (const auto& [g, v] : gvs) {
    if (g.empty()) continue;
    Write(dir, "apis_" + g, *d.Group(g));
    Write(dir, "apis_" + g + "_" + v, *d.ResourceList(g, v));
  }
  Write(dir, "openapi_v3", o.Index());
  for (const auto& [g, v] : gvs) {
    std::string p = g.empty() ? "api/" + v : "apis/" + g + "/" + v;
    std::string name = "openapi_v3_" + p;
    for (char& c : name) c = c == '/' ? '_' : c;
    Write(dir, name, *o.GroupVersion(p));
  }
  Write(dir, "openapi_v2.pb", o.SwaggerProtobuf());
  Write(dir, "openapi_v2.json", o.SwaggerJson());
  WriteTables(dir);
  return 0;
}
