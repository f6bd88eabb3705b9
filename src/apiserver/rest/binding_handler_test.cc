// POST pods/{name}/binding through the REST handler: routing, decoding (JSON and protobuf), the
// Success Status answer and upstream's error Statuses.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/codec/protobuf.h"
#include "apiserver/rest/pod_handler_fixture.h"
#include "apiserver/rest/request_info.h"

namespace svcplane::apiserver::rest {
namespace {

using api::core::v1::Pod;

constexpr std::string_view kBindingPath = "/api/v1/namespaces/default/pods/p/binding";

class BindingHandlerTest : public testing::PodHandlerFixture {
 protected:
  BindingHandlerTest() {
    Pod p;
    p.metadata.name = "p";
    p.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
    CreatePod(std::move(p));
  }

  http::Response Send(std::string method, std::string_view path, std::string body,
                      std::string content_type = "application/json",
                      std::string accept = "application/json") {
    http::Request req;
    req.method = std::move(method);
    req.path = std::string(path);
    req.body = std::move(body);
    req.headers = {{"Content-Type", std::move(content_type)}, {"Accept", std::move(accept)}};
    if (dry_run_) req.query = {{"dryRun", "All"}};
    return Handle(std::move(req));
  }

  static std::string BindingJson(std::string_view pod, std::string_view node,
                                 std::string_view kind = "Node") {
    return R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + std::string(pod) +
           R"(","namespace":"default"},"target":{"apiVersion":"v1","kind":")" + std::string(kind) +
           R"(","name":")" + std::string(node) + R"("}})";
  }

  bool dry_run_ = false;
};

TEST_F(BindingHandlerTest, PathIsAPodSubresource) {
  auto info = ParseResourcePath(kBindingPath);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->resource->resource, "pods");
  EXPECT_EQ(info->name, "p");
  EXPECT_EQ(info->subresource, "binding");
  EXPECT_FALSE(ParseResourcePath("/api/v1/namespaces/default/services/s/binding").ok());
}

TEST_F(BindingHandlerTest, PostBindsAndAnswersSuccessStatus) {
  auto r = Send("POST", kBindingPath, BindingJson("p", "node-1"));
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.body, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",)"
                    R"("code":201})");
  auto pod = pods_.Get("default", "p");
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(pod->obj->spec.node_name, "node-1");
  ASSERT_EQ(pod->obj->status.conditions.size(), 1u);
  EXPECT_EQ(pod->obj->status.conditions[0].type, "PodScheduled");
}

TEST_F(BindingHandlerTest, SecondBindIsAConflictOnPodsBinding) {
  ASSERT_EQ(Send("POST", kBindingPath, BindingJson("p", "node-1")).status, 201);
  auto r = Send("POST", kBindingPath, BindingJson("p", "node-2"));
  EXPECT_EQ(r.status, 409);
  auto st = boost::json::parse(r.body).as_object();
  EXPECT_EQ(st.at("reason").as_string(), "Conflict");
  EXPECT_EQ(st.at("message").as_string(),
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to "
            "node \"node-1\"");
  EXPECT_EQ(st.at("details").at("kind").as_string(), "pods/binding");
  EXPECT_EQ(pods_.Get("default", "p")->obj->spec.node_name, "node-1");
}

TEST_F(BindingHandlerTest, Errors) {
  auto missing =
      Send("POST", "/api/v1/namespaces/default/pods/q/binding", BindingJson("q", "node-1"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find(R"("message":"pods \"q\" not found")"), std::string::npos);

  auto no_node = Send("POST", kBindingPath, BindingJson("p", ""));
  EXPECT_EQ(no_node.status, 422);
  EXPECT_NE(no_node.body.find("target.name"), std::string::npos) << no_node.body;

  auto wrong_kind = Send("POST", kBindingPath, BindingJson("p", "n", "Pod"));
  EXPECT_EQ(wrong_kind.status, 422);

  auto other_name = Send("POST", kBindingPath, BindingJson("q", "node-1"));
  EXPECT_EQ(other_name.status, 400);

  auto other_ns =
      Send("POST", "/api/v1/namespaces/kube-system/pods/p/binding", BindingJson("p", "node-1"));
  EXPECT_EQ(other_ns.status, 400);

  auto garbage = Send("POST", kBindingPath, "{");
  EXPECT_EQ(garbage.status, 400);

  auto not_binding =
      Send("POST", kBindingPath, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}})");
  EXPECT_EQ(not_binding.status, 400);

  // Only create is served on the subresource.
  EXPECT_EQ(Send("PUT", kBindingPath, BindingJson("p", "node-1")).status, 405);
  EXPECT_EQ(Send("GET", kBindingPath, "").status, 405);
  EXPECT_EQ(Send("DELETE", kBindingPath, "").status, 405);
  EXPECT_TRUE(pods_.Get("default", "p")->obj->spec.node_name.empty());
}

TEST_F(BindingHandlerTest, ProtobufBodyAndAnswer) {
  api::core::v1::Binding b;
  b.metadata.name = "p";
  b.target.kind = "Node";
  b.target.name = "node-3";
  auto r = Send("POST", kBindingPath, api::codec::EncodeProtobuf(b, "v1", "Binding"),
                std::string(api::codec::kProtobufContentType),
                "application/vnd.kubernetes.protobuf, application/json");
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.content_type, api::codec::kProtobufContentType);
  auto st = api::codec::DecodeProtobuf<api::meta::StatusObject>(r.body);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->status, "Success");
  EXPECT_EQ(st->code, 201);
  EXPECT_EQ(pods_.Get("default", "p")->obj->spec.node_name, "node-3");
}

TEST_F(BindingHandlerTest, DryRunWritesNothing) {
  dry_run_ = true;
  EXPECT_EQ(Send("POST", kBindingPath, BindingJson("p", "node-1")).status, 201);
  EXPECT_TRUE(pods_.Get("default", "p")->obj->spec.node_name.empty());
}

}  // namespace
}  // namespace svcplane::apiserver::rest
