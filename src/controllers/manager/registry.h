#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "controllers/manager/controller_context.h"

namespace svcplane::controllers::manager {

// The controllers a binary knows, by name. Filled at start-up, then read-only.
class ControllerRegistry {
 public:
  // AlreadyExists for a duplicate name or alias.
  Status Register(ControllerDescriptor descriptor);

  const std::vector<ControllerDescriptor>& descriptors() const { return descriptors_; }
  std::vector<std::string> KnownNames() const;  // names and aliases, sorted

  // The descriptors --controllers enables, in registration order. Invalid when it names an
  // unknown controller: "\"foo\" is not in the list of known controllers". Empty entries are
  // ignored, so {""} (`--controllers ''`) enables nothing.
  Result<std::vector<const ControllerDescriptor*>> Enabled(
      const std::vector<std::string>& controllers) const;

 private:
  std::vector<ControllerDescriptor> descriptors_;
};

// kcm's IsControllerEnabled: the first entry naming the controller ("name" or "-name") decides;
// otherwise "*" enables it unless it is disabled by default; otherwise it is off.
bool IsControllerEnabled(const ControllerDescriptor& controller,
                         const std::vector<std::string>& controllers);

}  // namespace svcplane::controllers::manager
