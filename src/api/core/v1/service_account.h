#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/meta/types.h"

// core/v1 ServiceAccount (k8s.io/api/core/v1/types.go).
namespace svcplane::api::core::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

// The name every namespace's own ServiceAccount has (created by the server, see
// apiserver/bootstrap/default_service_accounts.h).
inline constexpr std::string_view kDefaultServiceAccountName = "default";

struct LocalObjectReference {
  std::string name;
  meta::UnknownFields unknown;
  bool operator==(const LocalObjectReference&) const = default;
};
constexpr auto FieldsOf(Tag<LocalObjectReference>) {
  return std::make_tuple(F("name", &LocalObjectReference::name, kOmitEmpty, 1));
}

struct ServiceAccount {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  std::vector<meta::ObjectReference> secrets;
  std::vector<LocalObjectReference> image_pull_secrets;
  std::optional<bool> automount_service_account_token;
  meta::UnknownFields unknown;
  bool operator==(const ServiceAccount&) const = default;
};
constexpr auto FieldsOf(Tag<ServiceAccount>) {
  using T = ServiceAccount;
  return std::make_tuple(
      F("kind", &T::kind), F("apiVersion", &T::api_version),
      F("metadata", &T::metadata, kAlways, 1), F("secrets", &T::secrets, kOmitEmpty, 2),
      F("imagePullSecrets", &T::image_pull_secrets, kOmitEmpty, 3),
      F("automountServiceAccountToken", &T::automount_service_account_token, kOmitEmpty, 4));
}

}  // namespace svcplane::api::core::v1
