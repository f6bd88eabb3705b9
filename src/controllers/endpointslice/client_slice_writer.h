#pragma once

// SliceWriter over the typed client (REST or in-process), counting the writes that succeeded for
// the `changes` metrics. One per sync; not thread-safe.

#include <string>

#include "client/typed/interface.h"
#include "controllers/endpointslice/reconciler.h"

namespace svcplane::controllers::endpointslice {

class ClientSliceWriter final : public SliceWriter {
 public:
  explicit ClientSliceWriter(client::ResourceClient<api::discovery::v1::EndpointSlice>& client)
      : client_(client) {}

  Result<api::discovery::v1::EndpointSlice> Create(
      const api::discovery::v1::EndpointSlice& slice) override {
    auto r = client_.Create(slice);
    if (!r.ok()) return r.status();
    ++creates;
    return **r;
  }
  Result<api::discovery::v1::EndpointSlice> Update(
      const api::discovery::v1::EndpointSlice& slice) override {
    auto r = client_.Update(slice);
    if (!r.ok()) return r.status();
    ++updates;
    return **r;
  }
  Status Delete(const std::string& ns, const std::string& name) override {
    Status s = client_.Delete(ns, name);
    if (s.ok()) ++deletes;
    return s;
  }

  int creates = 0;
  int updates = 0;
  int deletes = 0;

 private:
  client::ResourceClient<api::discovery::v1::EndpointSlice>& client_;
};

}  // namespace svcplane::controllers::endpointslice
