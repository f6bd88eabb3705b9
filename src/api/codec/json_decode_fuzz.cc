// libFuzzer target: the typed JSON decoders and the YAML front end must never crash, and
// whatever decodes must re-encode to JSON that decodes to the same object.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/codec/json.h"
#include "api/codec/yaml.h"

namespace {

template <typename T>
void RoundTrip(std::string_view input) {
  using namespace svcplane::api::codec;
  auto decoded = DecodeJson<T>(input);
  if (!decoded.ok()) return;
  std::string encoded = EncodeJson(*decoded);
  auto again = DecodeJson<T>(encoded);
  if (!again.ok() || !(*again == *decoded)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace svcplane::api;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  RoundTrip<core::v1::Pod>(input);
  RoundTrip<core::v1::Service>(input);
  RoundTrip<discovery::v1::EndpointSlice>(input);
  RoundTrip<coordination::v1::Lease>(input);
  auto docs = codec::YamlToJson(input.substr(0, 4096));
  if (docs.ok()) {
    for (const auto& d : *docs) RoundTrip<core::v1::Node>(d);
  }
  return 0;
}
