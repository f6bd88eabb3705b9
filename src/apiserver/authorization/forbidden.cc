#include "apiserver/authorization/forbidden.h"

#include "api/codec/json.h"
#include "apiserver/authorization/internal/go_quote.h"

namespace svcplane::apiserver::authorization {

using internal::GoQuote;

std::string EscapeForbiddenText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string ForbiddenText(const Attributes& a) {
  std::string_view user = a.user != nullptr ? std::string_view(a.user->user) : "";
  std::string text = "User " + GoQuote(user) + " cannot " + a.verb;
  if (!a.resource_request) {
    text += " path " + GoQuote(a.path);
    return EscapeForbiddenText(text);
  }
  std::string resource = a.resource;
  if (!a.subresource.empty()) resource += "/" + a.subresource;
  text += " resource " + GoQuote(resource) + " in API group " + GoQuote(a.api_group);
  if (!a.ns.empty()) {
    text += " in the namespace " + GoQuote(a.ns);
  } else {
    text += " at the cluster scope";
  }
  return EscapeForbiddenText(text);
}

api::meta::StatusObject ForbiddenStatus(std::string_view group, std::string_view resource,
                                        std::string_view name, std::string_view err) {
  api::meta::StatusObject st;
  st.status = "Failure";
  st.reason = "Forbidden";
  st.code = 403;
  st.details.emplace();
  st.details->name = std::string(name);
  st.details->group = std::string(group);
  st.details->kind = std::string(resource);
  if (group.empty() && resource.empty()) {
    st.message = "forbidden: " + std::string(err);
    return st;
  }
  std::string qualified(resource);
  if (!group.empty()) qualified += "." + std::string(group);
  if (name.empty()) {
    st.message = qualified + " is forbidden: " + std::string(err);
  } else {
    st.message = qualified + " " + GoQuote(name) + " is forbidden: " + std::string(err);
  }
  return st;
}

api::meta::StatusObject ForbiddenStatus(const Attributes& a, std::string_view reason) {
  std::string err = ForbiddenText(a);
  if (!reason.empty()) err += ": " + std::string(reason);
  return ForbiddenStatus(a.api_group, a.resource, a.name, err);
}

http::Response ForbiddenResponse(const Attributes& attributes, std::string_view reason) {
  http::Response r;
  r.status = 403;
  r.content_type = "application/json";
  r.body = api::codec::EncodeJson(ForbiddenStatus(attributes, reason));
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

std::string InternalErrorText(std::string_view request_uri, std::string_view error) {
  return EscapeForbiddenText("Internal Server Error: " + GoQuote(request_uri) + ": " +
                             std::string(error));
}

http::Response InternalErrorResponse(std::string_view request_uri, std::string_view error) {
  http::Response r;
  r.status = 500;
  r.content_type = "text/plain; charset=utf-8";
  r.body = InternalErrorText(request_uri, error) + "\n";
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

}  // namespace svcplane::apiserver::authorization
