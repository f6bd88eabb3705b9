#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace svcplane::api::validation {

// A JSON path to the offending field, rendered as apimachinery's field.Path does:
//   Path("spec").Child("ports").Index(0).Key("x")  ->  "spec.ports[0][x]"
// A default-constructed path is upstream's nil *field.Path and renders as "<nil>"; that text
// leaks into some upstream messages (e.g. label selector parse errors), so we keep it.
class FieldPath {
 public:
  FieldPath() = default;

  FieldPath Child(std::string_view name) const;
  FieldPath Index(int64_t index) const;
  FieldPath Key(std::string_view key) const;

  bool IsNil() const { return nil_; }
  // "<nil>" for the nil path.
  std::string String() const { return nil_ ? std::string("<nil>") : path_; }

  bool operator==(const FieldPath&) const = default;

 private:
  friend FieldPath Path(std::string_view name);
  bool nil_ = true;
  std::string path_;
};

// The root of a path (field.NewPath).
FieldPath Path(std::string_view name);

// field.ErrorType; the comments give the cause type string that goes on the wire.
enum class FieldErrorType {
  kNotFound,      // FieldValueNotFound
  kRequired,      // FieldValueRequired
  kDuplicate,     // FieldValueDuplicate
  kInvalid,       // FieldValueInvalid
  kNotSupported,  // FieldValueNotSupported
  kForbidden,     // FieldValueForbidden
  kTooLong,       // FieldValueTooLong
  kTooMany,       // FieldValueTooMany
  kInternal,      // InternalError
};

// "FieldValueInvalid", ... (metav1.CauseType).
std::string_view CauseType(FieldErrorType type);
// "Invalid value", "Required value", ... (ErrorType.String()).
std::string_view TypeText(FieldErrorType type);

// One validation failure (field.Error). `bad_value` is already rendered the way upstream prints
// the Go value: strings Go-quoted ("\"1web\""), integers bare ("1001"), string slices as
// `[]string{"a", "b"}`. Empty means "not shown" (upstream's omitValue); types that never show
// a value (Required, Forbidden, TooLong, Internal) ignore it.
struct FieldError {
  FieldErrorType type = FieldErrorType::kInvalid;
  std::string field;
  std::string bad_value;
  std::string detail;

  // "Invalid value: \"1web\": a DNS-1035 label must ..." (the cause message on the wire).
  std::string ErrorBody() const;
  // "metadata.name: Invalid value: ..." (field.Error.Error()).
  std::string Error() const;

  bool operator==(const FieldError&) const = default;
};

using FieldErrorList = std::vector<FieldError>;

// Go's strconv.Quote (what %q prints for a string). Non-ASCII printability follows Go for the
// common cases (C1 controls, U+00AD, U+2028/9, U+FEFF escaped); exotic unassigned code points
// are printed raw.
std::string GoQuote(std::string_view s);
// Go's unicode.IsPrint, to the same precision as GoQuote.
bool GoIsPrint(char32_t r);
// Decodes one UTF-8 sequence at s[i] into *out; returns its length, or 0 if invalid (Go then
// ranges over the single byte as RuneError, U+FFFD, and Quote prints it as \xNN).
size_t DecodeRune(std::string_view s, size_t i, char32_t* out);
// %#v of a []string: `[]string{"a", "b"}`; `[]string(nil)` when `is_nil`.
std::string GoStringSlice(const std::vector<std::string>& values, bool is_nil = false);

// Constructors named as in field/errors.go.
FieldError Invalid(const FieldPath& path, std::string_view value, std::string detail);
FieldError Invalid(const FieldPath& path, int64_t value, std::string detail);
// For values that are not strings or ints: pass the rendering (e.g. GoStringSlice(...)).
FieldError InvalidRendered(const FieldPath& path, std::string rendered_value, std::string detail);
FieldError Required(const FieldPath& path, std::string detail = "");
FieldError Duplicate(const FieldPath& path, std::string_view value);
FieldError Duplicate(const FieldPath& path, int64_t value);
FieldError NotFound(const FieldPath& path, std::string_view value);
// detail: `supported values: "SCTP", "TCP", "UDP"` (values quoted in the order given).
FieldError NotSupported(const FieldPath& path, std::string_view value,
                        const std::vector<std::string_view>& valid_values);
FieldError Forbidden(const FieldPath& path, std::string detail);
// detail: "must have at most <max_bytes> bytes".
FieldError TooLong(const FieldPath& path, int64_t max_bytes);
// "Too many: <actual>: must have at most <max> items"; actual < 0 omits the count and
// max < 0 gives "has too many items".
FieldError TooMany(const FieldPath& path, int64_t actual, int64_t max_items);
FieldError InternalFieldError(const FieldPath& path, std::string detail);

// utilerrors.NewAggregate(list.ToAggregate()).Error(): messages de-duplicated; one error prints
// bare, several as "[a, b]". Empty list gives "".
std::string AggregateMessage(const FieldErrorList& errors);

// apierrors.NewInvalid: code kInvalid, message
//   `<qualified_kind> "<name>" is invalid: <aggregate>`  (or `... is invalid` with no errors),
// one StatusCause per error {type: CauseType, field, message: ErrorBody()}.
// qualified_kind is "Service" or "EndpointSlice.discovery.k8s.io" (GroupKind.String()).
Status ToInvalidStatus(std::string_view qualified_kind, std::string_view name,
                       const FieldErrorList& errors);

}  // namespace svcplane::api::validation
