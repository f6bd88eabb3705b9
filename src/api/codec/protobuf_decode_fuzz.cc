// libFuzzer target: the protobuf decoders (envelope, every kind, watch frames) must never crash,
// and whatever decodes must re-encode to bytes that decode to the same object.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/codec/json.h"
#include "api/codec/protobuf.h"

namespace {

template <typename T>
void RoundTrip(std::string_view input) {
  using namespace svcplane::api::codec;
  auto decoded = DecodeProtobuf<T>(input);
  if (!decoded.ok()) return;
  std::string encoded = EncodeProtobuf(*decoded, decoded->api_version, decoded->kind);
  auto again = DecodeProtobuf<T>(encoded);
  if (!again.ok() || !(*again == *decoded)) std::abort();
  // What we store from it must be valid JSON that decodes again.
  if (!DecodeJson<T>(EncodeJson(*decoded)).ok()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace svcplane::api;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  RoundTrip<core::v1::Pod>(input);
  RoundTrip<core::v1::Service>(input);
  RoundTrip<core::v1::Node>(input);
  RoundTrip<discovery::v1::EndpointSlice>(input);
  RoundTrip<coordination::v1::Lease>(input);
  RoundTrip<PodList>(input);
  std::string_view stream = input;
  for (int i = 0; i < 4; ++i) {
    auto frame = codec::NextProtobufWatchFrame(&stream, 1 << 20);
    if (!frame.ok() || !frame->has_value()) break;
    RoundTrip<core::v1::Pod>((*frame)->object);
  }
  return 0;
}
