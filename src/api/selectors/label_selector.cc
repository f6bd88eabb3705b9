#include "api/selectors/label_selector.h"

#include <algorithm>

#include "api/selectors/internal/go_int.h"
#include "api/validation/names.h"

namespace svcplane::api::selectors {

using validation::FieldErrorList;
using validation::FieldPath;

std::string_view OperatorName(Operator op) {
  switch (op) {
    case Operator::kIn:
      return "in";
    case Operator::kNotIn:
      return "notin";
    case Operator::kEquals:
      return "=";
    case Operator::kDoubleEquals:
      return "==";
    case Operator::kNotEquals:
      return "!=";
    case Operator::kExists:
      return "exists";
    case Operator::kDoesNotExist:
      return "!";
    case Operator::kGreaterThan:
      return "gt";
    case Operator::kLessThan:
      return "lt";
  }
  return "";
}

Requirement::Requirement(std::string key, Operator op, std::vector<std::string> values)
    : key_(std::move(key)), op_(op), values_(std::move(values)) {
  if ((op_ == Operator::kGreaterThan || op_ == Operator::kLessThan) && values_.size() == 1) {
    // Validate() guaranteed the operand parses.
    internal::ParseGoInt64(values_[0], &int_value_);
  }
}

FieldErrorList Requirement::Validate(std::string_view key, Operator op,
                                     const std::vector<std::string>& values, const FieldPath& path,
                                     bool values_nil) {
  FieldErrorList errs;
  if (auto msgs = validation::IsQualifiedName(key); !msgs.empty()) {
    std::string joined;
    for (size_t i = 0; i < msgs.size(); ++i) joined += (i > 0 ? "; " : "") + msgs[i];
    errs.push_back(validation::Invalid(path.Child("key"), key, std::move(joined)));
  }
  FieldPath value_path = path.Child("values");
  auto rendered = [&] { return validation::GoStringSlice(values, values_nil); };
  switch (op) {
    case Operator::kIn:
    case Operator::kNotIn:
      if (values.empty()) {
        errs.push_back(validation::InvalidRendered(
            value_path, rendered(), "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case Operator::kEquals:
    case Operator::kDoubleEquals:
    case Operator::kNotEquals:
      if (values.size() != 1) {
        errs.push_back(validation::InvalidRendered(
            value_path, rendered(), "exact-match compatibility requires one single value"));
      }
      break;
    case Operator::kExists:
    case Operator::kDoesNotExist:
      if (!values.empty()) {
        errs.push_back(validation::InvalidRendered(
            value_path, rendered(), "values set must be empty for exists and does not exist"));
      }
      break;
    case Operator::kGreaterThan:
    case Operator::kLessThan:
      if (values.size() != 1) {
        errs.push_back(validation::InvalidRendered(
            value_path, rendered(), "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < values.size(); ++i) {
        int64_t ignored;
        if (!internal::ParseGoInt64(values[i], &ignored)) {
          errs.push_back(validation::Invalid(value_path.Index(static_cast<int64_t>(i)), values[i],
                                             "for 'Gt', 'Lt' operators, the value must be an "
                                             "integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (auto msgs = validation::IsValidLabelValue(values[i]); !msgs.empty()) {
      std::string joined;
      for (size_t j = 0; j < msgs.size(); ++j) joined += (j > 0 ? "; " : "") + msgs[j];
      errs.push_back(validation::Invalid(value_path.Index(static_cast<int64_t>(i)).Key(key),
                                         values[i], std::move(joined)));
    }
  }
  return errs;
}

Result<Requirement> Requirement::Create(std::string key, Operator op,
                                        std::vector<std::string> values, const FieldPath& path,
                                        bool values_nil) {
  FieldErrorList errs = Validate(key, op, values, path, values_nil);
  if (!errs.empty()) return BadRequestError(validation::AggregateMessage(errs));
  return Requirement(std::move(key), op, std::move(values));
}

Requirement Requirement::PreValidatedEquals(std::string key, std::string value) {
  std::vector<std::string> values;
  values.push_back(std::move(value));
  return Requirement(std::move(key), Operator::kEquals, std::move(values));
}

bool Requirement::HasValue(std::string_view v) const {
  for (const std::string& s : values_) {
    if (s == v) return true;
  }
  return false;
}

bool Requirement::Matches(const meta::StringMap& labels) const {
  auto it = labels.find(std::string_view(key_));
  bool exists = it != labels.end();
  switch (op_) {
    case Operator::kIn:
    case Operator::kEquals:
    case Operator::kDoubleEquals:
      return exists && HasValue(it->second);
    case Operator::kNotIn:
    case Operator::kNotEquals:
      return !exists || !HasValue(it->second);
    case Operator::kExists:
      return exists;
    case Operator::kDoesNotExist:
      return !exists;
    case Operator::kGreaterThan:
    case Operator::kLessThan: {
      if (!exists || values_.size() != 1) return false;
      int64_t v;
      if (!internal::ParseGoInt64(it->second, &v)) return false;
      return op_ == Operator::kGreaterThan ? v > int_value_ : v < int_value_;
    }
  }
  return false;
}

std::string Requirement::String() const {
  std::string out;
  out.reserve(key_.size() + 8 + 8 * values_.size());
  if (op_ == Operator::kDoesNotExist) out += '!';
  out += key_;
  switch (op_) {
    case Operator::kEquals:
      out += '=';
      break;
    case Operator::kDoubleEquals:
      out += "==";
      break;
    case Operator::kNotEquals:
      out += "!=";
      break;
    case Operator::kIn:
      out += " in ";
      break;
    case Operator::kNotIn:
      out += " notin ";
      break;
    case Operator::kGreaterThan:
      out += '>';
      break;
    case Operator::kLessThan:
      out += '<';
      break;
    case Operator::kExists:
    case Operator::kDoesNotExist:
      return out;
  }
  bool set_based = op_ == Operator::kIn || op_ == Operator::kNotIn;
  if (set_based) out += '(';
  if (values_.size() == 1) {
    out += values_[0];
  } else {
    std::vector<std::string_view> sorted(values_.begin(), values_.end());
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0) out += ',';
      out += sorted[i];
    }
  }
  if (set_based) out += ')';
  return out;
}

// ---- LabelSelector ----

LabelSelector LabelSelector::Nothing() {
  LabelSelector s;
  s.nothing_ = true;
  return s;
}

bool LabelSelector::Matches(const meta::StringMap& labels) const {
  if (nothing_) return false;
  for (const Requirement& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

std::string LabelSelector::String() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].String();
  }
  return out;
}

std::optional<std::string_view> LabelSelector::RequiresExactMatch(std::string_view label) const {
  for (const Requirement& r : requirements_) {
    if (r.key() != label) continue;
    switch (r.op()) {
      case Operator::kEquals:
      case Operator::kDoubleEquals:
      case Operator::kIn:
        if (r.values().size() == 1) return std::string_view(r.values()[0]);
        break;
      default:
        break;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

namespace {

void SortByKey(std::vector<Requirement>* reqs) {
  std::stable_sort(reqs->begin(), reqs->end(),
                   [](const Requirement& a, const Requirement& b) { return a.key() < b.key(); });
}

}  // namespace

LabelSelector LabelSelector::Add(std::vector<Requirement> more) const {
  if (nothing_) return *this;
  LabelSelector out = *this;
  for (Requirement& r : more) out.requirements_.push_back(std::move(r));
  SortByKey(&out.requirements_);
  return out;
}

// ---- Structured selectors ----

Result<LabelSelector> SelectorFromSpec(const LabelSelectorSpec* spec) {
  if (spec == nullptr) return LabelSelector::Nothing();
  if (spec->match_labels.empty() && spec->match_expressions.empty()) {
    return LabelSelector::Everything();
  }
  std::vector<Requirement> reqs;
  reqs.reserve(spec->match_labels.size() + spec->match_expressions.size());
  for (const auto& [k, v] : spec->match_labels) {
    auto r = Requirement::Create(k, Operator::kEquals, {v});
    if (!r.ok()) return r.status();
    reqs.push_back(std::move(r).value());
  }
  for (const LabelSelectorRequirement& expr : spec->match_expressions) {
    Operator op;
    if (expr.op == "In") {
      op = Operator::kIn;
    } else if (expr.op == "NotIn") {
      op = Operator::kNotIn;
    } else if (expr.op == "Exists") {
      op = Operator::kExists;
    } else if (expr.op == "DoesNotExist") {
      op = Operator::kDoesNotExist;
    } else {
      return BadRequestError(validation::GoQuote(expr.op) +
                             " is not a valid label selector operator");
    }
    // Upstream copies with append([]string(nil), ...): an empty list is a nil slice.
    auto r = Requirement::Create(expr.key, op, expr.values, {}, /*values_nil=*/true);
    if (!r.ok()) return r.status();
    reqs.push_back(std::move(r).value());
  }
  return LabelSelector().Add(std::move(reqs));
}

FieldErrorList ValidateLabelSelectorSpec(const LabelSelectorSpec& spec, const FieldPath& path) {
  FieldErrorList errs = validation::ValidateLabels(spec.match_labels, path.Child("matchLabels"));
  for (size_t i = 0; i < spec.match_expressions.size(); ++i) {
    const LabelSelectorRequirement& expr = spec.match_expressions[i];
    FieldPath expr_path = path.Child("matchExpressions").Index(static_cast<int64_t>(i));
    if (expr.op == "In" || expr.op == "NotIn") {
      if (expr.values.empty()) {
        errs.push_back(validation::Required(
            expr_path.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (expr.op == "Exists" || expr.op == "DoesNotExist") {
      if (!expr.values.empty()) {
        errs.push_back(validation::Forbidden(
            expr_path.Child("values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      errs.push_back(validation::Invalid(expr_path.Child("operator"), expr.op,
                                         "not a valid selector operator"));
    }
    for (auto& e : validation::ValidateLabelName(expr.key, expr_path.Child("key"))) {
      errs.push_back(std::move(e));
    }
    for (size_t j = 0; j < expr.values.size(); ++j) {
      for (std::string& msg : validation::IsValidLabelValue(expr.values[j])) {
        errs.push_back(validation::Invalid(expr_path.Child("values").Index(static_cast<int64_t>(j)),
                                           expr.values[j], std::move(msg)));
      }
    }
  }
  return errs;
}

// ---- Set-based selectors ----

LabelSelector SelectorFromSet(const meta::StringMap& set) {
  if (set.empty()) return LabelSelector::Everything();
  std::vector<Requirement> reqs;
  reqs.reserve(set.size());
  for (const auto& [k, v] : set) reqs.push_back(Requirement::PreValidatedEquals(k, v));
  return LabelSelector().Add(std::move(reqs));
}

Result<LabelSelector> ValidatedSelectorFromSet(const meta::StringMap& set) {
  if (set.empty()) return LabelSelector::Everything();
  std::vector<Requirement> reqs;
  reqs.reserve(set.size());
  for (const auto& [k, v] : set) {
    auto r = Requirement::Create(k, Operator::kEquals, {v});
    if (!r.ok()) return r.status();
    reqs.push_back(std::move(r).value());
  }
  return LabelSelector().Add(std::move(reqs));
}

LabelSelector ServiceEndpointsSelector(const meta::StringMap& service_selector) {
  if (service_selector.empty()) return LabelSelector::Nothing();
  return SelectorFromSet(service_selector);
}

}  // namespace svcplane::api::selectors
