// Differential test against upstream: testdata/label_parse_golden.tsv records how kubectl 1.33
// (apimachinery's own labels.Parse) answers each input; see testdata/gen_label_golden.py.

#include <fstream>
#include <string>
#include <vector>

#include "api/selectors/label_selector.h"
#include "gtest/gtest.h"

namespace svcplane::api::selectors {
namespace {

std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
    } else if (s[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (s[i + 1] == 'x' && i + 3 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 2, 2)), nullptr, 16));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

struct GoldenCase {
  std::string input;
  bool ok;
  std::string message;
};

std::vector<GoldenCase> LoadGolden() {
  std::ifstream in(SVCPLANE_SELECTORS_TESTDATA "/label_parse_golden.tsv");
  std::vector<GoldenCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("#")) continue;
    size_t t1 = line.find('\t');
    size_t t2 = line.find('\t', t1 + 1);
    if (t1 == std::string::npos || t2 == std::string::npos) continue;
    cases.push_back({Unescape(std::string_view(line).substr(0, t1)),
                     line.substr(t1 + 1, t2 - t1 - 1) == "OK",
                     Unescape(std::string_view(line).substr(t2 + 1))});
  }
  return cases;
}

TEST(LabelSelectorGolden, MatchesUpstreamParse) {
  std::vector<GoldenCase> cases = LoadGolden();
  ASSERT_GT(cases.size(), 300u) << "golden file missing or truncated";
  for (const GoldenCase& c : cases) {
    auto sel = ParseLabelSelector(c.input);
    if (c.ok) {
      EXPECT_TRUE(sel.ok()) << "input: [" << c.input << "] error: " << sel.status().message();
    } else if (sel.ok()) {
      ADD_FAILURE() << "input: [" << c.input << "] parsed as [" << sel->String()
                    << "], upstream: " << c.message;
    } else {
      EXPECT_EQ(sel.status().message(), c.message) << "input: [" << c.input << "]";
    }
  }
}

}  // namespace
}  // namespace svcplane::api::selectors
