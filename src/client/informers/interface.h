#pragma once

// Informers as client-go's tools/cache: a reflector lists then watches one resource through a
// client::ResourceClient, keeps a thread-safe indexed cache of shared read-only objects, and
// tells event handlers what changed. One SharedInformer per resource serves every controller.
// This header is the contract controllers code against; the implementation lives next to it.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/selectors/label_selector.h"
#include "client/typed/interface.h"

namespace svcplane::client::informers {

// Handlers run on the informer's delivery thread, in event order, one at a time per informer.
// They must not block for long: controllers enqueue keys and return.
template <typename T>
struct ResourceEventHandler {
  // `in_initial_list`: the object came from the first list (client-go's isInInitialList).
  std::function<void(const ObjectPtr<T>& obj, bool in_initial_list)> on_add;
  // Also called on periodic resync with old == cur (same pointer).
  std::function<void(const ObjectPtr<T>& old_obj, const ObjectPtr<T>& new_obj)> on_update;
  // `final_state_unknown`: a tombstone (DeletedFinalStateUnknown): the delete was missed (e.g.
  // across a relist after 410) and `obj` is the last state the cache knew.
  std::function<void(const ObjectPtr<T>& obj, bool final_state_unknown)> on_delete;
};

// An index function returns the index values of one object (cache.IndexFunc).
template <typename T>
using IndexFunc = std::function<std::vector<std::string>(const T& obj)>;

// The standard namespace index ("namespace"), always present.
inline constexpr char kNamespaceIndex[] = "namespace";

// Read-only view of an informer's cache. Never returns copies: objects are shared and immutable.
template <typename T>
class Lister {
 public:
  virtual ~Lister() = default;
  // Null if absent. Cluster-scoped kinds use ns = "".
  virtual ObjectPtr<T> Get(std::string_view ns, std::string_view name) const = 0;
  // Every object matching `selector` (all namespaces when ns is empty).
  virtual std::vector<ObjectPtr<T>> List(
      std::string_view ns = "",
      const api::selectors::LabelSelector& selector = api::selectors::LabelSelector()) const = 0;
  // Objects whose IndexFunc for `index_name` returned `value`.
  virtual std::vector<ObjectPtr<T>> ByIndex(std::string_view index_name,
                                            std::string_view value) const = 0;
};

class HandlerRegistration {
 public:
  virtual ~HandlerRegistration() = default;
  // True once every object of the initial list has been delivered to this handler.
  virtual bool HasSynced() const = 0;
};

template <typename T>
class SharedInformer {
 public:
  virtual ~SharedInformer() = default;
  // A handler added after start first receives on_add for every cached object.
  virtual std::shared_ptr<HandlerRegistration> AddEventHandler(ResourceEventHandler<T> handler) = 0;
  // Indexers must be added before the informer starts.
  virtual Status AddIndexer(std::string name, IndexFunc<T> fn) = 0;
  // Applied to every object before it enters the cache (client-go's TransformFunc), e.g. to drop
  // fields no controller reads. Set before the informer starts.
  virtual Status SetTransform(std::function<ObjectPtr<T>(ObjectPtr<T>)> fn) = 0;
  virtual const Lister<T>& lister() const = 0;
  // True once the initial list is in the cache.
  virtual bool HasSynced() const = 0;
  // The resourceVersion the cache reflects.
  virtual std::string LastSyncResourceVersion() const = 0;
};

struct InformerOptions {
  // Periodic resync (on_update with the same object); 0: never.
  std::chrono::milliseconds resync{0};
  // Restrict what is cached (client-go's tweakListOptions): label/field selectors, one namespace.
  std::string label_selector;
  std::string field_selector;
  std::string namespace_;
};

// Creates one SharedInformer per kind on first use, as client-go's SharedInformerFactory.
class InformerFactory {
 public:
  virtual ~InformerFactory() = default;

  virtual SharedInformer<api::core::v1::Namespace>& Namespaces() = 0;
  virtual SharedInformer<api::core::v1::Service>& Services() = 0;
  virtual SharedInformer<api::core::v1::Pod>& Pods() = 0;
  virtual SharedInformer<api::core::v1::Node>& Nodes() = 0;
  virtual SharedInformer<api::core::v1::Endpoints>& Endpoints() = 0;
  virtual SharedInformer<api::core::v1::Event>& Events() = 0;
  virtual SharedInformer<api::discovery::v1::EndpointSlice>& EndpointSlices() = 0;
  virtual SharedInformer<api::coordination::v1::Lease>& Leases() = 0;
  virtual SharedInformer<api::apps::v1::Deployment>& Deployments() = 0;
  virtual SharedInformer<api::apps::v1::ReplicaSet>& ReplicaSets() = 0;

  // Starts every informer requested so far (later ones start when requested).
  virtual void Start() = 0;
  // True once every started informer has synced; false on timeout or shutdown.
  virtual bool WaitForCacheSync(std::chrono::milliseconds timeout) = 0;
  // Stops every informer's watch and delivery; handlers are not called afterwards.
  virtual void Shutdown() = 0;

  template <typename T>
  SharedInformer<T>& For();
};

template <typename T>
SharedInformer<T>& InformerFactory::For() {
  return ByKind<T>(*this);
}

}  // namespace svcplane::client::informers
