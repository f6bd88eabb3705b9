#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "api/meta/scalars.h"
#include "api/meta/string_map.h"
#include "api/meta/types.h"

// core/v1 ConfigMap and Secret (k8s.io/api/core/v1/types.go): JSON in Go struct order, protobuf
// field numbers of upstream's generated.proto.
namespace svcplane::api::core::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

// map[string][]byte: base64 values in JSON.
using BytesMap = std::map<std::string, meta::Bytes, std::less<>>;

struct ConfigMap {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  std::optional<bool> immutable;
  meta::StringMap data;
  BytesMap binary_data;
  meta::UnknownFields unknown;
  bool operator==(const ConfigMap&) const = default;
};
constexpr auto FieldsOf(Tag<ConfigMap>) {
  using T = ConfigMap;
  return std::make_tuple(
      F("kind", &T::kind), F("apiVersion", &T::api_version),
      F("metadata", &T::metadata, kAlways, 1), F("immutable", &T::immutable, kOmitEmpty, 4),
      F("data", &T::data, kOmitEmpty, 2), F("binaryData", &T::binary_data, kOmitEmpty, 3));
}

// Secret types (SecretType) and the keys their data must carry.
inline constexpr std::string_view kSecretTypeOpaque = "Opaque";
inline constexpr std::string_view kSecretTypeServiceAccountToken =
    "kubernetes.io/service-account-token";
inline constexpr std::string_view kSecretTypeDockercfg = "kubernetes.io/dockercfg";
inline constexpr std::string_view kSecretTypeDockerConfigJson = "kubernetes.io/dockerconfigjson";
inline constexpr std::string_view kSecretTypeBasicAuth = "kubernetes.io/basic-auth";
inline constexpr std::string_view kSecretTypeSshAuth = "kubernetes.io/ssh-auth";
inline constexpr std::string_view kSecretTypeTls = "kubernetes.io/tls";
inline constexpr std::string_view kSecretTypeBootstrapToken = "bootstrap.kubernetes.io/token";

struct Secret {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  std::optional<bool> immutable;
  BytesMap data;
  // Write-only: folded into `data` on create and update, never stored (secret strategy).
  meta::StringMap string_data;
  std::string type;
  meta::UnknownFields unknown;
  bool operator==(const Secret&) const = default;
};
constexpr auto FieldsOf(Tag<Secret>) {
  using T = Secret;
  return std::make_tuple(
      F("kind", &T::kind), F("apiVersion", &T::api_version),
      F("metadata", &T::metadata, kAlways, 1), F("immutable", &T::immutable, kOmitEmpty, 5),
      F("data", &T::data, kOmitEmpty, 2), F("stringData", &T::string_data, kOmitEmpty, 4),
      F("type", &T::type, kOmitEmpty, 3));
}

}  // namespace svcplane::api::core::v1
