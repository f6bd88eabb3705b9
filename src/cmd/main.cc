// svcplane: the service-discovery control plane. main() wires subcommands and nothing else.
#include <CLI/CLI.hpp>

#include <iostream>

#include "base/logging.h"
#include "cmd/controllers.h"
#include "cmd/malloc_tuning.h"
#include "cmd/serve.h"
#include "cmd/simulate.h"
#include "cmd/snapshot.h"

namespace {

// simdjson's decoder is compiled for x86-64-v3 (see src/api/codec/CMakeLists.txt).
bool CpuSupported() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
         __builtin_cpu_supports("pclmul");
#else
  return true;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  svcplane::cmd::DisableMallocFastbins();
  CLI::App app{"svcplane: Kubernetes' service-discovery control plane"};
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->capture_default_str();

  auto* version = app.add_subcommand("version", "Print the version");

  svcplane::cmd::ServeFlags serve_flags;
  auto* serve = svcplane::cmd::AddServeCommand(app, serve_flags);
  serve->add_option("--log-level", log_level, "trace, debug, info, warn, error");

  svcplane::cmd::ControllersFlags controllers_flags;
  auto* controllers = svcplane::cmd::AddControllersCommand(app, controllers_flags);
  controllers->add_option("--log-level", log_level, "trace, debug, info, warn, error");

  svcplane::cmd::SimulateFlags simulate_flags;
  auto* simulate = svcplane::cmd::AddSimulateCommand(app, simulate_flags);
  simulate->add_option("--log-level", log_level, "trace, debug, info, warn, error");

  svcplane::cmd::SnapshotFlags snapshot_flags;
  auto* snapshot = svcplane::cmd::AddSnapshotCommand(app, snapshot_flags);

  CLI11_PARSE(app, argc, argv);
  if (auto st = svcplane::SetLogLevel(log_level); !st.ok()) {
    std::cerr << st.message() << "\n";
    return 2;
  }
  if (*version) {
    std::cout << "svcplane " << SVCPLANE_VERSION << "\n";
    return 0;
  }
  if (!CpuSupported()) {
    std::cerr << "svcplane: this build needs an x86-64-v3 CPU (AVX2, BMI2, PCLMUL)\n";
    return 1;
  }
  if (*serve) return svcplane::cmd::RunServe(serve_flags);
  if (*controllers) return svcplane::cmd::RunControllers(controllers_flags);
  if (*simulate) return svcplane::cmd::RunSimulate(simulate_flags);
  if (*snapshot) return svcplane::cmd::RunSnapshot(*snapshot, snapshot_flags);
  return 0;
}
