// libFuzzer target: impersonation header parsing never crashes, and whatever it accepts keeps
// its invariants (a user item first, an error only without items).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "apiserver/authorization/impersonation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace svcplane::apiserver;
  // Input: lines "name: value"; a line without ':' is a name with an empty value.
  std::string_view input(reinterpret_cast<const char*>(data), size);
  http::Headers headers;
  while (!input.empty()) {
    size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      headers.emplace_back(std::string(line), "");
    } else {
      std::string_view value = line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
    }
    if (nl == std::string_view::npos) break;
    input.remove_prefix(nl + 1);
  }
  authorization::ImpersonationRequest req = authorization::ParseImpersonationHeaders(headers);
  if (!req.error.empty() && !req.items.empty()) std::abort();
  if (!req.items.empty()) {
    auto kind = req.items.front().kind;
    if (kind != authorization::ImpersonationItem::Kind::kUser &&
        kind != authorization::ImpersonationItem::Kind::kServiceAccount) {
      std::abort();
    }
    http::Identity requester{"fuzz", {}, "", {}};
    for (const auto& item : req.items) {
      authorization::Attributes a = authorization::ImpersonationAttributes(requester, item);
      if (a.verb != "impersonate" || a.user != &requester) std::abort();
    }
  }
  return 0;
}
