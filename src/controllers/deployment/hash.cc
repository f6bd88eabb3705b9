#include "controllers/deployment/hash.h"

#include "api/apps/v1/apps.h"
#include "api/codec/json.h"

namespace svcplane::controllers::deployment {

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
  carrier.spec.template_ = template_;
  carrier.spec.template_.metadata.labels.erase(kPodTemplateHashLabel);
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
