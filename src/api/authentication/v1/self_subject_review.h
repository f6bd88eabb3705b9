#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/meta/types.h"

// authentication.k8s.io/v1 (and v1beta1, the same shape) SelfSubjectReview: `kubectl auth
// whoami`. Never stored; the server fills status.userInfo with the requesting user. Field
// numbers are upstream's generated.proto.
namespace svcplane::api::authentication::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

inline constexpr std::string_view kGroupName = "authentication.k8s.io";

// user.Info on the wire. `extra` values are ExtraValue messages ({items = 1}) in protobuf and
// plain string arrays in JSON (the codec special-cases map<string, vector<string>>).
struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>, std::less<>> extra;
  bool operator==(const UserInfo&) const = default;
};
constexpr auto FieldsOf(Tag<UserInfo>) {
  using T = UserInfo;
  return std::make_tuple(F("username", &T::username, kOmitEmpty, 1),
                         F("uid", &T::uid, kOmitEmpty, 2), F("groups", &T::groups, kOmitEmpty, 3),
                         F("extra", &T::extra, kOmitEmpty, 4));
}

struct SelfSubjectReviewStatus {
  UserInfo user_info;
  bool operator==(const SelfSubjectReviewStatus&) const = default;
};
constexpr auto FieldsOf(Tag<SelfSubjectReviewStatus>) {
  using T = SelfSubjectReviewStatus;
  return std::make_tuple(F("userInfo", &T::user_info, kAlways, 1));
}

struct SelfSubjectReview {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  SelfSubjectReviewStatus status;
  bool operator==(const SelfSubjectReview&) const = default;
};
constexpr auto FieldsOf(Tag<SelfSubjectReview>) {
  using T = SelfSubjectReview;
  return std::make_tuple(F("kind", &T::kind), F("apiVersion", &T::api_version),
                         F("metadata", &T::metadata, kAlways, 1),
                         F("status", &T::status, kAlways, 2));
}

}  // namespace svcplane::api::authentication::v1
