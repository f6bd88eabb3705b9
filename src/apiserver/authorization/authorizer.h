#pragma once

#include <string>

#include "apiserver/http/handler.h"

// The authorizer contract (k8s.io/apiserver pkg/authorization/authorizer): what a request asks
// to do, and who decides. The request pipeline builds Attributes from each request (spec
// authn-authz-audit §3.1); the chain (privileged group → Node → RBAC) answers.
namespace svcplane::apiserver::authorization {

struct Attributes {
  const http::Identity* user = nullptr;  // never null when authorizing
  std::string verb;                      // get list watch create update patch delete ...
  bool resource_request = false;
  // Resource requests.
  std::string ns;
  std::string api_group;  // "" = core
  std::string api_version;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string field_selector;  // raw, list/watch/deletecollection only
  std::string label_selector;
  // Non-resource requests.
  std::string path;
};

enum class Decision { kNoOpinion, kAllow, kDeny };

struct Result {
  Decision decision = Decision::kNoOpinion;
  std::string reason;  // shown after the 403 text, and in audit
  std::string error;   // evaluation error; with no allow the request answers 500
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  // Called concurrently from request workers; must not block on I/O.
  virtual Result Authorize(const Attributes& attributes) const = 0;
};

}  // namespace svcplane::apiserver::authorization
