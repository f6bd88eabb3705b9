#pragma once

// The generic store-backed registry: kube-apiserver's genericregistry.Store for our kinds.
// Create/update/patch/delete follow upstream's request flow (api-wire §8, §9; api-storage §3):
//   decode -> Default -> PrepareFor* -> Validate -> encode -> compare-and-swap on mod revision,
// with GuaranteedUpdate's retry loop for writes that did not pin a resourceVersion.

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/json/parse.hpp>

#include "api/codec/json.h"
#include "api/validation/field_errors.h"
#include "apiserver/fieldmanager/field_manager.h"
#include "apiserver/registry/errors.h"
#include "apiserver/registry/kind_traits.h"
#include "apiserver/registry/object_json.h"
#include "apiserver/registry/object_memo.h"
#include "apiserver/registry/types.h"
#include "apiserver/registry/watch.h"
#include "base/uuid.h"

namespace svcplane::apiserver::registry {

template <typename T>
class Registry {
 public:
  using Traits = KindTraits<T>;
  static constexpr int kMaxRetries = 16;

  explicit Registry(RegistryContext ctx) : ctx_(std::move(ctx)) {}

  // Set before the registry serves requests; not synchronised with them.
  void SetHooks(WriteHooks<T> hooks) { hooks_ = std::move(hooks); }

  // Admission of writes made as a user (WriteOptions::user, DeleteOptions::user; writes without
  // one skip it): upstream's admission plugins and the RBAC storage's escalation checks. It runs
  // after decoding and defaulting, before PrepareFor*, validation and storage, and on an update
  // or patch once per storage attempt against the stored object being replaced. An error fails
  // the write and nothing is stored. Set before the registry serves requests.
  using Admit = std::function<Status(const AdmissionRequest<T>&)>;
  void SetAdmission(Admit admit) { admit_ = std::move(admit); }
  // Whether writes need their user (so callers copy it only then).
  bool admits() const { return static_cast<bool>(admit_); }

  const api::ResourceInfo& info() const { return InfoOf<T>(); }
  bool namespaced() const { return info().namespaced; }
  std::string Key(std::string_view ns, std::string_view name) const {
    return ObjectKey(info().storage_prefix, ns, name);
  }

  Result<Object<T>> Get(std::string_view ns, std::string_view name) {
    auto kv = ctx_.store->Get(Key(ns, name));
    if (!kv.ok()) return MapStoreError<T>(kv.status(), name);
    return memo_.Materialize(*kv);
  }

  // As Get, but from this server's cache when it holds the object (storage::Store::GetCached):
  // for admission lookups, which upstream also answers from an informer.
  Result<Object<T>> GetCached(std::string_view ns, std::string_view name) {
    auto kv = ctx_.store->GetCached(Key(ns, name));
    if (!kv.ok()) return MapStoreError<T>(kv.status(), name);
    return memo_.Materialize(*kv);
  }

  Result<ObjectList<T>> List(std::string_view ns, const ListQuery& q) {
    storage::ListOptions opts;
    opts.prefix = CollectionPrefix(info().storage_prefix, ns);
    if (!q.continue_token.empty()) {
      auto token = DecodeContinueToken(q.continue_token);
      if (!token.ok()) return token.status();
      opts.start_key = opts.prefix + token->start;
      opts.revision = token->revision;
      opts.match = storage::RevisionMatch::kExact;
    } else if (!q.resource_version.empty() && q.resource_version != "0") {
      auto rv = ParseResourceVersion(q.resource_version);
      if (!rv.ok()) return rv.status();
      opts.revision = *rv;
      opts.match = q.exact ? storage::RevisionMatch::kExact : storage::RevisionMatch::kNotOlderThan;
    }
    const bool filtered = !q.label.Empty() || !q.field.Empty();
    // As kube-apiserver's watch cache (cacher.go computeListLimit), a list at resourceVersion
    // "0" ignores the limit: reflectors list at "0" in pages of 500 and get everything at once.
    const size_t limit = q.resource_version == "0" && q.continue_token.empty() ? 0 : q.limit;
    ObjectList<T> out;
    // Pages of the store until `limit` matching items are found, all at one snapshot.
    while (true) {
      opts.limit = limit == 0 ? 0 : std::max<size_t>(limit - out.items.size(), 64);
      if (!filtered && limit != 0) opts.limit = limit - out.items.size();
      const bool json_only = q.json_only && !filtered;
      opts.keys = !json_only;  // an unfiltered page never needs the key past its limit
      auto page = ctx_.store->List(opts);
      if (!page.ok()) return MapListError(page.status());
      out.revision = page->revision;
      if (!filtered) out.items.reserve(out.items.size() + page->items.size());
      size_t consumed = 0;
      std::string next_key;
      for (auto& kv : page->items) {
        if (limit != 0 && out.items.size() == limit) {
          next_key = kv.key;
          break;
        }
        ++consumed;
        if (json_only) {
          // Cheaper than the memo's lookup, and nothing to decode for objects it lacks (every
          // object, after a restart).
          out.items.push_back({nullptr,
                               ObjectJson(std::move(kv.value), kv.mod_revision,
                                          ObjectJson::FindSpliceWhenWritten{}),
                               kv.mod_revision});
          continue;
        }
        auto obj = memo_.Materialize(kv);
        if (!obj.ok()) return obj.status();
        if (Matches(*obj->obj, q)) out.items.push_back(std::move(*obj));
      }
      if (next_key.empty()) next_key = page->continue_key;
      if (next_key.empty()) break;  // the collection is exhausted
      if (limit != 0 && out.items.size() == limit) {
        out.continue_token = EncodeContinueToken(
            {page->revision, next_key.substr(std::min(next_key.size(), opts.prefix.size()))});
        if (!filtered) {
          out.remaining_item_count =
              page->remaining + static_cast<int64_t>(page->items.size() - consumed);
        }
        break;
      }
      opts.start_key = next_key;
      opts.revision = page->revision;
      opts.match = storage::RevisionMatch::kExact;
    }
    return out;
  }

  // `path_name`: the name in the request path, for a PUT that creates (create-on-update).
  Result<Object<T>> Create(std::string_view ns, T obj, const WriteOptions& wo,
                           std::string_view path_name = "") {
    if (!obj.metadata.resource_version.empty()) {
      return BadRequestError("resourceVersion should not be set on objects to be created");
    }
    if (namespaced() && ctx_.check_namespace) {
      SVC_RETURN_IF_ERROR(ctx_.check_namespace(ns));
    }
    obj.metadata.namespace_ = namespaced() ? std::string(ns) : "";
    const bool generated = obj.metadata.name.empty() && !obj.metadata.rest->generate_name.empty();
    api::validation::Default(obj);
    if (admit_ && wo.user) {
      SVC_RETURN_IF_ERROR(admit_({.operation = AdmissionOperation::kCreate,
                                  .user = *wo.user,
                                  .ns = obj.metadata.namespace_,
                                  .name = obj.metadata.name,
                                  .path_name = path_name,
                                  .object = &obj}));
    }
    // Before the strategy, as upstream's create handler: fields the registry sets later
    // (clusterIP, uid) belong to nobody.
    if (!wo.managed_fields_preset) TrackManagedFields(obj, nullptr, Subresource::kNone, wo);
    api::validation::PrepareObjectMetaForCreate(obj.metadata);
    api::validation::PrepareForCreate(obj);
    FinishGuard finish;
    if (hooks_.begin_write) {
      auto fn = hooks_.begin_write(obj, nullptr, wo.dry_run);
      if (!fn.ok()) return fn.status();
      finish.fn = std::move(*fn);
    }
    for (int attempt = 0;; ++attempt) {
      if (generated) {
        obj.metadata.name =
            obj.metadata.rest->generate_name.substr(0, 58) + svcplane::RandomNameSuffix(5);
      }
      auto errs = api::validation::ValidateCreate(obj);
      if (errs.empty()) errs = api::validation::ValidateCommonCreate(obj.metadata, namespaced());
      if (!errs.empty()) {
        return api::validation::ToInvalidStatus(QualifiedKind<T>(), obj.metadata.name, errs);
      }
      obj.metadata.uid = svcplane::NewUuid();
      obj.metadata.creation_timestamp = api::meta::Time::FromUnix(ctx_.now_micros() / 1000000);
      FillTypeMeta(obj);
      if (wo.dry_run) return Unstored(std::move(obj));
      std::string key = Key(ns, obj.metadata.name);
      std::string name = obj.metadata.name;
      bool written = false;
      auto kv = StoreEncoded(
          std::move(obj), &obj,
          [&](std::shared_ptr<const std::string> bytes) {
            return ctx_.store->Create(key, std::move(bytes));
          },
          &written);
      finish.stored = written;
      if (written) return kv;
      if (kv.status().code() == Code::kAlreadyExists && generated && attempt < 3) continue;
      return MapStoreError<T>(kv.status(), name);
    }
  }

  // PUT on the main resource or a subresource. Create-on-update where upstream allows it.
  Result<Object<T>> Update(std::string_view ns, std::string_view name, Subresource sub, T obj,
                           const WriteOptions& wo, bool* created = nullptr) {
    if (created) *created = false;
    const std::string user_rv = obj.metadata.resource_version;
    for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
      auto cur = ctx_.store->Get(Key(ns, name));
      if (!cur.ok()) {
        if (cur.status().code() == Code::kNotFound && Traits::kCreateOnUpdate &&
            sub == Subresource::kNone) {
          if (created) *created = true;
          obj.metadata.resource_version.clear();
          return Create(ns, std::move(obj), wo, name);
        }
        return MapStoreError<T>(cur.status(), name);
      }
      auto step = UpdateStep(*cur, obj, sub, !user_rv.empty(), wo);
      if (step.ok() || step.status().code() != kRetry) return step;
    }
    return ConflictError(ConflictMessage<T>(name));
  }

  // A write computed from the stored object, retried on a fresh read after every storage
  // conflict (server-side apply): `build` gets the current object, or null when there is none,
  // and returns the object to store. With no current object, a main-resource write creates
  // (`*created` set); a subresource one is NotFound. The object's resourceVersion, when it
  // differs from the current one, is a precondition.
  using BuildFn = std::function<Result<T>(const Object<T>* current)>;
  Result<Object<T>> UpdateWith(std::string_view ns, std::string_view name, Subresource sub,
                               const BuildFn& build, const WriteOptions& wo, bool* created) {
    *created = false;
    for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
      auto cur = ctx_.store->Get(Key(ns, name));
      if (!cur.ok()) {
        if (cur.status().code() != Code::kNotFound || sub != Subresource::kNone) {
          return MapStoreError<T>(cur.status(), name);
        }
        auto obj = build(nullptr);
        if (!obj.ok()) return obj.status();
        auto made = Create(ns, std::move(*obj), wo, name);
        // Someone created it meanwhile: build again against theirs.
        if (!made.ok() && made.status().code() == Code::kAlreadyExists) continue;
        *created = made.ok();
        return made;
      }
      auto current = memo_.Materialize(*cur);
      if (!current.ok()) return current.status();
      auto n = build(&*current);
      if (!n.ok()) return n.status();
      const bool pinned = !n->metadata.resource_version.empty() &&
                          n->metadata.resource_version != current->obj->metadata.resource_version;
      auto step = UpdateStep(*cur, std::move(*n), sub, pinned, wo);
      if (step.ok() || step.status().code() != kRetry) return step;
    }
    return ConflictError(ConflictMessage<T>(name));
  }

  // Storage's GuaranteedUpdate with a SimpleUpdate function, as upstream's subresources that
  // write the stored object directly (pods/binding): `mutate` edits a fresh copy of the current
  // object after every storage conflict; no strategy, validation or write hooks run. An error
  // from `mutate` is returned as is; a missing object is NotFound in kube-apiserver's words.
  // `preconditions` are checked against each fresh copy (upstream: storage.Preconditions).
  Result<Object<T>> GuaranteedUpdate(std::string_view ns, std::string_view name,
                                     const UpdatePreconditions& preconditions,
                                     const std::function<Status(T&)>& mutate,
                                     const WriteOptions& wo) {
    for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
      auto cur = ctx_.store->Get(Key(ns, name));
      if (!cur.ok()) return MapStoreError<T>(cur.status(), name);
      auto current = memo_.Materialize(*cur);
      if (!current.ok()) return current.status();
      const T& old = *current->obj;
      SVC_RETURN_IF_ERROR(CheckPreconditions(cur->key, old, preconditions));
      T n = old;
      SVC_RETURN_IF_ERROR(mutate(n));
      FillTypeMeta(n);
      auto bytes = Encode(n);
      if (*bytes == *cur->value) return *current;  // nothing to write: same RV, no event
      if (wo.dry_run) return Unstored(std::move(n));
      bool written = false;
      auto kv = StoreEncoded(
          std::move(n), bytes,
          [&](std::shared_ptr<const std::string> b) {
            return ctx_.store->Update(cur->key, std::move(b), cur->mod_revision);
          },
          &written);
      if (written) return kv;
      auto st = RetryOrMap(kv.status(), /*pinned=*/false, name);
      if (st.code() != kRetry) return st;
    }
    return ConflictError(ConflictMessage<T>(name));
  }

  // PATCH: the patch is re-applied to a fresh copy after every storage conflict, so concurrent
  // patches never conflict unless the patch itself pins a resourceVersion.
  Result<Object<T>> Patch(std::string_view ns, std::string_view name, Subresource sub,
                          std::string_view content_type, std::string_view body,
                          const WriteOptions& wo) {
    for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
      auto cur = ctx_.store->Get(Key(ns, name));
      if (!cur.ok()) return MapStoreError<T>(cur.status(), name);
      auto current = memo_.Materialize(*cur);
      if (!current.ok()) return current.status();
      auto patched = ctx_.apply_patch(content_type, info().kind, current->json.str(), body);
      if (!patched.ok()) return patched.status();
      auto decoded = api::codec::DecodeJson<T>(*patched);
      if (!decoded.ok()) {
        return BadRequestError(std::string(info().kind) + " in version \"" +
                               std::string(info().version) + "\" cannot be handled as a " +
                               std::string(info().kind) + ": " + decoded.status().message());
      }
      if (wo.check_patched) {
        auto replaced = wo.check_patched(*patched);
        if (!replaced.ok()) return replaced.status();
        if (*replaced) {
          decoded = api::codec::DecodeJson<T>(**replaced);
          if (!decoded.ok()) return decoded.status();
        }
      }
      bool pinned = decoded->metadata.resource_version != current->obj->metadata.resource_version;
      auto step = UpdateStep(*cur, std::move(*decoded), sub, pinned, wo);
      if (step.ok() || step.status().code() != kRetry) return step;
    }
    return ConflictError(ConflictMessage<T>(name));
  }

  Result<DeleteResult<T>> Delete(std::string_view ns, std::string_view name,
                                 const DeleteOptions& opts) {
    for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
      auto cur = ctx_.store->Get(Key(ns, name));
      if (!cur.ok()) return MapStoreError<T>(cur.status(), name);
      auto current = memo_.Materialize(*cur);
      if (!current.ok()) return current.status();
      const T& old = *current->obj;
      if (admit_ && opts.user) {
        SVC_RETURN_IF_ERROR(admit_({.operation = AdmissionOperation::kDelete,
                                    .user = *opts.user,
                                    .ns = old.metadata.namespace_,
                                    .name = old.metadata.name,
                                    .path_name = old.metadata.name,
                                    .old = &old}));
      }
      if (opts.precondition_uid && *opts.precondition_uid != old.metadata.uid) {
        return ConflictError("Precondition failed: UID in precondition: " + *opts.precondition_uid +
                             ", UID in object meta: " + old.metadata.uid);
      }
      if (opts.precondition_resource_version &&
          *opts.precondition_resource_version != old.metadata.resource_version) {
        return ConflictError("Precondition failed: ResourceVersion in precondition: " +
                             *opts.precondition_resource_version +
                             ", ResourceVersion in object meta: " + old.metadata.resource_version);
      }
      auto step = DeleteStep(*cur, *current, opts);
      if (step.ok() || step.status().code() != kRetry) return step;
    }
    return ConflictError(ConflictMessage<T>(name));
  }

  // Starts a watch of the collection (`ns` empty: all namespaces). RV "" or "0": the current
  // state as ADDED events first. Otherwise events after that revision; Gone if compacted.
  Result<std::unique_ptr<TypedWatch<T>>> Watch(std::string_view ns, const ListQuery& q,
                                               storage::WatchOptions wopts) {
    std::string prefix = CollectionPrefix(info().storage_prefix, ns);
    std::vector<WatchItem<T>> initial;
    storage::Revision from = 0;
    if (q.resource_version.empty() || q.resource_version == "0") {
      ListQuery lq = q;
      lq.limit = 0;
      lq.continue_token.clear();
      auto list = List(ns, lq);
      if (!list.ok()) return list.status();
      from = list->revision;
      for (auto& o : list->items) initial.push_back({WatchEventType::kAdded, std::move(o)});
    } else {
      auto rv = ParseResourceVersion(q.resource_version);
      if (!rv.ok()) return rv.status();
      from = *rv;
    }
    auto stream = ctx_.store->Watch(prefix, from, wopts);
    if (!stream.ok()) {
      if (stream.status().code() == Code::kGone) {
        return GoneError("too old resource version: " + std::to_string(from) + " (" +
                         std::to_string(ctx_.store->CompactedRevision()) + ")");
      }
      return stream.status();
    }
    std::function<bool(const T&)> predicate;
    if (!q.label.Empty() || !q.field.Empty()) {
      predicate = [q](const T& obj) { return Matches(obj, q); };
    }
    return std::make_unique<TypedWatch<T>>(std::move(*stream), &memo_, std::move(predicate),
                                           std::move(initial), from);
  }

  static bool Matches(const T& obj, const ListQuery& q) {
    if (!q.label.Empty() && !q.label.Matches(obj.metadata.labels)) return false;
    if (!q.field.Empty()) {
      // MatchesWith compares each value before asking for the next, so one buffer suffices;
      // returning FieldValue's temporary string as a view would dangle.
      std::string scratch;
      return q.field.MatchesWith([&](std::string_view f) -> std::optional<std::string_view> {
        auto v = Traits::FieldValue(obj, f);
        if (!v) return std::nullopt;
        scratch = std::move(*v);
        return std::string_view(scratch);
      });
    }
    return true;
  }

  storage::Store& store() { return *ctx_.store; }
  int64_t now_micros() const { return ctx_.now_micros(); }
  ObjectMemo<T>& memo() { return memo_; }

 private:
  // A storage conflict on a write that did not pin a resourceVersion: read again and retry.
  static constexpr Code kRetry = Code::kAborted;

  static void FillTypeMeta(T& obj) { SetTypeMeta(obj); }

  // Writes `obj`, already encoded as `bytes`, with `write(bytes)` and returns the stored
  // object. The memo is told the object behind the bytes, so neither this answer nor the
  // write's watch event decodes what was just encoded. `*written` says whether the store took
  // the write (the answer may still fail to materialize; hooks must not be undone then).
  template <typename Write>
  Result<Object<T>> StoreEncoded(T obj, const std::shared_ptr<const std::string>& bytes,
                                 Write&& write, bool* written) {
    memo_.Expect(bytes, std::move(obj));
    auto kv = write(bytes);
    *written = kv.ok();
    Result<Object<T>> out = kv.ok() ? memo_.Materialize(*kv) : Result<Object<T>>(kv.status());
    memo_.Unexpect(bytes.get());
    return out;
  }

  // As above, encoding `obj` first; when the store refuses the write `obj` comes back in
  // `*back` (a create retries with another generated name).
  template <typename Write>
  Result<Object<T>> StoreEncoded(T obj, T* back, Write&& write, bool* written) {
    auto bytes = Encode(obj);
    memo_.Expect(bytes, std::move(obj));
    auto kv = write(bytes);
    *written = kv.ok();
    if (kv.ok()) {
      auto out = memo_.Materialize(*kv);
      memo_.Unexpect(bytes.get());
      return out;
    }
    if (auto mine = memo_.Unexpect(bytes.get())) *back = std::move(*mine);
    return kv.status();
  }

  static std::shared_ptr<const std::string> Encode(T& obj) { return StoredJson(obj); }

  Object<T> Unstored(T obj) {
    auto json = std::make_shared<const std::string>(api::codec::EncodeJson(obj));
    return Object<T>{std::make_shared<const T>(std::move(obj)), ObjectJson(std::move(json), 0), 0};
  }

  Status MapListError(const Status& st) {
    if (st.code() == Code::kGone) {
      return GoneError(
          "The provided continue parameter is too old to display a consistent list result. You "
          "can start a new list without the continue parameter, or use the continue token in "
          "this response to retrieve the remainder of the results. Continuing with the provided "
          "token results in an inconsistent list - objects that were created, modified, or "
          "deleted between the time the first chunk was returned and now may show up in the "
          "list.");
    }
    return st;
  }

  // Records this write in `obj`'s managedFields (spec server-side-apply §2.4): `old_json` is
  // the stored object, null for a create; `obj` carries the managedFields the request sent.
  void TrackManagedFields(T& obj, const ObjectJson* old_json, Subresource sub,
                          const WriteOptions& wo) {
    const auto* fm = fieldmanager::FieldManager::ForKind(info().kind);
    if (fm == nullptr) {
      obj.metadata.rest->managed_fields.clear();
      return;
    }
    fieldmanager::Operation op;
    op.manager = wo.field_manager.empty() ? std::string(kServerFieldManager) : wo.field_manager;
    op.subresource = SubresourceName(sub);
    op.api_version = std::string(info().GroupVersion());
    op.now_seconds = ctx_.now_micros() / 1000000;
    boost::json::object live;
    if (old_json != nullptr) {
      boost::system::error_code ec;
      boost::json::value parsed = boost::json::parse(old_json->str(), ec);
      if (!ec && parsed.is_object()) live = std::move(parsed.as_object());
    }
    boost::json::value updated = boost::json::parse(api::codec::EncodeJson(obj));
    obj.metadata.rest->managed_fields =
        fm->Update(old_json != nullptr ? &live : nullptr, updated.as_object(), op);
  }

  // One attempt of GuaranteedUpdate against the state `cur`.
  Result<Object<T>> UpdateStep(const storage::KeyValue& cur, T n, Subresource sub, bool pinned,
                               const WriteOptions& wo) {
    auto current = memo_.Materialize(cur);
    if (!current.ok()) return current.status();
    const T& old = *current->obj;
    if (pinned && n.metadata.resource_version != old.metadata.resource_version) {
      return ConflictError(ConflictMessage<T>(old.metadata.name));
    }
    if (!n.metadata.name.empty() && n.metadata.name != old.metadata.name) {
      return BadRequestError("the name of the object (" + n.metadata.name +
                             ") does not match the name on the URL (" + old.metadata.name + ")");
    }
    n.metadata.name = old.metadata.name;
    n.metadata.namespace_ = old.metadata.namespace_;
    n.metadata.resource_version = old.metadata.resource_version;
    api::validation::Default(n);
    if (admit_ && wo.user) {
      SVC_RETURN_IF_ERROR(admit_({.operation = AdmissionOperation::kUpdate,
                                  .user = *wo.user,
                                  .ns = old.metadata.namespace_,
                                  .name = old.metadata.name,
                                  .path_name = old.metadata.name,
                                  .subresource = sub,
                                  .object = &n,
                                  .old = &old}));
    }
    if (!wo.managed_fields_preset) TrackManagedFields(n, &current->json, sub, wo);
    FinishGuard finish;
    finish.dry_run = wo.dry_run;
    api::validation::FieldErrorList errs = PrepareAndValidate(n, old, sub, finish);
    if (!finish.error.ok()) return finish.error;
    if (!errs.empty())
      return api::validation::ToInvalidStatus(QualifiedKind<T>(), n.metadata.name, errs);
    FillTypeMeta(n);
    auto bytes = Encode(n);
    if (*bytes == *cur.value) {
      finish.stored = true;
      return *current;  // a no-op write: same RV, no event
    }
    bool releasable = n.metadata.deletion_timestamp && n.metadata.finalizers.empty() &&
                      n.metadata.rest->deletion_grace_period_seconds.value_or(0) == 0;
    if constexpr (std::is_same_v<T, api::core::v1::Namespace>) {
      releasable = releasable && n.spec.finalizers.empty();  // the namespace controller's turn
    }
    if (releasable) {
      // The last finalizer is gone from an object being deleted: delete it now.
      if (wo.dry_run) return Unstored(std::move(n));
      auto del = ctx_.store->Delete(cur.key, cur.mod_revision);
      if (!del.ok()) return RetryOrMap(del.status(), pinned, n.metadata.name);
      finish.stored = true;
      memo_.Forget(cur.key);
      if (hooks_.after_delete) hooks_.after_delete(n);
      storage::KeyValue last = *del;
      last.value = bytes;
      return memo_.Materialize(last);
    }
    if (wo.dry_run) return Unstored(std::move(n));
    std::string name = n.metadata.name;
    bool written = false;
    auto kv = StoreEncoded(
        std::move(n), bytes,
        [&](std::shared_ptr<const std::string> b) {
          return ctx_.store->Update(cur.key, std::move(b), cur.mod_revision);
        },
        &written);
    if (!written) return RetryOrMap(kv.status(), pinned, name);
    finish.stored = true;
    return kv;
  }

  // As the etcd3 store's checkPreconditions, worded as InterpretUpdateError reports it.
  static Status CheckPreconditions(const std::string& key, const T& obj,
                                   const UpdatePreconditions& pre) {
    std::string failed;
    if (pre.uid && *pre.uid != obj.metadata.uid) {
      failed = "Precondition failed: UID in precondition: " + *pre.uid +
               ", UID in object meta: " + obj.metadata.uid;
    } else if (pre.resource_version && *pre.resource_version != obj.metadata.resource_version) {
      failed = "Precondition failed: ResourceVersion in precondition: " + *pre.resource_version +
               ", ResourceVersion in object meta: " + obj.metadata.resource_version;
    }
    if (failed.empty()) return Status::Ok();
    return ConflictError("Operation cannot be fulfilled on " + QualifiedResource<T>() + " \"" +
                         obj.metadata.name + "\": StorageError: invalid object, Code: 4, Key: " +
                         key + ", ResourceVersion: 0, AdditionalErrorMsg: " + failed);
  }

  // Calls the write hook's callback once, with whether the write reached storage.
  struct FinishGuard {
    std::function<void(bool)> fn;
    bool stored = false;
    bool dry_run = false;
    Status error;  // the hook's own failure
    ~FinishGuard() {
      if (fn) fn(stored);
    }
  };

  api::validation::FieldErrorList PrepareAndValidate(T& n, const T& old, Subresource sub,
                                                     FinishGuard& finish) {
    namespace v = api::validation;
    // As rest.BeforeUpdate: a PUT without uid or creationTimestamp (a freshly built object, as
    // controllers send) takes them from the stored object before the immutability checks.
    v::PrepareObjectMetaForUpdate(n.metadata, old.metadata);
    v::FieldErrorList errs = v::ValidateCommonUpdate(n.metadata, old.metadata, namespaced());
    v::FieldErrorList kind_errs;
    if constexpr (std::is_same_v<T, api::core::v1::Namespace>) {
      if (sub == Subresource::kFinalize) {
        v::PrepareForFinalizeUpdate(n, old);
        kind_errs = v::ValidateFinalizeUpdate(n, old);
      } else if (sub == Subresource::kStatus) {
        v::PrepareForStatusUpdate(n, old);
        kind_errs = v::ValidateStatusUpdate(n, old);
      } else {
        v::PrepareForUpdate(n, old);
        if (!BeginUpdate(n, old, finish)) return {};
        kind_errs = v::ValidateUpdate(n, old);
      }
    } else if constexpr (Traits::kHasStatus) {
      if (sub == Subresource::kStatus) {
        v::PrepareForStatusUpdate(n, old);
        kind_errs = v::ValidateStatusUpdate(n, old);
      } else {
        v::PrepareForUpdate(n, old);
        if (!BeginUpdate(n, old, finish)) return {};
        kind_errs = v::ValidateUpdate(n, old);
      }
    } else {
      v::PrepareForUpdate(n, old);
      if (!BeginUpdate(n, old, finish)) return {};
      kind_errs = v::ValidateUpdate(n, old);
    }
    errs.insert(errs.end(), kind_errs.begin(), kind_errs.end());
    return errs;
  }

  // The write hook on a main-resource update; false (with finish.error set) if it failed.
  bool BeginUpdate(T& n, const T& old, FinishGuard& finish) {
    if (!hooks_.begin_write) return true;
    auto fn = hooks_.begin_write(n, &old, finish.dry_run);
    if (!fn.ok()) {
      finish.error = fn.status();
      return false;
    }
    finish.fn = std::move(*fn);
    return true;
  }

  Status RetryOrMap(const Status& st, bool pinned, std::string_view name) {
    if ((st.code() == Code::kConflict || st.code() == Code::kNotFound) && !pinned) {
      return Status(kRetry, "retry");
    }
    if (st.code() == Code::kConflict) return ConflictError(ConflictMessage<T>(name));
    return MapStoreError<T>(st, name);
  }

  Result<DeleteResult<T>> DeleteStep(const storage::KeyValue& cur, const Object<T>& current,
                                     const DeleteOptions& opts) {
    const T& old = *current.obj;
    T n = old;
    const int64_t now = ctx_.now_micros() / 1000000;
    bool changed = false;
    auto add_finalizer = [&](std::string_view f) {
      if (std::find(n.metadata.finalizers.begin(), n.metadata.finalizers.end(), f) ==
          n.metadata.finalizers.end()) {
        n.metadata.finalizers.emplace_back(f);
        changed = true;
      }
    };
    if constexpr (std::is_same_v<T, api::core::v1::Namespace>) {
      // Namespaces always go through Terminating; the namespace controller empties them.
      if (n.metadata.deletion_timestamp) {
        if (!n.spec.finalizers.empty()) {
          return ConflictError(
              "Operation cannot be fulfilled on namespaces \"" + n.metadata.name +
              "\": The system is ensuring all content is removed from this namespace.  Upon "
              "completion, this namespace will automatically be purged by the system.");
        }
      } else {
        n.metadata.deletion_timestamp = api::meta::Time::FromUnix(now);
        n.metadata.rest->deletion_grace_period_seconds = 0;
        n.status.phase = "Terminating";
        changed = true;
      }
    }
    const bool orphan = opts.propagation_policy == "Orphan" ||
                        (opts.orphan_dependents.value_or(false) && opts.propagation_policy.empty());
    if (orphan) add_finalizer("orphan");
    if (opts.propagation_policy == "Foreground") add_finalizer("foregroundDeletion");

    std::optional<int64_t> grace;  // pods: graceful deletion
    if constexpr (std::is_same_v<T, api::core::v1::Pod>) {
      int64_t g = opts.grace_period_seconds.value_or(
          old.spec.rest->termination_grace_period_seconds.value_or(30));
      if (g < 0) g = 1;
      if (old.spec.node_name.empty() || old.status.phase == "Succeeded" ||
          old.status.phase == "Failed") {
        g = 0;
      }
      if (old.metadata.deletion_timestamp && old.metadata.rest->deletion_grace_period_seconds) {
        g = std::min(g, *old.metadata.rest->deletion_grace_period_seconds);  // may only shorten
      }
      if (g > 0) grace = g;
      if (g > 0 && (!old.metadata.rest->deletion_grace_period_seconds ||
                    *old.metadata.rest->deletion_grace_period_seconds != g)) {
        n.metadata.deletion_timestamp = api::meta::Time::FromUnix(now + g);
        n.metadata.rest->deletion_grace_period_seconds = g;
        changed = true;
      } else if (g == 0 && old.metadata.rest->deletion_grace_period_seconds.value_or(0) != 0) {
        n.metadata.rest->deletion_grace_period_seconds = 0;
        changed = true;
      }
    }
    const bool defer = !n.metadata.finalizers.empty() || grace.has_value();
    if constexpr (std::is_same_v<T, api::core::v1::Namespace>) {
      if (!n.spec.finalizers.empty() || !n.metadata.finalizers.empty()) {
        return WriteDeferred(cur, current, std::move(n), changed, opts);
      }
    }
    if (defer) {
      if (!n.metadata.deletion_timestamp) {
        n.metadata.deletion_timestamp = api::meta::Time::FromUnix(now);
        n.metadata.rest->deletion_grace_period_seconds = 0;
        changed = true;
      }
      return WriteDeferred(cur, current, std::move(n), changed, opts);
    }
    if (opts.dry_run) return DeleteResult<T>{current, true};
    auto del = ctx_.store->Delete(cur.key, cur.mod_revision);
    if (!del.ok()) {
      if (del.status().code() == Code::kConflict) return Status(kRetry, "retry");
      return MapStoreError<T>(del.status(), old.metadata.name);
    }
    memo_.Forget(cur.key);
    if (hooks_.after_delete) hooks_.after_delete(old);
    auto last = memo_.Materialize(*del);
    if (!last.ok()) return last.status();
    return DeleteResult<T>{std::move(*last), true};
  }

  Result<DeleteResult<T>> WriteDeferred(const storage::KeyValue& cur, const Object<T>& current, T n,
                                        bool changed, const DeleteOptions& opts) {
    if (!changed || opts.dry_run) return DeleteResult<T>{current, false};
    auto kv = ctx_.store->Update(cur.key, Encode(n), cur.mod_revision);
    if (!kv.ok()) {
      if (kv.status().code() == Code::kConflict) return Status(kRetry, "retry");
      return MapStoreError<T>(kv.status(), n.metadata.name);
    }
    auto obj = memo_.Materialize(*kv);
    if (!obj.ok()) return obj.status();
    return DeleteResult<T>{std::move(*obj), false};
  }

  RegistryContext ctx_;
  WriteHooks<T> hooks_;
  Admit admit_;
  ObjectMemo<T> memo_;
};

}  // namespace svcplane::apiserver::registry
