#include "apiserver/bootstrap/host_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "apiserver/allocator/ranges.h"

namespace svcplane::apiserver::bootstrap {
namespace {

// The interface of the IPv4 default route from /proc/net/route ("" if none).
std::string DefaultRouteInterface() {
  std::ifstream in("/proc/net/route");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string iface, dest;
    if (fields >> iface >> dest && dest == "00000000") return iface;
  }
  return "";
}

}  // namespace

std::string ChooseHostAddress() {
  ifaddrs* addrs = nullptr;
  if (getifaddrs(&addrs) != 0) return "";
  const std::string route_iface = DefaultRouteInterface();
  std::string first, on_route;
  for (ifaddrs* a = addrs; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    if (!(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK)) continue;
    char buf[INET_ADDRSTRLEN] = {};
    auto* sin = reinterpret_cast<sockaddr_in*>(a->ifa_addr);
    inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof(buf));
    if (first.empty()) first = buf;
    if (on_route.empty() && route_iface == a->ifa_name) on_route = buf;
  }
  freeifaddrs(addrs);
  return on_route.empty() ? first : on_route;
}

std::string AdvertiseAddressFor(const std::string& listen_host) {
  auto ip = allocator::ParseIp(listen_host);
  if (ip && ip->value != 0) {
    bool loopback = ip->v6 ? ip->value == 1 : (ip->value >> 24) == 127;
    if (!loopback) return allocator::FormatIp(*ip);
  }
  return ChooseHostAddress();
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace svcplane::apiserver::bootstrap
