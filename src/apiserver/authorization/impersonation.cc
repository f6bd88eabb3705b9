#include "apiserver/authorization/impersonation.h"

#include <cctype>

#include "api/validation/names.h"
#include "apiserver/authorization/rbac_rules.h"

namespace svcplane::apiserver::authorization {
namespace {

constexpr std::string_view kUserHeader = "Impersonate-User";
constexpr std::string_view kGroupHeader = "Impersonate-Group";
constexpr std::string_view kUidHeader = "Impersonate-Uid";
constexpr std::string_view kExtraPrefix = "Impersonate-Extra-";
constexpr std::string_view kAuthenticationGroup = "authentication.k8s.io";

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool IStartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && IEquals(s.substr(0, prefix.size()), prefix);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// url.PathUnescape; on a malformed escape the key is kept as it is (upstream unescapeExtraKey).
std::string UnescapeExtraKey(const std::string& key) {
  std::string out;
  out.reserve(key.size());
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '%') {
      out.push_back(key[i]);
      continue;
    }
    if (i + 2 >= key.size()) return key;
    int hi = HexValue(key[i + 1]);
    int lo = HexValue(key[i + 2]);
    if (hi < 0 || lo < 0) return key;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

// serviceaccount.SplitUsername: system:serviceaccount:<ns>:<name> with a valid namespace
// (DNS label) and name (DNS subdomain).
bool SplitServiceAccount(std::string_view user, std::string* ns, std::string* name) {
  if (!user.starts_with(kServiceAccountUsernamePrefix)) return false;
  std::string_view rest = user.substr(kServiceAccountUsernamePrefix.size());
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos || rest.find(':', colon + 1) != std::string_view::npos) {
    return false;
  }
  std::string_view n = rest.substr(0, colon);
  std::string_view s = rest.substr(colon + 1);
  if (!api::validation::NameIsDNSLabel(n, false).empty()) return false;
  if (!api::validation::NameIsDNSSubdomain(s, false).empty()) return false;
  *ns = std::string(n);
  *name = std::string(s);
  return true;
}

std::string_view KindName(ImpersonationItem::Kind kind) {
  switch (kind) {
    case ImpersonationItem::Kind::kUser:
      return "User";
    case ImpersonationItem::Kind::kServiceAccount:
      return "ServiceAccount";
    case ImpersonationItem::Kind::kGroup:
      return "Group";
    case ImpersonationItem::Kind::kUserExtra:
      return "UserExtra";
    case ImpersonationItem::Kind::kUid:
      return "UID";
  }
  return "";
}

// Go's %v of the []v1.ObjectReference upstream builds: {Kind Namespace Name UID APIVersion
// ResourceVersion FieldPath} per item.
std::string DescribeItems(const std::vector<ImpersonationItem>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    const ImpersonationItem& item = items[i];
    bool versioned = item.kind == ImpersonationItem::Kind::kUserExtra ||
                     item.kind == ImpersonationItem::Kind::kUid;
    if (i > 0) out += " ";
    out += "{";
    out += KindName(item.kind);
    out += " " + item.ns + " " + item.name + "  " +
           (versioned ? std::string("authentication.k8s.io/v1") : std::string()) + "  " +
           item.extra_key + "}";
  }
  out += "]";
  return out;
}

}  // namespace

bool IsImpersonationHeader(std::string_view name) { return IStartsWith(name, "Impersonate-"); }

ImpersonationRequest ParseImpersonationHeaders(const http::Headers& headers) {
  ImpersonationRequest req;
  auto first = [&](std::string_view name) -> std::string {
    for (const auto& [k, v] : headers) {
      if (IEquals(k, name)) return v;
    }
    return "";
  };
  std::string user = first(kUserHeader);
  bool has_user = !user.empty();
  if (has_user) {
    ImpersonationItem item;
    if (SplitServiceAccount(user, &item.ns, &item.name)) {
      item.kind = ImpersonationItem::Kind::kServiceAccount;
    } else {
      item.kind = ImpersonationItem::Kind::kUser;
      item.name = user;
    }
    req.items.push_back(std::move(item));
  }
  bool has_groups = false;
  for (const auto& [k, v] : headers) {
    if (!IEquals(k, kGroupHeader)) continue;
    has_groups = true;
    req.items.push_back({ImpersonationItem::Kind::kGroup, "", v, ""});
  }
  bool has_extra = false;
  for (const auto& [k, v] : headers) {
    if (!IStartsWith(k, kExtraPrefix)) continue;
    has_extra = true;
    std::string key = UnescapeExtraKey(Lower(std::string_view(k).substr(kExtraPrefix.size())));
    req.items.push_back({ImpersonationItem::Kind::kUserExtra, "", v, std::move(key)});
  }
  std::string uid = first(kUidHeader);
  bool has_uid = !uid.empty();
  if (has_uid) req.items.push_back({ImpersonationItem::Kind::kUid, "", uid, ""});
  if ((has_groups || has_extra || has_uid) && !has_user) {
    req.error = "requested " + DescribeItems(req.items) + " without impersonating a user";
    req.items.clear();
  }
  return req;
}

Attributes ImpersonationAttributes(const http::Identity& requester, const ImpersonationItem& item) {
  Attributes a;
  a.user = &requester;
  a.verb = "impersonate";
  a.resource_request = true;
  a.name = item.name;
  switch (item.kind) {
    case ImpersonationItem::Kind::kUser:
      a.resource = "users";
      break;
    case ImpersonationItem::Kind::kServiceAccount:
      a.resource = "serviceaccounts";
      a.ns = item.ns;
      a.api_version = "v1";
      break;
    case ImpersonationItem::Kind::kGroup:
      a.resource = "groups";
      break;
    case ImpersonationItem::Kind::kUserExtra:
      a.resource = "userextras";
      a.subresource = item.extra_key;
      a.api_group = std::string(kAuthenticationGroup);
      a.api_version = "v1";
      break;
    case ImpersonationItem::Kind::kUid:
      a.resource = "uids";
      a.api_group = std::string(kAuthenticationGroup);
      a.api_version = "v1";
      break;
  }
  return a;
}

ImpersonationOutcome Impersonate(const http::Identity& requester, const http::Headers& headers,
                                 const Authorizer& authorizer) {
  ImpersonationOutcome out;
  ImpersonationRequest req = ParseImpersonationHeaders(headers);
  if (!req.error.empty()) {
    out.kind = ImpersonationOutcome::Kind::kBadRequest;
    out.message = std::move(req.error);
    return out;
  }
  if (req.items.empty()) return out;

  bool groups_specified = false;
  for (const auto& item : req.items) {
    groups_specified = groups_specified || item.kind == ImpersonationItem::Kind::kGroup;
  }
  http::Identity& id = out.identity;
  for (const ImpersonationItem& item : req.items) {
    switch (item.kind) {
      case ImpersonationItem::Kind::kServiceAccount:
        id.user = ServiceAccountUsername(item.ns, item.name);
        if (!groups_specified) {
          id.groups = {"system:serviceaccounts", "system:serviceaccounts:" + item.ns};
        }
        break;
      case ImpersonationItem::Kind::kUser:
        id.user = item.name;
        break;
      case ImpersonationItem::Kind::kGroup:
        id.groups.push_back(item.name);
        break;
      case ImpersonationItem::Kind::kUserExtra:
        id.extra[item.extra_key].push_back(item.name);
        break;
      case ImpersonationItem::Kind::kUid:
        id.uid = item.name;
        break;
    }
    Attributes attrs = ImpersonationAttributes(requester, item);
    Result r = authorizer.Authorize(attrs);
    if (r.decision != Decision::kAllow) {
      // Upstream answers 403 also when the authorizer errs.
      out.kind = ImpersonationOutcome::Kind::kForbidden;
      out.denied = std::move(attrs);
      out.reason = std::move(r.reason);
      out.identity = http::Identity{};
      return out;
    }
  }
  auto listed = [&](std::string_view g) { return HasGroup(id, g); };
  if (id.user != "system:anonymous") {
    if (!listed("system:authenticated") && !listed("system:unauthenticated")) {
      id.groups.push_back("system:authenticated");
    }
  } else if (!listed("system:unauthenticated")) {
    id.groups.push_back("system:unauthenticated");
  }
  out.kind = ImpersonationOutcome::Kind::kImpersonated;
  return out;
}

}  // namespace svcplane::apiserver::authorization
