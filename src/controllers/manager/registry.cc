#include "controllers/manager/registry.h"

#include <algorithm>

namespace svcplane::controllers::manager {

namespace {

bool Names(const ControllerDescriptor& d, std::string_view name) {
  return d.name == name || std::find(d.aliases.begin(), d.aliases.end(), name) != d.aliases.end();
}

}  // namespace

Status ControllerRegistry::Register(ControllerDescriptor descriptor) {
  std::vector<std::string> names = descriptor.aliases;
  names.push_back(descriptor.name);
  for (const auto& existing : descriptors_) {
    for (const auto& n : names) {
      if (Names(existing, n)) {
        return AlreadyExistsError("controller \"" + n + "\" is already registered");
      }
    }
  }
  if (descriptor.name.empty() || !descriptor.start) {
    return InvalidError("a controller needs a name and a start function");
  }
  descriptors_.push_back(std::move(descriptor));
  return Status::Ok();
}

std::vector<std::string> ControllerRegistry::KnownNames() const {
  std::vector<std::string> names;
  for (const auto& d : descriptors_) {
    names.push_back(d.name);
    names.insert(names.end(), d.aliases.begin(), d.aliases.end());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool IsControllerEnabled(const ControllerDescriptor& controller,
                         const std::vector<std::string>& controllers) {
  bool has_star = false;
  for (const auto& entry : controllers) {
    if (Names(controller, entry)) return true;
    if (!entry.empty() && entry[0] == '-' && Names(controller, entry.substr(1))) return false;
    if (entry == "*") has_star = true;
  }
  return has_star && !controller.disabled_by_default;
}

Result<std::vector<const ControllerDescriptor*>> ControllerRegistry::Enabled(
    const std::vector<std::string>& controllers) const {
  for (const auto& entry : controllers) {
    // An empty entry names nothing: `--controllers ''` enables no controller, as kcm's
    // `--controllers=` (an empty list) does; `serve` uses it to leave the controllers to a
    // separate `svcplane controllers`.
    if (entry == "*" || entry.empty()) continue;
    std::string name = entry.starts_with("-") ? entry.substr(1) : entry;
    bool known = std::any_of(descriptors_.begin(), descriptors_.end(),
                             [&](const ControllerDescriptor& d) { return Names(d, name); });
    if (!known) return InvalidError("\"" + name + "\" is not in the list of known controllers");
  }
  std::vector<const ControllerDescriptor*> enabled;
  for (const auto& d : descriptors_) {
    if (IsControllerEnabled(d, controllers)) enabled.push_back(&d);
  }
  return enabled;
}

}  // namespace svcplane::controllers::manager
