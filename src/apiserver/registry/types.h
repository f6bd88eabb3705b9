#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/authentication/v1/self_subject_review.h"
#include "api/selectors/field_selector.h"
#include "api/selectors/label_selector.h"
#include "apiserver/registry/object_json.h"
#include "base/result.h"
#include "storage/store.h"

namespace svcplane::apiserver::registry {

// A stored object as readers get it: the typed value and its JSON, both with
// metadata.resourceVersion set (the JSON's when written out), shared read-only between every
// reader.
template <typename T>
struct Object {
  std::shared_ptr<const T> obj;
  ObjectJson json;
  storage::Revision revision = 0;
};

template <typename T>
struct ObjectList {
  std::vector<Object<T>> items;
  storage::Revision revision = 0;  // the snapshot the list was read at
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
};

// A parsed and validated list/watch request (the REST layer does the parsing).
struct ListQuery {
  api::selectors::LabelSelector label;  // empty: everything
  api::selectors::FieldSelector field;  // empty: everything
  size_t limit = 0;                     // 0: no limit
  std::string continue_token;
  std::string resource_version;  // "" (consistent), "0" (any) or a revision
  bool exact = false;            // resourceVersionMatch=Exact
  // The caller writes out only each item's JSON: items of an unfiltered list then come without
  // their typed object (Object::obj null), neither looked up nor decoded.
  bool json_only = false;
};

enum class Subresource { kNone, kStatus, kFinalize };

// As a URL and managedFields name it: "", "status", "finalize".
inline std::string SubresourceName(Subresource sub) {
  switch (sub) {
    case Subresource::kStatus:
      return "status";
    case Subresource::kFinalize:
      return "finalize";
    case Subresource::kNone:
      break;
  }
  return "";
}

struct WriteOptions {
  bool dry_run = false;
  // PATCH only: called with each patched document (JSON) once it decoded, before it is stored;
  // an error fails the patch (fieldValidation=Strict); a document returned replaces it (unknown
  // fields dropped). Called again on every retry.
  std::function<Result<std::optional<std::string>>(std::string_view patched_json)> check_patched;
  // Who writes (upstream's user.Info from the request context), for the registry's admission
  // (Registry::SetAdmission). REST handlers set the authenticated, or impersonated, user. Unset:
  // the server's own write (upstream's loopback system:apiserver, in system:masters), which no
  // admission check concerns. Borrowed for the call.
  const api::authentication::v1::UserInfo* user = nullptr;
  // The managedFields manager of the write (server-side apply's bookkeeping, fieldmanager/):
  // the request's fieldManager, or the product of its User-Agent. Empty: the server's own write,
  // recorded as kServerFieldManager.
  std::string field_manager;
  // Set by server-side apply, which computes the object's managedFields itself: the registry
  // stores them as they are instead of recording this write as an Update.
  bool managed_fields_preset = false;
};

// The manager of writes the server makes itself (bootstrap, repair, allocation).
inline constexpr std::string_view kServerFieldManager = "svcplane";

// Conditions the stored object must meet for a write to go ahead (storage.Preconditions).
struct UpdatePreconditions {
  std::optional<std::string> uid;
  std::optional<std::string> resource_version;
};

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "", "Orphan", "Background", "Foreground"
  std::optional<bool> orphan_dependents;
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  bool dry_run = false;
  const api::authentication::v1::UserInfo* user = nullptr;  // as WriteOptions::user
};

template <typename T>
struct DeleteResult {
  Object<T> object;      // the last state (deleted) or the state with deletionTimestamp (deferred)
  bool deleted = false;  // false: deletion deferred (finalizers, graceful pod deletion)
};

enum class WatchEventType { kAdded, kModified, kDeleted };
std::string_view WatchEventTypeName(WatchEventType type);

template <typename T>
struct WatchItem {
  WatchEventType type;
  Object<T> object;
};

// Optional per-kind hooks around writes, for state outside the object that must change with it
// (upstream's BeginCreate/BeginUpdate/AfterDelete; the Service IP and port allocators).
template <typename T>
struct WriteHooks {
  // Runs after PrepareForCreate/PrepareForUpdate and before validation, once per storage
  // attempt; may edit `obj` (`old` is the stored object on update, nullptr on create). An error
  // fails the request. The returned callback (may be empty) is called exactly once with whether
  // the object was stored.
  std::function<Result<std::function<void(bool stored)>>(T& obj, const T* old, bool dry_run)>
      begin_write;
  // Runs after `last` was removed from storage (not for dry runs).
  std::function<void(const T& last)> after_delete;
};

enum class AdmissionOperation { kCreate, kUpdate, kDelete };

// One write made as a user, as admission sees it (upstream admission.Attributes). Everything is
// borrowed for the call.
template <typename T>
struct AdmissionRequest {
  AdmissionOperation operation;
  const api::authentication::v1::UserInfo& user;
  std::string_view ns;
  // The object's name: on create the body's (may be empty with generateName), else the path's.
  std::string_view name;
  // The name in the request path: "" for a POST create, the name for a create-on-update PUT.
  std::string_view path_name;
  Subresource subresource = Subresource::kNone;
  // Create/update: the object to be written, decoded and defaulted, not yet prepared or
  // validated. Delete: null.
  const T* object = nullptr;
  // Update/delete: the stored object it replaces. Create: null.
  const T* old = nullptr;
};

// What a registry needs from the rest of the server.
struct RegistryContext {
  storage::Store* store = nullptr;
  // Wall-clock time for creationTimestamp/deletionTimestamp, in Unix microseconds.
  std::function<int64_t()> now_micros;
  // OK if objects may be created in `ns`; NotFound if it does not exist, Forbidden if it is
  // terminating. Unset: every namespace is fine (tests).
  std::function<Status(std::string_view ns)> check_namespace;
  // Applies a PATCH body of the given Content-Type to the current object's JSON, returning the
  // patched JSON. Errors carry their final code (400, 415, 422...).
  std::function<Result<std::string>(std::string_view content_type, std::string_view kind,
                                    std::string_view current_json, std::string_view patch)>
      apply_patch;
};

}  // namespace svcplane::apiserver::registry
