#include "apiserver/storage_codec/protobuf_value_codec.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <fstream>
#include <sstream>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"
#include "apiserver/registry/kind_traits.h"

namespace svcplane::apiserver::storage_codec {
namespace {

using api::coordination::v1::Lease;
using api::core::v1::Endpoints;
using api::core::v1::Event;
using api::core::v1::Namespace;
using api::core::v1::Node;
using api::core::v1::Pod;
using api::core::v1::Service;
using api::discovery::v1::EndpointSlice;

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(SVCPLANE_TESTDATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// svcplane's stored JSON of a testdata object, as its registry writes it.
template <typename T>
std::shared_ptr<const std::string> StoredFromTestdata(const std::string& file) {
  auto obj = api::codec::DecodeJson<T>(ReadTestdata(file));
  EXPECT_TRUE(obj.ok()) << file << ": " << obj.status().ToString();
  return registry::StoredJson(*obj);
}

// Stored as kube-apiserver stores it (protobuf of the storage version in the envelope), and
// read back to the very bytes svcplane's registry wrote.
template <typename T>
void ExpectRoundTrip(const std::string& key, const std::string& file) {
  SCOPED_TRACE(key);
  ProtobufValueCodec codec;
  auto json = StoredFromTestdata<T>(file);
  auto stored = codec.Encode(key, json);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_TRUE((*stored)->starts_with(api::codec::kProtobufMagic));
  auto envelope = api::codec::DecodeProtobufEnvelope(**stored);
  ASSERT_TRUE(envelope.ok());
  EXPECT_EQ(envelope->api_version, registry::InfoOf<T>().GroupVersion());
  EXPECT_EQ(envelope->kind, registry::InfoOf<T>().kind);
  EXPECT_EQ(envelope->content_type, "");
  auto back = codec.Decode(key, *stored);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  // The same object: raw-JSON parts of our types (a Pod's containers) come back in upstream's
  // field order, so compare as JSON values, whose objects ignore member order.
  EXPECT_EQ(boost::json::parse(**back), boost::json::parse(*json)) << **back;
  // And a fixed point: the registry re-encoding what it read writes these very bytes, so a
  // no-op update of an object read from etcd is recognised as one.
  auto reread = api::codec::DecodeJson<T>(**back);
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ(*registry::StoredJson(*reread), **back);
  auto again = codec.Decode(key, *codec.Encode(key, *back));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(**again, **back);
}

TEST(ProtobufValueCodecTest, EveryKindIsStoredAsProtobufAndReadBackAsTheSameObject) {
  ExpectRoundTrip<Namespace>("/registry/namespaces/team-a", "namespace.json");
  ExpectRoundTrip<Node>("/registry/minions/node-1", "node.json");
  ExpectRoundTrip<Pod>("/registry/pods/default/web-0", "pod.json");
  ExpectRoundTrip<Service>("/registry/services/specs/default/web", "service_dualstack.json");
  ExpectRoundTrip<Endpoints>("/registry/services/endpoints/default/web", "endpoints.json");
  ExpectRoundTrip<Event>("/registry/events/default/web.1", "event.json");
  ExpectRoundTrip<EndpointSlice>("/registry/endpointslices/default/web-abc",
                                 "endpointslice_hints.json");
  ExpectRoundTrip<Lease>("/registry/leases/kube-node-lease/node-1", "lease.json");
  ExpectRoundTrip<api::rbac::v1::Role>("/registry/roles/demo/p1-reader", "role.json");
  ExpectRoundTrip<api::rbac::v1::ClusterRole>("/registry/clusterroles/view",
                                              "clusterrole_aggregated.json");
  ExpectRoundTrip<api::rbac::v1::RoleBinding>("/registry/rolebindings/demo/jane-view",
                                              "rolebinding.json");
  ExpectRoundTrip<api::rbac::v1::ClusterRoleBinding>(
      "/registry/clusterrolebindings/system:controller:endpointslice-controller",
      "clusterrolebinding.json");
}

// pkg/registry/rbac/*/storage: the resource name is the key prefix, and "roles/" is not a
// prefix of "rolebindings/".
TEST(ProtobufValueCodecTest, RbacKeysPickTheirOwnKind) {
  EXPECT_EQ(registry::InfoOf<api::rbac::v1::Role>().storage_prefix, "/registry/roles");
  EXPECT_EQ(registry::InfoOf<api::rbac::v1::RoleBinding>().storage_prefix,
            "/registry/rolebindings");
  EXPECT_EQ(registry::InfoOf<api::rbac::v1::ClusterRole>().storage_prefix,
            "/registry/clusterroles");
  EXPECT_EQ(registry::InfoOf<api::rbac::v1::ClusterRoleBinding>().storage_prefix,
            "/registry/clusterrolebindings");
  ProtobufValueCodec codec;
  auto rb = codec.Encode("/registry/rolebindings/demo/jane-view",
                         StoredFromTestdata<api::rbac::v1::RoleBinding>("rolebinding.json"));
  ASSERT_TRUE(rb.ok()) << rb.status().ToString();
  EXPECT_EQ(api::codec::DecodeProtobufEnvelope(**rb)->kind, "RoleBinding");
  EXPECT_FALSE(codec
                   .Encode("/registry/roles/demo/jane-view",
                           StoredFromTestdata<api::rbac::v1::RoleBinding>("rolebinding.json"))
                   .ok());
}

// Services and Endpoints share "/registry/services/": each key goes to its own kind.
TEST(ProtobufValueCodecTest, NestedPrefixesPickTheirOwnKind) {
  ProtobufValueCodec codec;
  auto endpoints = codec.Encode("/registry/services/endpoints/default/web",
                                StoredFromTestdata<Endpoints>("endpoints.json"));
  ASSERT_TRUE(endpoints.ok());
  EXPECT_EQ(api::codec::DecodeProtobufEnvelope(**endpoints)->kind, "Endpoints");
  // A Service is not stored as Endpoints.
  EXPECT_FALSE(codec
                   .Encode("/registry/services/endpoints/default/web",
                           StoredFromTestdata<Service>("service_dualstack.json"))
                   .ok());
}

TEST(ProtobufValueCodecTest, KeysOfNoKindAreStoredAsGiven) {
  ProtobufValueCodec codec;
  auto value = std::make_shared<const std::string>("{\"range\":\"10.0.0.0/24\"}");
  for (std::string key : {"/svcplane/bootstrap/ca", "/registry/podsx/default/a",
                          "/registry/rangesx/a", "compact_rev_key"}) {
    auto stored = codec.Encode(key, value);
    ASSERT_TRUE(stored.ok()) << key;
    EXPECT_EQ(stored->get(), value.get()) << key;
    auto back = codec.Decode(key, value);
    ASSERT_TRUE(back.ok()) << key;
    EXPECT_EQ(back->get(), value.get()) << key;
  }
}

// kube-apiserver's decoder takes JSON too, so a value may be JSON that another writer laid out
// its own way: svcplane reads it as the bytes its registry would have written.
TEST(ProtobufValueCodecTest, JsonFromAnotherWriterIsReadInSvcplanesStoredForm) {
  ProtobufValueCodec codec;
  const std::string foreign =
      "{ \"metadata\": {\"name\": \"web\", \"namespace\": \"default\", "
      "\"resourceVersion\": \"42\"},\n  \"apiVersion\": \"coordination.k8s.io/v1\", "
      "\"kind\": \"Lease\", \"spec\": {\"holderIdentity\": \"node-1\"} }";
  auto back =
      codec.Decode("/registry/leases/default/web", std::make_shared<const std::string>(foreign));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  auto expected = api::codec::DecodeJson<Lease>(foreign);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(**back, *registry::StoredJson(*expected));
  EXPECT_EQ((*back)->find("resourceVersion"), std::string::npos) << **back;
}

TEST(ProtobufValueCodecTest, DamagedOrForeignValuesAreErrorsNotCrashes) {
  ProtobufValueCodec codec;
  const std::string pod_key = "/registry/pods/default/web-0";
  // A Lease where a Pod must be.
  auto lease = codec.Encode("/registry/leases/default/x", StoredFromTestdata<Lease>("lease.json"));
  ASSERT_TRUE(lease.ok());
  auto wrong_kind = codec.Decode(pod_key, *lease);
  ASSERT_FALSE(wrong_kind.ok());
  EXPECT_NE(wrong_kind.status().message().find(pod_key), std::string::npos)
      << wrong_kind.status().message();
  // The envelope cut short, and bytes that are neither protobuf nor JSON.
  for (std::string bad :
       {std::string(api::codec::kProtobufMagic) + "\x0a\xff", std::string("not an object")}) {
    auto r = codec.Decode(pod_key, std::make_shared<const std::string>(bad));
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kInternal);
  }
}

}  // namespace
}  // namespace svcplane::apiserver::storage_codec
