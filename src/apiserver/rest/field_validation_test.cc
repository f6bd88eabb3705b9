#include "apiserver/rest/field_validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace svcplane::apiserver::rest {
namespace {

using ::testing::ElementsAre;

http::Request WithQuery(std::string target) {
  http::Request req;
  req.method = "POST";
  req.target = target;
  size_t q = target.find('?');
  req.path = target.substr(0, q);
  if (q != std::string::npos) {
    req.raw_query = target.substr(q + 1);
    size_t eq = req.raw_query.find('=');
    req.query.emplace_back(req.raw_query.substr(0, eq), req.raw_query.substr(eq + 1));
  }
  return req;
}

TEST(FieldValidationTest, DirectiveDefaultsToWarn) {
  auto absent = ParseFieldValidation(WithQuery("/api/v1/namespaces/default/services"),
                                     "CreateOptions.meta.k8s.io");
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(*absent, FieldValidation::kWarn);
  auto strict = ParseFieldValidation(WithQuery("/api/v1/x?fieldValidation=Strict"), "X");
  ASSERT_TRUE(strict.ok());
  EXPECT_EQ(*strict, FieldValidation::kStrict);
  auto ignore = ParseFieldValidation(WithQuery("/api/v1/x?fieldValidation=Ignore"), "X");
  ASSERT_TRUE(ignore.ok());
  EXPECT_EQ(*ignore, FieldValidation::kIgnore);
}

TEST(FieldValidationTest, UnsupportedDirectiveIsInvalid) {
  auto bad = ParseFieldValidation(WithQuery("/api/v1/x?fieldValidation=strict"),
                                  "CreateOptions.meta.k8s.io");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalid);
  EXPECT_EQ(bad.status().message(),
            R"(CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: )"
            R"("strict": supported values: "", "Ignore", "Strict", "Warn")");
}

TEST(FieldValidationTest, ReportFollowsTheDirective) {
  auto error = [](const std::vector<std::string>& p) { return BadRequestError(p.front()); };
  std::vector<std::string> found = {R"(unknown field "spec.bogus")"};
  StrictProblems strict(FieldValidation::kStrict);
  EXPECT_EQ(strict.Report(found, error).code(), Code::kBadRequest);
  StrictProblems warn(FieldValidation::kWarn);
  EXPECT_TRUE(warn.Report(found, error).ok());
  EXPECT_TRUE(warn.Report(found, error).ok());  // once each
  EXPECT_THAT(warn.warnings(), ElementsAre(R"(unknown field "spec.bogus")"));
  StrictProblems ignore(FieldValidation::kIgnore);
  EXPECT_TRUE(ignore.Report(found, error).ok());
  EXPECT_TRUE(ignore.warnings().empty());
}

TEST(FieldValidationTest, WarningsBecomeHeaders) {
  StrictProblems warn(FieldValidation::kWarn);
  warn.AddStrictWarning(R"(unknown field "spec.bogus")");
  // A YAML error listing keys: one warning per line, as parseYAMLWarnings.
  warn.AddStrictWarning(YamlDuplicateKeysProblem(
      {R"(line 3: key "name" already set in map)", R"(line 5: key "a" already set in map)"}));
  http::Reply reply = http::Response{};
  warn.AttachTo(&reply);
  const auto& headers = std::get<http::Response>(reply).headers;
  ASSERT_EQ(headers.size(), 3u);
  EXPECT_EQ(headers[0].first, "Warning");
  EXPECT_EQ(headers[0].second, R"(299 - "unknown field \"spec.bogus\"")");
  EXPECT_EQ(headers[1].second, R"(299 - "line 3: key \"name\" already set in map")");
  EXPECT_EQ(headers[2].second, R"(299 - "line 5: key \"a\" already set in map")");
}

TEST(FieldValidationTest, GoSprintOfAPatchMap) {
  EXPECT_EQ(GoSprintJsonMap(R"({"spec":{"bogus":1,"a":[1.5,"x",null,true]},"metadata":{}})"),
            "map[metadata:map[] spec:map[a:[1.5 x <nil> true] bogus:1]]");
  EXPECT_EQ(GoSprintJsonMap(R"({"f":1e21,"g":100000.0,"h":0.00001})"),
            "map[f:1e+21 g:100000 h:1e-05]");
}

}  // namespace
}  // namespace svcplane::apiserver::rest
