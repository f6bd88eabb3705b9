#pragma once

#include <map>
#include <string>
#include <string_view>

namespace svcplane::apiserver::openapi {

// OpenAPI v3 documents for every group-version we serve, generated once from the reflected type
// definitions (api/meta/fields.h) and api::AllResources(), and kept as bytes. Immutable after
// construction; safe to read from any thread.
//
// /openapi/v2 is deliberately not served (answer 404): client-go only accepts protobuf there,
// and kubectl needs nothing from it once /openapi/v3 lists a PATCH operation with the
// fieldValidation parameter for each kind (api-discovery §5.3).
class Documents {
 public:
  Documents();

  // GET /openapi/v3: {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=..."}}}.
  const std::string& Index() const { return index_; }
  // GET /openapi/v3/<path> with path "api/v1" or "apis/<group>/<version>" (any ?hash= value is
  // fine); nullptr → 404.
  const std::string* GroupVersion(std::string_view path) const;
  // The content hash advertised in the index for `path` ("" if unknown); usable as an ETag.
  std::string_view Hash(std::string_view path) const;

 private:
  struct Doc {
    std::string body;
    std::string hash;
  };
  std::string index_;
  std::map<std::string, Doc, std::less<>> docs_;
};

}  // namespace svcplane::apiserver::openapi
