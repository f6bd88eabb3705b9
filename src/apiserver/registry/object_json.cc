#include "apiserver/registry/object_json.h"

#include <boost/json.hpp>
#include <charconv>

namespace svcplane::apiserver::registry {
namespace {

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += kB64[v & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-' || c == '+') return 62;
    if (c == '_' || c == '/') return 63;
    return -1;
  };
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

}  // namespace

std::string WithResourceVersion(std::string_view stored, storage::Revision rv) {
  std::string out;
  out.reserve(stored.size() + 40);
  AppendWithResourceVersion(stored, rv, &out);
  return out;
}

namespace {

constexpr std::string_view kMetadataOpen = "\"metadata\":{";
constexpr std::string_view kResourceVersionKey = "\"resourceVersion\":\"";

// Where the resourceVersion member goes in stored JSON (just inside the object's metadata), or
// npos for JSON we did not write, which is written as it is.
size_t SplicePosition(std::string_view stored) {
  size_t pos = stored.find(kMetadataOpen);
  return pos == std::string_view::npos ? pos : pos + kMetadataOpen.size();
}

bool NeedsComma(std::string_view stored, size_t pos) {
  return pos < stored.size() && stored[pos] != '}';
}

}  // namespace

void AppendWithResourceVersion(std::string_view stored, storage::Revision rv, std::string* out) {
  const size_t pos = SplicePosition(stored);
  if (pos == std::string_view::npos) {
    out->append(stored);
    return;
  }
  out->append(stored.substr(0, pos));
  out->append(kResourceVersionKey);
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), rv);
  out->append(buf, static_cast<size_t>(r.ptr - buf));
  out->push_back('"');
  if (NeedsComma(stored, pos)) out->push_back(',');
  out->append(stored.substr(pos));
}

size_t ObjectJson::size() const {
  if (!bytes_) return 0;
  const std::string_view stored = *bytes_;
  const size_t pos = revision_ == 0 ? std::string_view::npos : SplicePosition(stored);
  if (pos == std::string_view::npos) return stored.size();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), revision_);
  return stored.size() + kResourceVersionKey.size() + static_cast<size_t>(r.ptr - buf) + 1 +
         (NeedsComma(stored, pos) ? 1 : 0);
}

void ObjectJson::AppendTo(std::string* out) const {
  if (!bytes_) return;
  if (revision_ == 0) {
    out->append(*bytes_);
  } else {
    AppendWithResourceVersion(*bytes_, revision_, out);
  }
}

std::string ObjectJson::str() const {
  std::string out;
  out.reserve(size());
  AppendTo(&out);
  return out;
}

std::string ObjectKey(std::string_view prefix, std::string_view ns, std::string_view name) {
  std::string key(prefix);
  key.push_back('/');
  if (!ns.empty()) {
    key.append(ns);
    key.push_back('/');
  }
  key.append(name);
  return key;
}

std::string CollectionPrefix(std::string_view prefix, std::string_view ns) {
  std::string key(prefix);
  key.push_back('/');
  if (!ns.empty()) {
    key.append(ns);
    key.push_back('/');
  }
  return key;
}

std::string EncodeContinueToken(const ContinueToken& token) {
  boost::json::object o;
  o["v"] = "meta.k8s.io/v1";
  o["rv"] = token.revision;
  o["start"] = token.start;
  return Base64UrlEncode(boost::json::serialize(o));
}

Result<ContinueToken> DecodeContinueToken(std::string_view token) {
  auto raw = Base64UrlDecode(token);
  if (!raw) return BadRequestError("invalid continue token: not base64url");
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(*raw, ec);
  if (ec || !v.is_object()) return BadRequestError("invalid continue token: not JSON");
  const auto& o = v.as_object();
  const auto* ver = o.if_contains("v");
  if (!ver || !ver->is_string() || ver->as_string() != "meta.k8s.io/v1") {
    return BadRequestError("invalid continue token: unknown version");
  }
  const auto* rv = o.if_contains("rv");
  const auto* start = o.if_contains("start");
  if (!rv || !rv->is_int64() || !start || !start->is_string()) {
    return BadRequestError("invalid continue token: missing rv or start");
  }
  return ContinueToken{rv->as_int64(), std::string(start->as_string())};
}

Result<storage::Revision> ParseResourceVersion(std::string_view rv) {
  storage::Revision out = 0;
  auto r = std::from_chars(rv.data(), rv.data() + rv.size(), out);
  if (rv.empty() || r.ec != std::errc() || r.ptr != rv.data() + rv.size() || out < 0) {
    return BadRequestError("invalid resource version \"" + std::string(rv) + "\"");
  }
  return out;
}

}  // namespace svcplane::apiserver::registry
