#include "storage/etcd/testing/etcd_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace svcplane::storage::etcd::testing {

namespace {

constexpr std::chrono::milliseconds kHealthPoll{50};

// Binds 127.0.0.1:0 and keeps the socket open (so a second call gets another port).
Result<std::pair<int, int>> BindFreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return UnavailableError("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return UnavailableError("bind 127.0.0.1:0 failed");
  }
  return std::make_pair(fd, static_cast<int>(ntohs(addr.sin_port)));
}

// GET /health over plain HTTP/1.0; true when etcd reports itself healthy.
bool Healthy(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  timeval timeout{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const std::string request = "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      char buf[1024];
      ssize_t n;
      while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) reply.append(buf, n);
    }
  }
  ::close(fd);
  return reply.find("\"health\":\"true\"") != std::string::npos;
}

}  // namespace

Status EtcdProcess::Prepare() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "svcplane-etcd-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return UnavailableError("mkdtemp failed");
  dir_ = tmpl;
  auto client = BindFreePort();
  if (!client.ok()) return client.status();
  auto peer = BindFreePort();
  if (!peer.ok()) {
    ::close(client->first);
    return peer.status();
  }
  // Released just before etcd binds them; another process could take one in between, which
  // then shows as a failed start with etcd's "address already in use" in the message.
  ::close(client->first);
  ::close(peer->first);
  client_port_ = client->second;
  peer_port_ = peer->second;
  endpoint_ = "http://127.0.0.1:" + std::to_string(client_port_);
  return Status::Ok();
}

Result<std::unique_ptr<EtcdProcess>> EtcdProcess::Start(EtcdProcessOptions options) {
  std::unique_ptr<EtcdProcess> etcd(new EtcdProcess(std::move(options)));
  SVC_RETURN_IF_ERROR(etcd->Prepare());
  SVC_RETURN_IF_ERROR(etcd->Launch());
  return etcd;
}

Result<std::vector<std::unique_ptr<EtcdProcess>>> EtcdProcess::StartCluster(
    int members, EtcdProcessOptions options) {
  std::vector<std::unique_ptr<EtcdProcess>> out;
  std::string cluster;
  for (int i = 0; i < members; ++i) {
    out.emplace_back(new EtcdProcess(options));
    SVC_RETURN_IF_ERROR(out.back()->Prepare());
    out.back()->name_ = "m" + std::to_string(i);
    cluster += (i ? "," : "") + out.back()->name_ +
               "=http://127.0.0.1:" + std::to_string(out.back()->peer_port_);
  }
  for (auto& m : out) {
    m->initial_cluster_ = cluster;
    SVC_RETURN_IF_ERROR(m->Spawn());
  }
  for (auto& m : out) SVC_RETURN_IF_ERROR(m->WaitHealthy());
  return out;
}

std::string EtcdProcess::Endpoints(const std::vector<std::unique_ptr<EtcdProcess>>& members) {
  std::string out;
  for (const auto& m : members) out += (out.empty() ? "" : ",") + m->endpoint();
  return out;
}

EtcdProcess::~EtcdProcess() {
  Kill();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

Status EtcdProcess::Launch() {
  SVC_RETURN_IF_ERROR(Spawn());
  return WaitHealthy();
}

Status EtcdProcess::Spawn() {
  const std::string client = endpoint_;
  const std::string peer = "http://127.0.0.1:" + std::to_string(peer_port_);
  std::vector<std::string> args = {
      options_.binary,
      "--name=" + name_,
      "--data-dir=" + dir_ + "/data",
      "--listen-client-urls=" + client,
      "--advertise-client-urls=" + client,
      "--listen-peer-urls=" + peer,
      "--initial-advertise-peer-urls=" + peer,
      "--initial-cluster=" + (initial_cluster_.empty() ? name_ + "=" + peer : initial_cluster_),
      "--initial-cluster-token=svcplane-test",
      "--experimental-watch-progress-notify-interval=" +
          std::to_string(options_.progress_notify_interval.count()) + "ms",
      "--logger=zap",
      "--log-level=warn",
  };
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = dir_ + "/etcd.log";
  const pid_t parent = ::getpid();

  pid_t pid = ::fork();
  if (pid < 0) return UnavailableError("fork failed");
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  paused_ = false;
  return Status::Ok();
}

Status EtcdProcess::WaitHealthy() {
  const auto deadline = std::chrono::steady_clock::now() + options_.start_timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int wstatus = 0;
    if (::waitpid(pid_, &wstatus, WNOHANG) == pid_) {
      pid_ = -1;
      return UnavailableError("etcd exited during start: " + LogTail());
    }
    if (Healthy(client_port_)) return Status::Ok();
    std::this_thread::sleep_for(kHealthPoll);
  }
  Kill();
  return UnavailableError("etcd not healthy within the start timeout: " + LogTail());
}

void EtcdProcess::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int wstatus = 0;
  ::waitpid(pid_, &wstatus, 0);
  pid_ = -1;
  paused_ = false;
}

Status EtcdProcess::Restart() {
  Kill();
  return Launch();
}

void EtcdProcess::Pause() {
  if (pid_ > 0 && !paused_) {
    ::kill(pid_, SIGSTOP);
    paused_ = true;
  }
}

void EtcdProcess::Resume() {
  if (pid_ > 0 && paused_) {
    ::kill(pid_, SIGCONT);
    paused_ = false;
  }
}

std::string EtcdProcess::LogTail(size_t bytes) const {
  std::ifstream in(dir_ + "/etcd.log", std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  std::string all = out.str();
  return all.size() > bytes ? all.substr(all.size() - bytes) : all;
}

}  // namespace svcplane::storage::etcd::testing
