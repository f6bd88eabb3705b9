#pragma once

#include <functional>
#include <map>
#include <string>

namespace svcplane::api::meta {

// Labels, annotations, selectors' matchLabels and Service selectors. Ordered so that encoding
// is deterministic (kube-apiserver also writes map keys sorted); transparent comparator so that
// lookups by string_view allocate nothing.
using StringMap = std::map<std::string, std::string, std::less<>>;

}  // namespace svcplane::api::meta
