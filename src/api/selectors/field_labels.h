#pragma once

#include <span>
#include <string_view>

#include "api/selectors/field_selector.h"
#include "base/result.h"

namespace svcplane::api::selectors {

// The field labels each core resource accepts in `fieldSelector=` and how they convert, as
// registered by upstream's AddFieldLabelConversionFunc (api-wire.md §3.1).
//
// `resource` is the plural resource name ("pods", "nodes", ...). Resources with an explicit
// list (pods, nodes, namespaces, services, events) reject others with
//   field label not supported: <key>
// and all other resources accept only metadata.name and metadata.namespace, rejecting others
// with `"<key>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
// Pods' legacy `spec.host` is rewritten to `spec.nodeName`. Errors are kBadRequest.
Result<FieldSelector> ConvertFieldLabels(std::string_view resource, const FieldSelector& selector);

// The explicit list for `resource`, or empty for default-pair resources.
std::span<const std::string_view> SupportedFieldLabels(std::string_view resource);

}  // namespace svcplane::api::selectors
