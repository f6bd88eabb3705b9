#include "client/informers/informer_factory.h"

#include <mutex>
#include <tuple>

#include "client/informers/shared_informer.h"

namespace svcplane::client::informers {
namespace {

using namespace api::core::v1;
using api::coordination::v1::Lease;
using api::discovery::v1::EndpointSlice;

class InformerFactoryImpl final : public InformerFactory {
 public:
  InformerFactoryImpl(Clientset& clients, InformerOptions options, ReflectorOptions reflector)
      : clients_(clients), options_(std::move(options)), reflector_(std::move(reflector)) {}
  ~InformerFactoryImpl() override { Shutdown(); }

  SharedInformer<Namespace>& Namespaces() override { return Get<Namespace>(); }
  SharedInformer<Service>& Services() override { return Get<Service>(); }
  SharedInformer<Pod>& Pods() override { return Get<Pod>(); }
  SharedInformer<Node>& Nodes() override { return Get<Node>(); }
  SharedInformer<api::core::v1::Endpoints>& Endpoints() override {
    return Get<api::core::v1::Endpoints>();
  }
  SharedInformer<Event>& Events() override { return Get<Event>(); }
  SharedInformer<EndpointSlice>& EndpointSlices() override { return Get<EndpointSlice>(); }
  SharedInformer<Lease>& Leases() override { return Get<Lease>(); }
  SharedInformer<api::apps::v1::Deployment>& Deployments() override {
    return Get<api::apps::v1::Deployment>();
  }
  SharedInformer<api::apps::v1::ReplicaSet>& ReplicaSets() override {
    return Get<api::apps::v1::ReplicaSet>();
  }

  void Start() override {
    std::lock_guard lock(mu_);
    if (shut_down_) return;
    started_ = true;
    ForEach([](auto& informer) { informer.Start(); });
  }

  bool WaitForCacheSync(std::chrono::milliseconds timeout) override {
    const TimePoint deadline = std::chrono::steady_clock::now() + timeout;
    std::vector<std::function<bool()>> waits;
    {
      std::lock_guard lock(mu_);
      if (!started_ || shut_down_) return false;
      ForEach([&](auto& informer) {
        waits.push_back([&informer, deadline] { return informer.WaitForCacheSync(deadline); });
      });
    }
    for (auto& wait : waits) {
      if (!wait()) return false;
    }
    return true;
  }

  void Shutdown() override {
    std::lock_guard lock(mu_);
    shut_down_ = true;
    ForEach([](auto& informer) { informer.Shutdown(); });
  }

 private:
  template <typename T>
  SharedIndexInformer<T>& Get() {
    std::lock_guard lock(mu_);
    auto& slot = std::get<std::unique_ptr<SharedIndexInformer<T>>>(informers_);
    if (!slot) {
      InformerOptions opts = options_;
      ReflectorOptions ropts = reflector_;
      if constexpr (std::is_same_v<T, Namespace> || std::is_same_v<T, Node>) {
        opts.namespace_.clear();
      }
      slot = std::make_unique<SharedIndexInformer<T>>(clients_.For<T>(), opts, ropts);
      if (started_ && !shut_down_) slot->Start();
    }
    return *slot;
  }

  template <typename Fn>
  void ForEach(Fn&& fn) {
    std::apply([&](auto&... slot) { ((slot ? fn(*slot) : void()), ...); }, informers_);
  }

  Clientset& clients_;
  const InformerOptions options_;
  const ReflectorOptions reflector_;
  std::mutex mu_;
  bool started_ = false;
  bool shut_down_ = false;
  std::tuple<std::unique_ptr<SharedIndexInformer<Namespace>>,
             std::unique_ptr<SharedIndexInformer<Service>>,
             std::unique_ptr<SharedIndexInformer<Pod>>, std::unique_ptr<SharedIndexInformer<Node>>,
             std::unique_ptr<SharedIndexInformer<api::core::v1::Endpoints>>,
             std::unique_ptr<SharedIndexInformer<Event>>,
             std::unique_ptr<SharedIndexInformer<EndpointSlice>>,
             std::unique_ptr<SharedIndexInformer<Lease>>,
             std::unique_ptr<SharedIndexInformer<api::apps::v1::Deployment>>,
             std::unique_ptr<SharedIndexInformer<api::apps::v1::ReplicaSet>>>
      informers_;
};

}  // namespace

std::unique_ptr<InformerFactory> MakeInformerFactory(Clientset& clients, InformerOptions options) {
  return MakeInformerFactory(clients, std::move(options), ReflectorOptions{});
}

std::unique_ptr<InformerFactory> MakeInformerFactory(Clientset& clients, InformerOptions options,
                                                     ReflectorOptions reflector_options) {
  return std::make_unique<InformerFactoryImpl>(clients, std::move(options),
                                               std::move(reflector_options));
}

}  // namespace svcplane::client::informers
