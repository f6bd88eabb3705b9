#pragma once

// Test-only: a Pod ResourceHandler over an in-memory store, for tests that drive the REST
// handler directly (no HTTP server).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "apiserver/rest/request_info.h"
#include "apiserver/rest/resource_handler.h"
#include "storage/memory/memory_store.h"

namespace svcplane::apiserver::rest::testing {

class PodHandlerFixture : public ::testing::Test {
 protected:
  PodHandlerFixture() : pods_(Ctx()), handler_(&pods_, nullptr) {}

  void CreatePod(api::core::v1::Pod pod) {
    auto created = pods_.Create("default", std::move(pod), {});
    EXPECT_TRUE(created.ok()) << created.status().ToString();
  }

  // Routes `req` (its path parsed as the router does) to the handler; expects a Response.
  http::Response Handle(http::Request req) {
    req.target = req.path;
    auto info = ParseResourcePath(req.path);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    auto reply = handler_.Handle(req, *info);
    EXPECT_TRUE(std::holds_alternative<http::Response>(reply));
    return std::get<http::Response>(std::move(reply));
  }

  storage::memory::MemoryStore store_;
  registry::Registry<api::core::v1::Pod> pods_;
  ResourceHandler<api::core::v1::Pod> handler_;

 private:
  registry::RegistryContext Ctx() {
    registry::RegistryContext ctx;
    ctx.store = &store_;
    ctx.now_micros = [] { return int64_t{1714557600'000000}; };
    return ctx;
  }
};

}  // namespace svcplane::apiserver::rest::testing
