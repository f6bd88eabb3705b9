#pragma once

#include <boost/json.hpp>
#include <string>

namespace svcplane::apiserver::openapi::internal {

// Encodes a Swagger 2.0 document (as ToSwagger builds it) as the protobuf message
// openapi.v2.Document of google/gnostic's openapiv2/OpenAPIv2.proto, which client-go
// proto-unmarshals from /openapi/v2. Like gnostic's compiler, every vendor extension and every
// `default` becomes an Any whose `yaml` field holds the value (as JSON text, which is YAML);
// maps become repeated Named* pairs in document order. Fields are written in field-number
// order and zero scalars are left out, as Go's Marshal does.
//
// Aborts on a key the document should not contain (a typo in our generators, never input).
std::string EncodeGnosticDocument(const boost::json::object& swagger);

}  // namespace svcplane::apiserver::openapi::internal
