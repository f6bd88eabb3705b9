#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http/handler.h"
#include "base/result.h"

// kube-apiserver's --token-auth-file (k8s.io/apiserver pkg/authentication/token/tokenfile):
// a CSV file of `token,user,uid[,"group1,group2"]` lines, read once at start.
namespace svcplane::apiserver::http {

// Go encoding/csv with FieldsPerRecord = -1: RFC 4180 quoting ("" inside a quoted field is one
// quote; quoted fields may hold commas and newlines), variable field counts, blank lines
// skipped, \r\n read as \n, no trimming. Errors read like Go's csv.ParseError:
// `parse error on line 2, column 5: bare " in non-quoted-field`.
Result<std::vector<std::vector<std::string>>> ParseCsv(std::string_view data);

// The tokens of a token file, indexed by the SHA-256 of each token so that a lookup compares
// fixed-size digests in constant time and leaks neither the tokens nor their lengths.
// Immutable after Parse; safe to share between threads.
class TokenFile {
 public:
  using Digest = std::array<uint8_t, 32>;

  // `path` only names the file in errors and warnings. Errors (Invalid): CSV syntax, or a record
  // of fewer than 3 columns: `token file '<path>' must have at least 3 columns (token, user
  // name, user uid), found <n>`. A record with an empty token is skipped with a warning; a
  // repeated token replaces the earlier one (last wins) with a warning. Groups are the 4th
  // column split on ',' without trimming; columns past the 4th are ignored.
  static Result<TokenFile> Parse(std::string_view path, std::string_view data,
                                 std::vector<std::string>* warnings = nullptr);
  // Reads and parses the file; Invalid also when it cannot be read.
  static Result<TokenFile> Load(const std::string& path,
                                std::vector<std::string>* warnings = nullptr);

  // The user of `token`, or nullptr. Same work whatever the token (one SHA-256, one map probe
  // over digests, one constant-time compare).
  const Identity* Lookup(std::string_view token) const;
  size_t size() const { return users_.size(); }

 private:
  std::map<Digest, Identity> users_;
};

}  // namespace svcplane::apiserver::http
