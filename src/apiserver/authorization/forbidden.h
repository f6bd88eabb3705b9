#pragma once

#include <string>
#include <string_view>

#include "api/meta/types.h"
#include "apiserver/authorization/authorizer.h"
#include "apiserver/http/handler.h"

// The answers a request gets when authorization says no (spec §3.3; upstream
// responsewriters.Forbidden / InternalError and apierrors.NewForbidden).
namespace svcplane::apiserver::authorization {

// `User "<u>" cannot <verb> resource "<res>[/<sub>]" in API group "<g>" in the namespace
// "<ns>"` / `... at the cluster scope` / `User "<u>" cannot <verb> path "<path>"`, with & < >
// replaced by &amp; &lt; &gt;.
std::string ForbiddenText(const Attributes& attributes);

// apierrors.NewForbidden(group/resource, name, err): `<resource>[.<group>] ["<name>" ]is
// forbidden: <err>`, or `forbidden: <err>` when group and resource are both empty. Details
// carry name, group and kind=<resource> (empty ones omitted; {} for a non-resource request).
api::meta::StatusObject ForbiddenStatus(std::string_view group, std::string_view resource,
                                        std::string_view name, std::string_view err);

// The 403 for a request the authorizers did not allow: ForbiddenText, then ": <reason>" when
// the reason is not empty.
api::meta::StatusObject ForbiddenStatus(const Attributes& attributes, std::string_view reason);

// The response: JSON Status, 403, `X-Content-Type-Options: nosniff`. Callers that negotiate
// protobuf encode the StatusObject themselves.
http::Response ForbiddenResponse(const Attributes& attributes, std::string_view reason);

// Authorizer error with no allow: 500 text/plain `Internal Server Error: "<requestURI>": <err>`
// (& < > escaped as above).
std::string InternalErrorText(std::string_view request_uri, std::string_view error);
http::Response InternalErrorResponse(std::string_view request_uri, std::string_view error);

// Go's html-ish sanitizer used by the apiserver response writers: & < > only.
std::string EscapeForbiddenText(std::string_view text);

}  // namespace svcplane::apiserver::authorization
