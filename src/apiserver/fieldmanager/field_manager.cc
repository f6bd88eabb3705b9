#include "apiserver/fieldmanager/field_manager.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "api/resources.h"
#include "api/validation/field_errors.h"
#include "apiserver/fieldmanager/internal/bookkeeping_tables.h"
#include "apiserver/fieldmanager/internal/go_quote.h"
#include "apiserver/fieldmanager/internal/merge_schema.h"
#include "apiserver/fieldmanager/internal/values.h"
#include "apiserver/fieldmanager/managed_fields.h"
#include "apiserver/fieldmanager/typed.h"

namespace svcplane::apiserver::fieldmanager {
namespace {

namespace json = boost::json;

constexpr std::string_view kBeforeFirstApply = "before-first-apply";
constexpr std::string_view kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";
// Only kubectl's own applier migrates client-side apply state (§4.2).
constexpr std::string_view kKubectlManager = "kubectl";
// apimachinery's TotalAnnotationSizeLimitB.
constexpr size_t kTotalAnnotationSizeLimit = 256 * 1024;
// validation.FieldManagerMaxLength.
constexpr size_t kFieldManagerMaxLength = 128;

const json::object* MetadataOf(const json::object& obj) {
  const json::value* m = obj.if_contains("metadata");
  return m != nullptr && m->is_object() ? &m->get_object() : nullptr;
}

const json::value* ManagedFieldsOf(const json::object& obj) {
  const json::object* meta = MetadataOf(obj);
  return meta != nullptr ? meta->if_contains("managedFields") : nullptr;
}

std::string StringAt(const json::object* obj, std::string_view key) {
  if (obj == nullptr) return "";
  const json::value* v = obj->if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
}

// `obj` without metadata.managedFields, which never takes part in a diff.
json::value WithoutManagedFields(const json::object& obj) {
  json::value out = obj;
  if (json::value* m = out.get_object().if_contains("metadata"); m != nullptr && m->is_object()) {
    m->get_object().erase("managedFields");
  }
  return out;
}

// Stores `list` (sorted, encoded) as obj.metadata.managedFields, or removes the key when empty.
void SetManagedFields(json::object& obj, ManagedFieldsList list) {
  json::value& meta = obj["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (list.empty()) {
    meta.get_object().erase("managedFields");
  } else {
    meta.get_object()["managedFields"] = EncodeManagedFieldsJson(std::move(list));
  }
}

// Whether `a` and `b` differ only in what nobody owns (the strip set): a write like that
// changes no ownership, so the entries stay as they are.
bool EqualApartFromStripped(const json::object& a, const json::object& b) {
  auto skip_top = [](std::string_view k) {
    return k == "apiVersion" || k == "kind" || k == "metadata";
  };
  auto skip_meta = [](std::string_view k) {
    return k == "name" || k == "namespace" || k == "creationTimestamp" || k == "selfLink" ||
           k == "uid" || k == "clusterName" || k == "generation" || k == "managedFields" ||
           k == "resourceVersion";
  };
  auto same = [](const json::object& x, const json::object& y, auto skip) {
    size_t counted = 0;
    for (const auto& kv : x) {
      if (skip(kv.key())) continue;
      ++counted;
      const json::value* other = y.if_contains(kv.key());
      if (other == nullptr || !internal::ValuesEqual(kv.value(), *other)) return false;
    }
    size_t other_count = 0;
    for (const auto& kv : y) other_count += skip(kv.key()) ? 0 : 1;
    return counted == other_count;
  };
  if (!same(a, b, skip_top)) return false;
  static const json::object kEmpty;
  const json::object* ma = MetadataOf(a);
  const json::object* mb = MetadataOf(b);
  return same(ma ? *ma : kEmpty, mb ? *mb : kEmpty, skip_meta);
}

// Entries in their own order, written back byte for byte as they were stored.
std::vector<api::meta::RawJson> RawEntries(const json::value* managed_fields) {
  std::vector<api::meta::RawJson> out;
  if (managed_fields == nullptr || !managed_fields->is_array()) return out;
  for (const auto& entry : managed_fields->get_array()) {
    api::meta::RawJson raw;
    internal::AppendGoJson(raw.text, entry, /*sort_keys=*/false);
    out.push_back(std::move(raw));
  }
  return out;
}

ManagedFieldsList DecodeOrEmpty(const json::value* managed_fields) {
  if (managed_fields == nullptr || !managed_fields->is_array()) return {};
  Result<ManagedFieldsList> list = DecodeManagedFields(managed_fields->get_array());
  return list.ok() ? *std::move(list) : ManagedFieldsList{};
}

// SMD Set.EnsureNamedFieldsAreMembers: prune works on whole struct fields, so a struct field
// with owned children counts as owned itself (maps and list items do not).
void AddNamedFields(const Set& s, const internal::TypeNode* node, Path& prefix, Set* out) {
  for (const auto& [pe, child] : s.children()) {
    const internal::TypeNode* child_type = nullptr;
    if (node != nullptr && node->is_map && pe.kind == PathElement::Kind::kField) {
      if (const internal::TypeNode* field = node->FindField(pe.field); field != nullptr) {
        prefix.push_back(pe);
        out->Insert(prefix);
        prefix.pop_back();
        child_type = field;
      } else {
        child_type = node->map_element;
      }
    } else if (node != nullptr && node->is_list && pe.kind == PathElement::Kind::kKey) {
      child_type = node->list_element;
    }
    prefix.push_back(pe);
    AddNamedFields(child, child_type, prefix, out);
    prefix.pop_back();
  }
}

Set EnsureNamedFieldsAreMembers(const TypeSchema& schema, const Set& s) {
  Set named;
  Path prefix;
  AddNamedFields(s, schema.root(), prefix, &named);
  return s.Union(named);
}

Comparison Diff(const TypeSchema& schema, const json::value& from, const json::value& to,
                const Set& ignored) {
  Comparison c = Compare(schema, from, to);
  if (!ignored.Empty()) {
    c.added = c.added.RecursiveDifference(ignored);
    c.modified = c.modified.RecursiveDifference(ignored);
    c.removed = c.removed.RecursiveDifference(ignored);
  }
  return c;
}

// SMD Updater.update: every entry but `writer` loses what the change took (Added ∪ Modified)
// and what it removed. Without `force`, a taken path is a conflict and nothing changes.
std::vector<Conflict> TakeFromOthers(ManagedFieldsList& list, const Comparison& cmp,
                                     std::string_view writer, bool force) {
  Set changed = cmp.modified.Union(cmp.added);
  std::vector<Conflict> conflicts;
  if (!force) {
    for (const auto& e : list) {
      std::string id = e.Identifier();
      if (id == writer) continue;
      e.fields.Intersection(changed).Iterate([&](const Path& p) {
        conflicts.push_back(Conflict{id, p});
      });
    }
    if (!conflicts.empty()) return conflicts;
  }
  for (auto& e : list) {
    if (e.Identifier() == writer) continue;
    e.fields = e.fields.Difference(changed).Difference(cmp.removed);
  }
  DropEmptyEntries(list);
  return conflicts;
}

ManagedFieldsEntry Writer(std::string manager, std::string_view operation, const Operation& op) {
  ManagedFieldsEntry e;
  e.manager = manager.empty() ? "unknown" : std::move(manager);
  e.operation = std::string(operation);
  e.api_version = op.api_version;
  e.subresource = op.subresource;
  return e;
}

// One Update through upstream's stack below capManagers (buildManagerInfo,
// managedFieldsUpdater, stripMeta, structuredMerge): `who` gains what changed from `from` to
// `to`, the others lose it, and `who`'s time moves only if it gained something.
void RecordUpdate(const TypeSchema& schema, const json::value& from, const json::value& to,
                  ManagedFieldsList& list, ManagedFieldsEntry who, const Set& ignored,
                  int64_t now) {
  Comparison cmp = Diff(schema, from, to, ignored);
  TakeFromOthers(list, cmp, /*writer=*/"", /*force=*/true);
  Set gained = cmp.modified.Union(cmp.added)
                   .Difference(cmp.removed)
                   .RecursiveDifference(ignored)
                   .Difference(internal::StripSet());
  if (gained.Empty()) return;
  if (ManagedFieldsEntry* previous = FindEntry(list, who.Identifier()); previous != nullptr) {
    previous->fields = gained.Union(previous->fields);
    previous->time = now;
  } else {
    who.fields = std::move(gained);
    who.time = now;
    list.push_back(std::move(who));
  }
}

// schema.FromAPIVersionAndKind(...).String(): "<group>/<version>, Kind=<kind>".
std::string GvkString(std::string_view api_version, std::string_view kind) {
  std::string group, version;
  size_t slashes = std::count(api_version.begin(), api_version.end(), '/');
  if (api_version.empty() || api_version == "/" || slashes > 1) {
    // ParseGroupVersion fails (or is empty): only the kind survives.
  } else if (slashes == 0) {
    version = std::string(api_version);
  } else {
    size_t at = api_version.find('/');
    group = std::string(api_version.substr(0, at));
    version = std::string(api_version.substr(at + 1));
  }
  return group + "/" + version + ", Kind=" + std::string(kind);
}

Status PlainInternalError(std::string message) {
  // Upstream returns these as plain Go errors: a 500 Status without a reason (§1.5).
  return Status(Code::kInternal, std::move(message));
}

}  // namespace

std::string ManagerFromUserAgent(std::string_view user_agent) {
  std::string_view prefix = user_agent.substr(0, user_agent.find('/'));
  std::string out;
  for (size_t i = 0; i < prefix.size();) {
    char32_t rune = 0xFFFD;
    size_t n = api::validation::DecodeRune(prefix, i, &rune);
    std::string_view bytes = n == 0 ? std::string_view("\xEF\xBF\xBD") : prefix.substr(i, n);
    i += n == 0 ? 1 : n;
    if (n != 0 && !api::validation::GoIsPrint(rune)) continue;  // Go ranges bad bytes as U+FFFD
    if (out.size() + bytes.size() > kFieldManagerMaxLength) break;
    out.append(bytes);
  }
  return out.empty() ? "unknown" : out;
}

const FieldManager* FieldManager::ForKind(std::string_view kind) {
  static const auto* managers = [] {
    auto* out = new std::map<std::string, FieldManager, std::less<>>;
    for (const api::ResourceInfo& r : api::AllResources()) {
      if (out->contains(r.kind)) continue;
      const TypeSchema* schema = SchemaForKind(r.kind);
      if (schema == nullptr) continue;
      out->emplace(std::string(r.kind), FieldManager(schema, std::string(r.kind)));
    }
    return out;
  }();
  auto it = managers->find(kind);
  return it == managers->end() ? nullptr : &it->second;
}

std::vector<api::meta::RawJson> FieldManager::Update(const boost::json::object* live,
                                                     const boost::json::object& updated,
                                                     const Operation& op) const {
  const json::value* live_mf = live != nullptr ? ManagedFieldsOf(*live) : nullptr;
  const json::value* request_mf = ManagedFieldsOf(updated);

  // §2.4 step 1 (upstream decodeLiveOrNew): whose entries this write starts from.
  ManagedFieldsList base;
  bool from_live = true;
  if (op.subresource.empty() && request_mf != nullptr && request_mf->is_array()) {
    if (IsResetManagedFields(request_mf->get_array())) {
      from_live = false;
    } else if (Result<ManagedFieldsList> requested = DecodeManagedFields(request_mf->get_array());
               requested.ok() && !requested->empty()) {
      base = *std::move(requested);
      from_live = false;
    }
  }
  // Step 2: an existing object nobody tracks stays untracked.
  if (from_live) {
    if (live != nullptr && EqualApartFromStripped(*live, updated)) return RawEntries(live_mf);
    base = DecodeOrEmpty(live_mf);
  }
  if (base.empty() && live != nullptr) return {};

  json::value to = WithoutManagedFields(updated);
  json::value from = live != nullptr ? WithoutManagedFields(*live) : internal::ZeroObject(kind_);
  const Set& ignored = internal::ResetFields(kind_, op.subresource);
  if (live == nullptr || !EqualApartFromStripped(*live, updated)) {
    RecordUpdate(*schema_, from, to, base, Writer(op.manager, kOperationUpdate, op), ignored,
                 op.now_seconds);
  }
  CapUpdateManagers(base);
  return EncodeManagedFields(std::move(base));
}

namespace {

struct ApplyContext {
  const TypeSchema& schema;
  std::string_view kind;
  const Operation& op;
  const Set& ignored;
};

struct Applied {
  json::value object;  // without managedFields
  ManagedFieldsList list;
  std::vector<Conflict> conflicts;  // non-empty: nothing else is set
};

// SMD Updater.prune with addBackOwnedItems and addBackDanglingItems: drop what the applier
// stopped applying unless someone (its new set included) still owns it.
Result<json::value> Prune(const TypeSchema& schema, const json::value& merged,
                          const ManagedFieldsList& list, const Set& last) {
  if (last.Empty()) return merged;
  auto field_set = [&](const json::value& v, const char* what) -> Result<Set> {
    Result<Set> s = ToFieldSet(schema, v, nullptr);
    if (!s.ok()) {
      return PlainInternalError(std::string("failed to prune fields: failed add back ") + what +
                                ": " + s.status().message());
    }
    return EnsureNamedFieldsAreMembers(schema, *s);
  };
  json::value pruned = RemoveItems(schema, merged, EnsureNamedFieldsAreMembers(schema, last));

  Set managed;
  for (const auto& e : list) managed = managed.Union(e.fields);
  Result<Set> merged_set = field_set(merged, "owned items");
  if (!merged_set.ok()) return merged_set.status();
  Result<Set> pruned_set = field_set(pruned, "owned items");
  if (!pruned_set.ok()) return pruned_set.status();
  pruned = RemoveItems(
      schema, merged,
      merged_set->Difference(pruned_set->Union(EnsureNamedFieldsAreMembers(schema, managed))));

  pruned_set = field_set(pruned, "dangling items");
  if (!pruned_set.ok()) return pruned_set.status();
  return RemoveItems(
      schema, merged,
      merged_set->Difference(*pruned_set).Intersection(EnsureNamedFieldsAreMembers(schema, last)));
}

// One pass of upstream's Apply below lastAppliedManager: skipNonApplied, buildManagerInfo,
// managedFieldsUpdater, stripMeta and structuredMerge.
Result<Applied> ApplyOnce(const ApplyContext& ctx, const json::value& live, bool live_exists,
                          ManagedFieldsList list, const json::object& config, bool force) {
  // skipNonApplied: an untracked object's fields all go to before-first-apply first.
  if (list.empty()) {
    RecordUpdate(ctx.schema, internal::ZeroObject(ctx.kind),
                 live_exists ? live : internal::ZeroObject(ctx.kind), list,
                 Writer(std::string(kBeforeFirstApply), kOperationUpdate, ctx.op), ctx.ignored,
                 ctx.op.now_seconds);
    CapUpdateManagers(list);
  }
  if (const json::value* mf = ManagedFieldsOf(config); mf != nullptr && mf->is_array()) {
    return BadRequestError("metadata.managedFields must be nil");
  }
  json::value config_value = config;
  Result<Set> config_set = ToFieldSet(ctx.schema, config_value, nullptr);
  if (!config_set.ok()) {
    const json::object* meta = MetadataOf(config);
    return PlainInternalError(
        "failed to create typed patch object (" + StringAt(meta, "namespace") + "/" +
        StringAt(meta, "name") + "; " +
        GvkString(StringAt(&config, "apiVersion"), StringAt(&config, "kind")) +
        "): " + config_set.status().message());
  }
  Result<json::value> merged = Merge(ctx.schema, live, config_value);
  if (!merged.ok()) {
    return PlainInternalError("failed to merge config: " + merged.status().message());
  }

  ManagedFieldsEntry applier = Writer(ctx.op.manager, kOperationApply, ctx.op);
  const std::string id = applier.Identifier();
  Set last;
  Set applied = config_set->RecursiveDifference(ctx.ignored);
  if (ManagedFieldsEntry* old = FindEntry(list, id); old != nullptr) {
    last = old->fields;
    old->fields = applied;
    old->api_version = ctx.op.api_version;
  } else {
    applier.fields = applied;
    list.push_back(applier);
  }
  Result<json::value> pruned = Prune(ctx.schema, *merged, list, last);
  if (!pruned.ok()) return pruned.status();

  Comparison cmp = Diff(ctx.schema, live, *pruned, ctx.ignored);
  std::vector<Conflict> conflicts = TakeFromOthers(list, cmp, id, force);
  if (!conflicts.empty()) return Applied{{}, {}, std::move(conflicts)};

  bool changed = !internal::ValuesEqual(live, *pruned);
  if (ManagedFieldsEntry* mine = FindEntry(list, id); mine != nullptr) {
    mine->fields = mine->fields.Difference(internal::StripSet());
    if (changed) mine->time = ctx.op.now_seconds;
    DropEmptyEntries(list);
  }
  return Applied{changed ? *std::move(pruned) : live, std::move(list), {}};
}

// lastAppliedManager: the fields the kubectl.kubernetes.io/last-applied-configuration annotation
// still describes truthfully, which kubectl may take over without a conflict; null when the
// annotation is missing, unparseable or of another apiVersion.
std::optional<Set> AllowedFromLastApplied(const ApplyContext& ctx, const json::value& live) {
  const json::object* meta = MetadataOf(live.get_object());
  const json::value* annotations = meta != nullptr ? meta->if_contains("annotations") : nullptr;
  if (annotations == nullptr || !annotations->is_object()) return std::nullopt;
  std::string text = StringAt(&annotations->get_object(), kLastAppliedAnnotation);
  if (text.empty()) return std::nullopt;
  boost::system::error_code ec;
  json::value last_applied = json::parse(text, ec);
  if (ec || !last_applied.is_object()) return std::nullopt;
  if (StringAt(&last_applied.get_object(), "apiVersion") != ctx.op.api_version) return std::nullopt;
  Result<Set> set = ToFieldSet(ctx.schema, last_applied, nullptr);
  if (!set.ok()) return std::nullopt;
  Comparison cmp = Compare(ctx.schema, last_applied, live);
  return set->Difference(cmp.modified).Difference(cmp.added).Difference(cmp.removed);
}

// lastAppliedUpdater: keeps a client-side apply annotation equal to what kubectl applied
// (the body without the annotation, as Go's json.Encoder writes it).
void UpdateLastApplied(json::object& result, const json::object& config) {
  json::value* meta = result.if_contains("metadata");
  if (meta == nullptr || !meta->is_object()) return;
  json::value* annotations = meta->get_object().if_contains("annotations");
  if (annotations == nullptr || !annotations->is_object() ||
      StringAt(&annotations->get_object(), kLastAppliedAnnotation).empty()) {
    return;
  }
  json::value body = config;
  if (json::value* m = body.get_object().if_contains("metadata"); m != nullptr && m->is_object()) {
    if (json::value* a = m->get_object().if_contains("annotations");
        a != nullptr && a->is_object()) {
      a->get_object().erase(kLastAppliedAnnotation);
    }
  }
  std::string value;
  internal::AppendGoJson(value, body);
  value.push_back('\n');
  json::object& ann = annotations->get_object();
  ann[kLastAppliedAnnotation] = value;
  size_t total = 0;
  for (const auto& kv : ann) {
    total += kv.key().size() + (kv.value().is_string() ? kv.value().get_string().size() : 0);
  }
  if (total > kTotalAnnotationSizeLimit) ann.erase(kLastAppliedAnnotation);
}

}  // namespace

Result<boost::json::object> FieldManager::Apply(const boost::json::object* live,
                                                const boost::json::object& config,
                                                const Operation& op, bool force) const {
  // versionCheckManager.
  std::string body_gvk = GvkString(StringAt(&config, "apiVersion"), StringAt(&config, "kind"));
  if (body_gvk != GvkString(op.api_version, kind_)) {
    return BadRequestError("invalid object type: " + body_gvk);
  }
  ManagedFieldsList list;
  if (live != nullptr) {
    const json::value* mf = ManagedFieldsOf(*live);
    if (mf != nullptr && mf->is_array()) {
      Result<ManagedFieldsList> decoded = DecodeManagedFields(mf->get_array());
      if (!decoded.ok()) {
        return PlainInternalError("failed to decode managed fields: " + decoded.status().message());
      }
      list = *std::move(decoded);
    }
  }
  json::value live_value = live != nullptr ? WithoutManagedFields(*live) : json::object();
  ApplyContext ctx{*schema_, kind_, op, internal::ResetFields(kind_, op.subresource)};

  Result<Applied> applied = ApplyOnce(ctx, live_value, live != nullptr, list, config, force);
  if (!applied.ok()) return applied.status();
  if (!applied->conflicts.empty() && op.manager == kKubectlManager && live != nullptr) {
    // §4.2 allowance: conflicts the last-applied annotation accounts for are forced.
    if (std::optional<Set> allowed = AllowedFromLastApplied(ctx, live_value); allowed) {
      std::vector<Conflict> remaining;
      for (auto& c : applied->conflicts) {
        if (!allowed->Has(c.path)) remaining.push_back(std::move(c));
      }
      if (remaining.empty()) {
        applied = ApplyOnce(ctx, live_value, true, list, config, /*force=*/true);
        if (!applied.ok()) return applied.status();
      } else {
        applied->conflicts = std::move(remaining);
      }
    }
  }
  if (!applied->conflicts.empty()) return ApplyConflictStatus(std::move(applied->conflicts));

  json::object result = std::move(applied->object).as_object();
  if (op.manager == kKubectlManager) UpdateLastApplied(result, config);
  SetManagedFields(result, std::move(applied->list));
  return result;
}

}  // namespace svcplane::apiserver::fieldmanager
