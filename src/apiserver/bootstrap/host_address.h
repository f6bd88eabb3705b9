#pragma once

#include <string>

namespace svcplane::apiserver::bootstrap {

// The address this server advertises in the `kubernetes` endpoints when --listen names no
// usable one, as upstream's ResolveBindAddress does for unspecified or loopback bind addresses
// (Endpoints may not hold loopback addresses): the IPv4 address of the interface with the
// default route, else the first non-loopback IPv4 address that is up. Empty if there is none.
std::string ChooseHostAddress();

// `listen_host` itself when it is a non-loopback, specified IP; otherwise ChooseHostAddress().
std::string AdvertiseAddressFor(const std::string& listen_host);

// gethostname(), as Go's os.Hostname() (what kube-apiserver names its identity lease after);
// "localhost" if it fails.
std::string HostName();

}  // namespace svcplane::apiserver::bootstrap
