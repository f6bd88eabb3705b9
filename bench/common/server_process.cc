#include "bench/common/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/beast/core/detail/base64.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

namespace svcplane::bench {

namespace fs = std::filesystem;

namespace {

// Value of `key: value` in the kubeconfig our server writes (one cluster, one user); quotes
// stripped. Enough for its fixed layout without pulling a YAML parser in.
std::string KubeconfigField(const std::string& text, const std::string& key) {
  auto pos = text.find(key + ": ");
  if (pos == std::string::npos) throw std::runtime_error("kubeconfig lacks " + key);
  pos += key.size() + 2;
  std::string v = text.substr(pos, text.find('\n', pos) - pos);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
  return v;
}

std::string Base64Decode(const std::string& in) {
  namespace base64 = boost::beast::detail::base64;
  std::string out(base64::decoded_size(in.size()), '\0');
  auto [n, _] = base64::decode(out.data(), in.data(), in.size());
  out.resize(n);
  return out;
}

// Fields 3..15 of /proc/PID/stat (after the parenthesised command name), by field number.
std::vector<std::string> ProcStatFields(pid_t pid) {
  const std::string stat = ReadFile(fmt::format("/proc/{}/stat", pid));
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 > stat.size()) return {};
  std::istringstream rest(stat.substr(paren + 2));
  std::vector<std::string> fields(3);
  std::string field;
  for (int i = 3; i <= 15 && rest >> field; ++i) fields.push_back(field);
  return fields;
}

}  // namespace

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ServerProcess::ServerProcess(ServerOptions options) : options_(std::move(options)) {}

void ServerProcess::Start() {
  std::string tmpl = "/tmp/" + options_.dir_prefix + "-XXXXXX";
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  const std::string log = log_path();
  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> args = {options_.binary, "serve",       "--data-dir",  dir_ + "/data",
                                   "--listen",      "127.0.0.1:0", "--log-level", "warn"};
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  // The server writes its kubeconfig atomically (rename) once it listens.
  const std::string kubeconfig = kubeconfig_path();
  const auto deadline = Clock::now() + options_.start_timeout;
  while (!fs::exists(kubeconfig)) {
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("server exited early; log:\n" + ReadFile(log));
    }
    if (Clock::now() > deadline) {
      throw std::runtime_error(
          fmt::format("server not ready in {} s", options_.start_timeout.count()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string text = ReadFile(kubeconfig);
  endpoint_.token = KubeconfigField(text, "token");
  endpoint_.ca_pem = Base64Decode(KubeconfigField(text, "certificate-authority-data"));
  const std::string url = KubeconfigField(text, "server");  // https://127.0.0.1:PORT
  endpoint_.port = static_cast<uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

ServerProcess::~ServerProcess() { Stop(); }

void ServerProcess::Stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int st = 0;
    bool gone = false;
    for (int i = 0; i < 200 && !gone; ++i) {
      gone = waitpid(pid_, &st, WNOHANG) == pid_;
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!gone) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &st, 0);
    }
    pid_ = -1;
  }
  std::error_code ec;
  if (!options_.keep_dir && !dir_.empty()) fs::remove_all(dir_, ec);
}

double ServerProcess::CpuSeconds() const { return pid_ > 0 ? ProcessCpuSeconds(pid_) : 0; }

long ServerProcess::RssKb() const { return pid_ > 0 ? bench::RssKb(pid_) : -1; }

double ProcessCpuSeconds(pid_t pid) {
  auto f = ProcStatFields(pid);
  if (f.size() <= 15) return 0;
  return (std::stod(f[14]) + std::stod(f[15])) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

long ProcessStatusKb(pid_t pid, const char* key) {
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  const std::string k(key);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(k, 0) == 0) return std::stol(line.substr(k.size()));
  }
  return -1;
}

long ProcessMinorFaults(pid_t pid) {
  auto f = ProcStatFields(pid);
  return f.size() > 10 ? std::stol(f[10]) : 0;
}

long ContextSwitches(pid_t pid) {
  long total = 0;
  std::error_code ec;
  for (const auto& task : fs::directory_iterator(fmt::format("/proc/{}/task", pid), ec)) {
    std::ifstream in(task.path() / "status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.find("ctxt_switches:") != std::string::npos) {
        total += std::stol(line.substr(line.find(':') + 1));
      }
    }
  }
  return total;
}

namespace {
double RusageSeconds(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
}  // namespace

double ThreadCpuSeconds() { return RusageSeconds(RUSAGE_THREAD); }

double SelfCpuSeconds() { return RusageSeconds(RUSAGE_SELF); }

double MachineIowaitSeconds() {
  std::istringstream in(ReadFile("/proc/stat"));
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0;
  in >> cpu >> user >> nice >> system >> idle >> iowait;
  return iowait / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double MachineBusySeconds() {
  std::istringstream in(ReadFile("/proc/stat"));
  std::string cpu;
  in >> cpu;  // "cpu": the sum over cores
  double busy = 0;
  // user nice system idle iowait irq softirq steal: all but idle and iowait are busy. (A
  // process's own stime in /proc/PID/stat may hold softirq time that /proc/stat counts apart,
  // so without the interrupts the difference could go below zero.)
  for (int i = 0; i < 8; ++i) {
    double ticks = 0;
    if (!(in >> ticks)) break;
    if (i != 3 && i != 4) busy += ticks;
  }
  return busy / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double WaitForQuietServer(pid_t pid, std::chrono::seconds limit) {
  const auto start = Clock::now();
  double cpu = ProcessCpuSeconds(pid);
  while (Clock::now() - start < limit) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const double now = ProcessCpuSeconds(pid);
    if (now - cpu < 0.025) break;
    cpu = now;
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace svcplane::bench
