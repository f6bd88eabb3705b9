#include "controllers/deployment/hash.h"

#include <algorithm>
#include <cctype>

#include "api/apps/v1/apps.h"
#include "api/codec/json.h"

namespace svcplane::controllers::deployment {

namespace {

// Drops raw members holding a Go zero value (see CanonicalTemplate) and sorts the rest by name.
void NormalizeUnknown(api::meta::UnknownFields& u) {
  if (u.empty()) return;
  std::vector<std::pair<std::string, std::string>> kept;
  for (const auto& [key, raw] : u.items) {
    std::string_view v = raw;
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    if (v == "false" || v == "0" || v == "\"\"" || v == "null" || v == "[]") continue;
    kept.emplace_back(key, std::string(v));
  }
  std::sort(kept.begin(), kept.end());
  u.items.clear();
  for (auto& item : kept) u.items.push_back(std::move(item));
}

void NormalizeContainers(std::vector<api::core::v1::Container>& containers) {
  for (auto& c : containers) {
    NormalizeUnknown(c.unknown);
    for (auto& p : c.ports) NormalizeUnknown(p.unknown);
  }
}

}  // namespace

api::core::v1::PodTemplateSpec CanonicalTemplate(const api::core::v1::PodTemplateSpec& t) {
  api::core::v1::PodTemplateSpec c = t;
  c.metadata.labels.erase(kPodTemplateHashLabel);
  NormalizeUnknown(c.unknown);
  NormalizeUnknown(c.metadata.unknown);
  NormalizeUnknown(c.spec.unknown);
  NormalizeContainers(c.spec.containers);
  if (c.spec.rest.allocated()) NormalizeContainers(c.spec.rest->init_containers);
  for (auto& g : c.spec.readiness_gates) NormalizeUnknown(g.unknown);
  return c;
}

std::string SafeEncodeString(std::string_view s) {
  static constexpr std::string_view kAlphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::string out(s.size(), ' ');
  for (size_t i = 0; i < s.size(); ++i) {
    out[i] = kAlphanums[static_cast<unsigned char>(s[i]) % kAlphanums.size()];
  }
  return out;
}

uint32_t Fnv1a32(std::string_view data, uint32_t hash) {
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

std::string ComputePodTemplateHash(const api::core::v1::PodTemplateSpec& template_,
                                   std::optional<int32_t> collision_count) {
  // The template's JSON as the API writes it: typed fields in declaration order, maps sorted by
  // key, unknown members verbatim. It is carried inside an otherwise empty ReplicaSet because
  // that is a kind the codec encodes; the envelope is the same bytes for every template.
  api::apps::v1::ReplicaSet carrier;
  carrier.spec.template_ = CanonicalTemplate(template_);
  uint32_t h = Fnv1a32(api::codec::EncodeJson(carrier));
  if (collision_count.has_value()) {
    // hashutil writes binary.LittleEndian.PutUint32 into an 8-byte buffer and hashes all 8.
    const auto v = static_cast<uint32_t>(*collision_count);
    const char bytes[8] = {static_cast<char>(v & 0xff),
                           static_cast<char>((v >> 8) & 0xff),
                           static_cast<char>((v >> 16) & 0xff),
                           static_cast<char>((v >> 24) & 0xff),
                           0,
                           0,
                           0,
                           0};
    h = Fnv1a32(std::string_view(bytes, sizeof(bytes)), h);
  }
  return SafeEncodeString(std::to_string(h));
}

}  // namespace svcplane::controllers::deployment
