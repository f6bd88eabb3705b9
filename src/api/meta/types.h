#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/meta/fields.h"
#include "api/meta/scalars.h"
#include "api/meta/string_map.h"

namespace svcplane::api::meta {

// metav1.OwnerReference.
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  UnknownFields unknown;
  bool operator==(const OwnerReference&) const = default;
};
constexpr auto FieldsOf(Tag<OwnerReference>) {
  using T = OwnerReference;
  return std::make_tuple(F("apiVersion", &T::api_version, kAlways, 5),
                         F("kind", &T::kind, kAlways, 1), F("name", &T::name, kAlways, 3),
                         F("uid", &T::uid, kAlways, 4),
                         F("controller", &T::controller, kOmitEmpty, 6),
                         F("blockOwnerDeletion", &T::block_owner_deletion, kOmitEmpty, 7));
}

// The parts of ObjectMeta that controllers and informers' caches rarely read; see Boxed.
struct ObjectMetaRest {
  std::string generate_name;
  std::string self_link;
  int64_t generation = 0;
  std::optional<int64_t> deletion_grace_period_seconds;
  std::vector<RawJson> managed_fields;
  bool operator==(const ObjectMetaRest&) const = default;
};

// metav1.ObjectMeta. managedFields are kept verbatim (server-side apply is not implemented).
// metadata.rest->generation and the like are boxed (boxed.h): a cached object without them
// pays 8 bytes instead of 112.
struct ObjectMeta {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  Time creation_timestamp;
  std::optional<Time> deletion_timestamp;
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  Boxed<ObjectMetaRest> rest;
  UnknownFields unknown;
  bool operator==(const ObjectMeta&) const = default;
};
constexpr auto FieldsOf(Tag<ObjectMeta>) {
  using T = ObjectMeta;
  using R = ObjectMetaRest;
  return std::make_tuple(
      F("name", &T::name, kOmitEmpty, 1),
      FR("generateName", &T::rest, &R::generate_name, kOmitEmpty, 2),
      F("namespace", &T::namespace_, kOmitEmpty, 3),
      FR("selfLink", &T::rest, &R::self_link, kOmitEmpty, 4), F("uid", &T::uid, kOmitEmpty, 5),
      F("resourceVersion", &T::resource_version, kOmitEmpty, 6),
      FR("generation", &T::rest, &R::generation, kOmitEmpty, 7),
      F("creationTimestamp", &T::creation_timestamp, kAlways, 8),
      F("deletionTimestamp", &T::deletion_timestamp, kOmitEmpty, 9),
      FR("deletionGracePeriodSeconds", &T::rest, &R::deletion_grace_period_seconds, kOmitEmpty, 10),
      F("labels", &T::labels, kOmitEmpty, 11), F("annotations", &T::annotations, kOmitEmpty, 12),
      F("ownerReferences", &T::owner_references, kOmitEmpty, 13),
      F("finalizers", &T::finalizers, kOmitEmpty, 14),
      FR("managedFields", &T::rest, &R::managed_fields, kOmitEmpty, 17));
}

// metav1.ListMeta.
struct ListMeta {
  std::string self_link;
  std::string resource_version;
  std::string continue_;
  std::optional<int64_t> remaining_item_count;
  UnknownFields unknown;
  bool operator==(const ListMeta&) const = default;
};
constexpr auto FieldsOf(Tag<ListMeta>) {
  using T = ListMeta;
  return std::make_tuple(F("selfLink", &T::self_link, kOmitEmpty, 1),
                         F("resourceVersion", &T::resource_version, kOmitEmpty, 2),
                         F("continue", &T::continue_, kOmitEmpty, 3),
                         F("remainingItemCount", &T::remaining_item_count, kOmitEmpty, 4));
}

// metav1.StatusCause.
struct StatusCauseJson {
  std::string reason;
  std::string message;
  std::string field;
  UnknownFields unknown;
  bool operator==(const StatusCauseJson&) const = default;
};
constexpr auto FieldsOf(Tag<StatusCauseJson>) {
  using T = StatusCauseJson;
  return std::make_tuple(F("reason", &T::reason, kOmitEmpty, 1),
                         F("message", &T::message, kOmitEmpty, 2),
                         F("field", &T::field, kOmitEmpty, 3));
}

// metav1.StatusDetails.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCauseJson> causes;
  int32_t retry_after_seconds = 0;
  UnknownFields unknown;
  bool operator==(const StatusDetails&) const = default;
};
constexpr auto FieldsOf(Tag<StatusDetails>) {
  using T = StatusDetails;
  return std::make_tuple(F("name", &T::name, kOmitEmpty, 1), F("group", &T::group, kOmitEmpty, 2),
                         F("kind", &T::kind, kOmitEmpty, 3), F("uid", &T::uid, kOmitEmpty, 6),
                         F("causes", &T::causes, kOmitEmpty, 4),
                         F("retryAfterSeconds", &T::retry_after_seconds, kOmitEmpty, 5));
}

// metav1.Status: the body of every error response.
struct StatusObject {
  std::string kind = "Status";
  std::string api_version = "v1";
  ListMeta metadata;
  std::string status;  // "Success" | "Failure"
  std::string message;
  std::string reason;
  std::optional<StatusDetails> details;
  int32_t code = 0;
  UnknownFields unknown;
  bool operator==(const StatusObject&) const = default;
};
constexpr auto FieldsOf(Tag<StatusObject>) {
  using T = StatusObject;
  return std::make_tuple(
      F("kind", &T::kind), F("apiVersion", &T::api_version),
      F("metadata", &T::metadata, kAlways, 1), F("status", &T::status, kOmitEmpty, 2),
      F("message", &T::message, kOmitEmpty, 3), F("reason", &T::reason, kOmitEmpty, 4),
      F("details", &T::details, kOmitEmpty, 5), F("code", &T::code, kOmitEmpty, 6));
}

// core/v1 ObjectReference (Endpoints targetRef, Event involvedObject).
struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
  std::string field_path;
  UnknownFields unknown;
  bool operator==(const ObjectReference&) const = default;
};
constexpr auto FieldsOf(Tag<ObjectReference>) {
  using T = ObjectReference;
  return std::make_tuple(F("kind", &T::kind, kOmitEmpty, 1),
                         F("namespace", &T::namespace_, kOmitEmpty, 2),
                         F("name", &T::name, kOmitEmpty, 3), F("uid", &T::uid, kOmitEmpty, 4),
                         F("apiVersion", &T::api_version, kOmitEmpty, 5),
                         F("resourceVersion", &T::resource_version, kOmitEmpty, 6),
                         F("fieldPath", &T::field_path, kOmitEmpty, 7));
}

}  // namespace svcplane::api::meta
