#include "apiserver/http/auth.h"

#include <openssl/crypto.h>

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace svcplane::apiserver::http {
namespace {

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool Contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

BearerHeader ParseBearerHeader(std::string_view auth) {
  // Go's strings.TrimSpace: ASCII white space (and Unicode spaces, which a header value
  // carries only as UTF-8 bytes no client sends here).
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (!auth.empty() && space(auth.front())) auth.remove_prefix(1);
  while (!auth.empty() && space(auth.back())) auth.remove_suffix(1);
  // strings.SplitN(auth, " ", 3): only the scheme and the token matter.
  size_t first = auth.find(' ');
  if (first == std::string_view::npos) return {};
  if (!IEquals(auth.substr(0, first), "bearer")) return {};
  std::string_view rest = auth.substr(first + 1);
  std::string_view token = rest.substr(0, rest.find(' '));
  if (token.empty()) {
    // "Bearer  tok": upstream sees an empty token and warns when something followed it.
    if (rest.find(' ') != std::string_view::npos) return {BearerHeader::Kind::kExtraSpace, {}};
    return {};
  }
  return {BearerHeader::Kind::kToken, token};
}

Authenticator BearerTokenAuthenticator(BearerTokens tokens) {
  return [t = std::move(tokens)](const Request& req) -> AuthResult {
    auto header = req.Header("Authorization");
    if (!header) return AuthResult::NoOpinion();
    BearerHeader parsed = ParseBearerHeader(*header);
    if (parsed.kind == BearerHeader::Kind::kExtraSpace) {
      AuthResult r;
      r.warnings.emplace_back(kExtraSpaceWarning);
      return r;
    }
    if (parsed.kind != BearerHeader::Kind::kToken) return AuthResult::NoOpinion();
    const std::string_view presented = parsed.token;
    // Constant time for the presented length; only a wrong length is told apart early, and
    // the admin token's length is no secret (a fixed-size random string). Hashing here would
    // cost ~2.5% of an I/O thread's CPU per request (OpenSSL 3 fetches the digest under a
    // lock on every one-shot SHA256 call).
    for (const auto& [token, identity] :
         {std::pair<const std::string&, const Identity&>{t.fast_token, t.fast_identity},
          {t.break_glass_token, t.break_glass_identity}}) {
      if (!token.empty() && presented.size() == token.size() &&
          CRYPTO_memcmp(presented.data(), token.data(), presented.size()) == 0) {
        AuthResult r = AuthResult::Authenticated(identity);
        r.consumed_authorization = true;
        return r;
      }
    }
    if (t.tokens) {
      if (const Identity* id = t.tokens->Lookup(presented)) {
        AuthResult r = AuthResult::Authenticated(*id);
        r.consumed_authorization = true;
        return r;
      }
    }
    return AuthResult::Failed("invalid bearer token");
  };
}

Authenticator BearerTokenAuthenticator(std::string token, Identity identity) {
  return BearerTokenAuthenticator(BearerTokens{std::move(token), std::move(identity), nullptr});
}

Authenticator X509Authenticator() {
  return [](const Request& req) -> AuthResult {
    const auto& cert = req.peer_certificate;
    if (!cert) return AuthResult::NoOpinion();
    if (!cert->verified) {
      spdlog::info("verifying certificate SN={}, SKID={}, AKID={} failed: {}", cert->serial,
                   cert->subject_key_id, cert->authority_key_id, cert->verify_error);
      return AuthResult::Failed("x509: " + cert->verify_error);
    }
    if (cert->common_name.empty()) return AuthResult::NoOpinion();
    Identity id;
    id.user = cert->common_name;
    id.groups = cert->organizations;
    if (cert->uids.size() > 1) {
      return AuthResult::Failed("x509: expected 1 UID, but found multiple UIDs");
    }
    if (cert->uids.size() == 1) {
      if (cert->uids.front().empty()) return AuthResult::Failed("x509: UID cannot be empty");
      id.uid = cert->uids.front();
    }
    id.extra.emplace(std::string(kCredentialIdKey),
                     std::vector<std::string>{"X509SHA256=" + cert->sha256_hex});
    return AuthResult::Authenticated(std::move(id));
  };
}

Authenticator Union(std::vector<Authenticator> authenticators) {
  return [all = std::move(authenticators)](const Request& req) -> AuthResult {
    std::vector<std::string> warnings;
    std::string errors;
    for (const auto& a : all) {
      AuthResult r = a(req);
      for (auto& w : r.warnings) warnings.push_back(std::move(w));
      if (r.authenticated()) {
        r.warnings = std::move(warnings);
        return r;
      }
      if (r.outcome == AuthResult::Outcome::kFailed) {
        errors += (errors.empty() ? "" : ", ") + r.error;
      }
    }
    AuthResult out = errors.empty() ? AuthResult::NoOpinion() : AuthResult::Failed(errors);
    out.warnings = std::move(warnings);
    return out;
  };
}

void AddAuthenticatedGroup(Identity* id) {
  if (id->user == kAnonymousUser) return;
  if (Contains(id->groups, kAuthenticatedGroup) || Contains(id->groups, kUnauthenticatedGroup)) {
    return;
  }
  id->groups.emplace_back(kAuthenticatedGroup);
}

Authenticator WithAuthenticatedGroup(Authenticator inner) {
  return [inner = std::move(inner)](const Request& req) -> AuthResult {
    AuthResult r = inner(req);
    if (r.authenticated()) AddAuthenticatedGroup(&r.identity);
    return r;
  };
}

Identity AnonymousIdentity() {
  Identity id;
  id.user = std::string(kAnonymousUser);
  id.groups = {std::string(kUnauthenticatedGroup)};
  return id;
}

Authenticator WithAnonymous(Authenticator inner) {
  return [inner = std::move(inner)](const Request& req) -> AuthResult {
    AuthResult r = inner(req);
    if (r.outcome != AuthResult::Outcome::kNoOpinion) return r;
    AuthResult anon = AuthResult::Authenticated(AnonymousIdentity());
    anon.warnings = std::move(r.warnings);
    return anon;
  };
}

Identity AdminIdentity() {
  return Identity{"kubernetes-admin",
                  {std::string(kClusterAdminsGroup), std::string(kAuthenticatedGroup)},
                  "",
                  {}};
}

Identity SuperAdminIdentity() {
  return Identity{
      "kubernetes-super-admin", {"system:masters", std::string(kAuthenticatedGroup)}, "", {}};
}

}  // namespace svcplane::apiserver::http
