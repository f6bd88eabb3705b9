#pragma once

#include <memory>

#include "client/informers/interface.h"
#include "client/informers/reflector.h"

namespace svcplane::client::informers {

// One SharedIndexInformer per kind over `clients`, which must outlive the factory. Cluster-scoped
// kinds (namespaces, nodes) ignore options.namespace_.
std::unique_ptr<InformerFactory> MakeInformerFactory(Clientset& clients, InformerOptions options);

// The same with reflector tuning (clock, backoff, page size), for tests and benchmarks.
std::unique_ptr<InformerFactory> MakeInformerFactory(Clientset& clients, InformerOptions options,
                                                     ReflectorOptions reflector_options);

}  // namespace svcplane::client::informers
