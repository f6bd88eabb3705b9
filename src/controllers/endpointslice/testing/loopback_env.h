#pragma once

// The real in-process API (registries over a memory store, behind the loopback Clientset) plus
// real informers: what controller wiring tests run against. Pods get their status through the
// status subresource, as a kubelet would set it.

#include <memory>
#include <string>

#include "apiserver/loopback/testing/memory_clientset.h"
#include "client/informers/informer_factory.h"
#include "controllers/endpointslice/testing/fixtures.h"

namespace svcplane::controllers::endpointslice::testing {

class LoopbackEnv {
 public:
  LoopbackEnv() {
    api_.CreateNamespace("ns");
    informers_ = client::informers::MakeInformerFactory(api_.clients(), {});
  }
  ~LoopbackEnv() { informers_->Shutdown(); }

  client::Clientset& clients() { return api_.clients(); }
  client::informers::InformerFactory& informers() { return *informers_; }

  // Creates pod `i` of MakePod (labels app=svc), then sets its status (IPs, Ready) through the
  // status subresource.
  Status CreatePod(int i, bool ready = true, const std::string& node = "node-1",
                   bool dual = false) {
    api::core::v1::Pod want = MakePod(i, "ns", node, ready, dual);
    for (auto& c : want.spec.containers) c.image = "nginx:1.25";
    auto created = clients().Pods().Create(want);
    if (!created.ok()) return created.status();
    api::core::v1::Pod with_status = **created;
    with_status.status = want.status;
    auto updated = clients().Pods().UpdateStatus(with_status);
    return updated.ok() ? Status::Ok() : updated.status();
  }
  // Flips pod `name`'s Ready condition through the status subresource.
  Status SetReady(const std::string& name, bool ready) {
    auto pod = clients().Pods().Get("ns", name);
    if (!pod.ok()) return pod.status();
    api::core::v1::Pod p = **pod;
    for (auto& c : p.status.conditions) {
      if (c.type == "Ready") c.status = ready ? "True" : "False";
    }
    auto updated = clients().Pods().UpdateStatus(p);
    return updated.ok() ? Status::Ok() : updated.status();
  }

 private:
  apiserver::loopback::testing::MemoryClientset api_;
  std::unique_ptr<client::informers::InformerFactory> informers_;
};

}  // namespace svcplane::controllers::endpointslice::testing
