// libFuzzer target for the label and field selector parsers. Besides "no crash", it checks the
// properties the API server relies on:
//  - a parsed label selector prints a canonical form that parses back to the same form;
//  - a parsed field selector prints a form that parses back to the same terms;
//  - matching never throws or crashes on labels/fields derived from the input;
//  - the validation primitives the parsers rely on (and the IP/CIDR parsers) are memory-safe.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "api/selectors/field_selector.h"
#include "api/selectors/label_selector.h"
#include "api/validation/names.h"

namespace {

using svcplane::api::selectors::FieldRequirement;
using svcplane::api::selectors::FieldValue;

[[noreturn]] void Fail(std::string_view what, std::string_view input, std::string_view detail) {
  std::cerr << what << "\ninput: " << input << "\ndetail: " << detail << std::endl;
  std::abort();
}

void FuzzLabels(std::string_view input) {
  auto sel = svcplane::api::selectors::ParseLabelSelector(input);
  if (!sel.ok()) {
    if (sel.status().message().empty()) Fail("empty label error", input, "");
    return;
  }
  std::string canonical = sel->String();
  auto again = svcplane::api::selectors::ParseLabelSelector(canonical);
  if (!again.ok()) Fail("canonical label selector does not parse", input, again.status().message());
  if (again->String() != canonical) Fail("label round trip differs", input, again->String());

  // Labels from the selector's own keys/values exercise every operator.
  svcplane::api::meta::StringMap labels;
  for (const auto& r : sel->requirements()) {
    labels.emplace(r.key(), r.values().empty() ? std::string() : r.values().front());
  }
  bool m1 = sel->Matches(labels);
  bool m2 = again->Matches(labels);
  if (m1 != m2) Fail("label match differs after round trip", input, canonical);
  (void)sel->Matches({});
  for (const auto& r : sel->requirements()) (void)sel->RequiresExactMatch(r.key());
}

std::vector<FieldRequirement> Sorted(std::vector<FieldRequirement> reqs) {
  for (auto& r : reqs) {
    if (r.op == svcplane::api::selectors::FieldOperator::kDoubleEquals) {
      r.op = svcplane::api::selectors::FieldOperator::kEquals;
    }
  }
  std::sort(reqs.begin(), reqs.end(), [](const FieldRequirement& a, const FieldRequirement& b) {
    if (a.field != b.field) return a.field < b.field;
    if (a.op != b.op) return a.op < b.op;
    return a.value < b.value;
  });
  return reqs;
}

void FuzzFields(std::string_view input) {
  auto sel = svcplane::api::selectors::ParseFieldSelector(input);
  if (!sel.ok()) {
    if (sel.status().message().empty()) Fail("empty field error", input, "");
    return;
  }
  std::string printed = sel->String();
  auto again = svcplane::api::selectors::ParseFieldSelector(printed);
  if (!again.ok()) Fail("printed field selector does not parse", input, again.status().message());
  if (Sorted(again->requirements()) != Sorted(sel->requirements())) {
    Fail("field round trip differs", input, printed);
  }
  std::vector<FieldValue> fields;
  for (const auto& r : sel->requirements()) fields.emplace_back(r.field, r.value);
  (void)sel->Matches(fields);
  (void)svcplane::api::selectors::CheckDefaultFieldLabels(*sel);
  (void)svcplane::api::selectors::SelectorForItemName(*sel, "name");
}

void FuzzValidation(std::string_view input) {
  namespace v = svcplane::api::validation;
  (void)v::IsQualifiedName(input);
  (void)v::IsValidLabelValue(input);
  (void)v::IsDNS1123Subdomain(input);
  (void)v::IsValidPortName(input);
  (void)v::GoQuote(input);
  v::ParsedIP ip;
  bool parsed = v::ParseIPSloppy(input, &ip);
  if (parsed != v::IsValidIP(v::Path("ip"), input).empty()) Fail("IP verdicts differ", input, "");
  (void)v::IsValidCIDR(v::Path("cidr"), input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  FuzzLabels(input);
  FuzzFields(input);
  FuzzValidation(input);
  return 0;
}
