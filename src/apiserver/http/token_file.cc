#include "apiserver/http/token_file.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/check.h"

namespace svcplane::apiserver::http {
namespace {

TokenFile::Digest Sha256(std::string_view data) {
  TokenFile::Digest d{};
  unsigned int len = 0;
  SVC_CHECK(EVP_Digest(data.data(), data.size(), d.data(), &len, EVP_sha256(), nullptr) == 1 &&
            len == d.size());
  return d;
}

Status CsvError(size_t line, size_t column, std::string_view what) {
  return InvalidError(fmt::format("parse error on line {}, column {}: {}", line, column, what));
}

std::vector<std::string> SplitComma(std::string_view s) {
  std::vector<std::string> out;  // Go's strings.Split: "" gives [""]
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    if (comma == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, comma - start));
    start = comma + 1;
  }
}

}  // namespace

Result<std::vector<std::vector<std::string>>> ParseCsv(std::string_view data) {
  std::vector<std::vector<std::string>> records;
  size_t i = 0, line = 1;
  auto at_line_end = [&](size_t p) {
    return p >= data.size() || data[p] == '\n' ||
           (data[p] == '\r' && p + 1 < data.size() && data[p + 1] == '\n');
  };
  auto skip_line_end = [&](size_t* p) {
    if (*p < data.size() && data[*p] == '\r') ++*p;
    if (*p < data.size() && data[*p] == '\n') ++*p;
  };
  while (i < data.size()) {
    size_t line_start = i;
    if (at_line_end(i)) {  // blank line
      skip_line_end(&i);
      ++line;
      continue;
    }
    std::vector<std::string> record;
    while (true) {
      std::string field;
      if (i < data.size() && data[i] == '"') {
        const size_t quote_line = line;
        ++i;
        while (true) {
          if (i >= data.size()) {
            return CsvError(quote_line, i - line_start + 1,
                            "extraneous or missing \" in quoted-field");
          }
          char c = data[i];
          if (c == '"') {
            if (i + 1 < data.size() && data[i + 1] == '"') {
              field.push_back('"');
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (c == '\r' && i + 1 < data.size() && data[i + 1] == '\n') {
            field.push_back('\n');
            i += 2;
            ++line;
            line_start = i;
            continue;
          }
          if (c == '\n') {
            ++line;
            line_start = i + 1;
          }
          field.push_back(c);
          ++i;
        }
        if (!(at_line_end(i) || data[i] == ',')) {
          return CsvError(line, i - line_start + 1, "extraneous or missing \" in quoted-field");
        }
      } else {
        while (!at_line_end(i) && data[i] != ',') {
          if (data[i] == '"') {
            return CsvError(line, i - line_start + 1, "bare \" in non-quoted-field");
          }
          field.push_back(data[i]);
          ++i;
        }
      }
      record.push_back(std::move(field));
      if (i < data.size() && data[i] == ',') {
        ++i;
        continue;
      }
      skip_line_end(&i);
      ++line;
      break;
    }
    records.push_back(std::move(record));
  }
  return records;
}

Result<TokenFile> TokenFile::Parse(std::string_view path, std::string_view data,
                                   std::vector<std::string>* warnings) {
  auto records = ParseCsv(data);
  if (!records.ok()) {
    return InvalidError(fmt::format("token file '{}': {}", path, records.status().message()));
  }
  TokenFile file;
  size_t record_num = 0;
  for (auto& rec : *records) {
    if (rec.size() < 3) {
      return InvalidError(fmt::format(
          "token file '{}' must have at least 3 columns (token, user name, user uid), found {}",
          path, rec.size()));
    }
    ++record_num;
    if (rec[0].empty()) {
      if (warnings) {
        warnings->push_back(fmt::format(
            "empty token has been found in token file '{}', record number '{}'", path, record_num));
      }
      continue;
    }
    Identity id;
    id.user = std::move(rec[1]);
    id.uid = std::move(rec[2]);
    if (rec.size() >= 4) id.groups = SplitComma(rec[3]);
    auto [it, inserted] = file.users_.insert_or_assign(Sha256(rec[0]), std::move(id));
    if (!inserted && warnings) {
      warnings->push_back(
          fmt::format("duplicate token has been found in token file '{}', record number '{}'", path,
                      record_num));
    }
  }
  return file;
}

Result<TokenFile> TokenFile::Load(const std::string& path, std::vector<std::string>* warnings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidError(fmt::format("token file '{}' cannot be read", path));
  std::ostringstream data;
  data << in.rdbuf();
  if (in.bad()) return InvalidError(fmt::format("token file '{}' cannot be read", path));
  return Parse(path, data.str(), warnings);
}

const Identity* TokenFile::Lookup(std::string_view token) const {
  const Digest want = Sha256(token);
  auto it = users_.find(want);
  if (it == users_.end()) return nullptr;
  // The map already found equal digests; comparing again in constant time keeps the accept
  // path from depending on a library's early-exit comparison.
  if (CRYPTO_memcmp(it->first.data(), want.data(), want.size()) != 0) return nullptr;
  return &it->second;
}

}  // namespace svcplane::apiserver::http
