#include "bench/apiserver/access_compare.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bench/apiserver/pod_creates.h"
#include "bench/common/https_client.h"
#include "bench/common/server_process.h"
#include "bench/common/table.h"

namespace svcplane::bench::apiserver {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kNamespace = "bench";
constexpr std::string_view kWriter = "bench-writer";

struct Variant {
  const char* name;
  bool rbac;
  bool audit;
};

constexpr Variant kVariants[] = {
    {"off", false, false},
    {"audit", false, true},
    {"authz", true, false},
    {"authz+audit", true, true},
};

// The admin (system:masters) makes the namespace and binds bench-writer to `edit` in it, then
// waits until the authorizer says bench-writer may create Pods there: the RBAC index and the
// ClusterRole aggregation controller (which fills `edit`) follow the store asynchronously.
void PrepareNamespace(const Endpoint& admin, const Endpoint& writer) {
  Client c(admin, MakeTls(admin));
  auto r =
      c.Do("POST", "/api/v1/namespaces",
           fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})",
                       kNamespace));
  if (r.status != 201) throw std::runtime_error("create namespace: " + r.body);
  r = c.Do(
      "POST",
      fmt::format("/apis/rbac.authorization.k8s.io/v1/namespaces/{}/rolebindings", kNamespace),
      fmt::format(
          R"({{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",)"
          R"("metadata":{{"name":"bench-writer-edit"}},)"
          R"("roleRef":{{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"}},)"
          R"("subjects":[{{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"{}"}}]}})",
          kWriter));
  if (r.status != 201) throw std::runtime_error("create RoleBinding: " + r.body);
  Client w(writer, MakeTls(writer));
  const std::string review = fmt::format(
      R"({{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",)"
      R"("spec":{{"resourceAttributes":{{"namespace":"{}","verb":"create","resource":"pods"}}}}}})",
      kNamespace);
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (true) {
    r = w.Do("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review);
    if (r.status == 201 && r.body.find(R"("allowed":true)") != std::string::npos) return;
    if (Clock::now() > deadline) {
      throw std::runtime_error(
          fmt::format("{} may not create Pods: {} {}", kWriter, r.status, r.body.substr(0, 300)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// The audit log's files (the current one and rotated ones) together.
uint64_t LogBytes(const fs::path& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) bytes += entry.file_size(ec);
  }
  return bytes;
}

struct Samples {
  std::vector<double> rate, cpu_us;
  double log_bytes_per_create = 0;
};

}  // namespace

int AccessCompare(const AccessCompareOptions& o) {
  constexpr size_t kVariantCount = std::size(kVariants);
  // [variant][clients index]
  std::vector<std::vector<Samples>> samples(kVariantCount, std::vector<Samples>(o.clients.size()));
  const fs::path tmp = fs::temp_directory_path();
  const fs::path tokens = tmp / fmt::format("svcplane-apibench-tokens-{}.csv", ::getpid());
  // The log and the files it rotates to; emptied after each server.
  const fs::path log_dir = tmp / fmt::format("svcplane-apibench-audit-{}", ::getpid());
  const std::string writer_token = fmt::format("bench-writer-{}-token", ::getpid());
  {
    std::ofstream out(tokens);
    out << writer_token << ',' << kWriter << ",uid-" << kWriter << '\n';
  }
  int code = 0;
  try {
    for (int round = 0; round < o.rounds; ++round) {
      for (size_t v = 0; v < kVariantCount; ++v) {
        const Variant& variant = kVariants[v];
        std::error_code ec;
        fs::remove_all(log_dir, ec);  // the last server's, gone with it
        std::vector<std::string> args = o.server_args;
        args.insert(args.end(), {"--token-auth-file", tokens.string()});
        if (!variant.rbac) args.insert(args.end(), {"--authorization-mode", "AlwaysAllow"});
        if (variant.audit) {
          args.insert(args.end(), {"--audit-policy-file", SVCPLANE_EXAMPLES "/audit-policy.yaml",
                                   "--audit-log-path", (log_dir / "audit.log").string()});
        }
        ServerProcess proc(
            {.binary = o.server, .extra_args = args, .dir_prefix = "svcplane-apibench-access"});
        proc.Start();
        Endpoint writer = proc.endpoint();
        writer.token = writer_token;
        PrepareNamespace(proc.endpoint(), writer);
        PodTemplate tmpl = LoadPodTemplate(o.pod_json, std::string(kNamespace));
        const uint64_t log_before = LogBytes(log_dir);
        for (size_t c = 0; c < o.clients.size(); ++c) {
          const size_t begin = c * o.pods;
          auto r = CreatePods(writer, proc.pid(), tmpl, std::string(kNamespace), begin,
                              begin + o.pods, o.clients[c]);
          if (r.failed) throw std::runtime_error("creates failed: " + r.first_error);
          Samples& s = samples[v][c];
          s.rate.push_back(static_cast<double>(r.ok) / r.seconds);
          s.cpu_us.push_back(r.server_cpu_seconds / static_cast<double>(r.ok) * 1e6);
          std::fprintf(stderr, "round %d, %-11s, %2d clients: %6.0f creates/s, %4.0f us CPU\n",
                       round, variant.name, o.clients[c], s.rate.back(), s.cpu_us.back());
        }
        if (variant.audit) {
          const uint64_t bytes = LogBytes(log_dir) - log_before;
          for (auto& s : samples[v]) {
            s.log_bytes_per_create =
                static_cast<double>(bytes) / static_cast<double>(o.pods * o.clients.size());
          }
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "apiserver_bench: %s\n", e.what());
    code = 1;
  }
  std::error_code ec;
  fs::remove(tokens, ec);
  fs::remove_all(log_dir, ec);
  if (code != 0) return code;

  std::vector<Row> rows;
  for (size_t c = 0; c < o.clients.size(); ++c) {
    const double off = Percentile(samples[0][c].rate, 50);
    for (size_t v = 0; v < kVariantCount; ++v) {
      Samples& s = samples[v][c];
      const double rate = Percentile(s.rate, 50);
      rows.push_back({fmt::format("creates/s, {}, {} clients (median of {})", kVariants[v].name,
                                  o.clients[c], o.rounds),
                      v == 0 ? fmt::format("{:.0f}", rate)
                             : fmt::format("{:.0f} ({:.1f}% of off)", rate, rate / off * 100),
                      v == kVariantCount - 1 ? ">= 95% of off" : ""});
      std::string cpu = fmt::format("{:.0f} us", Percentile(s.cpu_us, 50));
      if (kVariants[v].audit) cpu += fmt::format(", log {:.0f} B", s.log_bytes_per_create);
      rows.push_back({"  server CPU per create (median)", cpu, ""});
    }
  }
  std::printf(
      "off: --authorization-mode=AlwaysAllow; authz: Node,RBAC; audit: "
      "examples/audit-policy.yaml. Creates as %s (RoleBinding to ClusterRole edit).\n",
      std::string(kWriter).c_str());
  PrintTable(rows);
  return 0;
}

}  // namespace svcplane::bench::apiserver
