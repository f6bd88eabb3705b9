// ConfigMap, Secret and ServiceAccount validation (pkg/apis/core/validation: ValidateConfigMap,
// ValidateSecret, ValidateServiceAccount and their updates).

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/validation/internal/common.h"
#include "api/validation/internal/raw_json.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

constexpr std::string_view kImmutableWhenSet = "field is immutable when `immutable` is set";
// Secret values never appear in a message (upstream's placeholder).
constexpr std::string_view kRedacted = "<secret contents redacted>";

bool IsConfigKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

// The checks of ValidateConfigMap/ValidateSecret on one bag of keys.
template <typename Map>
void CheckKeys(const Map& bag, const FieldPath& path, FieldErrorList* errs, int64_t* total) {
  for (const auto& [key, value] : bag) {
    for (auto& msg : ConfigMapKeyErrors(key)) errs->push_back(Invalid(path.Key(key), key, msg));
    if constexpr (std::is_same_v<typename Map::mapped_type, meta::Bytes>) {
      *total += static_cast<int64_t>(value.data.size());
    } else {
      *total += static_cast<int64_t>(value.size());
    }
  }
}

bool IsImmutable(const std::optional<bool>& v) { return v.has_value() && *v; }

// The error of Go's json.Unmarshal(b, &map[string]interface{}{}) for the common shapes of bad
// input (the data is otherwise known to be a valid object).
std::string JsonObjectError(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos) return "unexpected end of JSON input";
  const char c = text[i];
  auto type_error = [](std::string_view what) {
    return "json: cannot unmarshal " + std::string(what) +
           " into Go value of type map[string]interface {}";
  };
  if (c == '[') return type_error("array");
  if (c == '"') return type_error("string");
  if (c == '-' || (c >= '0' && c <= '9')) return type_error("number");
  if (text.substr(i).starts_with("true") || text.substr(i).starts_with("false")) {
    return type_error("bool");
  }
  if (c != '{' && !text.substr(i).starts_with("null")) {
    return std::string("invalid character '") + c + "' looking for beginning of value";
  }
  return "unexpected end of JSON input";
}

// The Docker config keys must hold a JSON object.
void CheckDockerConfig(const core::v1::Secret& secret, std::string_view key, FieldErrorList* errs) {
  const FieldPath path = Path("data").Key(key);
  auto it = secret.data.find(key);
  if (it == secret.data.end()) {
    errs->push_back(Required(path, ""));
    return;
  }
  std::string_view text = it->second.data;
  if (text.find_first_not_of(" \t\r\n") != std::string_view::npos &&
      text.substr(text.find_first_not_of(" \t\r\n")).starts_with("null")) {
    return;  // Go unmarshals null into a map without error
  }
  if (!internal::ParseObjectMembers(text)) {
    errs->push_back(Invalid(path, kRedacted, JsonObjectError(text)));
  }
}

FieldErrorList ValidateConfigMap(const core::v1::ConfigMap& cm) {
  FieldErrorList errs = ValidateObjectMeta(cm.metadata, true, NameIsDNSSubdomain, Path("metadata"));
  int64_t total = 0;
  CheckKeys(cm.data, Path("data"), &errs, &total);
  for (const auto& [key, value] : cm.data) {
    if (cm.binary_data.contains(key)) {
      errs.push_back(Invalid(Path("data").Key(key), key, "duplicate of key present in binaryData"));
    }
  }
  CheckKeys(cm.binary_data, Path("binaryData"), &errs, &total);
  if (total > kMaxSecretSize) {
    // Upstream's field.NewPath(""), the whole object, which renders as "[]".
    errs.push_back(TooLong(FieldPath().Key(""), kMaxSecretSize));
  }
  return errs;
}

FieldErrorList ValidateSecret(const core::v1::Secret& secret) {
  FieldErrorList errs =
      ValidateObjectMeta(secret.metadata, true, NameIsDNSSubdomain, Path("metadata"));
  const FieldPath data = Path("data");
  int64_t total = 0;
  CheckKeys(secret.data, data, &errs, &total);
  if (total > kMaxSecretSize) errs.push_back(TooLong(data, kMaxSecretSize));

  const std::string_view type = secret.type;
  if (type == core::v1::kSecretTypeServiceAccountToken) {
    // Only the name: the uid and the token may be filled in later by a controller.
    constexpr std::string_view kNameKey = "kubernetes.io/service-account.name";
    auto it = secret.metadata.annotations.find(kNameKey);
    if (it == secret.metadata.annotations.end() || it->second.empty()) {
      errs.push_back(Required(Path("metadata").Child("annotations").Key(kNameKey), ""));
    }
  } else if (type == core::v1::kSecretTypeDockercfg) {
    CheckDockerConfig(secret, ".dockercfg", &errs);
  } else if (type == core::v1::kSecretTypeDockerConfigJson) {
    CheckDockerConfig(secret, ".dockerconfigjson", &errs);
  } else if (type == core::v1::kSecretTypeBasicAuth) {
    // Either may be empty, but one of them must be there.
    if (!secret.data.contains("username") && !secret.data.contains("password")) {
      errs.push_back(Required(data.Key("username"), ""));
      errs.push_back(Required(data.Key("password"), ""));
    }
  } else if (type == core::v1::kSecretTypeSshAuth) {
    auto it = secret.data.find("ssh-privatekey");
    if (it == secret.data.end() || it->second.data.empty()) {
      errs.push_back(Required(data.Key("ssh-privatekey"), ""));
    }
  } else if (type == core::v1::kSecretTypeTls) {
    if (!secret.data.contains("tls.crt")) errs.push_back(Required(data.Key("tls.crt"), ""));
    if (!secret.data.contains("tls.key")) errs.push_back(Required(data.Key("tls.key"), ""));
  }
  return errs;
}

}  // namespace

std::vector<std::string> ConfigMapKeyErrors(std::string_view key) {
  std::vector<std::string> errs;
  if (key.size() > static_cast<size_t>(kDNS1123SubdomainMaxLength)) {
    errs.push_back(MaxLenError(kDNS1123SubdomainMaxLength));
  }
  bool matches = !key.empty();
  for (char c : key) matches = matches && IsConfigKeyChar(c);
  if (!matches) {
    errs.push_back(
        RegexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                   "[-._a-zA-Z0-9]+", {"key.name", "KEY_NAME", "key-name"}));
  }
  // hasChDirPrefix: a key is a file name in a volume.
  if (key == ".") {
    errs.push_back("must not be '.'");
  } else if (key == "..") {
    errs.push_back("must not be '..'");
  } else if (key.starts_with("..")) {
    errs.push_back("must not start with '..'");
  }
  return errs;
}

FieldErrorList ValidateCreate(const core::v1::ConfigMap& cm) { return ValidateConfigMap(cm); }

FieldErrorList ValidateUpdate(const core::v1::ConfigMap& cm, const core::v1::ConfigMap& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(cm.metadata, old.metadata, Path("metadata"));
  if (IsImmutable(old.immutable)) {
    if (!IsImmutable(cm.immutable)) {
      errs.push_back(Forbidden(Path("immutable"), std::string(kImmutableWhenSet)));
    }
    if (cm.data != old.data) {
      errs.push_back(Forbidden(Path("data"), std::string(kImmutableWhenSet)));
    }
    if (cm.binary_data != old.binary_data) {
      errs.push_back(Forbidden(Path("binaryData"), std::string(kImmutableWhenSet)));
    }
  }
  internal::Append(&errs, ValidateConfigMap(cm));
  return errs;
}

FieldErrorList ValidateCreate(const core::v1::Secret& secret) { return ValidateSecret(secret); }

FieldErrorList ValidateUpdate(const core::v1::Secret& secret, const core::v1::Secret& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(secret.metadata, old.metadata, Path("metadata"));
  if (secret.type != old.type) {
    errs.push_back(Invalid(Path("type"), secret.type, std::string(internal::kFieldImmutable)));
  }
  if (IsImmutable(old.immutable)) {
    if (!IsImmutable(secret.immutable)) {
      errs.push_back(Forbidden(Path("immutable"), std::string(kImmutableWhenSet)));
    }
    // stringData was folded into data before validation: data is all there is to compare.
    if (secret.data != old.data) {
      errs.push_back(Forbidden(Path("data"), std::string(kImmutableWhenSet)));
    }
  }
  internal::Append(&errs, ValidateSecret(secret));
  return errs;
}

FieldErrorList ValidateCreate(const core::v1::ServiceAccount& sa) {
  return ValidateObjectMeta(sa.metadata, true, NameIsDNSSubdomain, Path("metadata"));
}

FieldErrorList ValidateUpdate(const core::v1::ServiceAccount& sa,
                              const core::v1::ServiceAccount& old) {
  FieldErrorList errs = ValidateObjectMetaUpdate(sa.metadata, old.metadata, Path("metadata"));
  internal::Append(&errs, ValidateCreate(sa));
  return errs;
}

}  // namespace svcplane::api::validation
