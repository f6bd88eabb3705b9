// svcplane's failover client (several --server URLs, issue 21) against the real binary: one
// `svcplane serve` child process on 127.0.0.1, plus a URL on port 1 where nothing listens,
// since two servers cannot share the embedded store. The server is killed with SIGKILL and
// restarted on its data dir and port, or frozen with SIGSTOP, while an informer follows Pods
// through the REST Clientset built as `svcplane controllers --server A --server B` builds it.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "client/informers/shared_informer.h"
#include "client/transport/failover_transport.h"
#include "client/transport/kubeconfig.h"
#include "client/typed/rest_clientset.h"

namespace svcplane {
namespace {

using api::core::v1::Pod;
using client::informers::SharedIndexInformer;
using client::transport::FailoverTransport;
using namespace std::chrono_literals;

constexpr char kDown[] = "https://127.0.0.1:1";  // connection refused

// Polls `pred` in real time for up to `timeout`.
bool WaitFor(const std::function<bool()>& pred, Duration timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return pred();
}

// `svcplane serve` as a child process with its data dir and log in a temp dir. The destructor
// kills it and removes the dir; PR_SET_PDEATHSIG covers a crashing test.
class ServeProcess {
 public:
  ServeProcess() {
    std::string templ = (std::filesystem::temp_directory_path() / "svcplane-failover-XXXXXX");
    if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = templ;
  }
  ~ServeProcess() {
    Kill9();
    std::filesystem::remove_all(dir_);
  }

  std::string data_dir() const { return dir_ + "/data"; }
  std::string kubeconfig() const { return data_dir() + "/kubeconfig"; }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  pid_t pid() const { return pid_; }

  // Starts on `port` (0: any, read back from the kubeconfig it writes once it listens).
  ::testing::AssertionResult Start(int port = 0) {
    std::filesystem::remove(kubeconfig());  // ready means "written again"
    const std::string listen = "127.0.0.1:" + std::to_string(port);
    const std::string log = dir_ + "/server.log";
    std::vector<std::string> args = {SVCPLANE_BIN, "serve",    "--data-dir",
                                     data_dir(),   "--listen", listen};
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    if (!WaitFor([&] { return std::filesystem::exists(kubeconfig()) || Exited(); }, 30s) ||
        Exited()) {
      return ::testing::AssertionFailure() << "svcplane serve did not start:\n" << Log();
    }
    std::ifstream in(kubeconfig());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const size_t at = text.find("https://127.0.0.1:");
    if (at == std::string::npos) return ::testing::AssertionFailure() << "no server in " << text;
    port_ = std::stoi(text.substr(at + std::strlen("https://127.0.0.1:")));
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult Restart() { return Start(port_); }

  void Kill9() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  std::string Log() const {
    std::ifstream in(dir_ + "/server.log");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  bool Exited() {
    int status = 0;
    if (pid_ > 0 && waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return true;
    }
    return pid_ <= 0;
  }

  std::string dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

struct FailoverClient {
  std::shared_ptr<client::transport::HttpTransport> transport;
  FailoverTransport* failover = nullptr;
  std::unique_ptr<client::Clientset> clientset;
};

// The REST Clientset over `servers`, with the server's CA and token from its kubeconfig.
FailoverClient Connect(const ServeProcess& srv, std::vector<std::string> servers,
                       client::transport::FailoverOptions options = {},
                       Duration request_timeout = 30s) {
  FailoverClient out;
  auto config = client::transport::LoadKubeconfig(srv.kubeconfig());
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  if (!config.ok()) return out;
  EXPECT_TRUE(client::transport::OverrideServers(servers, &*config).ok());
  config->qps = -1;
  config->timeout = request_timeout;
  auto t = client::transport::NewHttpTransport(*config, options);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return out;
  out.transport = *t;
  out.failover = dynamic_cast<FailoverTransport*>(t->get());
  EXPECT_EQ(out.failover != nullptr, servers.size() > 1);
  out.clientset = client::typed::MakeRestClientset(out.transport);
  return out;
}

Pod MakePod(const std::string& name) {
  Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.spec.containers.push_back({.name = "c", .image = "nginx:1.25"});
  return p;
}

client::informers::ReflectorOptions FastRetries() {
  client::informers::ReflectorOptions r;
  r.backoff.initial = 100ms;
  r.backoff.max = 1s;
  return r;
}

// The informer has `name` in its cache (the watch delivered it).
bool Sees(const SharedIndexInformer<Pod>& informer, const std::string& name) {
  return informer.lister().Get("default", name) != nullptr;
}

TEST(FailoverIntegrationTest, ClientWithTheFirstServerDownReadsAndWrites) {
  ServeProcess srv;
  ASSERT_TRUE(srv.Start());
  FailoverClient c = Connect(srv, {kDown, srv.url()});
  ASSERT_NE(c.clientset, nullptr);
  auto& pods = c.clientset->Pods();
  // A create first: refused by the first server, so sent to the second.
  auto created = pods.Create(MakePod("a"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto got = pods.Get("default", "a");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto list = pods.List("default");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->items.size(), 1u);
  EXPECT_EQ(c.failover->current_server(), srv.url());
  EXPECT_EQ(c.failover->rotations(), 1);
}

TEST(FailoverIntegrationTest, InformerResumesFromItsResourceVersionAfterKill9AndRestart) {
  ServeProcess srv;
  ASSERT_TRUE(srv.Start());
  FailoverClient c = Connect(srv, {srv.url(), kDown});
  auto& pods = c.clientset->Pods();
  ASSERT_TRUE(pods.Create(MakePod("before")).ok());
  SharedIndexInformer<Pod> informer(pods, {}, FastRetries());
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::steady_clock::now() + 20s));
  ASSERT_TRUE(pods.Create(MakePod("watched")).ok());
  ASSERT_TRUE(WaitFor([&] { return Sees(informer, "watched"); }, 10s));
  const int watches = informer.reflector()->watches();

  srv.Kill9();  // the watch connection is reset; re-watches are refused until the restart
  ASSERT_TRUE(WaitFor([&] { return informer.reflector()->watches() > watches; }, 10s))
      << "the broken watch was not noticed";
  std::this_thread::sleep_for(500ms);
  ASSERT_TRUE(srv.Restart());

  FailoverClient writer = Connect(srv, {srv.url()});
  ASSERT_TRUE(writer.clientset->Pods().Create(MakePod("after")).ok());
  ASSERT_TRUE(WaitFor([&] { return Sees(informer, "after"); }, 15s))
      << "the informer did not resume\n"
      << srv.Log();
  EXPECT_TRUE(Sees(informer, "before"));
  EXPECT_TRUE(Sees(informer, "watched"));
  // The resourceVersion was still in the restarted server's history: a re-watch, no relist.
  EXPECT_EQ(informer.reflector()->lists(), 1);
  EXPECT_GE(c.failover->rotations(), 1);
  informer.Shutdown();
}

TEST(FailoverIntegrationTest, WatchOnAFrozenServerIsDeclaredDeadNotLeftHanging) {
  ServeProcess srv;
  ASSERT_TRUE(srv.Start());
  client::transport::FailoverOptions quick;
  quick.read_idle = 1s;
  quick.ping_timeout = 1s;
  // Requests to the frozen server (whose kernel still accepts connections) give up in 2 s.
  FailoverClient c = Connect(srv, {srv.url(), kDown}, quick, 2s);
  auto& pods = c.clientset->Pods();
  SharedIndexInformer<Pod> informer(pods, {}, FastRetries());
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::steady_clock::now() + 20s));
  ASSERT_TRUE(pods.Create(MakePod("before")).ok());
  ASSERT_TRUE(WaitFor([&] { return Sees(informer, "before"); }, 10s));
  const int watches = informer.reflector()->watches();
  const int pings = c.failover->watchdog().pings();

  ASSERT_EQ(kill(srv.pid(), SIGSTOP), 0);
  const auto stopped = std::chrono::steady_clock::now();
  const bool noticed = WaitFor([&] { return informer.reflector()->watches() > watches; }, 10s);
  const auto took = std::chrono::steady_clock::now() - stopped;
  ASSERT_EQ(kill(srv.pid(), SIGCONT), 0);
  ASSERT_TRUE(noticed) << "the watch on the frozen server hung";
  EXPECT_LT(took, 5s) << "read_idle 1s + ping 1s, plus a reflector backoff";
  EXPECT_GT(c.failover->watchdog().pings(), pings);
  EXPECT_GE(c.failover->rotations(), 1);

  // Thawed, the server is used again and the informer carries on from where it was.
  FailoverClient writer = Connect(srv, {srv.url()});
  ASSERT_TRUE(writer.clientset->Pods().Create(MakePod("after")).ok());
  ASSERT_TRUE(WaitFor([&] { return Sees(informer, "after"); }, 15s));
  EXPECT_EQ(informer.reflector()->lists(), 1);
  informer.Shutdown();
}

}  // namespace
}  // namespace svcplane
