#include "bench/common/table.h"

#include <algorithm>
#include <cstdio>

namespace svcplane::bench {

void PrintTable(const std::vector<Row>& rows) {
  size_t w0 = 6, w1 = 5;
  for (const auto& r : rows) {
    w0 = std::max(w0, r.metric.size());
    w1 = std::max(w1, r.value.size());
  }
  std::printf("| %-*s | %-*s | %s |\n", static_cast<int>(w0), "metric", static_cast<int>(w1),
              "value", "target");
  std::printf("|%s|%s|---|\n", std::string(w0 + 2, '-').c_str(), std::string(w1 + 2, '-').c_str());
  for (const auto& r : rows) {
    std::printf("| %-*s | %-*s | %s |\n", static_cast<int>(w0), r.metric.c_str(),
                static_cast<int>(w1), r.value.c_str(), r.target.c_str());
  }
  std::fflush(stdout);
}

}  // namespace svcplane::bench
