#pragma once

#include <memory>

#include "client/informers/interface.h"
#include "client/informers/reflector.h"

namespace svcplane::client::informers {

// One SharedIndexInformer per kind over `clients`, which must outlive the factory. Cluster-scoped
// kinds (namespaces, nodes) ignore options.namespace_.
std::unique_ptr<InformerFactory> MakeInformerFactory(Clientset& clients, InformerOptions options);

// The same with reflector tuning (clock, backoff, page size). Over the in-process Clientset
// (ApiServer::loopback()) pass page_size = 0: nothing is serialised, so paging only adds the
// store's per-page cost (today O(remaining) per page, so 100k Pods list in ~0.5 s unpaged
// against several seconds in pages of 500).
std::unique_ptr<InformerFactory> MakeInformerFactory(Clientset& clients, InformerOptions options,
                                                     ReflectorOptions reflector_options);

}  // namespace svcplane::client::informers
