#include "apiserver/openapi/internal/paths.h"

#include <algorithm>
#include <string>

#include "apiserver/openapi/internal/schemas.h"

namespace svcplane::apiserver::openapi::internal {
namespace {

constexpr std::string_view kStatusSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
constexpr std::string_view kDeleteOptionsSchema =
    "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
constexpr std::string_view kPatchSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";

json::object Param(std::string_view name, std::string_view in, std::string_view type,
                   std::string_view description, bool required = false) {
  json::object p;
  p["name"] = Js(name);
  p["in"] = Js(in);
  p["description"] = Js(description);
  if (required) p["required"] = true;
  p["schema"] = json::object{{"type", Js(type)}, {"uniqueItems", true}};
  return p;
}

// Query parameter docs shortened from upstream's.
json::object Pretty() {
  return Param("pretty", "query", "string",
               "If 'true', then the output is pretty printed. Defaults to 'false' unless the "
               "user-agent indicates a browser or command-line HTTP tool (curl and wget).");
}
json::object DryRun() {
  return Param("dryRun", "query", "string",
               "When present, indicates that modifications should not be persisted. Valid "
               "values are: - All: all dry run stages will be processed");
}
json::object FieldManager() {
  return Param("fieldManager", "query", "string",
               "fieldManager is a name associated with the actor or entity that is making these "
               "changes. The value must be less than or 128 characters long, and only contain "
               "printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.");
}
json::object Force() {
  return Param("force", "query", "boolean",
               "Force is going to \"force\" Apply requests. It means user will re-acquire "
               "conflicting fields owned by other people. Force flag must be unset for non-apply "
               "patch requests.");
}
json::object FieldValidation() {
  return Param("fieldValidation", "query", "string",
               "fieldValidation instructs the server on how to handle objects in the request "
               "(POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - "
               "Ignore: silently drop unknown fields. - Warn: send a warning for each unknown "
               "field (the default). - Strict: fail the request with BadRequest on unknown "
               "fields.");
}

json::array ListParams() {
  return {
      Param("allowWatchBookmarks", "query", "boolean",
            "allowWatchBookmarks requests watch events with type \"BOOKMARK\"."),
      Param("continue", "query", "string",
            "The continue option should be set when retrieving more results from the server."),
      Param("fieldSelector", "query", "string",
            "A selector to restrict the list of returned objects by their fields. Defaults to "
            "everything."),
      Param("labelSelector", "query", "string",
            "A selector to restrict the list of returned objects by their labels. Defaults to "
            "everything."),
      Param("limit", "query", "integer",
            "limit is a maximum number of responses to return for a list call."),
      Param("resourceVersion", "query", "string",
            "resourceVersion sets a constraint on what resource versions a request may be "
            "served from."),
      Param("resourceVersionMatch", "query", "string",
            "resourceVersionMatch determines how resourceVersion is applied to list calls."),
      Param("sendInitialEvents", "query", "boolean",
            "`sendInitialEvents=true` may be set together with `watch=true`."),
      Param("timeoutSeconds", "query", "integer",
            "Timeout for the list/watch call, regardless of any activity or inactivity."),
      Param("watch", "query", "boolean",
            "Watch for changes to the described resources and return them as a stream of add, "
            "update, and remove notifications."),
  };
}

json::array DeleteParams() {
  return {
      DryRun(),
      Param("gracePeriodSeconds", "query", "integer",
            "The duration in seconds before the object should be deleted."),
      Param("orphanDependents", "query", "boolean",
            "Deprecated: please use the PropagationPolicy, this field will be deprecated in "
            "1.7."),
      Param("propagationPolicy", "query", "string",
            "Whether and how garbage collection will be performed: Orphan, Background or "
            "Foreground."),
  };
}

json::object RefSchema(std::string_view name) { return {{"$ref", RefPath(name)}}; }

json::object Content(std::string_view schema, bool watch_stream = false) {
  json::object c;
  c["application/json"] = json::object{{"schema", RefSchema(schema)}};
  if (watch_stream) {
    c["application/json;stream=watch"] = json::object{{"schema", RefSchema(schema)}};
  }
  return c;
}

json::object Response(std::string_view description, std::string_view schema,
                      bool watch_stream = false) {
  return {{"description", Js(description)}, {"content", Content(schema, watch_stream)}};
}

json::object Body(std::string_view schema) {
  return {{"content", json::object{{"*/*", json::object{{"schema", RefSchema(schema)}}}}},
          {"required", true}};
}

json::object PatchBody() {
  json::object content;
  for (auto type : {"application/json-patch+json", "application/merge-patch+json",
                    "application/strategic-merge-patch+json", "application/apply-patch+yaml"}) {
    content[type] = json::object{{"schema", RefSchema(kPatchSchema)}};
  }
  return {{"content", std::move(content)}, {"required", true}};
}

struct OpNames {
  std::string tag;     // "core_v1"
  std::string prefix;  // "CoreV1", "DiscoveryV1"
};

OpNames NamesFor(const api::ResourceInfo& r) {
  std::string group = r.group.empty() ? "core" : std::string(r.group.substr(0, r.group.find('.')));
  std::string ver(r.version);
  std::string cap = group;
  cap[0] = static_cast<char>(std::toupper(cap[0]));
  std::string vcap = ver;
  vcap[0] = static_cast<char>(std::toupper(vcap[0]));
  return {group + "_" + ver, cap + vcap};
}

json::object Operation(const OpNames& n, std::string_view description, std::string operation_id,
                       std::string_view action, const api::ResourceInfo& r) {
  json::object op;
  op["tags"] = json::array{json::string(n.tag)};
  op["description"] = Js(description);
  op["operationId"] = std::move(operation_id);
  op["x-kubernetes-action"] = Js(action);
  op["x-kubernetes-group-version-kind"] =
      json::object{{"group", Js(r.group)}, {"version", Js(r.version)}, {"kind", Js(r.kind)}};
  return op;
}

json::object Responses(std::initializer_list<std::pair<std::string_view, json::object>> rs) {
  json::object out;
  for (const auto& [code, body] : rs) out[Js(code)] = body;
  out["401"] = json::object{{"description", "Unauthorized"}};
  return out;
}

bool Has(const std::vector<std::string_view>& verbs, std::string_view v) {
  return std::find(verbs.begin(), verbs.end(), v) != verbs.end();
}

}  // namespace

void AddResourcePaths(const api::ResourceInfo& r, std::string_view schema,
                      std::string_view list_schema, json::object* paths,
                      std::string_view scale_schema) {
  const OpNames n = NamesFor(r);
  const std::string base =
      r.group.empty() ? "/api/v1" : "/apis/" + std::string(r.group) + "/" + std::string(r.version);
  const std::string ns_part = r.namespaced ? "/namespaces/{namespace}" : "";
  const std::string scope = r.namespaced ? "Namespaced" : "";
  const std::string kind(r.kind);
  const std::string collection = base + ns_part + "/" + std::string(r.resource);
  const std::string item = collection + "/{name}";
  auto scoped_params = [&](bool with_name) {
    json::array ps;
    if (with_name) {
      ps.push_back(Param("name", "path", "string", "name of the " + kind, true));
    }
    if (r.namespaced) {
      ps.push_back(Param("namespace", "path", "string",
                         "object name and auth scope, such as for teams and projects", true));
    }
    ps.push_back(Pretty());
    return ps;
  };
  auto write_params = [] { return json::array{DryRun(), FieldManager(), FieldValidation()}; };
  auto patch_params = [] {
    return json::array{DryRun(), FieldManager(), FieldValidation(), Force()};
  };

  // Collection: list, create, deletecollection.
  json::object coll;
  if (Has(r.verbs, "list")) {
    json::object op = Operation(n, "list or watch objects of kind " + kind,
                                "list" + n.prefix + scope + kind, "list", r);
    op["parameters"] = ListParams();
    op["responses"] = Responses({{"200", Response("OK", list_schema, true)}});
    coll["get"] = std::move(op);
  }
  if (Has(r.verbs, "create")) {
    json::object op = Operation(n, "create " + std::string(r.singular) + " (" + kind + ")",
                                "create" + n.prefix + scope + kind, "post", r);
    op["parameters"] = write_params();
    op["requestBody"] = Body(schema);
    op["responses"] = Responses({{"200", Response("OK", schema)},
                                 {"201", Response("Created", schema)},
                                 {"202", Response("Accepted", schema)}});
    coll["post"] = std::move(op);
  }
  if (Has(r.verbs, "deletecollection")) {
    json::object op =
        Operation(n, "delete collection of " + kind,
                  "delete" + n.prefix + "Collection" + scope + kind, "deletecollection", r);
    json::array ps = DeleteParams();
    for (auto& p : ListParams()) ps.push_back(p);
    op["parameters"] = std::move(ps);
    op["requestBody"] = Body(kDeleteOptionsSchema);
    op["responses"] = Responses({{"200", Response("OK", kStatusSchema)}});
    coll["delete"] = std::move(op);
  }
  coll["parameters"] = scoped_params(false);
  (*paths)[collection] = std::move(coll);

  // Item: read, replace, delete, patch.
  json::object it;
  if (Has(r.verbs, "get")) {
    json::object op =
        Operation(n, "read the specified " + kind, "read" + n.prefix + scope + kind, "get", r);
    op["responses"] = Responses({{"200", Response("OK", schema)}});
    it["get"] = std::move(op);
  }
  if (Has(r.verbs, "update")) {
    json::object op = Operation(n, "replace the specified " + kind,
                                "replace" + n.prefix + scope + kind, "put", r);
    op["parameters"] = write_params();
    op["requestBody"] = Body(schema);
    op["responses"] =
        Responses({{"200", Response("OK", schema)}, {"201", Response("Created", schema)}});
    it["put"] = std::move(op);
  }
  if (Has(r.verbs, "delete")) {
    json::object op = Operation(n, "delete " + std::string(r.singular) + " (" + kind + ")",
                                "delete" + n.prefix + scope + kind, "delete", r);
    op["parameters"] = DeleteParams();
    op["requestBody"] = Body(kDeleteOptionsSchema);
    op["responses"] =
        Responses({{"200", Response("OK", schema)}, {"202", Response("Accepted", schema)}});
    it["delete"] = std::move(op);
  }
  if (Has(r.verbs, "patch")) {
    json::object op = Operation(n, "partially update the specified " + kind,
                                "patch" + n.prefix + scope + kind, "patch", r);
    op["parameters"] = patch_params();
    op["requestBody"] = PatchBody();
    op["responses"] =
        Responses({{"200", Response("OK", schema)}, {"201", Response("Created", schema)}});
    it["patch"] = std::move(op);
  }
  if (!it.empty()) {  // create-only kinds (the reviews) have no item path
    it["parameters"] = scoped_params(true);
    (*paths)[item] = std::move(it);
  }

  // Subresources: status (get/put/patch) and namespaces/finalize (put).
  for (const auto& sub : r.subresources) {
    // A subresource of another kind: apps' scale takes and returns an autoscaling/v1 Scale,
    // and its operations name that kind; others (pods/binding) are not described.
    std::string_view sub_schema = schema;
    const bool scale = !sub.kind.empty() && sub.kind != r.kind;
    if (scale) {
      if (sub.kind != "Scale" || scale_schema.empty()) continue;
      sub_schema = scale_schema;
    }
    auto Operation = [scale](const OpNames& names, std::string_view description, std::string id,
                             std::string_view action, const api::ResourceInfo& res) {
      json::object op = internal::Operation(names, description, std::move(id), action, res);
      if (scale) {
        op["x-kubernetes-group-version-kind"] =
            json::object{{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}};
      }
      return op;
    };
    std::string sub_cap(sub.name);
    sub_cap[0] = static_cast<char>(std::toupper(sub_cap[0]));
    json::object sp;
    for (auto verb : sub.verbs) {
      if (verb == "get") {
        json::object op =
            Operation(n, "read " + std::string(sub.name) + " of the specified " + kind,
                      "read" + n.prefix + scope + kind + sub_cap, "get", r);
        op["responses"] = Responses({{"200", Response("OK", sub_schema)}});
        sp["get"] = std::move(op);
      } else if (verb == "update") {
        json::object op =
            Operation(n, "replace " + std::string(sub.name) + " of the specified " + kind,
                      "replace" + n.prefix + scope + kind + sub_cap, "put", r);
        op["parameters"] = write_params();
        op["requestBody"] = Body(sub_schema);
        op["responses"] = Responses(
            {{"200", Response("OK", sub_schema)}, {"201", Response("Created", sub_schema)}});
        sp["put"] = std::move(op);
      } else if (verb == "patch") {
        json::object op =
            Operation(n, "partially update " + std::string(sub.name) + " of the specified " + kind,
                      "patch" + n.prefix + scope + kind + sub_cap, "patch", r);
        op["parameters"] = patch_params();
        op["requestBody"] = PatchBody();
        op["responses"] = Responses(
            {{"200", Response("OK", sub_schema)}, {"201", Response("Created", sub_schema)}});
        sp["patch"] = std::move(op);
      }
    }
    // pods/binding (create) takes a Binding, which the document does not describe: no path.
    if (sp.empty()) continue;
    sp["parameters"] = scoped_params(true);
    (*paths)[item + "/" + std::string(sub.name)] = std::move(sp);
  }

  // Namespaced kinds are also listable across namespaces: /api/v1/pods.
  if (r.namespaced && Has(r.verbs, "list")) {
    json::object all;
    json::object op = Operation(n, "list or watch objects of kind " + kind,
                                "list" + n.prefix + kind + "ForAllNamespaces", "list", r);
    op["responses"] = Responses({{"200", Response("OK", list_schema, true)}});
    all["get"] = std::move(op);
    json::array ps = ListParams();
    ps.push_back(Pretty());
    all["parameters"] = std::move(ps);
    (*paths)[base + "/" + std::string(r.resource)] = std::move(all);
  }
}

}  // namespace svcplane::apiserver::openapi::internal
