#include "client/transport/credentials.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include "client/transport/kubeconfig.h"

extern char** environ;

namespace svcplane::client::transport {
namespace {

constexpr Duration kTokenFileRefresh = std::chrono::minutes(1);

class StaticSource final : public CredentialSource {
 public:
  explicit StaticSource(Credentials creds) : creds_(std::move(creds)) {}
  Result<Credentials> Get() override { return creds_; }

 private:
  const Credentials creds_;
};

// Re-reads the token file when the cached copy is older than a minute, because service-account
// tokens are rotated on disk. A failed re-read keeps the last good token.
class TokenFileSource final : public CredentialSource {
 public:
  TokenFileSource(std::string path, Credentials base, const Clock& clock)
      : path_(std::move(path)), base_(std::move(base)), clock_(clock) {}

  Result<Credentials> Get() override {
    std::lock_guard<std::mutex> l(mu_);
    const TimePoint now = clock_.Now();
    if (!read_at_ || now - *read_at_ >= kTokenFileRefresh) {
      auto content = ReadFileToString(path_);
      if (content.ok()) {
        std::string token = *content;
        while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
          token.pop_back();
        }
        token_ = std::move(token);
        read_at_ = now;
      } else if (!read_at_) {
        return Status(Code::kUnauthorized,
                      "reading bearer token file: " + content.status().message());
      }
    }
    Credentials c = base_;
    c.bearer_token = token_;
    return c;
  }
  bool OnUnauthorized() override {
    std::lock_guard<std::mutex> l(mu_);
    read_at_.reset();  // the token may have been rotated since
    return true;
  }

 private:
  const std::string path_;
  const Credentials base_;
  const Clock& clock_;
  std::mutex mu_;
  std::optional<TimePoint> read_at_;  // guarded by mu_
  std::string token_;                 // guarded by mu_
};

// Runs the plugin on first use, caches until expirationTimestamp, and again after a 401.
class ExecSource final : public CredentialSource {
 public:
  ExecSource(RestConfig config, const Clock& clock) : config_(std::move(config)), clock_(clock) {}

  Result<Credentials> Get() override {
    std::lock_guard<std::mutex> l(mu_);
    if (cached_ && (!expiry_ || clock_.WallNow() < *expiry_)) return *cached_;
    auto status = RunExecPlugin(*config_.exec, config_);
    if (!status.ok()) return status.status();
    Credentials c;
    c.bearer_token = status->token;
    c.client_cert_pem = status->client_certificate_data;
    c.client_key_pem = status->client_key_data;
    if (c.client_cert_pem.empty()) {  // keep kubeconfig's static cert when the plugin has none
      c.client_cert_pem = config_.client_cert_pem;
      c.client_key_pem = config_.client_key_pem;
    }
    cached_ = c;
    expiry_ = status->expiration;
    return c;
  }
  bool OnUnauthorized() override {
    std::lock_guard<std::mutex> l(mu_);
    cached_.reset();
    return true;
  }

 private:
  const RestConfig config_;
  const Clock& clock_;
  std::mutex mu_;  // also serialises plugin runs
  std::optional<Credentials> cached_;
  std::optional<WallTime> expiry_;
};

}  // namespace

std::unique_ptr<CredentialSource> NewCredentialSource(const RestConfig& config,
                                                      const Clock& clock) {
  Credentials base{config.bearer_token, config.client_cert_pem, config.client_key_pem};
  if (config.exec) return std::make_unique<ExecSource>(config, clock);
  if (!config.bearer_token_file.empty()) {
    return std::make_unique<TokenFileSource>(config.bearer_token_file, base, clock);
  }
  return std::make_unique<StaticSource>(base);
}

Result<WallTime> ParseRfc3339(std::string_view s) {
  std::tm tm{};
  int consumed = 0;
  const std::string str(s);
  if (std::sscanf(str.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6) {
    return InvalidError(fmt::format("invalid RFC 3339 time \"{}\"", s));
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::string_view rest = s.substr(consumed);
  if (!rest.empty() && rest[0] == '.') {  // fractional seconds: ignored (sub-second precision)
    size_t i = 1;
    while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i;
    rest = rest.substr(i);
  }
  int offset_seconds = 0;
  if (rest == "Z" || rest == "z") {
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    const int h = std::atoi(std::string(rest.substr(1, 2)).c_str());
    const int m = std::atoi(std::string(rest.substr(4, 2)).c_str());
    offset_seconds = (rest[0] == '+' ? 1 : -1) * (h * 3600 + m * 60);
  } else {
    return InvalidError(fmt::format("invalid RFC 3339 time \"{}\"", s));
  }
  const time_t t = timegm(&tm) - offset_seconds;
  return std::chrono::system_clock::from_time_t(t);
}

Result<ExecCredentialStatus> ParseExecCredential(std::string_view json,
                                                 std::string_view api_version) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(json, ec);
  if (ec || !v.is_object()) {
    return Status(Code::kUnauthorized,
                  fmt::format("exec plugin: decoding stdout: {}",
                              ec ? ec.message() : std::string("not a JSON object")));
  }
  const auto& obj = v.get_object();
  auto str = [&](const boost::json::object& o, const char* key) -> std::string {
    const auto* p = o.if_contains(key);
    return p && p->is_string() ? std::string(p->get_string()) : std::string();
  };
  if (str(obj, "kind") != "ExecCredential") {
    return Status(Code::kUnauthorized, "exec plugin: decoding stdout: kind is not ExecCredential");
  }
  if (str(obj, "apiVersion") != api_version) {
    return Status(Code::kUnauthorized,
                  fmt::format("exec plugin: output is of version \"{}\", wanted \"{}\"",
                              str(obj, "apiVersion"), api_version));
  }
  const auto* status = obj.if_contains("status");
  if (!status || !status->is_object()) {
    return Status(Code::kUnauthorized, "exec plugin: didn't return a status field");
  }
  const auto& st = status->get_object();
  ExecCredentialStatus out;
  out.token = str(st, "token");
  out.client_certificate_data = str(st, "clientCertificateData");
  out.client_key_data = str(st, "clientKeyData");
  if (out.client_certificate_data.empty() != out.client_key_data.empty()) {
    return Status(Code::kUnauthorized,
                  "exec plugin: clientCertificateData and clientKeyData must both be set");
  }
  if (out.token.empty() && out.client_certificate_data.empty()) {
    return Status(Code::kUnauthorized,
                  "exec plugin: no token or client certificate data in status");
  }
  if (std::string exp = str(st, "expirationTimestamp"); !exp.empty()) {
    auto t = ParseRfc3339(exp);
    if (!t.ok()) return Status(Code::kUnauthorized, "exec plugin: " + t.status().message());
    out.expiration = *t;
  }
  return out;
}

std::string ExecInfoJson(const ExecConfig& exec, const RestConfig& cluster) {
  boost::json::object spec;
  spec["interactive"] = false;
  if (exec.provide_cluster_info) {
    boost::json::object c;
    c["server"] = cluster.host;
    if (!cluster.tls_server_name.empty()) c["tls-server-name"] = cluster.tls_server_name;
    if (cluster.insecure_skip_tls_verify) c["insecure-skip-tls-verify"] = true;
    if (!cluster.ca_data_base64.empty()) {
      c["certificate-authority-data"] = cluster.ca_data_base64;
    }
    spec["cluster"] = std::move(c);
  }
  boost::json::object info;
  info["kind"] = "ExecCredential";
  info["apiVersion"] = exec.api_version;
  info["spec"] = std::move(spec);
  return boost::json::serialize(info);
}

namespace {

// Reads both pipes to EOF without deadlocking on either filling up.
void DrainPipes(int out_fd, int err_fd, std::string* out, std::string* err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {out, err};
  int open = 2;
  char buf[4096];
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, n);
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
}

}  // namespace

Result<ExecCredentialStatus> RunExecPlugin(const ExecConfig& exec, const RestConfig& cluster) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  for (const auto& [k, v] : exec.env) env_strings.push_back(k + "=" + v);
  env_strings.push_back("KUBERNETES_EXEC_INFO=" + ExecInfoJson(exec, cluster));
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = {exec.command};
  arg_strings.insert(arg_strings.end(), exec.args.begin(), exec.args.end());
  std::vector<char*> argv;
  for (auto& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return InternalError("exec plugin: pipe failed");
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return InternalError("exec plugin: pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  pid_t pid = -1;
  const int rc =
      posix_spawnp(&pid, exec.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::string msg = fmt::format("exec plugin: exec: \"{}\": {}", exec.command, std::strerror(rc));
    if (!exec.install_hint.empty()) msg += "\n\n" + exec.install_hint;
    return Status(Code::kUnauthorized, std::move(msg));
  }
  std::string out, err;
  DrainPipes(out_pipe[0], err_pipe[0], &out, &err);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return Status(Code::kUnauthorized,
                  fmt::format("exec plugin \"{}\" failed (exit status {}): {}", exec.command,
                              WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, err));
  }
  return ParseExecCredential(out, exec.api_version);
}

}  // namespace svcplane::client::transport
