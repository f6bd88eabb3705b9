#pragma once

// The Clientset over HTTPS (or any HttpTransport): each call is one REST request, bodies are
// JSON decoded with api::codec. Works against svcplane and against any Kubernetes API server.

#include <memory>
#include <string>

#include "base/result.h"
#include "client/transport/http.h"
#include "client/transport/rest_client.h"
#include "client/typed/interface.h"

namespace svcplane::client::typed {

// The REST path of a kind (group, version, plural) with `ns`/`name` filled in, from
// api/resources.h's table.
template <typename T>
transport::ResourceRef RefFor(std::string_view ns = "", std::string_view name = "",
                              std::string_view subresource = "");

// A Clientset whose clients share `transport` (its connection pool and QPS limiter).
std::unique_ptr<Clientset> MakeRestClientset(std::shared_ptr<transport::HttpTransport> transport,
                                             transport::RestClientOptions options = {});

// Loads `kubeconfig_path` (context `context`, or the current one), opens an HttpsTransport and
// builds the Clientset on it. Errors name the file and field (see transport/kubeconfig.h).
Result<std::unique_ptr<Clientset>> MakeRestClientsetFromKubeconfig(
    const std::string& kubeconfig_path, const std::string& context = "");

}  // namespace svcplane::client::typed
