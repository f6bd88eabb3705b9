// Informers against a real API server (started in-process on 127.0.0.1:<free port> with a temp
// data dir), followed over HTTPS with the REST Clientset built from the generated kubeconfig,
// once speaking JSON and once protobuf (--kube-api-content-type).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "apiserver/server/api_server.h"
#include "client/errors.h"
#include "client/informers/shared_informer.h"
#include "client/transport/https_transport.h"
#include "client/transport/kubeconfig.h"
#include "client/typed/rest_clientset.h"

namespace svcplane {
namespace {

using api::core::v1::Pod;
using apiserver::server::ApiServer;
using apiserver::server::ApiServerOptions;
using client::ObjectPtr;
using client::informers::SharedIndexInformer;
using client::transport::ContentType;
using client::transport::HttpRequest;
using client::transport::HttpResponse;

// Forwards to the HTTPS transport and records the media type of every response, so the tests
// can tell what was on the wire.
class RecordingTransport final : public client::transport::HttpTransport {
 public:
  explicit RecordingTransport(std::unique_ptr<client::transport::HttpTransport> inner)
      : inner_(std::move(inner)) {}

  Result<HttpResponse> Do(const HttpRequest& request) override {
    auto r = inner_->Do(request);
    if (r.ok()) Record("", *r);
    return r;
  }
  Result<HttpResponse> Stream(const HttpRequest& request,
                              const client::transport::LineHandler& on_line,
                              client::CancelToken& cancel) override {
    auto r = inner_->Stream(request, on_line, cancel);
    if (r.ok()) Record("watch ", *r);
    return r;
  }
  Result<HttpResponse> StreamBytes(const HttpRequest& request,
                                   const client::transport::BytesHandler& on_bytes,
                                   client::CancelToken& cancel) override {
    auto r = inner_->StreamBytes(request, on_bytes, cancel);
    // Lists stream too (decoded while they arrive): only watch=true requests are watches.
    const bool watch = request.target.find("watch=true") != std::string::npos;
    if (r.ok()) Record(watch ? "watch " : "", *r);
    return r;
  }

  // "application/json", "watch application/vnd.kubernetes.protobuf;stream=watch", ...
  std::set<std::string> seen() const {
    std::lock_guard<std::mutex> l(mu_);
    return seen_;
  }

 private:
  void Record(const std::string& prefix, const HttpResponse& r) {
    if (r.status < 200 || r.status >= 300) return;
    std::lock_guard<std::mutex> l(mu_);
    seen_.insert(prefix + r.Header("Content-Type"));
  }

  std::unique_ptr<client::transport::HttpTransport> inner_;
  mutable std::mutex mu_;
  std::set<std::string> seen_;
};

std::string Name(const ::testing::TestParamInfo<ContentType>& info) {
  return info.param == ContentType::kProtobuf ? "Protobuf" : "Json";
}

struct TempDir {
  TempDir() {
    static std::atomic<int> n{0};
    path = std::filesystem::temp_directory_path() /
           ("svcplane-informer-it-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::filesystem::path path;
};

std::unique_ptr<ApiServer> StartServer(const std::string& dir, uint16_t port, size_t history) {
  ApiServerOptions o;
  o.data_dir = dir;
  o.port = port;
  o.io_threads = 1;
  o.worker_threads = 2;
  o.watch_threads = 1;
  o.watch_history_events = history;
  auto srv = ApiServer::Start(o);
  EXPECT_TRUE(srv.ok()) << srv.status().ToString();
  return srv.ok() ? std::move(*srv) : nullptr;
}

// The REST Clientset from the server's kubeconfig, without the client-side QPS limit (the
// test writes fast on purpose; the informer's own requests are what it exercises).
std::unique_ptr<client::Clientset> RestClients(const std::string& kubeconfig,
                                               ContentType content_type,
                                               RecordingTransport** recorder = nullptr) {
  auto config = client::transport::LoadKubeconfig(kubeconfig);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  config->qps = -1;
  auto https = client::transport::HttpsTransport::Create(*config);
  EXPECT_TRUE(https.ok()) << https.status().ToString();
  auto recording = std::make_shared<RecordingTransport>(std::move(*https));
  if (recorder) *recorder = recording.get();
  return client::typed::MakeRestClientset(recording, {.content_type = content_type});
}

Pod MakePod(const std::string& name, int payload = 0) {
  Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.metadata.labels["app"] = "storm";
  if (payload > 0) p.metadata.annotations["payload"] = std::string(payload, 'x');
  p.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
  return p;
}

std::vector<std::string> Keys(const std::vector<ObjectPtr<Pod>>& pods) {
  std::vector<std::string> out;
  out.reserve(pods.size());
  for (const auto& p : pods) {
    out.push_back(p->metadata.namespace_ + "/" + p->metadata.name + "@" +
                  p->metadata.resource_version);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Polls until the informer's cache equals a fresh list (names and resourceVersions).
bool ConvergesToFreshList(client::ResourceClient<Pod>& pods, SharedIndexInformer<Pod>& informer,
                          std::chrono::seconds timeout, std::vector<std::string>* want_out) {
  auto fresh = pods.List("");
  EXPECT_TRUE(fresh.ok()) << fresh.status().ToString();
  std::vector<std::string> want = Keys(fresh->items);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Keys(informer.lister().List()) == want) {
      if (want_out) *want_out = std::move(want);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// Runs `fn(i)` for i in [0, n) on `threads` threads.
void Parallel(int n, int threads, const std::function<void(int)>& fn) {
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < n; i = next++) fn(i);
    });
  }
  for (auto& th : pool) th.join();
}

client::informers::ReflectorOptions FastRetries() {
  client::informers::ReflectorOptions r;
  r.backoff.initial = std::chrono::milliseconds(100);
  r.backoff.max = std::chrono::milliseconds(1000);
  return r;
}

// 10,000 Pods through create/update/delete storms, while the informer is made to stall so the
// server drops its watch (the 4 MiB stream buffer overflows) and the history (tiny here) moves
// past its resourceVersion: the re-watch gets 410 Gone and the reflector relists. Handlers see
// every change; the cache ends equal to a fresh list.
class InformerIntegrationTest : public ::testing::TestWithParam<ContentType> {};

// Create, update, updateStatus and delete through the REST clientset, followed by an informer on
// the same clientset; every response was in the content type asked for.
TEST_P(InformerIntegrationTest, FollowsWritesInTheContentType) {
  TempDir dir;
  auto srv = StartServer(dir.path.string(), 0, 0);
  ASSERT_NE(srv, nullptr);
  RecordingTransport* recorder = nullptr;
  auto rest = RestClients(srv->kubeconfig_path(), GetParam(), &recorder);
  SharedIndexInformer<Pod> informer(rest->Pods(), {}, FastRetries());
  std::atomic<int> adds{0}, updates{0}, deletes{0};
  client::informers::ResourceEventHandler<Pod> h;
  h.on_add = [&](const ObjectPtr<Pod>&, bool) { ++adds; };
  h.on_update = [&](const ObjectPtr<Pod>&, const ObjectPtr<Pod>&) { ++updates; };
  h.on_delete = [&](const ObjectPtr<Pod>&, bool) { ++deletes; };
  auto reg = informer.AddEventHandler(h);
  informer.Start();
  ASSERT_TRUE(
      informer.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(30)));

  auto& pods = rest->Pods();
  for (int i = 0; i < 50; ++i) {
    auto r = pods.Create(MakePod("w" + std::to_string(i), 100));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->metadata.annotations.at("payload"), std::string(100, 'x'));
  }
  for (int i = 0; i < 20; ++i) {
    auto got = pods.Get("default", "w" + std::to_string(i));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    Pod p = **got;
    p.metadata.labels["updated"] = "yes";
    auto r = pods.Update(p);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->metadata.labels.at("updated"), "yes");
    p = **r;
    p.status.phase = "Running";
    r = pods.UpdateStatus(p);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->status.phase, "Running");
  }
  auto patched = pods.Patch("default", "w20", client::PatchType::kMerge,
                            R"({"metadata":{"labels":{"patched":"yes"}}})");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((*patched)->metadata.labels.at("patched"), "yes");
  for (int i = 40; i < 50; ++i) {
    ASSERT_TRUE(pods.Delete("default", "w" + std::to_string(i)).ok());
  }
  auto missing = pods.Get("default", "w49");
  EXPECT_TRUE(client::IsNotFound(missing.status())) << missing.status().ToString();

  std::vector<std::string> want;
  ASSERT_TRUE(ConvergesToFreshList(pods, informer, std::chrono::seconds(30), &want));
  EXPECT_EQ(want.size(), 40u);
  auto cached = informer.lister().Get("default", "w3");
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->metadata.labels.at("updated"), "yes");
  EXPECT_EQ(cached->status.phase, "Running");
  ASSERT_TRUE([&] {
    for (int i = 0; i < 200 && !(adds == 50 && deletes == 10 && updates >= 41); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return adds == 50 && deletes == 10 && updates >= 41;
  }()) << adds
       << " " << updates << " " << deletes;
  informer.Shutdown();

  if (GetParam() == ContentType::kProtobuf) {
    EXPECT_EQ(recorder->seen(),
              (std::set<std::string>{"application/vnd.kubernetes.protobuf",
                                     "watch application/vnd.kubernetes.protobuf;stream=watch"}));
  } else {
    EXPECT_EQ(recorder->seen(),
              (std::set<std::string>{"application/json", "watch application/json"}));
  }
  srv->Shutdown();
}

TEST_P(InformerIntegrationTest, FollowsTenThousandPodsThroughStormsAndA410) {
  TempDir dir;
  auto srv = StartServer(dir.path.string(), 0, /*history=*/500);
  ASSERT_NE(srv, nullptr);
  auto rest = RestClients(srv->kubeconfig_path(), GetParam());
  client::Clientset& local = srv->loopback();

  std::atomic<bool> stall{false};
  SharedIndexInformer<Pod> informer(rest->Pods(), {}, FastRetries());
  ASSERT_TRUE(informer
                  .SetTransform([&](ObjectPtr<Pod> p) {
                    while (stall.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
                    return p;
                  })
                  .ok());
  std::atomic<int> adds{0}, updates{0}, deletes{0}, tombstones{0};
  client::informers::ResourceEventHandler<Pod> h;
  h.on_add = [&](const ObjectPtr<Pod>&, bool) { ++adds; };
  h.on_update = [&](const ObjectPtr<Pod>&, const ObjectPtr<Pod>&) { ++updates; };
  h.on_delete = [&](const ObjectPtr<Pod>&, bool unknown) { ++(unknown ? tombstones : deletes); };
  auto reg = informer.AddEventHandler(h);
  informer.Start();
  ASSERT_TRUE(
      informer.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(30)));

  constexpr int kPods = 10000;
  // Storm 1: creates over HTTPS and in-process at once.
  Parallel(kPods, 4, [&](int i) {
    auto& c = i % 2 ? rest->Pods() : local.Pods();
    auto r = c.Create(MakePod("p" + std::to_string(i)));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  });
  ASSERT_TRUE(ConvergesToFreshList(local.Pods(), informer, std::chrono::seconds(60), nullptr));
  // (With a 500-event history the server may already drop and expire the watch here.)

  // Storm 2, with the informer stalled: big updates overflow the server's stream buffer.
  stall = true;
  Parallel(kPods / 2, 4, [&](int i) {
    auto r = local.Pods().Patch(
        "default", "p" + std::to_string(i), client::PatchType::kMerge,
        R"({"metadata":{"annotations":{"payload":")" + std::string(4000, 'y') + "\"}}}");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  });
  // Storm 3: deletes the informer will only learn about through the relist (tombstones).
  Parallel(kPods / 4, 4, [&](int i) {
    Status st = local.Pods().Delete("default", "p" + std::to_string(kPods - 1 - i));
    ASSERT_TRUE(st.ok()) << st.ToString();
  });
  stall = false;

  std::vector<std::string> want;
  ASSERT_TRUE(ConvergesToFreshList(local.Pods(), informer, std::chrono::seconds(60), &want));
  EXPECT_EQ(want.size(), size_t{kPods - kPods / 4});
  EXPECT_GE(informer.reflector()->lists(), 2) << "the stalled watch should have hit 410";
  // Handlers saw every object come and (a quarter of them) go, one way or the other.
  ASSERT_TRUE([&] {
    for (int i = 0; i < 600; ++i) {
      if (adds - deletes - tombstones == static_cast<int>(want.size())) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }());
  EXPECT_EQ(adds.load(), kPods);
  EXPECT_EQ(deletes + tombstones, kPods / 4);
  EXPECT_GT(updates.load(), 0);
  informer.Shutdown();
  srv->Shutdown();
}

// The server goes away mid-watch and comes back on the same port and data: the reflector backs
// off while it is down, reconnects, and the cache catches up with what changed meanwhile.
TEST_P(InformerIntegrationTest, SurvivesAServerRestartMidWatch) {
  TempDir dir;
  auto srv = StartServer(dir.path.string(), 0, 0);
  ASSERT_NE(srv, nullptr);
  const uint16_t port = srv->port();
  const std::string kubeconfig = srv->kubeconfig_path();
  for (int i = 0; i < 200; ++i)
    ASSERT_TRUE(srv->loopback().Pods().Create(MakePod("a" + std::to_string(i))).ok());

  auto rest = RestClients(kubeconfig, GetParam());
  SharedIndexInformer<Pod> informer(rest->Pods(), {}, FastRetries());
  informer.Start();
  ASSERT_TRUE(
      informer.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(30)));
  ASSERT_TRUE(
      ConvergesToFreshList(srv->loopback().Pods(), informer, std::chrono::seconds(30), nullptr));
  const int watches_before = informer.reflector()->watches();

  srv->Shutdown();
  srv.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the reflector finds it gone
  srv = StartServer(dir.path.string(), port, 0);
  ASSERT_NE(srv, nullptr);
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(srv->loopback().Pods().Delete("default", "a" + std::to_string(i)).ok());
  }
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(srv->loopback().Pods().Create(MakePod("b" + std::to_string(i))).ok());

  std::vector<std::string> want;
  ASSERT_TRUE(
      ConvergesToFreshList(srv->loopback().Pods(), informer, std::chrono::seconds(45), &want));
  EXPECT_EQ(want.size(), 200u);
  EXPECT_GT(informer.reflector()->watches(), watches_before);
  EXPECT_TRUE(informer.HasSynced());
  informer.Shutdown();
  srv->Shutdown();
}

INSTANTIATE_TEST_SUITE_P(ContentTypes, InformerIntegrationTest,
                         ::testing::Values(ContentType::kJson, ContentType::kProtobuf), Name);

}  // namespace
}  // namespace svcplane
