#pragma once

// Server-side apply and managedFields bookkeeping for one kind (spec server-side-apply.md §2):
// upstream's managedfields/internal FieldManager stack (stripmeta, managedfieldsupdater,
// capmanagers, buildmanagerinfo, lastappliedmanager/updater, structuredmerge) over our JSON.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/meta/scalars.h"
#include "base/result.h"

namespace svcplane::apiserver::fieldmanager {

class TypeSchema;

// Who writes and where: one request's identity for the bookkeeping.
struct Operation {
  std::string manager;      // fieldManager, or ManagerFromUserAgent(...)
  std::string subresource;  // "" for the main resource, "status", "finalize"
  std::string api_version;  // the endpoint's group/version: "v1", "discovery.k8s.io/v1"
  int64_t now_seconds = 0;  // Unix seconds (the entry times are whole seconds)
};

// The manager name of a non-apply write without fieldManager (§2.3): the User-Agent up to its
// first '/', non-printable runes dropped, at most 128 bytes; "unknown" when that is empty.
std::string ManagerFromUserAgent(std::string_view user_agent);

class FieldManager {
 public:
  // The field manager of one served kind ("Service", ...); null for a kind without a schema.
  static const FieldManager* ForKind(std::string_view kind);

  // §2.4 Update (POST, PUT, non-apply PATCH): the managedFields to store with `updated`.
  // `live` is null for a create (diffed against the kind's zero object). `updated` is the new
  // object as JSON after patching, decoding and defaulting, carrying the managedFields the
  // request sent (reset rules of §2.4 step 1: `[]`/`[{}]` reset, a valid list is taken as
  // written, anything else keeps live's; a subresource always keeps live's). An existing
  // object without entries stays untracked (empty result). When live and updated differ only
  // in stripped metadata, live's entries come back byte for byte without parsing a set. Runs
  // the Update cap (§2.8). Never fails; an empty result means "store no managedFields".
  std::vector<api::meta::RawJson> Update(const boost::json::object* live,
                                         const boost::json::object& updated,
                                         const Operation& op) const;

  // §2.6 Apply: the merged object (not yet defaulted, status/spec not yet reset by the
  // strategy) with its new metadata.managedFields (absent when empty), or the Status to answer:
  // 400 (wrong GVK, managedFields in the body), 409 (conflicts, §1.6, after the kubectl
  // last-applied allowance of §4.2; render it with an empty StatusTarget so that details hold
  // only the causes), 500 (schema errors §1.5, "failed to decode managed fields", merge
  // errors: upstream sends these without a reason). `live` is null for a create-on-apply.
  // When nothing but managedFields changed, the object returned equals live apart from them.
  Result<boost::json::object> Apply(const boost::json::object* live,
                                    const boost::json::object& config, const Operation& op,
                                    bool force) const;

  explicit FieldManager(const TypeSchema* schema, std::string kind)
      : schema_(schema), kind_(std::move(kind)) {}

 private:
  const TypeSchema* schema_;
  std::string kind_;
};

}  // namespace svcplane::apiserver::fieldmanager
