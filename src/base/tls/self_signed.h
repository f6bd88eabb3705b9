#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace svcplane::base::tls {

struct SelfSignedCert {
  std::string cert_pem;  // the serving certificate followed by its CA: the chain to serve
  std::string key_pem;   // the serving certificate's key
  std::string ca_pem;    // the throwaway CA alone, for clients that want to verify
};

// In memory, as client-go's cert.GenerateSelfSignedCertKeyWithFixtures (what
// kube-controller-manager serves when no --tls-cert-file is given): a CA "<host>-ca@<unix time>"
// and a serving certificate "<host>@<unix time>" signed by it (`now` names them), both valid for
// a year from issuing (backdated an hour). SANs: `host` (an IP SAN when it is an IP literal,
// otherwise DNS), then `alternate_ips` and `alternate_dns`. The CA key is dropped: nothing else can
// ever be signed.
Result<SelfSignedCert> GenerateSelfSignedCertKey(std::string_view host,
                                                 const std::vector<std::string>& alternate_ips,
                                                 const std::vector<std::string>& alternate_dns,
                                                 std::chrono::system_clock::time_point now);

}  // namespace svcplane::base::tls
