#pragma once

// metadata.managedFields as a list of entries (spec server-side-apply.md §2.1, §2.3, §2.7,
// §2.8): decoding and canonical encoding, manager identity, the Update cap and the 409 that
// apply conflicts answer. Upstream: managedfields/internal/{managedfields,capmanagers,conflict,
// fieldmanager}.go.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/meta/scalars.h"
#include "apiserver/fieldmanager/fieldpath.h"
#include "base/result.h"

namespace svcplane::apiserver::fieldmanager {

inline constexpr std::string_view kOperationApply = "Apply";
inline constexpr std::string_view kOperationUpdate = "Update";
// The Update cap of §2.8 and the name of the bucket it merges old entries into.
inline constexpr size_t kMaxUpdateManagers = 10;
inline constexpr std::string_view kAncientChangesManager = "ancient-changes";

// One metav1.ManagedFieldsEntry with its set decoded. fieldsType is always FieldsV1.
struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;  // kOperationApply or kOperationUpdate
  std::string api_version;
  std::optional<int64_t> time;  // Unix seconds; absent is legal (§2.7)
  std::string subresource;
  Set fields;

  bool IsApply() const { return operation == kOperationApply; }
  // Upstream's BuildManagerIdentifier: the entry's JSON without time, fieldsType, fieldsV1 and,
  // for Apply, apiVersion: {"manager":"kubectl","operation":"Apply"}. Two entries with the same
  // identifier are the same manager (§2.3).
  std::string Identifier() const;
  // The entry's JSON, keys in the order of §2.1, fieldsV1 inline and canonical.
  std::string ToJson() const;

  bool operator==(const ManagedFieldsEntry&) const = default;
};

using ManagedFieldsList = std::vector<ManagedFieldsEntry>;

// Upstream DecodeManagedFields: every entry must have operation Apply or Update, a non-empty
// apiVersion, fieldsType FieldsV1 and a parseable fieldsV1 (absent or null = empty set).
// Errors carry upstream's texts ("operation must be `Apply` or `Update`", "apiVersion must not
// be empty", "missing fieldsType in managed fields entry 0", ...), code kBadRequest. Entries
// with the same identifier collapse into the last one, as upstream's map does. The result is
// in list order (§2.1).
Result<ManagedFieldsList> DecodeManagedFields(const std::vector<api::meta::RawJson>& entries);
Result<ManagedFieldsList> DecodeManagedFields(const boost::json::array& entries);

// Whether a request's managedFields asks for a reset (§2.4 step 1, upstream
// isResetManagedFields): a present but empty list, or exactly one entry that decodes to the
// zero ManagedFieldsEntry (`{}`, unknown keys only, empty strings, null time or fieldsV1 absent).
bool IsResetManagedFields(const boost::json::array& entries);

// §2.1 list order: Apply before Update, then time (absent = 0), manager, apiVersion,
// subresource.
void SortManagedFields(ManagedFieldsList& list);
// Removes the entries whose set is empty (§2.8).
void DropEmptyEntries(ManagedFieldsList& list);
// The entry with this identifier, or null.
ManagedFieldsEntry* FindEntry(ManagedFieldsList& list, std::string_view identifier);

// The sorted list, one RawJson per entry (ObjectMeta's form); an empty list encodes as no
// entries, which the codecs omit.
std::vector<api::meta::RawJson> EncodeManagedFields(ManagedFieldsList list);
// The same as a JSON array, for objects handled as JSON.
boost::json::array EncodeManagedFieldsJson(ManagedFieldsList list);

// upstream capManagersManager (§2.8): while more than `max_updaters` Update entries remain,
// merges the oldest into one `ancient-changes` bucket per apiVersion.
void CapUpdateManagers(ManagedFieldsList& list, size_t max_updaters = kMaxUpdateManagers);

// The first half of upstream's IgnoreManagedFieldsTimestampsTransformer (§2.9): the two lists
// have the same length and their entries are pairwise equal once `time` is ignored. When that
// holds and the objects are otherwise equal, the write should keep the old entries so that it
// stays a byte-identical no-op.
bool EntriesEqualIgnoringTime(const std::vector<api::meta::RawJson>& a,
                              const std::vector<api::meta::RawJson>& b);

// One path of an apply that another manager owns.
struct Conflict {
  std::string manager_identifier;  // ManagedFieldsEntry::Identifier()
  Path path;
};

// `"kubectl"`, `"kubelet" with subresource "status" using v1`: how conflict texts name the
// manager behind an identifier (upstream printManager).
std::string PrintManager(std::string_view identifier);

// The 409 of §1.6 (upstream NewConflictError), conflicts sorted by (identifier, path):
// reason Conflict, the one- or N-conflict message, and one FieldManagerConflict cause per
// path. The REST layer must render it with an empty StatusTarget so that details carry only
// the causes.
Status ApplyConflictStatus(std::vector<Conflict> conflicts);

}  // namespace svcplane::apiserver::fieldmanager
