#include "api/codec/internal/minify.h"

namespace svcplane::api::codec::internal {
namespace {

const simdjson::implementation* MinifyImplementation() {
  const simdjson::implementation* avx2 = simdjson::get_available_implementations()["haswell"];
  if (avx2 != nullptr && avx2->supported_by_runtime_system()) return avx2;
  return simdjson::get_active_implementation();
}

}  // namespace

simdjson::error_code Minify(const char* buf, size_t len, char* dst, size_t& dst_len) {
  static const simdjson::implementation* const impl = MinifyImplementation();
  return impl->minify(reinterpret_cast<const uint8_t*>(buf), len, reinterpret_cast<uint8_t*>(dst),
                      dst_len);
}

}  // namespace svcplane::api::codec::internal
