#pragma once

// The Clientset over HTTPS (or any HttpTransport): each call is one REST request. Bodies are JSON,
// or with RestClientOptions::content_type = kProtobuf protobuf (Accept protobuf-then-JSON; each
// response decoded by its Content-Type, watches included, as client-go). Works against svcplane
// and against any Kubernetes API server.

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
// `options.content_type` picks the encoding of every verb (patch bodies stay JSON).
std::unique_ptr<Clientset> MakeRestClientset(std::shared_ptr<transport::HttpTransport> transport,
                                             transport::RestClientOptions options = {});

// Loads `kubeconfig_path` (context `context`, or the current one), opens an HttpsTransport and
// builds the Clientset on it. Errors name the file and field (see transport/kubeconfig.h).
Result<std::unique_ptr<Clientset>> MakeRestClientsetFromKubeconfig(
    const std::string& kubeconfig_path, const std::string& context = "",
    transport::ContentType content_type = transport::ContentType::kJson);

}  // namespace svcplane::client::typed
