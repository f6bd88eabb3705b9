#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/meta/types.h"

namespace svcplane::api::coordination::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

struct LeaseSpec {
  std::optional<std::string> holder_identity;
  std::optional<int32_t> lease_duration_seconds;
  std::optional<meta::MicroTime> acquire_time;
  std::optional<meta::MicroTime> renew_time;
  std::optional<int32_t> lease_transitions;
  std::optional<std::string> strategy;
  std::optional<std::string> preferred_holder;
  meta::UnknownFields unknown;
  bool operator==(const LeaseSpec&) const = default;
};
constexpr auto FieldsOf(Tag<LeaseSpec>) {
  using T = LeaseSpec;
  return std::make_tuple(F("holderIdentity", &T::holder_identity, kOmitEmpty, 1),
                         F("leaseDurationSeconds", &T::lease_duration_seconds, kOmitEmpty, 2),
                         F("acquireTime", &T::acquire_time, kOmitEmpty, 3),
                         F("renewTime", &T::renew_time, kOmitEmpty, 4),
                         F("leaseTransitions", &T::lease_transitions, kOmitEmpty, 5),
                         F("strategy", &T::strategy, kOmitEmpty, 6),
                         F("preferredHolder", &T::preferred_holder, kOmitEmpty, 7));
}

struct Lease {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  LeaseSpec spec;
  meta::UnknownFields unknown;
  bool operator==(const Lease&) const = default;
};
constexpr auto FieldsOf(Tag<Lease>) {
  using T = Lease;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1), F("spec", &T::spec, kAlways, 2));
}

}  // namespace svcplane::api::coordination::v1
