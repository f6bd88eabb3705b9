#pragma once

// The fieldManager and force options of writes (upstream's ValidateCreateOptions,
// ValidateUpdateOptions and ValidatePatchOptions; spec server-side-apply.md §1.2).

#include <optional>
#include <string>
#include <string_view>

#include "apiserver/http/handler.h"
#include "apiserver/patch/patch.h"
#include "base/result.h"

namespace svcplane::apiserver::rest {

struct ManagerOptions {
  // The managedFields manager: fieldManager, or for a non-apply write without it, the product
  // of the User-Agent (fieldmanager::ManagerFromUserAgent).
  std::string field_manager;
  bool force = false;  // apply only
};

// Reads and validates the options; `options_kind` names them ("PatchOptions.meta.k8s.io"),
// `patch_type` is set for a PATCH. Failures are 422 Invalid naming the options kind: a missing
// fieldManager on apply, one over 128 bytes or with an unprintable rune, `force` on anything
// but apply (any value, false included).
Result<ManagerOptions> ParseManagerOptions(const http::Request& req, std::string_view options_kind,
                                           std::optional<patch::PatchType> patch_type);

}  // namespace svcplane::apiserver::rest
