#pragma once

// The per-kind and per-endpoint constants of managedFields bookkeeping (spec
// server-side-apply.md §2.2, §2.5): what is never owned, what each endpoint ignores, and the
// zero object a create is diffed against.

#include <string_view>

#include <boost/json/value.hpp>

#include "apiserver/fieldmanager/fieldpath.h"

namespace svcplane::apiserver::fieldmanager::internal {

// upstream stripMetaManager's set: apiVersion, kind, the metadata node itself and
// metadata.{name,namespace,creationTimestamp,selfLink,uid,clusterName,generation,managedFields,
// resourceVersion}. Removed (non-recursively) from the writer's set after every operation.
const Set& StripSet();

// The strategies' GetResetFields for one endpoint (§2.5): the subtrees that writes through it
// neither own nor conflict on. Empty for kinds without a reset filter.
const Set& ResetFields(std::string_view kind, std::string_view subresource);

// The kind's Go zero value as it serialises (`metadata`, `spec` and `status` as `{}`, nil
// slices as null, non-omitempty strings as ""): the "live" side of a create's diff.
const boost::json::value& ZeroObject(std::string_view kind);

}  // namespace svcplane::apiserver::fieldmanager::internal
