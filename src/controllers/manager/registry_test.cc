#include "controllers/manager/registry.h"

#include <gtest/gtest.h>

namespace svcplane::controllers::manager {
namespace {

StartFunc Noop() {
  return [](ControllerContext&) { return Status::Ok(); };
}

ControllerRegistry Sample() {
  ControllerRegistry r;
  EXPECT_TRUE(r.Register({"endpoints-controller", Noop(), false, {"endpoint"}}).ok());
  EXPECT_TRUE(r.Register({"endpointslice-controller", Noop(), false, {"endpointslice"}}).ok());
  EXPECT_TRUE(r.Register({"lease-holder-logger", Noop(), true, {}}).ok());
  return r;
}

std::vector<std::string> EnabledNames(const ControllerRegistry& r, std::vector<std::string> flags) {
  auto enabled = r.Enabled(flags);
  EXPECT_TRUE(enabled.ok()) << enabled.status().ToString();
  std::vector<std::string> names;
  if (enabled.ok()) {
    for (const auto* d : *enabled) names.push_back(d->name);
  }
  return names;
}

TEST(ControllerRegistryTest, StarEnablesAllButDisabledByDefault) {
  auto r = Sample();
  EXPECT_EQ(EnabledNames(r, {"*"}),
            (std::vector<std::string>{"endpoints-controller", "endpointslice-controller"}));
}

TEST(ControllerRegistryTest, NamesAndMinusNamesAsKcm) {
  auto r = Sample();
  EXPECT_EQ(EnabledNames(r, {"*", "-endpoints-controller"}),
            (std::vector<std::string>{"endpointslice-controller"}));
  EXPECT_EQ(EnabledNames(r, {"*", "lease-holder-logger"}),
            (std::vector<std::string>{"endpoints-controller", "endpointslice-controller",
                                      "lease-holder-logger"}));
  EXPECT_EQ(EnabledNames(r, {"endpointslice"}),  // an alias, no star
            (std::vector<std::string>{"endpointslice-controller"}));
  // The first entry naming a controller wins.
  EXPECT_EQ(EnabledNames(r, {"-endpointslice-controller", "endpointslice-controller", "*"}),
            (std::vector<std::string>{"endpoints-controller"}));
  EXPECT_TRUE(EnabledNames(r, {}).empty());
}

TEST(ControllerRegistryTest, AnEmptyEntryNamesNothing) {
  auto r = Sample();
  // `--controllers ''`: kcm's `--controllers=` (pflag reads it as an empty list).
  EXPECT_TRUE(EnabledNames(r, {""}).empty());
  EXPECT_EQ(EnabledNames(r, {"", "endpoint"}), (std::vector<std::string>{"endpoints-controller"}));
  EXPECT_FALSE(r.Enabled({"-"}).ok());  // "-" still names the unknown controller ""
}

TEST(ControllerRegistryTest, UnknownNamesAreRejected) {
  auto r = Sample();
  auto enabled = r.Enabled({"*", "-bogus"});
  ASSERT_FALSE(enabled.ok());
  EXPECT_EQ(enabled.status().message(), "\"bogus\" is not in the list of known controllers");
}

TEST(ControllerRegistryTest, DuplicatesAreRejected) {
  auto r = Sample();
  EXPECT_EQ(r.Register({"endpoint", Noop()}).code(), Code::kAlreadyExists);
  EXPECT_EQ(r.Register({"x", Noop(), false, {"endpointslice-controller"}}).code(),
            Code::kAlreadyExists);
}

}  // namespace
}  // namespace svcplane::controllers::manager
