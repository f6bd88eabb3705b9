#pragma once

#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/result.h"

namespace svcplane {

// A Go time.Duration string: "15s", "100ms", "1m30s", "1.5h", "0". Units ns us µs ms s m h.
// Errors are Invalid with Go's own messages (`time: invalid duration "abc"`,
// `time: missing unit in duration "15"`, `time: unknown unit "d" in duration "3d"`), which
// kube-apiserver passes on to clients (e.g. for a bad ?timeout=).
Result<Duration> ParseGoDuration(std::string_view text);
// "15s", "1m30s", "100ms" (Go's String() form, for --help defaults and logs).
std::string FormatGoDuration(Duration d);

}  // namespace svcplane
