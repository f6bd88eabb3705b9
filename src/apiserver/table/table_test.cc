#include "apiserver/table/table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/codec/json.h"

namespace svcplane::apiserver::table {
namespace {

namespace json = boost::json;
using namespace api;
using ::testing::ElementsAre;

constexpr int64_t kNow = 1700000000;
const TimePoint now = std::chrono::system_clock::from_time_t(kNow);

std::vector<std::string> Strings(const Row& row) {
  std::vector<std::string> out;
  for (const auto& c : row.cells) {
    if (const auto* s = std::get_if<std::string>(&c)) {
      out.push_back(*s);
    } else {
      out.push_back("#" + std::to_string(std::get<int64_t>(c)));
    }
  }
  return out;
}

meta::RawJson Raw(std::string s) { return meta::RawJson{std::move(s)}; }

core::v1::Pod RunningPod() {
  core::v1::Pod p;
  p.metadata.name = "web-0";
  p.metadata.namespace_ = "default";
  p.metadata.resource_version = "42";
  p.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 300);
  p.spec.containers.resize(2);
  p.spec.containers[0].name = "app";
  p.spec.containers[1].name = "sidecar";
  p.spec.node_name = "n1";
  p.status.phase = "Running";
  p.status.pod_ip = "10.0.0.5";
  p.status.pod_ips = {core::v1::PodIP{"10.0.0.5", {}}};
  p.status.rest->container_statuses = {
      Raw(R"({"name":"app","ready":true,"restartCount":0,"state":{"running":{}}})"),
      Raw(R"({"name":"sidecar","ready":true,"restartCount":0,"state":{"running":{}}})")};
  return p;
}

TEST(ColumnsTest, NamesAndPrioritiesMatchUpstream) {
  auto names = [](std::string_view kind) {
    std::vector<std::string> out;
    for (const auto& c : Columns(kind)) {
      out.push_back(std::string(c.name) + (c.priority ? "*" : ""));
    }
    return out;
  };
  EXPECT_THAT(names("Pod"), ElementsAre("Name", "Ready", "Status", "Restarts", "Age", "IP*",
                                        "Node*", "Nominated Node*", "Readiness Gates*"));
  EXPECT_THAT(names("Service"), ElementsAre("Name", "Type", "Cluster-IP", "External-IP", "Port(s)",
                                            "Age", "Selector*"));
  EXPECT_THAT(names("Endpoints"), ElementsAre("Name", "Endpoints", "Age"));
  EXPECT_THAT(names("EndpointSlice"),
              ElementsAre("Name", "AddressType", "Ports", "Endpoints", "Age"));
  EXPECT_THAT(names("Node"),
              ElementsAre("Name", "Status", "Roles", "Age", "Version", "Internal-IP*",
                          "External-IP*", "OS-Image*", "Kernel-Version*", "Container-Runtime*"));
  EXPECT_THAT(names("Namespace"), ElementsAre("Name", "Status", "Age"));
  EXPECT_THAT(names("Event"), ElementsAre("Last Seen", "Type", "Reason", "Object", "Subobject*",
                                          "Source*", "Message", "First Seen*", "Count*", "Name*"));
  EXPECT_THAT(names("Lease"), ElementsAre("Name", "Holder", "Age"));
  EXPECT_THAT(names("Role"), ElementsAre("Name", "Created At"));
  EXPECT_THAT(names("ClusterRole"), ElementsAre("Name", "Created At"));
  EXPECT_EQ(Columns("Role")[1].type, "date");
  EXPECT_THAT(names("RoleBinding"),
              ElementsAre("Name", "Role", "Age", "Users*", "Groups*", "ServiceAccounts*"));
  EXPECT_THAT(names("ClusterRoleBinding"),
              ElementsAre("Name", "Role", "Age", "Users*", "Groups*", "ServiceAccounts*"));
  EXPECT_THAT(names("Deployment"), ElementsAre("Name", "Ready", "Up-to-date", "Available", "Age",
                                               "Containers*", "Images*", "Selector*"));
  EXPECT_THAT(names("ReplicaSet"), ElementsAre("Name", "Desired", "Current", "Ready", "Age",
                                               "Containers*", "Images*", "Selector*"));
  EXPECT_EQ(Columns("ReplicaSet")[1].type, "integer");
  EXPECT_EQ(Columns("Deployment")[2].type, "string");
  EXPECT_TRUE(Columns("DaemonSet").empty());
  EXPECT_EQ(Columns("Pod")[0].format, "name");
}

TEST(PodRowTest, Running) {
  EXPECT_THAT(
      Strings(MakeRow(RunningPod(), now)),
      ElementsAre("web-0", "2/2", "Running", "0", "5m", "10.0.0.5", "n1", "<none>", "<none>"));
}

TEST(PodRowTest, PendingUnscheduled) {
  core::v1::Pod p;
  p.metadata.name = "p";
  p.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 10);
  p.spec.containers.resize(1);
  p.status.phase = "Pending";
  EXPECT_THAT(Strings(MakeRow(p, now)), ElementsAre("p", "0/1", "Pending", "0", "10s", "<none>",
                                                    "<none>", "<none>", "<none>"));
}

TEST(PodRowTest, WaitingReasonAndRestartsAgo) {
  core::v1::Pod p = RunningPod();
  p.status.rest->container_statuses[0] =
      Raw(R"({"name":"app","ready":false,"restartCount":3,"state":{"waiting":{"reason":)"
          R"("CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1,)"
          R"("finishedAt":"2023-11-14T22:11:20Z"}}})");
  // 2023-11-14T22:11:20Z is kNow - 120 s.
  auto cells = Strings(MakeRow(p, now));
  EXPECT_EQ(cells[1], "1/2");
  EXPECT_EQ(cells[2], "CrashLoopBackOff");
  EXPECT_EQ(cells[3], "3 (2m ago)");
}

TEST(PodRowTest, InitContainers) {
  core::v1::Pod p = RunningPod();
  p.status.phase = "Pending";
  p.spec.rest->init_containers.resize(2);
  p.spec.rest->init_containers[0].name = "i0";
  p.spec.rest->init_containers[1].name = "i1";
  p.status.rest->init_container_statuses = {
      Raw(R"({"name":"i0","state":{"terminated":{"exitCode":0,"reason":"Completed"}}})"),
      Raw(R"({"name":"i1","state":{"running":{}}})")};
  p.status.rest->container_statuses = {
      Raw(R"({"name":"app","state":{"waiting":{"reason":"PodInitializing"}}})")};
  EXPECT_EQ(Strings(MakeRow(p, now))[2], "Init:1/2");
  p.status.rest->init_container_statuses[1] =
      Raw(R"({"name":"i1","state":{"terminated":{"exitCode":2}}})");
  EXPECT_EQ(Strings(MakeRow(p, now))[2], "Init:ExitCode:2");
  p.status.rest->init_container_statuses[1] =
      Raw(R"({"name":"i1","state":{"waiting":{"reason":"ImagePullBackOff"}}})");
  EXPECT_EQ(Strings(MakeRow(p, now))[2], "Init:ImagePullBackOff");
}

TEST(PodRowTest, SidecarCountsAsContainer) {
  core::v1::Pod p = RunningPod();
  p.spec.rest->init_containers.resize(1);
  p.spec.rest->init_containers[0].name = "proxy";
  p.spec.rest->init_containers[0].unknown.items.emplace_back("restartPolicy", "\"Always\"");
  p.status.conditions = {core::v1::PodCondition{"Initialized", "True"}};
  p.status.rest->init_container_statuses = {
      Raw(R"({"name":"proxy","ready":true,"started":true,"restartCount":1,)"
          R"("state":{"running":{}}})")};
  auto cells = Strings(MakeRow(p, now));
  EXPECT_EQ(cells[1], "3/3");
  EXPECT_EQ(cells[2], "Running");
  EXPECT_EQ(cells[3], "1");  // no lastState: no "ago"
}

TEST(PodRowTest, TerminatingAndCompleted) {
  core::v1::Pod p = RunningPod();
  p.metadata.deletion_timestamp = meta::Time::FromUnix(kNow);
  EXPECT_EQ(Strings(MakeRow(p, now))[2], "Terminating");

  core::v1::Pod done = RunningPod();
  done.status.phase = "Succeeded";
  done.status.rest->container_statuses = {
      Raw(R"({"name":"app","state":{"terminated":{"exitCode":0,"reason":"Completed"}}})"),
      Raw(R"({"name":"sidecar","state":{"terminated":{"exitCode":0,"reason":"Completed"}}})")};
  Row row = MakeRow(done, now);
  EXPECT_EQ(Strings(row)[1], "0/2");
  EXPECT_EQ(Strings(row)[2], "Completed");
  ASSERT_EQ(row.conditions.size(), 1u);
  EXPECT_EQ(row.conditions[0].type, "Completed");
}

TEST(PodRowTest, ReadinessGates) {
  core::v1::Pod p = RunningPod();
  p.spec.readiness_gates = {{"example.com/a", {}}, {"example.com/b", {}}};
  p.status.conditions = {core::v1::PodCondition{"example.com/a", "True"}};
  EXPECT_EQ(Strings(MakeRow(p, now))[8], "1/2");
}

core::v1::Service Svc(std::string type) {
  core::v1::Service s;
  s.metadata.name = "web";
  s.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 3600 * 5 - 60 * 7);
  s.spec.type = std::move(type);
  s.spec.cluster_ip = "10.96.0.10";
  s.spec.cluster_ips = {"10.96.0.10"};
  core::v1::ServicePort p;
  p.port = 80;
  p.protocol = "TCP";
  s.spec.ports.push_back(p);
  return s;
}

TEST(ServiceRowTest, ClusterIP) {
  auto s = Svc("ClusterIP");
  s.spec.selector = {{"app", "web"}, {"tier", "fe"}};
  EXPECT_THAT(Strings(MakeRow(s, now)), ElementsAre("web", "ClusterIP", "10.96.0.10", "<none>",
                                                    "80/TCP", "5h7m", "app=web,tier=fe"));
}

TEST(ServiceRowTest, NodePortAndExternalIPs) {
  auto s = Svc("NodePort");
  s.spec.ports[0].node_port = 30080;
  core::v1::ServicePort udp;
  udp.port = 53;
  udp.protocol = "UDP";
  s.spec.ports.push_back(udp);
  s.spec.external_ips = {"1.2.3.4", "5.6.7.8"};
  auto cells = Strings(MakeRow(s, now));
  EXPECT_EQ(cells[3], "1.2.3.4,5.6.7.8");
  EXPECT_EQ(cells[4], "80:30080/TCP,53/UDP");
  EXPECT_EQ(cells[6], "<none>");
}

TEST(ServiceRowTest, LoadBalancerAndExternalNameAndHeadless) {
  auto lb = Svc("LoadBalancer");
  EXPECT_EQ(Strings(MakeRow(lb, now))[3], "<pending>");
  lb.status.load_balancer.ingress = {Raw(R"({"ip":"9.9.9.9"})"), Raw(R"({"hostname":"a.b"})")};
  EXPECT_EQ(Strings(MakeRow(lb, now))[3], "9.9.9.9,a.b");
  lb.spec.external_ips = {"1.1.1.1"};
  EXPECT_EQ(Strings(MakeRow(lb, now))[3], "9.9.9.9,a.b,1.1.1.1");

  auto en = Svc("ExternalName");
  en.spec.external_name = "db.example.com";
  en.spec.cluster_ips.clear();
  en.spec.ports.clear();
  auto cells = Strings(MakeRow(en, now));
  EXPECT_EQ(cells[2], "<none>");
  EXPECT_EQ(cells[3], "db.example.com");
  EXPECT_EQ(cells[4], "<none>");

  auto headless = Svc("ClusterIP");
  headless.spec.cluster_ips = {"None"};
  EXPECT_EQ(Strings(MakeRow(headless, now))[2], "None");
}

TEST(EndpointsRowTest, FirstThreeAndMore) {
  core::v1::Endpoints ep;
  ep.metadata.name = "web";
  ep.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 59);
  EXPECT_THAT(Strings(MakeRow(ep, now)), ElementsAre("web", "<none>", "59s"));
  core::v1::EndpointSubset ss;
  for (auto ip : {"10.0.0.1", "10.0.0.2", "fd00::3"}) {
    core::v1::EndpointAddress a;
    a.ip = ip;
    ss.addresses.push_back(a);
  }
  core::v1::EndpointPort p80, p443;
  p80.port = 80;
  p443.port = 443;
  ss.ports = {p80};
  ep.subsets = {ss};
  EXPECT_EQ(Strings(MakeRow(ep, now))[1], "10.0.0.1:80,10.0.0.2:80,[fd00::3]:80");
  ep.subsets[0].ports = {p80, p443};
  EXPECT_EQ(Strings(MakeRow(ep, now))[1], "10.0.0.1:80,10.0.0.2:80,[fd00::3]:80 + 3 more...");
  ep.subsets[0].ports.clear();
  EXPECT_EQ(Strings(MakeRow(ep, now))[1], "10.0.0.1,10.0.0.2,fd00::3");
}

TEST(EndpointSliceRowTest, PortsAndEndpoints) {
  discovery::v1::EndpointSlice s;
  s.metadata.name = "web-abc";
  s.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 86400 * 3);
  s.address_type = "IPv4";
  EXPECT_THAT(Strings(MakeRow(s, now)), ElementsAre("web-abc", "IPv4", "<unset>", "<unset>", "3d"));
  discovery::v1::EndpointPort named, numbered, any;
  named.name = "http";
  numbered.port = 8080;
  s.ports = std::vector<discovery::v1::EndpointPort>{numbered, named, any, numbered};
  for (int i = 1; i <= 4; ++i) {
    discovery::v1::Endpoint e;
    e.addresses = {"10.0.0." + std::to_string(i)};
    s.endpoints.push_back(e);
  }
  auto cells = Strings(MakeRow(s, now));
  EXPECT_EQ(cells[2], "8080,http,* + 1 more...");
  EXPECT_EQ(cells[3], "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...");
}

TEST(NodeRowTest, StatusRolesAndWide) {
  core::v1::Node n;
  n.metadata.name = "n1";
  n.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 86400 * 400);
  n.metadata.labels = {{"node-role.kubernetes.io/control-plane", ""},
                       {"node-role.kubernetes.io/", ""},
                       {"kubernetes.io/role", "worker"}};
  n.status.node_info.kubelet_version = "v1.30.1";
  n.status.node_info.os_image = "Debian";
  n.status.addresses = {{"InternalIP", "192.168.1.10", {}}, {"Hostname", "n1", {}}};
  EXPECT_THAT(Strings(MakeRow(n, now)),
              ElementsAre("n1", "Unknown", "control-plane,worker", "400d", "v1.30.1",
                          "192.168.1.10", "<none>", "Debian", "<unknown>", "<unknown>"));
  core::v1::NodeCondition ready;
  ready.type = "Ready";
  ready.status = "False";
  n.status.conditions = {ready};
  n.spec.unschedulable = true;
  n.metadata.labels.clear();
  auto cells = Strings(MakeRow(n, now));
  EXPECT_EQ(cells[1], "NotReady,SchedulingDisabled");
  EXPECT_EQ(cells[2], "<none>");
  n.status.conditions[0].status = "True";
  n.spec.unschedulable = false;
  EXPECT_EQ(Strings(MakeRow(n, now))[1], "Ready");
}

TEST(NamespaceAndLeaseRowTest, Cells) {
  core::v1::Namespace ns;
  ns.metadata.name = "default";
  ns.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 7200);
  ns.status.phase = "Active";
  EXPECT_THAT(Strings(MakeRow(ns, now)), ElementsAre("default", "Active", "120m"));
  coordination::v1::Lease l;
  l.metadata.name = "n1";
  l.spec.holder_identity = "n1_abc";
  EXPECT_THAT(Strings(MakeRow(l, now)), ElementsAre("n1", "n1_abc", "<unknown>"));
}

TEST(RbacRowTest, RolesShowCreationTime) {
  rbac::v1::Role r;
  r.metadata.name = "pod-reader";
  r.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 600);
  EXPECT_THAT(Strings(MakeRow(r, now)), ElementsAre("pod-reader", "2023-11-14T22:03:20Z"));
  rbac::v1::ClusterRole cr;
  cr.metadata.name = "view";
  EXPECT_THAT(Strings(MakeRow(cr, now)), ElementsAre("view", "0001-01-01T00:00:00Z"));
}

TEST(RbacRowTest, BindingsShowRoleAndSubjects) {
  rbac::v1::RoleBinding rb;
  rb.metadata.name = "jane-view";
  rb.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 90);
  rb.role_ref = {"rbac.authorization.k8s.io", "ClusterRole", "view", {}};
  rb.subjects = {{"User", "rbac.authorization.k8s.io", "jane", "", {}},
                 {"Group", "rbac.authorization.k8s.io", "dev", "", {}},
                 {"ServiceAccount", "", "sa", "demo", {}},
                 {"User", "rbac.authorization.k8s.io", "bob", "", {}},
                 {"Robot", "", "r2", "", {}}};
  EXPECT_THAT(Strings(MakeRow(rb, now)),
              ElementsAre("jane-view", "ClusterRole/view", "90s", "jane, bob", "dev", "demo/sa"));
  rbac::v1::ClusterRoleBinding crb;
  crb.metadata.name = "system:node";
  crb.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 90);
  crb.role_ref = {"rbac.authorization.k8s.io", "ClusterRole", "system:node", {}};
  EXPECT_THAT(Strings(MakeRow(crb, now)),
              ElementsAre("system:node", "ClusterRole/system:node", "90s", "", "", ""));
}

TEST(AppsRowTest, DeploymentCells) {
  apps::v1::Deployment d;
  d.metadata.name = "web";
  d.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 90);
  d.spec.replicas = 3;
  d.spec.selector.emplace();
  d.spec.selector->match_labels = {{"app", "web"}, {"tier", "fe"}};
  d.spec.template_.spec.containers.resize(2);
  d.spec.template_.spec.containers[0].name = "nginx";
  d.spec.template_.spec.containers[0].image = "nginx:1.25";
  d.spec.template_.spec.containers[1].name = "side";
  d.spec.template_.spec.containers[1].image = "busybox";
  d.status.ready_replicas = 1;
  d.status.updated_replicas = 2;
  d.status.available_replicas = 1;
  Row row = MakeRow(d, now);
  EXPECT_THAT(Strings(row), ElementsAre("web", "1/3", "#2", "#1", "90s", "nginx,side",
                                        "nginx:1.25,busybox", "app=web,tier=fe"));
  EXPECT_TRUE(std::holds_alternative<int64_t>(row.cells[2]));
}

TEST(AppsRowTest, ReplicaSetCells) {
  apps::v1::ReplicaSet rs;
  rs.metadata.name = "web-5d9c7";
  rs.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 90);
  rs.spec.replicas = 3;
  rs.spec.selector.emplace();
  rs.spec.selector->match_expressions.push_back({"app", "In", {"web", "api"}});
  rs.spec.template_.spec.containers.resize(1);
  rs.spec.template_.spec.containers[0].name = "nginx";
  rs.spec.template_.spec.containers[0].image = "nginx";
  rs.status.replicas = 2;
  rs.status.ready_replicas = 1;
  Row row = MakeRow(rs, now);
  EXPECT_THAT(Strings(row), ElementsAre("web-5d9c7", "#3", "#2", "#1", "90s", "nginx", "nginx",
                                        "app in (api,web)"));
  EXPECT_TRUE(std::holds_alternative<int64_t>(row.cells[1]));
  rs.spec.selector.reset();
  EXPECT_EQ(std::get<std::string>(MakeRow(rs, now).cells[7]), "<none>");
}

TEST(EventRowTest, Cells) {
  core::v1::Event e;
  e.metadata.name = "web.17a";
  e.involved_object.kind = "Service";
  e.involved_object.name = "web";
  e.reason = "Created";
  e.type = "Normal";
  e.message = "  hello \n";
  e.source.component = "svcplane";
  e.reporting_instance = "host-1";
  e.first_timestamp = meta::Time::FromUnix(kNow - 600);
  e.last_timestamp = meta::Time::FromUnix(kNow - 30);
  EXPECT_THAT(Strings(MakeRow(e, now)),
              ElementsAre("30s", "Normal", "Created", "service/web", "", "svcplane, host-1",
                          "hello", "10m", "#1", "web.17a"));
  e.count = 4;
  e.last_timestamp = {};
  EXPECT_EQ(Strings(MakeRow(e, now))[0], "10m");
  EXPECT_EQ(Strings(MakeRow(e, now))[8], "#4");
  e.first_timestamp = {};
  e.event_time = meta::MicroTime::FromUnixMicros((kNow - 5) * 1000000);
  e.series = core::v1::EventSeries{7, meta::MicroTime::FromUnixMicros((kNow - 1) * 1000000), {}};
  auto cells = Strings(MakeRow(e, now));
  EXPECT_EQ(cells[0], "1s");
  EXPECT_EQ(cells[7], "5s");
  EXPECT_EQ(cells[8], "#7");
}

TEST(ExtractMetadataTest, FindsTopLevelMetadataOnly) {
  EXPECT_EQ(ExtractMetadata(R"({"kind":"X","spec":{"metadata":{"a":1}},"metadata":{"name":"n",)"
                            R"("labels":{"x":"}\"{"}},"z":[]})"),
            R"({"name":"n","labels":{"x":"}\"{"}})");
  EXPECT_EQ(ExtractMetadata(R"({"kind":"X"})"), "");
}

TEST(EncodeTest, ListTableWithPartialObjectMetadata) {
  auto a = RunningPod();
  auto b = RunningPod();
  b.metadata.name = "web-1";
  b.metadata.labels = {{"app", "<web>"}};
  std::vector<TableItem<core::v1::Pod>> items = {{&a, {}}, {&b, {}}};
  meta::ListMeta lm;
  lm.resource_version = "100";
  lm.continue_ = "tok";
  TableOptions opt{false, IncludeObject::kMetadata, now};
  std::string out = EncodeListTable<core::v1::Pod>(items, lm, opt);
  EXPECT_NE(out.find("\\u003cweb\\u003e"), std::string::npos) << "Go-style HTML escaping";
  auto t = json::parse(out).as_object();
  EXPECT_EQ(t.at("kind").as_string(), "Table");
  EXPECT_EQ(t.at("apiVersion").as_string(), "meta.k8s.io/v1");
  EXPECT_EQ(json::serialize(t.at("metadata")), R"({"resourceVersion":"100","continue":"tok"})");
  EXPECT_EQ(json::serialize(t.at("columnDefinitions").at(0)),
            std::string(R"({"name":"Name","type":"string","format":"name","description":)") +
                json::serialize(json::string(Columns("Pod")[0].description)) + R"(,"priority":0})");
  EXPECT_EQ(t.at("columnDefinitions").as_array().size(), 9u);
  const auto& rows = t.at("rows").as_array();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(json::serialize(rows[1].at("cells")),
            R"(["web-1","2/2","Running","0","5m","10.0.0.5","n1","<none>","<none>"])");
  const auto& obj = rows[1].at("object").as_object();
  EXPECT_EQ(obj.at("kind").as_string(), "PartialObjectMetadata");
  EXPECT_EQ(obj.at("apiVersion").as_string(), "meta.k8s.io/v1");
  EXPECT_EQ(obj.at("metadata").at("name").as_string(), "web-1");
  EXPECT_EQ(obj.at("metadata").at("namespace").as_string(), "default");
  EXPECT_EQ(obj.at("metadata").at("labels").at("app").as_string(), "<web>");
  EXPECT_FALSE(rows[1].as_object().contains("conditions"));
}

TEST(EncodeTest, IncludeObjectVariantsAndV1beta1) {
  auto s = Svc("ClusterIP");
  s.kind = "Service";
  s.api_version = "v1";
  std::string full = codec::EncodeJson(s);
  std::vector<TableItem<core::v1::Service>> items = {{&s, full}};
  auto as_object = json::parse(EncodeListTable<core::v1::Service>(
                                   items, {}, TableOptions{false, IncludeObject::kObject, now}))
                       .as_object();
  EXPECT_EQ(as_object.at("metadata").as_object().size(), 0u);
  EXPECT_EQ(json::serialize(as_object.at("rows").at(0).at("object")),
            json::serialize(json::parse(full)));
  auto none = json::parse(EncodeListTable<core::v1::Service>(
                              items, {}, TableOptions{true, IncludeObject::kNone, now}))
                  .as_object();
  EXPECT_EQ(none.at("apiVersion").as_string(), "meta.k8s.io/v1beta1");
  EXPECT_FALSE(none.at("rows").at(0).as_object().contains("object"));
  auto beta = json::parse(EncodeObjectTable<core::v1::Service>(
                              items[0], TableOptions{true, IncludeObject::kMetadata, now}))
                  .as_object();
  EXPECT_EQ(beta.at("rows").at(0).at("object").at("apiVersion").as_string(), "meta.k8s.io/v1beta1");
  EXPECT_EQ(ParseIncludeObject(""), IncludeObject::kMetadata);
  EXPECT_EQ(ParseIncludeObject("Object"), IncludeObject::kObject);
  EXPECT_EQ(ParseIncludeObject("None"), IncludeObject::kNone);
  EXPECT_EQ(ParseIncludeObject("bogus"), std::nullopt);
}

TEST(EncodeTest, WatchTablesCarryColumnsOnlyFirst) {
  auto p = RunningPod();
  TableItem<core::v1::Pod> item{&p, {}};
  TableOptions opt{false, IncludeObject::kMetadata, now};
  auto first = json::parse(EncodeWatchTable(item, true, opt)).as_object();
  auto later = json::parse(EncodeWatchTable(item, false, opt)).as_object();
  EXPECT_EQ(first.at("columnDefinitions").as_array().size(), 9u);
  EXPECT_TRUE(later.at("columnDefinitions").is_null());
  EXPECT_EQ(later.at("rows").as_array().size(), 1u);
  EXPECT_EQ(json::serialize(later.at("metadata")), R"({"resourceVersion":"42"})");
}

TEST(EncodeTest, EventCountIsANumberCell) {
  core::v1::Event e;
  e.metadata.name = "e";
  e.involved_object.kind = "Pod";
  TableItem<core::v1::Event> item{&e, {}};
  auto t = json::parse(EncodeObjectTable(item, TableOptions{false, IncludeObject::kNone, now}));
  EXPECT_TRUE(t.at("rows").at(0).at("cells").at(8).is_int64());
}

TEST(EncodeTest, PartialObjectMetadata) {
  auto p = RunningPod();
  p.kind = "Pod";
  p.api_version = "v1";
  std::string full = codec::EncodeJson(p);
  auto one = json::parse(EncodePartialObjectMetadata(full)).as_object();
  EXPECT_EQ(one.at("kind").as_string(), "PartialObjectMetadata");
  EXPECT_EQ(one.at("apiVersion").as_string(), "meta.k8s.io/v1");
  EXPECT_EQ(one.at("metadata").at("name").as_string(), "web-0");
  EXPECT_FALSE(one.contains("spec"));
  std::vector<std::string_view> objs = {full, full};
  meta::ListMeta lm;
  lm.resource_version = "5";
  lm.remaining_item_count = 3;
  auto list = json::parse(EncodePartialObjectMetadataList(objs, lm)).as_object();
  EXPECT_EQ(list.at("kind").as_string(), "PartialObjectMetadataList");
  EXPECT_EQ(json::serialize(list.at("metadata")),
            R"({"resourceVersion":"5","remainingItemCount":3})");
  EXPECT_EQ(list.at("items").as_array().size(), 2u);
  EXPECT_EQ(list.at("items").at(1).at("metadata").at("resourceVersion").as_string(), "42");
}

// printConfigMap / printSecret / printServiceAccount: counts as integers, in columns that
// upstream declares as strings.
TEST(ConfigKindsRowTest, CountsAndTypes) {
  auto names = [](std::string_view kind) {
    std::vector<std::string> out;
    for (const auto& c : Columns(kind)) out.push_back(std::string(c.name));
    return out;
  };
  EXPECT_THAT(names("ConfigMap"), ElementsAre("Name", "Data", "Age"));
  EXPECT_THAT(names("Secret"), ElementsAre("Name", "Type", "Data", "Age"));
  EXPECT_THAT(names("ServiceAccount"), ElementsAre("Name", "Secrets", "Age"));
  EXPECT_EQ(Columns("Secret")[2].type, "string");

  core::v1::ConfigMap cm;
  cm.metadata.name = "cfg";
  cm.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 90);
  cm.data = {{"a", "1"}, {"b", "2"}};
  cm.binary_data = {{"c", meta::Bytes{"x"}}};
  EXPECT_THAT(Strings(MakeRow(cm, now)), ElementsAre("cfg", "#3", "90s"));

  core::v1::Secret secret;
  secret.metadata.name = "tls";
  secret.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 90);
  secret.type = "kubernetes.io/tls";
  secret.data = {{"tls.crt", meta::Bytes{"c"}}, {"tls.key", meta::Bytes{"k"}}};
  EXPECT_THAT(Strings(MakeRow(secret, now)), ElementsAre("tls", "kubernetes.io/tls", "#2", "90s"));

  core::v1::ServiceAccount sa;
  sa.metadata.name = "default";
  sa.metadata.creation_timestamp = meta::Time::FromUnix(kNow - 90);
  EXPECT_THAT(Strings(MakeRow(sa, now)), ElementsAre("default", "#0", "90s"));
  sa.secrets.resize(1);
  EXPECT_THAT(Strings(MakeRow(sa, now)), ElementsAre("default", "#1", "90s"));
}

}  // namespace
}  // namespace svcplane::apiserver::table
