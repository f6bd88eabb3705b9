#include "api/selectors/field_selector.h"

#include <algorithm>

#include "api/validation/field_errors.h"

namespace svcplane::api::selectors {
namespace {

// Byte length of the UTF-8 sequence starting at s[i], or 0 where Go's decoder yields RuneError
// for a single byte (bad lead or continuation, truncation, overlong form, surrogate, > U+10FFFF).
size_t Utf8Len(std::string_view s, size_t i) {
  auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  size_t n;
  char32_t r;
  char32_t min;
  if ((b0 & 0xE0) == 0xC0) {
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
  return n;
}

// Terms split at commas not preceded by a backslash; the backslash stays in the term.
std::vector<std::string_view> SplitTerms(std::string_view selector) {
  std::vector<std::string_view> terms;
  if (selector.empty()) return terms;
  size_t start = 0;
  bool in_slash = false;
  for (size_t i = 0; i < selector.size(); ++i) {
    char c = selector[i];
    if (in_slash) {
      in_slash = false;
    } else if (c == '\\') {
      in_slash = true;
    } else if (c == ',') {
      terms.push_back(selector.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(selector.substr(start));
  return terms;
}

// Splits at the first position where "!=", "==" or "=" starts (no escaping on the left side).
bool SplitTerm(std::string_view term, std::string_view* lhs, FieldOperator* op,
               std::string_view* rhs) {
  for (size_t i = 0; i < term.size(); ++i) {
    std::string_view rest = term.substr(i);
    size_t len;
    if (rest.starts_with("!=")) {
      *op = FieldOperator::kNotEquals, len = 2;
    } else if (rest.starts_with("==")) {
      *op = FieldOperator::kDoubleEquals, len = 2;
    } else if (rest.starts_with("=")) {
      *op = FieldOperator::kEquals, len = 1;
    } else {
      continue;
    }
    *lhs = term.substr(0, i);
    *rhs = term.substr(i + len);
    return true;
  }
  return false;
}

}  // namespace

std::string EscapeFieldValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

Result<std::string> UnescapeFieldValue(std::string_view value) {
  if (value.find_first_of("\\,=") == std::string_view::npos) return std::string(value);
  std::string out;
  out.reserve(value.size());
  bool in_slash = false;
  for (size_t i = 0; i < value.size();) {
    size_t n = Utf8Len(value, i);
    // Go ranges over runes; an invalid byte is one rune U+FFFD.
    std::string_view rune = n == 0 ? std::string_view("\xEF\xBF\xBD") : value.substr(i, n);
    i += n == 0 ? 1 : n;
    char c = rune.size() == 1 ? rune[0] : '\0';
    if (in_slash) {
      if (c == '\\' || c == ',' || c == '=') {
        out += c;
      } else {
        return BadRequestError("invalid field selector: invalid escape sequence: \\" +
                               std::string(rune));
      }
      in_slash = false;
      continue;
    }
    if (c == '\\') {
      in_slash = true;
    } else if (c == ',' || c == '=') {
      // Go formats the rune with %v, i.e. as its code point number.
      return BadRequestError("invalid field selector: unescaped character in value: " +
                             std::to_string(static_cast<int>(c)));
    } else {
      out += rune;  // invalid bytes become U+FFFD, as Go's WriteRune does
    }
  }
  if (in_slash) return BadRequestError("invalid field selector: invalid escape sequence: \\");
  return out;
}

FieldSelector FieldSelector::OneTermEqual(std::string field, std::string value) {
  FieldSelector s;
  s.requirements_.push_back({std::move(field), FieldOperator::kEquals, std::move(value)});
  return s;
}

Result<FieldSelector> ParseFieldSelector(std::string_view selector) {
  std::vector<std::string_view> parts = SplitTerms(selector);
  std::sort(parts.begin(), parts.end());
  FieldSelector out;
  for (std::string_view part : parts) {
    if (part.empty()) continue;
    std::string_view lhs, rhs;
    FieldOperator op;
    if (!SplitTerm(part, &lhs, &op, &rhs)) {
      return BadRequestError("invalid selector: '" + std::string(selector) +
                             "'; can't understand '" + std::string(part) + "'");
    }
    auto value = UnescapeFieldValue(rhs);
    if (!value.ok()) return value.status();
    // Upstream's identity Transform turns a term with empty field and value into Everything.
    if (lhs.empty() && value->empty()) continue;
    out.requirements_.push_back({std::string(lhs), op, std::move(value).value()});
  }
  return out;
}

bool FieldSelector::Matches(std::span<const FieldValue> fields) const {
  return MatchesWith([fields](std::string_view name) -> std::optional<std::string_view> {
    for (const FieldValue& f : fields) {
      if (f.first == name) return f.second;
    }
    return std::nullopt;
  });
}

std::optional<std::string_view> FieldSelector::RequiresExactMatch(std::string_view field) const {
  for (const FieldRequirement& r : requirements_) {
    if (r.field == field && r.op != FieldOperator::kNotEquals) return std::string_view(r.value);
  }
  return std::nullopt;
}

std::string FieldSelector::String() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    const FieldRequirement& r = requirements_[i];
    if (i > 0) out += ',';
    out += r.field;
    out += r.op == FieldOperator::kNotEquals ? "!=" : "=";
    out += EscapeFieldValue(r.value);
  }
  return out;
}

Result<FieldSelector> FieldSelector::Transform(const TransformFn& fn) const {
  FieldSelector out;
  for (const FieldRequirement& r : requirements_) {
    auto mapped = fn(r.field, r.value);
    if (!mapped.ok()) return mapped.status();
    auto& [field, value] = mapped.value();
    if (field.empty() && value.empty()) continue;
    out.requirements_.push_back({std::move(field), r.op, std::move(value)});
  }
  return out;
}

Status CheckFieldLabels(const FieldSelector& selector, std::span<const std::string_view> allowed) {
  for (const FieldRequirement& r : selector.requirements()) {
    if (std::find(allowed.begin(), allowed.end(), r.field) == allowed.end()) {
      return BadRequestError("field label not supported: " + r.field);
    }
  }
  return Status::Ok();
}

Status CheckDefaultFieldLabels(const FieldSelector& selector) {
  for (const FieldRequirement& r : selector.requirements()) {
    if (r.field != "metadata.name" && r.field != "metadata.namespace") {
      return BadRequestError(validation::GoQuote(r.field) +
                             " is not a known field selector: only \"metadata.name\", "
                             "\"metadata.namespace\"");
    }
  }
  return Status::Ok();
}

Result<FieldSelector> SelectorForItemName(const FieldSelector& selector, std::string_view name) {
  if (selector.Empty()) return FieldSelector::OneTermEqual("metadata.name", std::string(name));
  auto selected = selector.RequiresExactMatch("metadata.name");
  if (!selected || *selected != name) {
    return BadRequestError("fieldSelector metadata.name doesn't match requested name");
  }
  return selector;
}

std::optional<std::string_view> RequiredName(const FieldSelector& selector) {
  return selector.RequiresExactMatch("metadata.name");
}

}  // namespace svcplane::api::selectors
