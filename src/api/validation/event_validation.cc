#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

constexpr size_t kReportingInstanceLengthLimit = 128;
constexpr size_t kActionLengthLimit = 128;
constexpr size_t kReasonLengthLimit = 128;
constexpr size_t kNoteLengthLimit = 1024;

std::string AtMost(size_t n) { return "can have at most " + std::to_string(n) + " characters"; }

// legacyValidateEvent: all that core/v1 requests get, on create and on update. Note that
// upstream runs no ObjectMeta validation for core/v1 Events (only events.k8s.io does).
FieldErrorList LegacyValidateEvent(const core::v1::Event& event) {
  FieldErrorList errs;
  const std::string& ns = event.metadata.namespace_;
  FieldPath involved_ns = Path("involvedObject").Child("namespace");
  if (event.event_time.IsZero()) {
    // Old-style events: the involved object's namespace must agree with the event's.
    if (event.involved_object.namespace_.empty()) {
      if (!ns.empty() && ns != "default") {
        errs.push_back(Invalid(involved_ns, event.involved_object.namespace_,
                               "does not match event.namespace"));
      }
    } else if (ns != event.involved_object.namespace_) {
      errs.push_back(
          Invalid(involved_ns, event.involved_object.namespace_, "does not match event.namespace"));
    }
  } else {
    if (event.involved_object.namespace_.empty() && ns != "default" && ns != "kube-system") {
      errs.push_back(
          Invalid(involved_ns, event.involved_object.namespace_, "does not match event.namespace"));
    }
    // core/v1 names events.k8s.io's reportingController "reportingComponent".
    FieldPath controller = Path("reportingComponent");
    if (event.reporting_component.empty()) errs.push_back(Required(controller));
    internal::Append(&errs, internal::QualifiedName(event.reporting_component, controller));
    if (event.reporting_instance.empty()) errs.push_back(Required(Path("reportingInstance")));
    if (event.reporting_instance.size() > kReportingInstanceLengthLimit) {
      errs.push_back(Invalid(Path("reportingInstance"), "", AtMost(kReportingInstanceLengthLimit)));
    }
    if (event.action.empty()) errs.push_back(Required(Path("action")));
    if (event.action.size() > kActionLengthLimit) {
      errs.push_back(Invalid(Path("action"), "", AtMost(kActionLengthLimit)));
    }
    if (event.reason.empty()) errs.push_back(Required(Path("reason")));
    if (event.reason.size() > kReasonLengthLimit) {
      errs.push_back(Invalid(Path("reason"), "", AtMost(kReasonLengthLimit)));
    }
    if (event.message.size() > kNoteLengthLimit) {
      errs.push_back(Invalid(Path("message"), "", AtMost(kNoteLengthLimit)));
    }
  }
  for (std::string& msg : IsDNS1123Subdomain(ns)) {
    errs.push_back(Invalid(Path("namespace"), ns, msg));
  }
  return errs;
}

}  // namespace

FieldErrorList ValidateCreate(const core::v1::Event& event) { return LegacyValidateEvent(event); }

FieldErrorList ValidateUpdate(const core::v1::Event& event, const core::v1::Event& /*old*/) {
  return LegacyValidateEvent(event);
}

}  // namespace svcplane::api::validation
