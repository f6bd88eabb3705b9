#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace svcplane::apiserver::pki {

struct KubeconfigParams {
  std::string server_url;       // https://HOST:PORT
  std::string ca_pem;           // embedded as certificate-authority-data
  std::string token;            // bearer token; may be empty when a client certificate is given
  std::string client_cert_pem;  // optional client-certificate-data
  std::string client_key_pem;   // optional client-key-data
  std::string cluster_name = "svcplane";
  std::string user_name = "admin";
  std::string context_name = "svcplane";
};

// The kubeconfig YAML (apiVersion v1, kind Config) with one cluster, user and context.
std::string RenderKubeconfig(const KubeconfigParams& params);

// Writes RenderKubeconfig(params) to `path` atomically (temporary file + rename), mode 0600.
Status WriteKubeconfig(const std::string& path, const KubeconfigParams& params);

Status WriteKubeconfig(const std::string& path, std::string_view server_url,
                       std::string_view ca_pem, std::string_view token);

}  // namespace svcplane::apiserver::pki
