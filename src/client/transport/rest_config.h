#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"

namespace svcplane::client::transport {

// users[].user.exec of a kubeconfig: a credential plugin (client.authentication.k8s.io).
struct ExecConfig {
  std::string command;  // absolute, on PATH, or relative to the kubeconfig's directory
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to this process's environment
  std::string api_version;  // client.authentication.k8s.io/v1 or /v1beta1
  bool provide_cluster_info = false;
  std::string install_hint;  // printed when the command cannot be run
};

// Everything needed to reach one API server as one user, as client-go's rest.Config.
struct RestConfig {
  std::string host;  // "https://10.0.0.1:6443" (optional path prefix)
  // More servers of the same HA cluster, tried in order after `host` when it fails (same CA,
  // tls_server_name and credentials). From --server given several times; empty for a
  // kubeconfig, which has one server per cluster.
  std::vector<std::string> fallback_hosts;
  std::string tls_server_name;  // overrides the host name for SNI and verification
  std::string ca_pem;           // trusted CAs; empty means the system store
  bool insecure_skip_tls_verify = false;
  std::string ca_data_base64;  // certificate-authority-data as written, for exec cluster info

  std::string bearer_token;
  std::string bearer_token_file;  // re-read periodically; wins over bearer_token when set
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<ExecConfig> exec;

  // Client-side rate limit; qps 0 means client-go's defaults (5 qps, burst 10), qps < 0 none.
  double qps = 0;
  int burst = 0;
  std::string user_agent = "svcplane/v0.1.0";
  Duration timeout = std::chrono::seconds(30);  // per unary request; watches are not bounded

  std::string namespace_;  // the context's namespace ("" if unset)
  std::string source;      // where this came from, for error messages ("kubeconfig /x/y")
};

}  // namespace svcplane::client::transport
