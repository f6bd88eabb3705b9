#include "apiserver/rest/write_options.h"

#include <fmt/format.h>

#include "api/validation/field_errors.h"
#include "apiserver/fieldmanager/field_manager.h"
#include "apiserver/rest/query.h"

namespace svcplane::apiserver::rest {

namespace v = api::validation;

Result<ManagerOptions> ParseManagerOptions(const http::Request& req, std::string_view options_kind,
                                           std::optional<patch::PatchType> patch_type) {
  const bool apply = patch_type == patch::PatchType::kApply;
  ManagerOptions out;
  v::FieldErrorList errs;
  auto manager = req.Query("fieldManager");
  if (manager) out.field_manager = std::string(*manager);
  if (apply && out.field_manager.empty()) {
    errs.push_back(v::Required(v::Path("fieldManager"), "is required for apply patch"));
  }
  if (out.field_manager.size() > 128) {
    // 1.33's field.TooLong wording (spec server-side-apply §1.2); the older "must have at
    // most N bytes" of v::TooLong is what the annotation-size check is specified with.
    errs.push_back({v::FieldErrorType::kTooLong, v::Path("fieldManager").String(), "",
                    "may not be more than 128 bytes"});
  } else {
    for (size_t i = 0; i < out.field_manager.size();) {
      const size_t at = i;
      char32_t r = 0xFFFD;  // Go ranges over a byte that is not UTF-8 as U+FFFD (printable)
      const size_t n = v::DecodeRune(out.field_manager, i, &r);
      i += n == 0 ? 1 : n;
      if (n != 0 && !v::GoIsPrint(r)) {
        errs.push_back(v::Invalid(v::Path("fieldManager"), out.field_manager,
                                  fmt::format("invalid character U+{:04X} (at position {})",
                                              static_cast<uint32_t>(r), at)));
        break;
      }
    }
  }
  if (auto force = req.Query("force"); force) {
    if (patch_type && !apply) {
      errs.push_back(v::Forbidden(v::Path("force"), "may not be specified for non-apply patch"));
    } else {
      out.force = QueryBool(req, "force");
    }
  }
  if (!errs.empty()) return v::ToInvalidStatus(options_kind, "", errs);
  if (out.field_manager.empty()) {
    out.field_manager = fieldmanager::ManagerFromUserAgent(req.Header("User-Agent").value_or(""));
  }
  return out;
}

}  // namespace svcplane::apiserver::rest
