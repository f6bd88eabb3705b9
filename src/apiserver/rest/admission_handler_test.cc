// The REST handler hands the requesting identity to the registry's admission hook on every
// write verb, and answers a refusal with the Status in the encoding the client asked for.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "apiserver/rest/pod_handler_fixture.h"

namespace svcplane::apiserver::rest {
namespace {

using api::core::v1::Pod;
using registry::AdmissionOperation;

class AdmissionHandlerTest : public testing::PodHandlerFixture {
 protected:
  AdmissionHandlerTest() {
    CreatePod(MakePod("p"));
    pods_.SetAdmission([this](const registry::AdmissionRequest<Pod>& a) -> Status {
      seen_.push_back({a.operation, a.user.username, a.user.groups, std::string(a.name)});
      if (refuse_)
        return Status(Code::kForbidden, "pods \"" + std::string(a.name) + "\" is forbidden: no");
      return Status::Ok();
    });
  }

  static Pod MakePod(std::string name) {
    Pod p;
    p.metadata.name = std::move(name);
    p.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
    return p;
  }

  http::Response Send(std::string method, std::string path, std::string body = "",
                      std::string accept = "application/json") {
    http::Request req;
    req.method = std::move(method);
    req.path = std::move(path);
    req.body = std::move(body);
    req.headers = {{"Content-Type", "application/json"}, {"Accept", std::move(accept)}};
    req.identity = {"jane", {"dev", "system:authenticated"}, "u-jane", {}};
    return Handle(std::move(req));
  }

  struct Seen {
    AdmissionOperation operation;
    std::string user;
    std::vector<std::string> groups;
    std::string name;
  };
  std::vector<Seen> seen_;
  bool refuse_ = false;
};

TEST_F(AdmissionHandlerTest, EveryWriteVerbCarriesTheRequester) {
  Pod q = MakePod("q");
  EXPECT_EQ(Send("POST", "/api/v1/namespaces/default/pods", api::codec::EncodeJson(q)).status, 201);
  auto stored = pods_.Get("default", "q");
  ASSERT_TRUE(stored.ok());
  Pod changed = *stored->obj;
  changed.metadata.labels["x"] = "y";
  EXPECT_EQ(
      Send("PUT", "/api/v1/namespaces/default/pods/q", api::codec::EncodeJson(changed)).status,
      200);
  EXPECT_EQ(Send("DELETE", "/api/v1/namespaces/default/pods/q").status, 200);
  EXPECT_EQ(Send("DELETE", "/api/v1/namespaces/default/pods").status, 200);  // deletes p
  ASSERT_EQ(seen_.size(), 4u);
  std::vector<AdmissionOperation> ops;
  for (const Seen& s : seen_) {
    ops.push_back(s.operation);
    EXPECT_EQ(s.user, "jane");
    EXPECT_EQ(s.groups, (std::vector<std::string>{"dev", "system:authenticated"}));
  }
  EXPECT_EQ(ops, (std::vector<AdmissionOperation>{
                     AdmissionOperation::kCreate, AdmissionOperation::kUpdate,
                     AdmissionOperation::kDelete, AdmissionOperation::kDelete}));
  EXPECT_EQ(seen_[3].name, "p");
}

TEST_F(AdmissionHandlerTest, ARefusalIsTheForbiddenStatusInTheAskedEncoding) {
  refuse_ = true;
  auto r = Send("DELETE", "/api/v1/namespaces/default/pods/p");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                    R"("message":"pods \"p\" is forbidden: no","reason":"Forbidden",)"
                    R"("details":{"name":"p","kind":"pods"},"code":403})"
                    "\n");
  auto pb = Send("POST", "/api/v1/namespaces/default/pods", api::codec::EncodeJson(MakePod("q")),
                 "application/vnd.kubernetes.protobuf, application/json");
  EXPECT_EQ(pb.status, 403);
  EXPECT_EQ(pb.content_type, api::codec::kProtobufContentType);
  EXPECT_TRUE(pb.body.starts_with(std::string("k8s\0", 4)));
  EXPECT_NE(pb.body.find("pods \"q\" is forbidden: no"), std::string::npos);
  EXPECT_TRUE(pods_.Get("default", "p").ok());
  EXPECT_EQ(pods_.Get("default", "q").status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace svcplane::apiserver::rest
