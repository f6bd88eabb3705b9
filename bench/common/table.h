#pragma once

// The Markdown table the end-to-end benches print: metric, value, target.

#include <string>
#include <vector>

namespace svcplane::bench {

struct Row {
  std::string metric, value, target;
};

// Prints `rows` to stdout as a Markdown table with padded columns.
void PrintTable(const std::vector<Row>& rows);

}  // namespace svcplane::bench
