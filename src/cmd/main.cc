// svcplane: the service-discovery control plane. main() wires subcommands and nothing else.
#include <CLI/CLI.hpp>

#include <iostream>

#include "base/logging.h"

int main(int argc, char** argv) {
  CLI::App app{"svcplane: Kubernetes' service-discovery control plane"};
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->capture_default_str();

  auto* version = app.add_subcommand("version", "Print the version");

  CLI11_PARSE(app, argc, argv);
  if (auto st = svcplane::SetLogLevel(log_level); !st.ok()) {
    std::cerr << st.message() << "\n";
    return 2;
  }
  if (*version) {
    std::cout << "svcplane " << SVCPLANE_VERSION << "\n";
    return 0;
  }
  return 0;
}
