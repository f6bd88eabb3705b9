#include "controllers/manager/health_serving.h"

#include <algorithm>

#include "base/tls/self_signed.h"

namespace svcplane::controllers::manager {
namespace {

bool IsWildcard(const std::string& address) {
  return address.empty() || address == "0.0.0.0" || address == "::";
}

Result<std::shared_ptr<const base::tls::ServerContext>> ServingContext(
    const ControllerManagerOptions& o, std::chrono::system_clock::time_point now,
    std::string* ca_pem) {
  if (!o.tls_cert_file.empty()) {
    return base::tls::ServerContext::FromFiles(o.tls_cert_file, o.tls_private_key_file);
  }
  std::vector<std::string> ips = {"127.0.0.1"};
  std::vector<std::string> dns;
  if (!IsWildcard(o.bind_address) &&
      std::find(ips.begin(), ips.end(), o.bind_address) == ips.end()) {
    ips.push_back(o.bind_address);
  }
  auto cert = base::tls::GenerateSelfSignedCertKey("localhost", ips, dns, now);
  if (!cert.ok()) return cert.status();
  *ca_pem = cert->ca_pem;
  return base::tls::ServerContext::FromPem(cert->cert_pem, cert->key_pem);
}

}  // namespace

void HealthServing::Stop() {
  if (secure != nullptr) secure->Stop();
  if (insecure != nullptr) insecure->Stop();
}

Result<HealthServing> StartHealthServing(const ControllerManagerOptions& o,
                                         HealthServer::Handler handler,
                                         std::chrono::system_clock::time_point now) {
  HealthServing serving;
  if (o.secure_port != 0) {
    auto ctx = ServingContext(o, now, &serving.ca_pem);
    if (!ctx.ok()) return ctx.status();
    auto server = HealthServer::Start(o.bind_address, static_cast<uint16_t>(o.secure_port), handler,
                                      std::move(*ctx));
    if (!server.ok()) return server.status();
    serving.secure = std::move(*server);
  }
  if (o.port != 0) {
    auto server = HealthServer::Start(o.bind_address, static_cast<uint16_t>(o.port), handler);
    if (!server.ok()) return server.status();
    serving.insecure = std::move(*server);
  }
  return serving;
}

}  // namespace svcplane::controllers::manager
