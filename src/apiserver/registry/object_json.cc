#include "apiserver/registry/object_json.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cstring>

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
constexpr std::string_view kKindOpen = "{\"kind\":\"";
constexpr std::string_view kApiVersionKey = "\",\"apiVersion\":\"";
constexpr std::string_view kMetadataAfterValue = "\",\"metadata\":{";

// The end of the JSON string value that starts at `from` (our encoder escapes every quote
// inside a value, so the first unescaped one ends it; kind and apiVersion have none), or npos.
size_t StringValueEnd(std::string_view s, size_t from) {
  if (from > s.size()) return std::string_view::npos;
  const void* q = std::memchr(s.data() + from, '"', s.size() - from);
  return q == nullptr ? std::string_view::npos : static_cast<const char*>(q) - s.data();
}

// Our encoder's layout, `{"kind":"K","apiVersion":"V","metadata":{`, found with two scans for
// a quote; anything else by searching. A list splices every item, and a general search stops
// at each of the many quotes before the metadata.
size_t FindMetadataInside(std::string_view stored) {
  if (stored.starts_with(kKindOpen)) {
    const size_t kind_end = StringValueEnd(stored, kKindOpen.size());
    if (kind_end != std::string_view::npos && stored.substr(kind_end).starts_with(kApiVersionKey)) {
      const size_t version_end = StringValueEnd(stored, kind_end + kApiVersionKey.size());
      if (version_end != std::string_view::npos &&
          stored.substr(version_end).starts_with(kMetadataAfterValue)) {
        return version_end + kMetadataAfterValue.size();
      }
    }
  }
  size_t pos = stored.find(kMetadataOpen);
  return pos == std::string_view::npos ? pos : pos + kMetadataOpen.size();
}

bool NeedsComma(std::string_view stored, size_t pos) {
  return pos < stored.size() && stored[pos] != '}';
}

void SpliceRevision(std::string_view stored, size_t pos, storage::Revision rv, std::string* out) {
  if (pos == std::string_view::npos) {
    out->append(stored);
    return;
  }
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), rv);
  const std::string_view digits(buf, static_cast<size_t>(r.ptr - buf));
  const bool comma = NeedsComma(stored, pos);
  const size_t at = out->size();
  // One resize and plain copies: appending the four parts one by one re-checks capacity and
  // length for each.
  out->resize(at + stored.size() + kResourceVersionKey.size() + digits.size() + 1 + comma);
  char* w = out->data() + at;
  w = std::copy_n(stored.data(), pos, w);
  w = std::copy_n(kResourceVersionKey.data(), kResourceVersionKey.size(), w);
  w = std::copy_n(digits.data(), digits.size(), w);
  *w++ = '"';
  if (comma) *w++ = ',';
  std::copy_n(stored.data() + pos, stored.size() - pos, w);
}

}  // namespace

void AppendWithResourceVersion(std::string_view stored, storage::Revision rv, std::string* out) {
  SpliceRevision(stored, FindMetadataInside(stored), rv, out);
}

namespace {

uint32_t FindSplice(const std::string& stored) {
  const size_t pos = FindMetadataInside(stored);
  return pos != std::string_view::npos && pos < UINT32_MAX - 1 ? static_cast<uint32_t>(pos)
                                                               : UINT32_MAX;
}

}  // namespace

ObjectJson::ObjectJson(std::shared_ptr<const std::string> bytes, storage::Revision revision)
    : bytes_(std::move(bytes)), revision_(revision) {
  if (bytes_ && revision_ != 0) splice_.store(FindSplice(*bytes_), std::memory_order_relaxed);
}

ObjectJson::ObjectJson(std::shared_ptr<const std::string> bytes, storage::Revision revision,
                       FindSpliceWhenWritten)
    : bytes_(std::move(bytes)), revision_(revision) {
  if (bytes_ && revision_ != 0) splice_.store(kNotFoundYet, std::memory_order_relaxed);
}

ObjectJson& ObjectJson::operator=(const ObjectJson& other) {
  bytes_ = other.bytes_;
  revision_ = other.revision_;
  splice_.store(other.splice_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  return *this;
}

ObjectJson& ObjectJson::operator=(ObjectJson&& other) noexcept {
  bytes_ = std::move(other.bytes_);
  revision_ = other.revision_;
  splice_.store(other.splice_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  return *this;
}

uint32_t ObjectJson::Splice() const {
  uint32_t splice = splice_.load(std::memory_order_relaxed);
  if (splice == kNotFoundYet) {
    splice = FindSplice(*bytes_);
    splice_.store(splice, std::memory_order_relaxed);
  }
  return splice;
}

size_t ObjectJson::size() const {
  if (!bytes_) return 0;
  const std::string_view stored = *bytes_;
  const uint32_t splice = Splice();
  if (splice == kNoSplice) return stored.size();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), revision_);
  return stored.size() + kResourceVersionKey.size() + static_cast<size_t>(r.ptr - buf) + 1 +
         (NeedsComma(stored, splice) ? 1 : 0);
}

void ObjectJson::AppendTo(std::string* out) const {
  if (!bytes_) return;
  const uint32_t splice = Splice();
  if (splice == kNoSplice) {
    out->append(*bytes_);
  } else {
    SpliceRevision(*bytes_, splice, revision_, out);
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
