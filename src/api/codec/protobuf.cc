#include "api/codec/protobuf.h"

#include "api/authentication/v1/self_subject_review.h"
#include "api/authorization/v1/reviews.h"
#include "api/autoscaling/v1/scale.h"

#include "api/codec/internal/proto_codec.h"

namespace svcplane::api::codec {
namespace {

using internal::ProtoReader;
using internal::ProtoWriter;
using internal::WireType;

Status DecodeError(std::string_view what) {
  return BadRequestError("invalid protobuf: " + std::string(what));
}

template <typename T>
concept HasTypeMeta = requires(T t) {
  t.kind = std::string();
  t.api_version = std::string();
};

void WriteEnvelopeTail(ProtoWriter& w) {
  w.Bytes(3, "");  // contentEncoding
  w.Bytes(4, "");  // contentType
}

size_t BeginEnvelope(ProtoWriter& w, std::string_view api_version, std::string_view kind) {
  w.buffer()->append(kProtobufMagic);
  size_t tm = w.Begin(1);
  w.Bytes(1, api_version);
  w.Bytes(2, kind);
  w.End(tm);
  return w.Begin(2, /*expect_big=*/true);
}

}  // namespace

template <typename T>
void EncodeProtobufMessage(const T& obj, std::string* out) {
  ProtoWriter w(out);
  internal::EncodeBody(w, obj);
}

template <typename T>
Result<T> DecodeProtobufMessage(std::string_view message) {
  T out{};
  internal::ProtoDecodeState st;
  if (!internal::DecodeBody(message, out, st)) {
    std::string_view e = st.error;
    if (e.starts_with(".")) e.remove_prefix(1);
    return DecodeError(e);
  }
  return out;
}

Result<ProtobufEnvelope> DecodeProtobufEnvelope(std::string_view data) {
  if (data.size() < kProtobufMagic.size() || data.substr(0, 4) != kProtobufMagic) {
    return DecodeError("the body does not start with the Kubernetes protobuf prefix \"k8s\\x00\"");
  }
  ProtobufEnvelope env;
  bool has_raw = false;
  ProtoReader r(data.substr(4));
  auto str = [](WireType wt, std::string_view raw, std::string* out) {
    if (wt != internal::kLen) return false;
    out->assign(raw);
    return true;
  };
  while (!r.done()) {
    uint32_t num;
    WireType wt;
    std::string_view raw;
    if (!r.ReadTag(&num, &wt) || !r.ReadRaw(wt, &raw)) {
      return DecodeError("truncated or malformed runtime.Unknown envelope");
    }
    bool ok = true;
    if (num == 1) {
      if (wt != internal::kLen) return DecodeError("malformed typeMeta");
      ProtoReader tr(raw);
      while (!tr.done()) {
        uint32_t tn;
        WireType twt;
        std::string_view tv;
        if (!tr.ReadTag(&tn, &twt) || !tr.ReadRaw(twt, &tv)) {
          return DecodeError("malformed typeMeta");
        }
        if (tn == 1) ok = ok && str(twt, tv, &env.api_version);
        if (tn == 2) ok = ok && str(twt, tv, &env.kind);
      }
    } else if (num == 2) {
      ok = wt == internal::kLen;
      env.raw = raw;
      has_raw = true;
    } else if (num == 3) {
      ok = str(wt, raw, &env.content_encoding);
    } else if (num == 4) {
      ok = str(wt, raw, &env.content_type);
    }
    if (!ok) return DecodeError("malformed runtime.Unknown envelope");
  }
  if (!has_raw) return DecodeError("the runtime.Unknown envelope holds no object");
  if (!env.content_encoding.empty()) {
    return DecodeError("unsupported contentEncoding \"" + env.content_encoding + "\"");
  }
  if (!env.content_type.empty() && env.content_type != kProtobufContentType) {
    return DecodeError("unsupported contentType \"" + env.content_type + "\"");
  }
  return env;
}

template <typename T>
void EncodeProtobuf(const T& obj, std::string_view api_version, std::string_view kind,
                    std::string* out) {
  ProtoWriter w(out);
  size_t raw = BeginEnvelope(w, api_version, kind);
  internal::EncodeBody(w, obj);
  w.End(raw);
  WriteEnvelopeTail(w);
}

void EncodeProtobufEnvelope(std::string_view api_version, std::string_view kind,
                            std::string_view message, std::string* out) {
  out->reserve(out->size() + message.size() + api_version.size() + kind.size() + 24);
  ProtoWriter w(out);
  size_t raw = BeginEnvelope(w, api_version, kind);
  out->append(message);
  w.End(raw);
  WriteEnvelopeTail(w);
}

void EncodeProtobufListOfMessages(const meta::ListMeta& metadata,
                                  std::span<const std::string_view> item_messages,
                                  std::string_view api_version, std::string_view list_kind,
                                  std::string* out) {
  size_t total = 64;
  for (std::string_view m : item_messages) total += m.size() + 6;
  out->reserve(out->size() + total);
  ProtoWriter w(out);
  size_t raw = BeginEnvelope(w, api_version, list_kind);
  internal::EncodeField(w, 1, metadata, nullptr);
  for (std::string_view m : item_messages) w.Bytes(2, m);
  w.End(raw);
  WriteEnvelopeTail(w);
}

namespace {

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

constexpr char kListItemTag = (2 << 3) | internal::kLen;

}  // namespace

ProtobufListFrame FrameProtobufList(const meta::ListMeta& metadata,
                                    std::span<const size_t> item_message_sizes,
                                    std::string_view api_version, std::string_view list_kind) {
  ProtobufListFrame f;
  std::string meta_field;
  ProtoWriter mw(&meta_field);
  internal::EncodeField(mw, 1, metadata, nullptr);
  uint64_t inner = meta_field.size();
  for (size_t s : item_message_sizes) inner += ProtobufListItemSize(s);
  ProtoWriter w(&f.head);
  f.head.append(kProtobufMagic);
  size_t tm = w.Begin(1);
  w.Bytes(1, api_version);
  w.Bytes(2, list_kind);
  w.End(tm);
  w.Tag(2, internal::kLen);
  w.Varint(inner);
  f.head += meta_field;
  ProtoWriter tw(&f.tail);
  WriteEnvelopeTail(tw);
  f.size = f.head.size() + (inner - meta_field.size()) + f.tail.size();
  return f;
}

void AppendProtobufListItem(std::string_view message, std::string* out) {
  ProtoWriter w(out);
  w.Bytes(2, message);
}

size_t ProtobufListItemSize(size_t message_size) {
  return 1 + VarintSize(message_size) + message_size;
}

template <typename T>
bool AppendProtobufListItemEncoded(const T& obj, size_t expected_message_size, std::string* out) {
  out->push_back(kListItemTag);
  ProtoWriter w(out);
  w.Varint(expected_message_size);
  const size_t start = out->size();
  internal::EncodeBody(w, obj);
  return out->size() - start == expected_message_size;
}

template <typename T>
Result<T> DecodeProtobuf(std::string_view data) {
  auto env = DecodeProtobufEnvelope(data);
  if (!env.ok()) return env.status();
  auto obj = DecodeProtobufMessage<T>(env->raw);
  if (!obj.ok()) return obj.status();
  if constexpr (HasTypeMeta<T>) {
    obj->kind = std::move(env->kind);
    obj->api_version = std::move(env->api_version);
  }
  return obj;
}

template <typename T>
void EncodeProtobufList(const meta::ListMeta& metadata, std::span<const T* const> items,
                        std::string_view api_version, std::string_view list_kind,
                        std::string* out) {
  ProtoWriter w(out);
  size_t raw = BeginEnvelope(w, api_version, list_kind);
  internal::EncodeField(w, 1, metadata, nullptr);
  for (const T* item : items) internal::EncodeField(w, 2, *item, nullptr);
  w.End(raw);
  WriteEnvelopeTail(w);
}

void AppendProtobufWatchFrame(std::string_view type, std::string_view enveloped_object,
                              std::string* out) {
  size_t start = out->size();
  out->append(4, '\0');
  ProtoWriter w(out);
  w.Bytes(1, type);
  size_t obj = w.Begin(2, /*expect_big=*/true);
  w.Bytes(1, enveloped_object);
  w.End(obj);
  uint32_t len = static_cast<uint32_t>(out->size() - start - 4);
  (*out)[start] = static_cast<char>(len >> 24);
  (*out)[start + 1] = static_cast<char>(len >> 16);
  (*out)[start + 2] = static_cast<char>(len >> 8);
  (*out)[start + 3] = static_cast<char>(len);
}

Result<std::optional<ProtobufWatchEvent>> NextProtobufWatchFrame(std::string_view* stream,
                                                                 size_t max_frame) {
  if (stream->size() < 4) return std::optional<ProtobufWatchEvent>();
  const auto* p = reinterpret_cast<const unsigned char*>(stream->data());
  size_t len = (size_t{p[0]} << 24) | (size_t{p[1]} << 16) | (size_t{p[2]} << 8) | p[3];
  if (len > max_frame) {
    return DecodeError("watch frame of " + std::to_string(len) + " bytes exceeds the limit of " +
                       std::to_string(max_frame));
  }
  if (stream->size() - 4 < len) return std::optional<ProtobufWatchEvent>();
  ProtobufWatchEvent ev;
  bool has_object = false;
  ProtoReader r(stream->substr(4, len));
  while (!r.done()) {
    uint32_t num;
    WireType wt;
    std::string_view raw;
    if (!r.ReadTag(&num, &wt) || !r.ReadRaw(wt, &raw)) return DecodeError("malformed WatchEvent");
    if (num == 1 && wt == internal::kLen) ev.type.assign(raw);
    if (num == 2 && wt == internal::kLen) {
      ProtoReader er(raw);
      while (!er.done()) {
        uint32_t en;
        WireType ewt;
        std::string_view ev_raw;
        if (!er.ReadTag(&en, &ewt) || !er.ReadRaw(ewt, &ev_raw)) {
          return DecodeError("malformed WatchEvent object");
        }
        if (en == 1 && ewt == internal::kLen) {
          ev.object = ev_raw;
          has_object = true;
        }
      }
    }
  }
  if (ev.type.empty() || !has_object) return DecodeError("WatchEvent without type or object");
  stream->remove_prefix(4 + len);
  return std::optional<ProtobufWatchEvent>(std::move(ev));
}

#define SVCPLANE_INSTANTIATE(T)                                                                \
  template void EncodeProtobufMessage<T>(const T&, std::string*);                              \
  template Result<T> DecodeProtobufMessage<T>(std::string_view);                               \
  template void EncodeProtobuf<T>(const T&, std::string_view, std::string_view, std::string*); \
  template Result<T> DecodeProtobuf<T>(std::string_view);

#define SVCPLANE_INSTANTIATE_KIND(T)                                                     \
  SVCPLANE_INSTANTIATE(T)                                                                \
  SVCPLANE_INSTANTIATE(meta::List<T>)                                                    \
  template void EncodeProtobufList<T>(const meta::ListMeta&, std::span<const T* const>,  \
                                      std::string_view, std::string_view, std::string*); \
  template bool AppendProtobufListItemEncoded<T>(const T&, size_t, std::string*);

SVCPLANE_INSTANTIATE_KIND(core::v1::Namespace)
SVCPLANE_INSTANTIATE_KIND(core::v1::Service)
SVCPLANE_INSTANTIATE_KIND(core::v1::Pod)
SVCPLANE_INSTANTIATE_KIND(core::v1::Node)
SVCPLANE_INSTANTIATE_KIND(core::v1::Endpoints)
SVCPLANE_INSTANTIATE_KIND(core::v1::Event)
SVCPLANE_INSTANTIATE_KIND(discovery::v1::EndpointSlice)
SVCPLANE_INSTANTIATE_KIND(coordination::v1::Lease)
SVCPLANE_INSTANTIATE_KIND(rbac::v1::Role)
SVCPLANE_INSTANTIATE_KIND(rbac::v1::ClusterRole)
SVCPLANE_INSTANTIATE_KIND(rbac::v1::RoleBinding)
SVCPLANE_INSTANTIATE_KIND(rbac::v1::ClusterRoleBinding)
SVCPLANE_INSTANTIATE_KIND(apps::v1::Deployment)
SVCPLANE_INSTANTIATE_KIND(apps::v1::ReplicaSet)
SVCPLANE_INSTANTIATE_KIND(core::v1::ConfigMap)
SVCPLANE_INSTANTIATE_KIND(core::v1::Secret)
SVCPLANE_INSTANTIATE_KIND(core::v1::ServiceAccount)
SVCPLANE_INSTANTIATE(core::v1::Binding)
SVCPLANE_INSTANTIATE(authentication::v1::SelfSubjectReview)
SVCPLANE_INSTANTIATE(autoscaling::v1::Scale)
SVCPLANE_INSTANTIATE(authorization::v1::SelfSubjectAccessReview)
SVCPLANE_INSTANTIATE(authorization::v1::SelfSubjectRulesReview)
SVCPLANE_INSTANTIATE(meta::StatusObject)
SVCPLANE_INSTANTIATE(meta::ObjectMeta)
#undef SVCPLANE_INSTANTIATE_KIND
#undef SVCPLANE_INSTANTIATE

// "k8s.io.api.<group's first label, or core>.<version>.<Kind>"; meta.Status is apimachinery's.
static std::string ProtoMessageName(std::string_view api_version, std::string_view kind) {
  if (api_version == "v1" && kind == "Status") return "k8s.io.apimachinery.pkg.apis.meta.v1.Status";
  std::string_view group = "core";
  std::string_view version = api_version;
  if (size_t slash = api_version.find('/'); slash != std::string_view::npos) {
    group = api_version.substr(0, slash);
    group = group.substr(0, group.find('.'));
    version = api_version.substr(slash + 1);
  }
  return "k8s.io.api." + std::string(group) + "." + std::string(version) + "." + std::string(kind);
}

Result<std::string> ProtobufToJson(std::string_view data) {
  auto env = DecodeProtobufEnvelope(data);
  if (!env.ok()) return env.status();
  const internal::ProtoMessage* m =
      internal::ProtoSchema::Builtin().Find(ProtoMessageName(env->api_version, env->kind));
  if (m == nullptr) {
    return DecodeError("no schema for " + env->api_version + ", Kind=" + env->kind);
  }
  std::string fields;
  internal::JsonWriter w(&fields);
  std::string error;
  if (!internal::ProtoMessageToJson(*m, env->raw, w, &error)) return DecodeError(error);
  std::string out;
  internal::JsonWriter head(&out);
  head.Raw("{\"kind\":");
  head.String(env->kind);
  head.Raw(",\"apiVersion\":");
  head.String(env->api_version);
  if (fields.size() > 2) {  // "{...}": its members follow ours
    out.push_back(',');
    out.append(std::string_view(fields).substr(1));
  } else {
    out.push_back('}');
  }
  return out;
}

}  // namespace svcplane::api::codec
