#pragma once

#include <string>

namespace svcplane {

// A random (version 4) UUID in canonical form, as Kubernetes assigns to metadata.uid.
std::string NewUuid();

// `n` random characters from Kubernetes' generateName alphabet ("bcdfghjklmnpqrstvwxz2456789").
std::string RandomNameSuffix(int n = 5);

}  // namespace svcplane
