// libFuzzer target: the Authorization header parser, the bearer authenticator chain and the
// token-file (CSV) parser must never crash, whatever the bytes; a parsed bearer token is a
// non-empty view into the header without spaces, and a parsed token file answers lookups of
// every token it was built from.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "apiserver/http/auth.h"
#include "apiserver/http/token_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace svcplane::apiserver::http;
  std::string_view input(reinterpret_cast<const char*>(data), size);

  BearerHeader parsed = ParseBearerHeader(input);
  if (parsed.kind == BearerHeader::Kind::kToken) {
    if (parsed.token.empty() || parsed.token.find(' ') != std::string_view::npos) std::abort();
    if (parsed.token.data() < input.data() ||
        parsed.token.data() + parsed.token.size() > input.data() + input.size()) {
      std::abort();
    }
  }

  auto file = TokenFile::Parse("fuzz.csv", input);
  if (file.ok()) {
    auto records = ParseCsv(input);
    if (!records.ok()) std::abort();  // the same CSV must parse twice the same way
    for (const auto& rec : *records) {
      if (rec.size() < 3) std::abort();  // Parse refuses such files
      if (!rec[0].empty() && file->Lookup(rec[0]) == nullptr) std::abort();
    }
  }

  auto tokens = std::make_shared<TokenFile>(file.ok() ? std::move(*file) : TokenFile());
  Authenticator chain = WithAnonymous(WithAuthenticatedGroup(
      Union({X509Authenticator(),
             BearerTokenAuthenticator(BearerTokens{"admin", AdminIdentity(), tokens})})));
  Request req;
  req.headers.emplace_back("Authorization", std::string(input));
  AuthResult r = chain(req);
  if (r.outcome == AuthResult::Outcome::kNoOpinion) std::abort();  // anonymous catches it
  return 0;
}
