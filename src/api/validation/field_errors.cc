#include "api/validation/field_errors.h"

#include <cstdio>
#include <set>

namespace svcplane::api::validation {

FieldPath Path(std::string_view name) {
  FieldPath p;
  p.nil_ = false;
  p.path_ = std::string(name);
  return p;
}

FieldPath FieldPath::Child(std::string_view name) const {
  FieldPath p;
  p.nil_ = false;
  // Upstream writes "." only between a parent and a named element; a child of the nil path
  // starts a new root.
  if (!nil_) {
    p.path_ = path_;
    if (!name.empty()) p.path_ += '.';
  }
  p.path_ += name;
  return p;
}

FieldPath FieldPath::Index(int64_t index) const { return Key(std::to_string(index)); }

FieldPath FieldPath::Key(std::string_view key) const {
  FieldPath p;
  p.nil_ = false;
  if (!nil_) p.path_ = path_;
  p.path_ += '[';
  p.path_ += key;
  p.path_ += ']';
  return p;
}

std::string_view CauseType(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::kNotFound:
      return "FieldValueNotFound";
    case FieldErrorType::kRequired:
      return "FieldValueRequired";
    case FieldErrorType::kDuplicate:
      return "FieldValueDuplicate";
    case FieldErrorType::kInvalid:
      return "FieldValueInvalid";
    case FieldErrorType::kNotSupported:
      return "FieldValueNotSupported";
    case FieldErrorType::kForbidden:
      return "FieldValueForbidden";
    case FieldErrorType::kTooLong:
      return "FieldValueTooLong";
    case FieldErrorType::kTooMany:
      return "FieldValueTooMany";
    case FieldErrorType::kInternal:
      return "InternalError";
  }
  return "FieldValueInvalid";
}

std::string_view TypeText(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::kNotFound:
      return "Not found";
    case FieldErrorType::kRequired:
      return "Required value";
    case FieldErrorType::kDuplicate:
      return "Duplicate value";
    case FieldErrorType::kInvalid:
      return "Invalid value";
    case FieldErrorType::kNotSupported:
      return "Unsupported value";
    case FieldErrorType::kForbidden:
      return "Forbidden";
    case FieldErrorType::kTooLong:
      return "Too long";
    case FieldErrorType::kTooMany:
      return "Too many";
    case FieldErrorType::kInternal:
      return "Internal error";
  }
  return "Invalid value";
}

std::string FieldError::ErrorBody() const {
  std::string s(TypeText(type));
  switch (type) {
    case FieldErrorType::kRequired:
    case FieldErrorType::kForbidden:
    case FieldErrorType::kTooLong:
    case FieldErrorType::kInternal:
      break;
    default:
      if (!bad_value.empty()) {
        s += ": ";
        s += bad_value;
      }
  }
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

std::string FieldError::Error() const { return field + ": " + ErrorBody(); }

size_t DecodeRune(std::string_view s, size_t i, char32_t* out) {
  auto b0 = static_cast<unsigned char>(s[i]);
  size_t n;
  char32_t r;
  char32_t min;
  if (b0 < 0x80) {
    *out = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    n = 2, r = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, r = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, r = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    r = (r << 6) | (b & 0x3F);
  }
  if (r < min || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) return 0;
  *out = r;
  return n;
}

namespace {

// unicode.IsPrint for the non-ASCII code points people actually paste: spaces other than
// U+0020 and format characters are not printable in Go.
bool IsPrintNonAscii(char32_t r) {
  if (r < 0xA1) return false;  // C1 controls and NBSP
  if (r == 0xAD || r == 0x1680 || (r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F) ||
      (r >= 0x205F && r <= 0x2064) || r == 0x3000 || r == 0xFEFF || (r >= 0xFFF9 && r <= 0xFFFB)) {
    return false;
  }
  if ((r & 0xFFFE) == 0xFFFE) return false;  // noncharacters
  return true;
}

void AppendHex(std::string* out, const char* fmt, unsigned value) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), fmt, value);
  *out += buf;
}

}  // namespace

bool GoIsPrint(char32_t r) { return r < 0x80 ? r >= 0x20 && r < 0x7F : IsPrintNonAscii(r); }

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t i = 0; i < s.size();) {
    char32_t r;
    size_t n = DecodeRune(s, i, &r);
    if (n == 0) {
      AppendHex(&out, "\\x%02x", static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (r == '"' || r == '\\') {
      out += '\\';
      out += static_cast<char>(r);
    } else if (r >= 0x20 && r < 0x7F) {
      out += static_cast<char>(r);
    } else if (r >= 0x80 && IsPrintNonAscii(r)) {
      out.append(s.substr(i, n));
    } else {
      switch (r) {
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        default:
          if (r < 0x20 || r == 0x7F) {
            AppendHex(&out, "\\x%02x", static_cast<unsigned>(r));
          } else if (r < 0x10000) {
            AppendHex(&out, "\\u%04x", static_cast<unsigned>(r));
          } else {
            AppendHex(&out, "\\U%08x", static_cast<unsigned>(r));
          }
      }
    }
    i += n;
  }
  out += '"';
  return out;
}

std::string GoStringSlice(const std::vector<std::string>& values, bool is_nil) {
  if (is_nil && values.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(values[i]);
  }
  out += '}';
  return out;
}

FieldError Invalid(const FieldPath& path, std::string_view value, std::string detail) {
  return {FieldErrorType::kInvalid, path.String(), GoQuote(value), std::move(detail)};
}

FieldError Invalid(const FieldPath& path, int64_t value, std::string detail) {
  return {FieldErrorType::kInvalid, path.String(), std::to_string(value), std::move(detail)};
}

FieldError InvalidRendered(const FieldPath& path, std::string rendered_value, std::string detail) {
  return {FieldErrorType::kInvalid, path.String(), std::move(rendered_value), std::move(detail)};
}

FieldError Required(const FieldPath& path, std::string detail) {
  return {FieldErrorType::kRequired, path.String(), "", std::move(detail)};
}

FieldError Duplicate(const FieldPath& path, std::string_view value) {
  return {FieldErrorType::kDuplicate, path.String(), GoQuote(value), ""};
}

FieldError Duplicate(const FieldPath& path, int64_t value) {
  return {FieldErrorType::kDuplicate, path.String(), std::to_string(value), ""};
}

FieldError NotFound(const FieldPath& path, std::string_view value) {
  return {FieldErrorType::kNotFound, path.String(), GoQuote(value), ""};
}

FieldError NotSupported(const FieldPath& path, std::string_view value,
                        const std::vector<std::string_view>& valid_values) {
  std::string detail;
  if (!valid_values.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < valid_values.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += GoQuote(valid_values[i]);
    }
  }
  return {FieldErrorType::kNotSupported, path.String(), GoQuote(value), std::move(detail)};
}

FieldError Forbidden(const FieldPath& path, std::string detail) {
  return {FieldErrorType::kForbidden, path.String(), "", std::move(detail)};
}

FieldError TooLong(const FieldPath& path, int64_t max_bytes) {
  return {FieldErrorType::kTooLong, path.String(), "",
          "must have at most " + std::to_string(max_bytes) + " bytes"};
}

FieldError TooMany(const FieldPath& path, int64_t actual, int64_t max_items) {
  std::string detail = max_items >= 0 ? "must have at most " + std::to_string(max_items) + " items"
                                      : std::string("has too many items");
  std::string value = actual >= 0 ? std::to_string(actual) : std::string();
  return {FieldErrorType::kTooMany, path.String(), std::move(value), std::move(detail)};
}

FieldError InternalFieldError(const FieldPath& path, std::string detail) {
  return {FieldErrorType::kInternal, path.String(), "", std::move(detail)};
}

std::string AggregateMessage(const FieldErrorList& errors) {
  std::set<std::string, std::less<>> seen;
  std::string joined;
  for (const FieldError& e : errors) {
    std::string msg = e.Error();
    if (!seen.insert(msg).second) continue;
    if (seen.size() > 1) joined += ", ";
    joined += msg;
  }
  if (seen.size() <= 1) return joined;
  return "[" + joined + "]";
}

Status ToInvalidStatus(std::string_view qualified_kind, std::string_view name,
                       const FieldErrorList& errors) {
  std::vector<StatusCause> causes;
  causes.reserve(errors.size());
  for (const FieldError& e : errors) {
    causes.push_back({std::string(CauseType(e.type)), e.field, e.ErrorBody()});
  }
  std::string msg = std::string(qualified_kind) + " " + GoQuote(name) + " is invalid";
  if (!errors.empty()) msg += ": " + AggregateMessage(errors);
  Status status(Code::kInvalid, std::move(msg));
  status.WithCauses(std::move(causes));
  return status;
}

}  // namespace svcplane::api::validation
