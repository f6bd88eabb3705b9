#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/result.h"
#include "client/transport/rest_config.h"

namespace svcplane::client::transport {

struct Credentials {
  std::string bearer_token;     // sent as "Authorization: Bearer <token>" when not empty
  std::string client_cert_pem;  // TLS client certificate (with client_key_pem)
  std::string client_key_pem;
  bool operator==(const Credentials&) const = default;
};

// Where a transport gets the credentials of each request. Safe from any thread; Get may block
// (an exec plugin runs synchronously, one at a time).
class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  virtual Result<Credentials> Get() = 0;
  // The server rejected credentials from Get with 401. Returns true if the next Get fetches new
  // credentials (so one retry is worth it).
  virtual bool OnUnauthorized() { return false; }
};

// Static token/cert, a token file re-read every minute (client-go's cached file token source),
// or an exec plugin, per the config.
std::unique_ptr<CredentialSource> NewCredentialSource(const RestConfig& config, const Clock& clock);

// The status of an ExecCredential printed by a plugin.
struct ExecCredentialStatus {
  std::string token;
  std::string client_certificate_data;  // PEM
  std::string client_key_data;          // PEM
  std::optional<WallTime> expiration;   // none: valid until a 401
};

// Parses a plugin's stdout; the apiVersion must match the one configured.
Result<ExecCredentialStatus> ParseExecCredential(std::string_view json,
                                                 std::string_view api_version);

// The KUBERNETES_EXEC_INFO value client-go passes to the plugin.
std::string ExecInfoJson(const ExecConfig& exec, const RestConfig& cluster);

// Runs the plugin with its args and env (plus KUBERNETES_EXEC_INFO), stdin from /dev/null, and
// parses its output. Errors (kUnauthorized) carry the exit status and the plugin's stderr.
Result<ExecCredentialStatus> RunExecPlugin(const ExecConfig& exec, const RestConfig& cluster);

// RFC 3339 ("2026-01-02T15:04:05Z", fractional seconds and offsets accepted).
Result<WallTime> ParseRfc3339(std::string_view s);

}  // namespace svcplane::client::transport
