#include "apiserver/pki/kubeconfig.h"

#include <openssl/evp.h>

#include <fmt/format.h>

#include "apiserver/pki/internal/files.h"
#include "base/json_string.h"

// Written as text rather than through yaml-cpp, which the layering keeps inside api/codec. Every
// scalar is double-quoted with JSON-style escapes, which is valid YAML for any content.
namespace svcplane::apiserver::pki {
namespace {

std::string Base64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace

std::string ServerUrl(std::string_view listen_host, uint16_t port) {
  std::string_view host = listen_host;
  if (host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]") host = "127.0.0.1";
  if (host.find(':') != std::string_view::npos && host.front() != '[') {
    return fmt::format("https://[{}]:{}", host, port);
  }
  return fmt::format("https://{}:{}", host, port);
}

std::string RenderKubeconfig(const KubeconfigParams& p) {
  std::string user;
  if (!p.token.empty()) user += fmt::format("    token: {}\n", JsonQuote(p.token));
  if (!p.client_cert_pem.empty()) {
    user += fmt::format("    client-certificate-data: {}\n", Base64(p.client_cert_pem));
    user += fmt::format("    client-key-data: {}\n", Base64(p.client_key_pem));
  }
  if (user.empty()) user = "    {}\n";
  return fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: {cluster}\n"
      "  cluster:\n"
      "    server: {server}\n"
      "    certificate-authority-data: {ca}\n"
      "users:\n"
      "- name: {user_name}\n"
      "  user:\n"
      "{user}"
      "contexts:\n"
      "- name: {context}\n"
      "  context:\n"
      "    cluster: {cluster}\n"
      "    user: {user_name}\n"
      "current-context: {context}\n"
      "preferences: {{}}\n",
      fmt::arg("cluster", JsonQuote(p.cluster_name)), fmt::arg("server", JsonQuote(p.server_url)),
      fmt::arg("ca", Base64(p.ca_pem)), fmt::arg("user_name", JsonQuote(p.user_name)),
      fmt::arg("user", user), fmt::arg("context", JsonQuote(p.context_name)));
}

Status WriteKubeconfig(const std::string& path, const KubeconfigParams& params) {
  return internal::WriteFileAtomic(path, RenderKubeconfig(params), 0600);
}

Status WriteKubeconfig(const std::string& path, std::string_view server_url,
                       std::string_view ca_pem, std::string_view token) {
  KubeconfigParams params;
  params.server_url = server_url;
  params.ca_pem = ca_pem;
  params.token = token;
  return WriteKubeconfig(path, params);
}

}  // namespace svcplane::apiserver::pki
