#include "apiserver/rest/write_options.h"

#include <fmt/format.h>

#include "api/validation/field_errors.h"
#include "apiserver/fieldmanager/field_manager.h"
#include "apiserver/rest/query.h"

namespace svcplane::apiserver::rest {
namespace {

namespace v = api::validation;

// Decodes the UTF-8 rune at `s[*i]` and advances `*i`; invalid bytes decode as U+FFFD (one
// byte), as Go's range over a string does.
char32_t NextRune(std::string_view s, size_t* i) {
  const auto b = static_cast<unsigned char>(s[*i]);
  int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || *i + len > s.size()) {
    ++*i;
    return 0xFFFD;
  }
  char32_t r = len == 1 ? b : b & (0x7F >> len);
  for (int k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(s[*i + k]);
    if ((c >> 6) != 0x2) {
      ++*i;
      return 0xFFFD;
    }
    r = (r << 6) | (c & 0x3F);
  }
  *i += len;
  return r;
}

// Go's unicode.IsPrint for the runes a manager name can hold: controls, separators other than
// the ASCII space and format characters are not printable.
bool IsPrint(char32_t r) {
  if (r < 0x20 || (r >= 0x7F && r <= 0xA0)) return false;
  if (r == 0xAD || r == 0x1680 || (r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F) ||
      (r >= 0x205F && r <= 0x206F) || r == 0x3000 || r == 0xFEFF || (r >= 0xFFF9 && r <= 0xFFFB) ||
      (r >= 0xD800 && r <= 0xDFFF)) {
    return false;
  }
  return true;
}

}  // namespace

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
      const char32_t r = NextRune(out.field_manager, &i);
      if (!IsPrint(r)) {
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
