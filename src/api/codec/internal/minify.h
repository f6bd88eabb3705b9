#pragma once

#include <simdjson.h>

#include <cstddef>

namespace svcplane::api::codec::internal {

// simdjson::minify, with simdjson's AVX2 ("haswell") kernel whenever the CPU has AVX2. simdjson
// picks its AVX-512 ("icelake") kernel where that is available, and that kernel's minifier
// stores with vpcompressb, which AMD Zen 4 runs in microcode: on the AMD EPYC machine this was
// measured on, minifying a 4 KB Pod took 4.0 us with it and 0.6 us with the AVX2 kernel, the
// largest single cost of auditing a create at Request level. Same output either way.
simdjson::error_code Minify(const char* buf, size_t len, char* dst, size_t& dst_len);

}  // namespace svcplane::api::codec::internal
