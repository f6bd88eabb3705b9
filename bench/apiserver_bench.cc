// End-to-end benchmark of the real `svcplane serve` binary over HTTPS on loopback: Pod creates/s
// with 8 and 64 keep-alive clients, GET and full LIST latency, watch delivery delay with many
// concurrent watch streams, and server RSS. Prints a table; not a Google Benchmark binary because
// every phase depends on state the previous one built (the Pods).
//
//   build-release/bench/apiserver_bench --pods 100000 --watchers 1000
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/core/detail/base64.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  size_t k = std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Value of `key: value` in the kubeconfig our server writes (one cluster, one user); quotes
// stripped. Enough for this file's fixed layout without pulling a YAML parser in.
std::string KubeconfigField(const std::string& text, const std::string& key) {
  auto pos = text.find(key + ": ");
  if (pos == std::string::npos) throw std::runtime_error("kubeconfig lacks " + key);
  pos += key.size() + 2;
  std::string v = text.substr(pos, text.find('\n', pos) - pos);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
  return v;
}

std::string Base64Decode(const std::string& in) {
  std::string out(beast::detail::base64::decoded_size(in.size()), '\0');
  auto [n, _] = beast::detail::base64::decode(out.data(), in.data(), in.size());
  out.resize(n);
  return out;
}

long RssKb(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// The server as a child process with its log in the temp data dir. The destructor stops it
// (SIGTERM, then SIGKILL) and removes the dir; PR_SET_PDEATHSIG covers a crashing bench.
class ServerProcess {
 public:
  explicit ServerProcess(bool keep_dir) : keep_dir_(keep_dir) {}
  // Separate from the constructor so the destructor cleans up when starting fails.
  void Start(const std::string& binary, const std::vector<std::string>& extra_args) {
    char tmpl[] = "/tmp/svcplane-apibench-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    std::string log = dir_ + "/server.log";
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      std::string data = dir_ + "/data";
      std::vector<std::string> args = {binary,     "serve",       "--data-dir",  data,
                                       "--listen", "127.0.0.1:0", "--log-level", "warn"};
      args.insert(args.end(), extra_args.begin(), extra_args.end());
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    std::string kubeconfig = dir_ + "/data/kubeconfig";
    auto deadline = Clock::now() + std::chrono::seconds(60);
    while (!fs::exists(kubeconfig)) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("server exited early; log:\n" + ReadFile(log));
      }
      if (Clock::now() > deadline) throw std::runtime_error("server not ready in 60 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::string text = ReadFile(kubeconfig);
    token = KubeconfigField(text, "token");
    ca_pem = Base64Decode(KubeconfigField(text, "certificate-authority-data"));
    std::string url = KubeconfigField(text, "server");  // https://127.0.0.1:PORT
    port = static_cast<uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
  }
  ~ServerProcess() {
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
    }
    std::error_code ec;
    if (!keep_dir_) fs::remove_all(dir_, ec);
  }
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_; }

  std::string token;
  std::string ca_pem;
  uint16_t port = 0;

 private:
  bool keep_dir_;
  std::string dir_;
  pid_t pid_ = -1;
};

struct Endpoint {
  uint16_t port;
  std::string token;
  std::string ca_pem;
};

std::shared_ptr<ssl::context> MakeTls(const Endpoint& ep) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  ctx->add_certificate_authority(asio::buffer(ep.ca_pem));
  ctx->set_verify_mode(ssl::verify_peer);
  return ctx;
}

struct Response {
  int status = 0;
  std::string body;
};

// One blocking keep-alive HTTPS connection; no body limit so a 100,000-Pod LIST fits.
// A client with OpenSSL straight on a blocking socket, as `curl` does. Beast over Asio's TLS
// stream costs a client more CPU than the server spends on a LIST (two extra copies and a BIO
// round trip per 16 KB record, and growing a 260 MB string), and on a create about as much as
// the server's whole TLS and HTTP layer; on two cores that CPU is taken from the server being
// measured. Requests use keep-alive; responses must carry a Content-Length (every response of
// our server but watches).
// Decodes a chunked HTTP body fed in pieces, handing the data bytes to a callback without
// copying them: a 260 MB list goes through one reused buffer.
class ChunkedReader {
 public:
  bool done() const { return state_ == State::kDone; }

  template <typename Take>
  void Feed(const char* p, size_t n, Take&& take) {
    size_t i = 0;
    while (i < n && state_ != State::kDone) {
      if (state_ == State::kData) {
        const size_t k = std::min(remaining_, n - i);
        take(p + i, k);
        i += k;
        remaining_ -= k;
        if (remaining_ == 0) state_ = State::kDataEnd;
        continue;
      }
      const char c = p[i++];
      if (c != '\n') {
        line_.push_back(c);
        continue;
      }
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      if (state_ == State::kDataEnd) {
        if (!line_.empty()) throw std::runtime_error("chunk data longer than its size");
        state_ = State::kSize;
      } else if (state_ == State::kSize) {
        remaining_ = std::stoull(line_.substr(0, line_.find(';')), nullptr, 16);
        state_ = remaining_ == 0 ? State::kTrailer : State::kData;
      } else if (line_.empty()) {  // kTrailer: the empty line ends the body
        state_ = State::kDone;
      }
      line_.clear();
    }
  }

 private:
  enum class State { kSize, kData, kDataEnd, kTrailer, kDone };
  State state_ = State::kSize;
  size_t remaining_ = 0;
  std::string line_;
};

class Client {
 public:
  Client(const Endpoint& ep, std::shared_ptr<ssl::context> tls)
      : ep_(ep), tls_(std::move(tls)), socket_(ioc_) {
    socket_.connect({asio::ip::make_address("127.0.0.1"), ep_.port});
    socket_.set_option(asio::ip::tcp::no_delay(true));
    ssl_ = SSL_new(tls_->native_handle());
    SSL_set_fd(ssl_, socket_.native_handle());
    if (SSL_connect(ssl_) != 1) throw std::runtime_error("TLS handshake failed");
  }
  ~Client() {
    SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends `request`, a complete HTTP/1.1 request, as one TLS write; returns status and body.
  Response DoRaw(const std::string& request) {
    Write(request);
    Response out;
    size_t length = 0;
    out.status = ReadHead(&length, &out.body);
    while (out.body.size() < length) {
      const size_t have = out.body.size();
      out.body.resize(std::min(length, have + 64 * 1024));
      const int n =
          SSL_read(ssl_, out.body.data() + have, static_cast<int>(out.body.size() - have));
      if (n <= 0) throw std::runtime_error("response body ended early");
      out.body.resize(have + static_cast<size_t>(n));
    }
    return out;
  }

  Response Do(bhttp::verb method, const std::string& target, const std::string& body = "") {
    std::string req = fmt::format(
        "{} {} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n"
        "Accept: application/json\r\n",
        std::string_view(bhttp::to_string(method)), target, ep_.token);
    if (!body.empty()) {
      req += fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n", body.size());
    }
    req += "\r\n";
    req += body;
    return DoRaw(req);
  }

  // A GET whose body is read through one reused 1 MiB buffer and not kept, as
  // `curl -o /dev/null` does: a LIST's latency is the server's. Returns the status; `bytes` is
  // the body's size, `head` and `tail` its first and last bytes.
  int Get(const std::string& target, size_t* bytes, std::string* head, std::string* tail) {
    Write(
        fmt::format("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n"
                    "Accept: application/json\r\n\r\n",
                    target, ep_.token));
    size_t length = 0;
    bool chunked = false;
    std::string first;
    const int status = ReadHead(&length, &first, &chunked);
    *bytes = 0;
    head->clear();
    tail->clear();
    auto take = [&](const char* p, size_t n) {
      if (head->size() < 64) head->append(p, std::min(n, 64 - head->size()));
      tail->append(p + (n > 64 ? n - 64 : 0), std::min<size_t>(n, 64));
      if (tail->size() > 64) tail->erase(0, tail->size() - 64);
      *bytes += n;
    };
    if (piece_.empty()) piece_.resize(1 << 20);
    if (chunked) {
      // Transfer-Encoding: chunked (a JSON list): sizes are parsed, data goes to `take`.
      ChunkedReader reader;
      reader.Feed(first.data(), first.size(), take);
      while (!reader.done()) {
        const int n = SSL_read(ssl_, piece_.data(), static_cast<int>(piece_.size()));
        if (n <= 0) throw std::runtime_error("chunked LIST body ended early");
        reader.Feed(piece_.data(), static_cast<size_t>(n), take);
      }
      return status;
    }
    take(first.data(), first.size());
    while (*bytes < length) {
      const int want = static_cast<int>(std::min(piece_.size(), length - *bytes));
      const int n = SSL_read(ssl_, piece_.data(), want);
      if (n <= 0) throw std::runtime_error("LIST body ended early");
      take(piece_.data(), static_cast<size_t>(n));
    }
    return status;
  }

 private:
  void Write(const std::string& request) {
    if (SSL_write(ssl_, request.data(), static_cast<int>(request.size())) <= 0) {
      throw std::runtime_error("TLS write failed");
    }
  }

  // Reads a response head; returns its status, sets `length` from Content-Length and leaves in
  // `body_start` the body bytes read with the head (never more than `length`: keep-alive
  // responses do not overlap since each request waits for its response).
  int ReadHead(size_t* length, std::string* body_start, bool* chunked = nullptr) {
    std::string header;
    size_t end;
    char buf[16 * 1024];
    while ((end = header.find("\r\n\r\n")) == std::string::npos) {
      const int n = SSL_read(ssl_, buf, sizeof(buf));
      if (n <= 0) throw std::runtime_error("connection closed before the response head");
      header.append(buf, static_cast<size_t>(n));
    }
    *body_start = header.substr(end + 4);
    header.resize(end + 2);
    const int status = std::stoi(header.substr(9, 3));
    std::string lower = header;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (chunked != nullptr) {
      *chunked = lower.find("\r\ntransfer-encoding: chunked") != std::string::npos;
      if (*chunked) return status;
    }
    const auto cl = lower.find("\r\ncontent-length:");
    if (cl == std::string::npos) throw std::runtime_error("response without Content-Length");
    *length = std::stoull(header.substr(cl + 17));
    if (body_start->size() > *length) throw std::runtime_error("more bytes than Content-Length");
    return status;
  }

  Endpoint ep_;
  std::shared_ptr<ssl::context> tls_;
  asio::io_context ioc_;
  asio::ip::tcp::socket socket_;
  SSL* ssl_ = nullptr;
  std::string piece_;
};

// pod.json as a creatable template: server-set fields and owner references (the garbage
// collector would delete Pods owned by a missing ReplicaSet) stripped, name left as NAME_HERE.
struct PodTemplate {
  std::string head, tail;  // body = head + name + tail
  std::string Body(const std::string& name) const { return head + name + tail; }
};

PodTemplate LoadPodTemplate(const std::string& path, const std::string& ns) {
  auto v = boost::json::parse(ReadFile(path));
  auto& obj = v.as_object();
  obj.erase("status");
  auto& md = obj["metadata"].as_object();
  for (const char* k : {"uid", "resourceVersion", "creationTimestamp", "ownerReferences",
                        "generateName", "managedFields"}) {
    md.erase(k);
  }
  md["namespace"] = ns;
  md["name"] = "NAME_HERE";
  std::string s = boost::json::serialize(v);
  auto pos = s.find("NAME_HERE");
  return {s.substr(0, pos), s.substr(pos + 9)};
}

std::string PodName(const std::string& prefix, size_t i) {
  return fmt::format("{}-{:07d}", prefix, i);
}

// Fields 3..15 of /proc/PID/stat (after the parenthesised command name), by field number.
std::vector<std::string> ProcStatFields(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::vector<std::string> fields(3);
  std::string field;
  for (int i = 3; i <= 15 && rest >> field; ++i) fields.push_back(field);
  return fields;
}

// CPU seconds (user + system) a process used so far, all threads included (fields 14, 15).
double ProcessCpuSeconds(pid_t pid) {
  auto f = ProcStatFields(pid);
  if (f.size() <= 15) return 0;
  return (std::stod(f[14]) + std::stod(f[15])) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Minor page faults of a process so far (field 10). Unlike CPU time, which this VM's drifting
// speed blurs, they count work the same in every run: each costs a fresh zeroed page.
long ProcessMinorFaults(pid_t pid) {
  auto f = ProcStatFields(pid);
  return f.size() > 10 ? std::stol(f[10]) : 0;
}

// Waits until the server used under 5% of a core over half a second (its flushes,
// compactions and controllers done with the last burst), at most `limit`; returns the seconds
// waited.
double WaitForQuietServer(pid_t server, std::chrono::seconds limit) {
  const auto start = Clock::now();
  double cpu = ProcessCpuSeconds(server);
  while (Clock::now() - start < limit) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const double now = ProcessCpuSeconds(server);
    if (now - cpu < 0.025) break;
    cpu = now;
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds the calling thread used so far.
double ThreadCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Context switches (voluntary + involuntary) of the process's live threads.
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

struct CreateResult {
  double seconds = 0;
  double server_cpu_seconds = 0;
  double client_cpu_seconds = 0;
  long server_context_switches = 0;
  long server_page_faults = 0;
  size_t ok = 0, failed = 0;
  std::vector<double> latencies_ms;
  std::vector<double> started_ms;  // since the phase began, in the order of latencies_ms
  double start_steady_s = 0;       // when the phase began: CLOCK_MONOTONIC, as `perf -k mono`
  std::string first_error;
};

// The server's own account of Pod creates: the cumulative buckets of
// apiserver_request_duration_seconds{verb="POST",resource="pods"} from /metrics, as (upper
// bound in seconds, count) pairs ending with +Inf. SIG scalability measures its latency SLOs on
// this metric; the client-side latencies above also hold the time this machine's two cores took
// to schedule the bench's own client threads.
using Buckets = std::vector<std::pair<double, double>>;

Buckets ScrapeCreateBuckets(const Endpoint& ep) {
  Client c(ep, MakeTls(ep));
  auto r = c.Do(bhttp::verb::get, "/metrics");
  if (r.status != 200) throw std::runtime_error(fmt::format("/metrics: {}", r.status));
  Buckets out;
  std::istringstream in(r.body);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("apiserver_request_duration_seconds_bucket{") ||
        line.find("resource=\"pods\"") == std::string::npos ||
        line.find("subresource=\"\"") == std::string::npos ||
        line.find("verb=\"POST\"") == std::string::npos) {
      continue;
    }
    const size_t le = line.find("le=\"");
    const size_t end = line.find('"', le + 4);
    const std::string bound = line.substr(le + 4, end - le - 4);
    out.emplace_back(bound == "+Inf" ? INFINITY : std::stod(bound),
                     std::stod(line.substr(line.rfind(' ') + 1)));
  }
  return out;
}

// `after` minus `before` (the phase's own creates), then the quantile as Prometheus'
// histogram_quantile interpolates it inside its bucket, and the share at or below `bound`.
std::pair<double, double> QuantileAndShare(const Buckets& before, const Buckets& after, double q,
                                           double bound) {
  Buckets d = after;
  for (size_t i = 0; i < d.size() && i < before.size(); ++i) d[i].second -= before[i].second;
  if (d.empty() || d.back().second <= 0) return {0, 0};
  const double total = d.back().second;
  double quantile = 0, share = 0;
  const double rank = q * total;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i].first == bound) share = d[i].second / total;
    if (d[i].second >= rank && quantile == 0) {
      const double lo = i == 0 ? 0 : d[i - 1].first, lo_count = i == 0 ? 0 : d[i - 1].second;
      const double hi = std::isinf(d[i].first) ? lo : d[i].first;
      quantile = lo + (hi - lo) * (rank - lo_count) / std::max(d[i].second - lo_count, 1.0);
    }
  }
  return {quantile, share};
}

// Creates Pods [begin, end) with `clients` threads, each on its own connection.
// The requests are encoded before the clock starts and each goes out as one TLS write: the
// client shares the machine's cores with the server, and its cost is not the server's.
CreateResult CreatePods(const Endpoint& ep, pid_t server, const PodTemplate& tmpl,
                        const std::string& ns, size_t begin, size_t end, int clients) {
  auto tls = MakeTls(ep);
  std::vector<std::unique_ptr<Client>> conns;
  for (int i = 0; i < clients; ++i) conns.push_back(std::make_unique<Client>(ep, tls));
  std::vector<std::string> requests;
  requests.reserve(end - begin);
  const std::string head = fmt::format(
      "POST /api/v1/namespaces/{}/pods HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Authorization: Bearer {}\r\nAccept: application/json\r\n"
      "Content-Type: application/json\r\n",
      ns, ep.token);
  for (size_t i = begin; i < end; ++i) {
    std::string body = tmpl.Body(PodName("pod", i));
    requests.push_back(fmt::format("{}Content-Length: {}\r\n\r\n{}", head, body.size(), body));
  }
  std::atomic<size_t> next{begin};
  std::vector<CreateResult> per(static_cast<size_t>(clients));
  const double server_cpu0 = ProcessCpuSeconds(server);
  const long switches0 = ContextSwitches(server);
  const long faults0 = ProcessMinorFaults(server);
  rusage self0{};
  getrusage(RUSAGE_SELF, &self0);
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      auto& r = per[static_cast<size_t>(c)];
      r.latencies_ms.reserve((end - begin) / static_cast<size_t>(clients) * 2);
      for (size_t i; (i = next.fetch_add(1)) < end;) {
        auto t0 = Clock::now();
        Response res = conns[static_cast<size_t>(c)]->DoRaw(requests[i - begin]);
        r.latencies_ms.push_back(Ms(Clock::now() - t0));
        r.started_ms.push_back(Ms(t0 - start));
        if (res.status == 201) {
          ++r.ok;
        } else {
          if (r.failed++ == 0)
            r.first_error = fmt::format("{} {}", res.status, res.body.substr(0, 300));
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  CreateResult total;
  total.start_steady_s = std::chrono::duration<double>(start.time_since_epoch()).count();
  total.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  rusage self1{};
  getrusage(RUSAGE_SELF, &self1);
  auto tv = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  total.client_cpu_seconds =
      tv(self1.ru_utime) + tv(self1.ru_stime) - tv(self0.ru_utime) - tv(self0.ru_stime);
  total.server_cpu_seconds = ProcessCpuSeconds(server) - server_cpu0;
  total.server_context_switches = ContextSwitches(server) - switches0;
  total.server_page_faults = ProcessMinorFaults(server) - faults0;
  for (auto& r : per) {
    total.ok += r.ok;
    total.failed += r.failed;
    if (total.first_error.empty()) total.first_error = r.first_error;
    total.latencies_ms.insert(total.latencies_ms.end(), r.latencies_ms.begin(),
                              r.latencies_ms.end());
    total.started_ms.insert(total.started_ms.end(), r.started_ms.begin(), r.started_ms.end());
  }
  return total;
}

// One watch stream driven asynchronously on a shared io_context: records, per Pod index, the
// first time an event line naming that Pod arrives.
class Watcher : public std::enable_shared_from_this<Watcher> {
 public:
  Watcher(asio::io_context& ioc, ssl::context& tls, const Endpoint& ep, std::string target,
          std::string prefix, size_t events, std::atomic<int>* ready, std::atomic<int>* failed)
      : stream_(ioc, tls),
        ep_(ep),
        target_(std::move(target)),
        prefix_("\"" + std::move(prefix) + "-"),
        seen_(events),
        ready_(ready),
        failed_(failed) {}

  void Start() {
    auto self = shared_from_this();
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(60));
    beast::get_lowest_layer(stream_).async_connect(
        asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), ep_.port),
        [self](beast::error_code ec) {
          if (ec) return self->Fail();
          self->stream_.async_handshake(ssl::stream_base::client, [self](beast::error_code ec) {
            if (ec) return self->Fail();
            self->SendRequest();
          });
        });
  }
  void Close() {
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(stream_).socket().close(ec);
  }
  const std::vector<Clock::time_point>& seen() const { return seen_; }

 private:
  void Fail() {
    if (!counted_) {
      counted_ = true;
      failed_->fetch_add(1);
    }
  }
  void SendRequest() {
    auto self = shared_from_this();
    req_ = {bhttp::verb::get, target_, 11};
    req_.set(bhttp::field::host, "127.0.0.1");
    req_.set(bhttp::field::authorization, "Bearer " + ep_.token);
    bhttp::async_write(stream_, req_, [self](beast::error_code ec, size_t) {
      if (ec) return self->Fail();
      self->parser_.body_limit(boost::none);
      bhttp::async_read_header(self->stream_, self->buffer_, self->parser_,
                               [self](beast::error_code ec, size_t) {
                                 if (ec || self->parser_.get().result_int() != 200) {
                                   return self->Fail();
                                 }
                                 beast::get_lowest_layer(self->stream_).expires_never();
                                 self->counted_ = true;
                                 self->ready_->fetch_add(1);
                                 self->ReadMore();
                               });
    });
  }
  void ReadMore() {
    auto self = shared_from_this();
    bhttp::async_read_some(stream_, buffer_, parser_, [self](beast::error_code ec, size_t) {
      if (ec) return;  // closed at the end of the phase
      self->Scan();
      self->ReadMore();
    });
  }
  // Consumes complete lines of the body, noting each Pod index named in them.
  void Scan() {
    auto now = Clock::now();
    std::string& body = parser_.get().body();
    size_t end = body.rfind('\n');
    if (end == std::string::npos) return;
    for (size_t p = body.find(prefix_); p < end; p = body.find(prefix_, p + 1)) {
      size_t i = std::strtoul(body.c_str() + p + prefix_.size(), nullptr, 10);
      if (i < seen_.size() && seen_[i] == Clock::time_point{}) seen_[i] = now;
    }
    body.erase(0, end + 1);
  }

  beast::ssl_stream<beast::tcp_stream> stream_;
  const Endpoint& ep_;
  std::string target_;
  std::string prefix_;
  std::vector<Clock::time_point> seen_;
  std::atomic<int>* ready_;
  std::atomic<int>* failed_;
  bool counted_ = false;
  bhttp::request<bhttp::empty_body> req_;
  beast::flat_buffer buffer_;
  bhttp::response_parser<bhttp::string_body> parser_;
};

struct Row {
  std::string metric, value, target;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"svcplane API server end-to-end benchmark"};
  std::string server = (fs::path(argv[0]).parent_path() / ".." / "bin" / "svcplane").string();
  std::string pod_json = SVCPLANE_TESTDATA "/pod.json";
  size_t pods = 100'000;
  size_t gets = 20'000;
  int lists = 3;
  int watchers = 1000;
  size_t watch_events = 50;
  int watch_interval_ms = 100;
  bool keep = false;
  std::string create_log;
  app.add_option("--create-log", create_log,
                 "write `clients start_ms latency_ms` per create here, to see when slow ones "
                 "happened");
  app.add_option("--server", server, "svcplane binary")->capture_default_str();
  std::vector<std::string> server_args;
  app.add_option("--server-arg", server_args,
                 "extra argument for `svcplane serve` (repeatable), e.g. "
                 "--server-arg=--build-pieces-ahead=false");
  app.add_option("--pod-json", pod_json, "Pod template")->capture_default_str();
  app.add_option("--pods", pods, "Pods to create (half with 8 clients, half with 64)")
      ->capture_default_str();
  app.add_option("--gets", gets, "GETs of random Pods (8 clients)")->capture_default_str();
  app.add_option("--lists", lists, "full LISTs to time")->capture_default_str();
  app.add_option("--watchers", watchers, "concurrent watch streams")->capture_default_str();
  app.add_option("--watch-events", watch_events, "Pods created while watched")
      ->capture_default_str();
  app.add_option("--watch-interval-ms", watch_interval_ms, "pause between watched creates")
      ->capture_default_str();
  app.add_flag("--keep-data", keep, "keep the temp data dir (server.log)");
  CLI11_PARSE(app, argc, argv);

  signal(SIGPIPE, SIG_IGN);
  std::vector<Row> rows;
  try {
    ServerProcess proc(keep);
    proc.Start(server, server_args);
    Endpoint ep{proc.port, proc.token, proc.ca_pem};
    std::fprintf(stderr, "server pid %d on port %u, data %s\n", proc.pid(), ep.port,
                 proc.dir().c_str());
    const std::string ns = "bench", wns = "bench-watch";
    {
      Client c(ep, MakeTls(ep));
      for (const auto& n : {ns, wns}) {
        auto r =
            c.Do(bhttp::verb::post, "/api/v1/namespaces",
                 fmt::format(
                     R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})", n));
        if (r.status != 201 && r.status != 409) {
          throw std::runtime_error(fmt::format("create namespace: {} {}", r.status, r.body));
        }
      }
    }
    PodTemplate tmpl = LoadPodTemplate(pod_json, ns);
    rows.push_back({"Pod body size", fmt::format("{} B", tmpl.Body(PodName("pod", 0)).size()), ""});
    rows.push_back({"RSS idle", fmt::format("{} MiB", RssKb(proc.pid()) / 1024), ""});

    // Creates: first half with 8 clients, second with 64.
    size_t half = pods / 2;
    for (auto [clients, b, e] : {std::tuple<int, size_t, size_t>{8, 0, half},
                                 std::tuple<int, size_t, size_t>{64, half, pods}}) {
      const Buckets before = ScrapeCreateBuckets(ep);
      auto r = CreatePods(ep, proc.pid(), tmpl, ns, b, e, clients);
      const auto [server_p99, server_share] =
          QuantileAndShare(before, ScrapeCreateBuckets(ep), 0.99, 0.01);
      std::fprintf(stderr, "%d clients: %zu ok, %zu failed in %.2f s\n", clients, r.ok, r.failed,
                   r.seconds);
      if (r.failed) std::fprintf(stderr, "  first error: %s\n", r.first_error.c_str());
      if (!create_log.empty()) {
        std::ofstream out(create_log, clients == 8 ? std::ios::trunc : std::ios::app);
        for (size_t i = 0; i < r.latencies_ms.size(); ++i) {
          out << clients << ' ' << r.started_ms[i] << ' ' << r.latencies_ms[i] << ' '
              << r.start_steady_s << '\n';
        }
      }
      rows.push_back({fmt::format("creates/s, {} clients ({} Pods)", clients, e - b),
                      fmt::format("{:.0f}", static_cast<double>(r.ok) / r.seconds), ">= 10000"});
      rows.push_back({fmt::format("create p50 / p99, {} clients", clients),
                      fmt::format("{:.2f} / {:.2f} ms", Percentile(r.latencies_ms, 50),
                                  Percentile(r.latencies_ms, 99)),
                      "p99 <= 10 ms (SLO/100)"});
      rows.push_back({fmt::format("  server-side p99 (apiserver_request_duration_seconds), {} "
                                  "clients; share <= 10 ms",
                                  clients),
                      fmt::format("{:.2f} ms; {:.2f}%", server_p99 * 1000, server_share * 100),
                      "p99 <= 10 ms: share >= 99%"});
      const double n = static_cast<double>(std::max<size_t>(r.ok + r.failed, 1));
      rows.push_back(
          {fmt::format("server CPU / context switches / page faults per create, {} clients",
                       clients),
           fmt::format(
               "{:.0f} us / {:.1f} / {:.2f} (client CPU {:.0f} us)", r.server_cpu_seconds / n * 1e6,
               static_cast<double>(r.server_context_switches) / n,
               static_cast<double>(r.server_page_faults) / n, r.client_cpu_seconds / n * 1e6),
           ""});
      if (r.failed) rows.push_back({"  failed creates", std::to_string(r.failed), "0"});
    }
    rows.push_back({fmt::format("RSS after {} Pods", pods),
                    fmt::format("{} MiB", RssKb(proc.pid()) / 1024), ""});

    // GETs of random Pods, 8 clients: once right after the creates, while the server still
    // flushes, compacts and feeds its controllers, and once at rest, as the SLO's steady state.
    auto run_gets = [&](const std::string& when) {
      auto tls = MakeTls(ep);
      std::vector<std::vector<double>> lat(8);
      std::atomic<size_t> next{0};
      std::atomic<size_t> bad{0};
      std::vector<std::thread> threads;
      auto start = Clock::now();
      for (int c = 0; c < 8; ++c) {
        threads.emplace_back([&, c] {
          Client cl(ep, tls);
          std::mt19937_64 rng(static_cast<uint64_t>(c) + 1);
          while (next.fetch_add(1) < gets) {
            std::string t = fmt::format("/api/v1/namespaces/{}/pods/{}", ns,
                                        PodName("pod", rng() % std::max<size_t>(pods, 1)));
            auto t0 = Clock::now();
            auto r = cl.Do(bhttp::verb::get, t);
            lat[static_cast<size_t>(c)].push_back(Ms(Clock::now() - t0));
            if (r.status != 200) bad.fetch_add(1);
          }
        });
      }
      for (auto& t : threads) t.join();
      double secs = std::chrono::duration<double>(Clock::now() - start).count();
      std::vector<double> all;
      for (auto& l : lat) all.insert(all.end(), l.begin(), l.end());
      rows.push_back({fmt::format("GET p50 / p99, 8 clients, {} ({} GETs, {:.0f}/s)", when,
                                  all.size(), static_cast<double>(all.size()) / secs),
                      fmt::format("{:.2f} / {:.2f} ms", Percentile(all, 50), Percentile(all, 99)),
                      "p99 <= 2 ms"});
      if (bad) rows.push_back({"  failed GETs", std::to_string(bad.load()), "0"});
    };
    if (gets > 0) {
      run_gets("right after the creates");
      const double settled = WaitForQuietServer(proc.pid(), std::chrono::seconds(30));
      run_gets(fmt::format("at rest ({:.1f} s later)", settled));
    }

    // Full LISTs: namespace and cluster-wide.
    if (lists > 0) {
      Client cl(ep, MakeTls(ep));
      for (const auto& [what, target] :
           {std::pair<std::string, std::string>{"LIST namespace",
                                                "/api/v1/namespaces/" + ns + "/pods"},
            std::pair<std::string, std::string>{"LIST cluster-wide", "/api/v1/pods"}}) {
        std::vector<double> ms, server_ms, client_ms;
        size_t bytes = 0;
        for (int i = 0; i < lists; ++i) {
          // CPU as well as wall time: on a loaded machine the wall time mostly says how long
          // the server and this client waited for a core.
          const double server0 = ProcessCpuSeconds(proc.pid());
          const double client0 = ThreadCpuSeconds();
          auto t0 = Clock::now();
          std::string head, tail;
          const int status = cl.Get(target, &bytes, &head, &tail);
          ms.push_back(Ms(Clock::now() - t0));
          server_ms.push_back((ProcessCpuSeconds(proc.pid()) - server0) * 1000);
          client_ms.push_back((ThreadCpuSeconds() - client0) * 1000);
          if (status != 200) throw std::runtime_error(fmt::format("{}: {}", what, status));
          // The whole PodList came: its Content-Length worth of bytes or its chunks up to the
          // last one (the readers check), and it starts and ends as one.
          if (!head.starts_with(R"({"kind":"PodList")") || !tail.ends_with("]}")) {
            throw std::runtime_error(
                fmt::format("{}: not a whole PodList: {}...{}", what, head, tail));
          }
        }
        std::sort(ms.begin(), ms.end());
        rows.push_back({fmt::format("{} of {} Pods (best / worst of {})", what, pods, lists),
                        fmt::format("{:.0f} / {:.0f} ms, {:.1f} MiB", ms.front(), ms.back(),
                                    static_cast<double>(bytes) / (1 << 20)),
                        "<= 1 s; SLO/100 = 300 ms"});
        rows.push_back({"  server / client CPU per LIST (median)",
                        fmt::format("{:.0f} / {:.0f} ms", Percentile(server_ms, 50),
                                    Percentile(client_ms, 50)),
                        ""});
      }
      rows.push_back({"RSS after LISTs", fmt::format("{} MiB", RssKb(proc.pid()) / 1024), ""});
    }

    // Watch delivery delay: `watchers` streams on the watch namespace; one client creates
    // `watch_events` Pods there at a steady pace; delay = event line received - create ack.
    if (watchers > 0 && watch_events > 0) {
      asio::io_context ioc;
      auto tls = MakeTls(ep);
      std::atomic<int> ready{0}, failed{0};
      std::vector<std::shared_ptr<Watcher>> ws;
      std::string target = fmt::format("/api/v1/namespaces/{}/pods?watch=true", wns);
      for (int i = 0; i < watchers; ++i) {
        ws.push_back(std::make_shared<Watcher>(ioc, *tls, ep, target, "wpod", watch_events, &ready,
                                               &failed));
        ws.back()->Start();
      }
      auto guard = asio::make_work_guard(ioc);
      std::thread io([&] { ioc.run(); });
      auto deadline = Clock::now() + std::chrono::seconds(120);
      while (ready + failed < watchers && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      std::fprintf(stderr, "%d watchers ready, %d failed\n", ready.load(), failed.load());
      PodTemplate wt = LoadPodTemplate(pod_json, wns);
      std::vector<Clock::time_point> acked(watch_events);
      {
        Client cl(ep, tls);
        std::string t = fmt::format("/api/v1/namespaces/{}/pods", wns);
        for (size_t i = 0; i < watch_events; ++i) {
          auto r = cl.Do(bhttp::verb::post, t, wt.Body(PodName("wpod", i)));
          acked[i] = Clock::now();
          if (r.status != 201) throw std::runtime_error(fmt::format("watch create: {}", r.status));
          std::this_thread::sleep_for(std::chrono::milliseconds(watch_interval_ms));
        }
      }
      std::this_thread::sleep_for(std::chrono::seconds(2));  // let the last events arrive
      long rss = RssKb(proc.pid());
      asio::post(ioc, [&] {
        for (auto& w : ws) w->Close();
      });
      guard.reset();
      io.join();
      std::vector<double> delay;
      size_t missing = 0;
      for (auto& w : ws) {
        for (size_t i = 0; i < watch_events; ++i) {
          if (w->seen()[i] == Clock::time_point{}) {
            ++missing;
          } else {
            delay.push_back(std::max(0.0, Ms(w->seen()[i] - acked[i])));
          }
        }
      }
      rows.push_back(
          {fmt::format("watch delay p50 / p99 ({} watchers x {} events)", ready.load(),
                       watch_events),
           fmt::format("{:.2f} / {:.2f} ms", Percentile(delay, 50), Percentile(delay, 99)), ""});
      rows.push_back({"  events missed (never received)", std::to_string(missing), "0"});
      rows.push_back({fmt::format("RSS with {} watchers", ready.load()),
                      fmt::format("{} MiB", rss / 1024), ""});
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apiserver_bench: %s\n", e.what());
    return 1;
  }

  size_t w0 = 6, w1 = 5;
  for (auto& r : rows) {
    w0 = std::max(w0, r.metric.size());
    w1 = std::max(w1, r.value.size());
  }
  std::printf("| %-*s | %-*s | %s |\n", static_cast<int>(w0), "metric", static_cast<int>(w1),
              "value", "target");
  std::printf("|%s|%s|---|\n", std::string(w0 + 2, '-').c_str(), std::string(w1 + 2, '-').c_str());
  for (auto& r : rows) {
    std::printf("| %-*s | %-*s | %s |\n", static_cast<int>(w0), r.metric.c_str(),
                static_cast<int>(w1), r.value.c_str(), r.target.c_str());
  }
  return 0;
}
