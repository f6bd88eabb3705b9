#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "client/transport/rest_config.h"

namespace svcplane::client::transport {

// Loads a kubeconfig file and resolves one context (`context_override`, else current-context)
// into a RestConfig. File references (certificate-authority, client-certificate, client-key,
// tokenFile) are read now, relative to the kubeconfig's directory, except tokenFile, which the
// transport re-reads. Errors are kInvalid and name the file and the field:
//   kubeconfig /x/y: users[0].user.client-certificate: open /nope: No such file or directory
Result<RestConfig> LoadKubeconfig(const std::string& path,
                                  const std::string& context_override = "");

// `--server URL` given once or more, each maybe a comma-separated list: replaces the server
// of `config` (a kubeconfig's or the in-cluster one, whose CA and credentials stay) with the
// first URL and makes the others its fallback_hosts, in order. No URLs: `config` unchanged.
// kInvalid for an empty entry or a URL that is not http(s)://host[:port][/path].
Status OverrideServers(const std::vector<std::string>& servers, RestConfig* config);

// Paths and environment of the in-cluster config; injectable for tests.
struct InClusterPaths {
  std::string token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::string namespace_file = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
  // Empty means read KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT from the environment.
  std::string host;
  std::string port;
};

// client-go's rest.InClusterConfig: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
// with the service-account token (re-read, as it is rotated) and CA. kUnavailable when not
// running in a pod (no host/port env vars).
Result<RestConfig> InClusterConfig(const InClusterPaths& paths = {});

// Reads a whole file; kNotFound/kInternal with "open <path>: <strerror>".
Result<std::string> ReadFileToString(const std::string& path);

// Standard base64 (RFC 4648, padding optional, whitespace ignored).
Result<std::string> Base64Decode(std::string_view in);
std::string Base64Encode(std::string_view in);

}  // namespace svcplane::client::transport
