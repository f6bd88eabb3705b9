#include <map>
#include <set>

#include "api/validation/internal/common.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace svcplane::api::validation {
namespace {

using internal::Append;

// helper.IsIntegerResourceName for node resources: "pods" and extended resources (a domain
// prefix other than *kubernetes.io, not "requests."-prefixed).
bool IsIntegerResourceName(std::string_view name) {
  if (name == "pods") return true;
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view domain = name.substr(0, slash);
  bool native = domain == "kubernetes.io" ||
                (domain.size() > 14 && domain.substr(domain.size() - 14) == ".kubernetes.io");
  return !native && name.rfind("requests.", 0) != 0;
}

FieldErrorList ValidateResourceList(const core::v1::ResourceList& list, std::string_view field) {
  FieldErrorList errs;
  for (const auto& [name, quantity] : list) {
    FieldPath path = Path("status").Child(field).Child(name);
    std::optional<int64_t> milli = quantity.MilliValue();
    if (milli && *milli < 0) {
      errs.push_back(Invalid(path, quantity.text, std::string(internal::kIsNegative)));
    }
    if (milli && IsIntegerResourceName(name) && *milli % 1000 != 0) {
      errs.push_back(InvalidRendered(path, quantity.text, "must be an integer"));
    }
  }
  return errs;
}

FieldErrorList ValidateNodeResources(const core::v1::Node& node) {
  FieldErrorList errs = ValidateResourceList(node.status.capacity, "capacity");
  Append(&errs, ValidateResourceList(node.status.allocatable, "allocatable"));
  return errs;
}

// %#v of a core.Taint, for the duplicate message.
std::string RenderTaint(const core::v1::Taint& t) {
  return "core.Taint{Key:" + GoQuote(t.key) + ", Value:" + GoQuote(t.value) +
         ", Effect:" + GoQuote(t.effect) +
         ", TimeAdded:" + (t.time_added ? "&v1.Time{...}" : std::string("<nil>")) + "}";
}

// validateNodeTaints. Upstream passes metadata as the parent path, so errors read
// "metadata.taints[0].key"; kept for fidelity.
FieldErrorList ValidateTaints(const std::vector<core::v1::Taint>& taints, const FieldPath& path) {
  FieldErrorList errs;
  std::map<std::string, std::set<std::string>> unique;  // effect -> keys
  for (size_t i = 0; i < taints.size(); ++i) {
    const core::v1::Taint& t = taints[i];
    FieldPath idx = path.Index(static_cast<int64_t>(i));
    Append(&errs, ValidateLabelName(t.key, idx.Child("key")));
    if (auto msgs = IsValidLabelValue(t.value); !msgs.empty()) {
      std::string joined;
      for (size_t m = 0; m < msgs.size(); ++m) joined += (m ? ";" : "") + msgs[m];
      errs.push_back(Invalid(idx.Child("value"), t.value, joined));
    }
    if (t.effect.empty()) {
      errs.push_back(Required(idx.Child("effect")));
    } else if (t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" &&
               t.effect != "NoExecute") {
      errs.push_back(NotSupported(idx.Child("effect"), t.effect,
                                  {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    }
    if (unique[t.effect].count(t.key)) {
      FieldError dup{FieldErrorType::kDuplicate, idx.String(), RenderTaint(t),
                     "taints must be unique by key and effect pair"};
      errs.push_back(std::move(dup));
      continue;
    }
    unique[t.effect].insert(t.key);
  }
  return errs;
}

bool IsIPv6CIDR(std::string_view cidr) { return cidr.find(':') != std::string_view::npos; }

}  // namespace

FieldErrorList ValidateCreate(const core::v1::Node& node) {
  FieldPath meta = Path("metadata");
  FieldErrorList errs = ValidateObjectMeta(node.metadata, false, NameIsDNSSubdomain, meta);
  if (!node.spec.taints.empty())
    Append(&errs, ValidateTaints(node.spec.taints, meta.Child("taints")));
  Append(&errs, ValidateNodeResources(node));
  const std::vector<std::string>& cidrs = node.spec.pod_cidrs;
  if (!cidrs.empty()) {
    FieldPath cidrs_path = Path("spec").Child("podCIDRs");
    bool all_valid = true;
    for (size_t i = 0; i < cidrs.size(); ++i) {
      FieldErrorList e = IsValidCIDR(cidrs_path.Index(static_cast<int64_t>(i)), cidrs[i]);
      all_valid = all_valid && e.empty();
      Append(&errs, std::move(e));
    }
    if (cidrs.size() > 1) {
      if (!all_valid) {
        errs.push_back(InternalFieldError(
            cidrs_path,
            "invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR"));
      }
      bool dual = cidrs.size() == 2 && IsIPv6CIDR(cidrs[0]) != IsIPv6CIDR(cidrs[1]);
      if (!dual || cidrs.size() > 2) {
        errs.push_back(InvalidRendered(cidrs_path, GoStringSlice(cidrs),
                                       "may specify no more than one CIDR for each IP family"));
      }
      std::set<std::string> seen;
      for (size_t i = 0; i < cidrs.size(); ++i) {
        if (!seen.insert(cidrs[i]).second) {
          errs.push_back(Duplicate(cidrs_path.Index(static_cast<int64_t>(i)), cidrs[i]));
        }
      }
    }
  }
  return errs;
}

FieldErrorList ValidateUpdate(const core::v1::Node& node, const core::v1::Node& old) {
  FieldPath meta = Path("metadata");
  FieldErrorList errs = ValidateObjectMetaUpdate(node.metadata, old.metadata, meta);
  Append(&errs, ValidateNodeResources(node));
  std::set<std::pair<std::string, std::string>> addresses;
  for (size_t i = 0; i < node.status.addresses.size(); ++i) {
    const core::v1::NodeAddress& a = node.status.addresses[i];
    if (!addresses.insert({a.type, a.address}).second) {
      errs.push_back(FieldError{
          FieldErrorType::kDuplicate,
          Path("status").Child("addresses").Index(static_cast<int64_t>(i)).String(),
          "core.NodeAddress{Type:" + GoQuote(a.type) + ", Address:" + GoQuote(a.address) + "}",
          ""});
    }
  }
  const std::string cidr_msg = "node updates may not change podCIDR except from \"\" to valid";
  if (!old.spec.pod_cidrs.empty()) {
    FieldPath cidrs_path = Path("spec").Child("podCIDRs");
    if (old.spec.pod_cidrs.size() != node.spec.pod_cidrs.size()) {
      errs.push_back(Forbidden(cidrs_path, cidr_msg));
    } else {
      for (size_t i = 0; i < old.spec.pod_cidrs.size(); ++i) {
        if (old.spec.pod_cidrs[i] != node.spec.pod_cidrs[i]) {
          errs.push_back(Forbidden(cidrs_path, cidr_msg));
        }
      }
    }
  }
  if (!old.spec.provider_id.empty() && old.spec.provider_id != node.spec.provider_id) {
    errs.push_back(Forbidden(Path("spec").Child("providerID"),
                             "node updates may not change providerID except from \"\" to valid"));
  }
  if (!node.spec.taints.empty())
    Append(&errs, ValidateTaints(node.spec.taints, meta.Child("taints")));
  return errs;
}

FieldErrorList ValidateStatusUpdate(const core::v1::Node& node, const core::v1::Node& old) {
  return ValidateUpdate(node, old);
}

}  // namespace svcplane::api::validation
