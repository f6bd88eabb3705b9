#pragma once

#include <chrono>
#include <string>

#include "api/meta/scalars.h"

namespace svcplane::apiserver::table {

using TimePoint = std::chrono::system_clock::time_point;

// k8s.io/apimachinery/pkg/util/duration.HumanDuration: "45s", "3m20s", "5h2m", "3d4h", "2y10d".
// Up to 2 s in the future is still "0s" (clock skew); more is "<invalid>".
std::string HumanDuration(std::chrono::microseconds d);

// kubectl's AGE: HumanDuration(now - t), or "<unknown>" for a zero time.
std::string TimestampSince(const api::meta::Time& t, TimePoint now);
std::string TimestampSince(const api::meta::MicroTime& t, TimePoint now);
// For RFC 3339 text read from untyped JSON (container statuses); "" → "<unknown>".
std::string TimestampSince(int64_t unix_micros, bool set, TimePoint now);

}  // namespace svcplane::apiserver::table
