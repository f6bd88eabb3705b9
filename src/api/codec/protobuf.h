#pragma once

// Kubernetes' protobuf encoding for every kind we serve, their Lists and meta.Status
// (application/vnd.kubernetes.protobuf). Wire-compatible with upstream's generated code: field
// numbers from its generated.proto, Go's Marshal order and zero-value rules. What our structs keep
// as JSON (unknown members, RawJson) is transcoded through upstream's schema, so an object loses
// nothing going JSON → protobuf → JSON or protobuf → JSON → protobuf.
//
// Objects travel in the envelope kube-apiserver uses: the 4 bytes "k8s\0" then a runtime.Unknown
// {typeMeta{apiVersion=1, kind=2}=1, raw=2, contentEncoding=3, contentType=4} whose raw holds the
// object's message (which has no kind/apiVersion of its own).
//
// Errors are kBadRequest with a message naming what was wrong; decoding never reads out of
// bounds, whatever the input (fuzzed: protobuf_decode_fuzz).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/types.h"
#include "base/result.h"

namespace svcplane::api::codec {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";
inline constexpr std::string_view kProtobufWatchContentType =
    "application/vnd.kubernetes.protobuf;stream=watch";
inline constexpr std::string_view kProtobufMagic{"k8s\0", 4};

// The message alone, without envelope (a List's items, a WatchEvent's object...).
template <typename T>
void EncodeProtobufMessage(const T& obj, std::string* out);
template <typename T>
Result<T> DecodeProtobufMessage(std::string_view message);

// The runtime.Unknown envelope, magic included.
struct ProtobufEnvelope {
  std::string api_version;
  std::string kind;
  std::string_view raw;  // the object's message, a view into the decoded bytes
  std::string content_encoding;
  std::string content_type;
};
Result<ProtobufEnvelope> DecodeProtobufEnvelope(std::string_view data);

// Appends "k8s\0" + Unknown{typeMeta{api_version, kind}, raw = obj's message, "", ""}.
template <typename T>
void EncodeProtobuf(const T& obj, std::string_view api_version, std::string_view kind,
                    std::string* out);

template <typename T>
std::string EncodeProtobuf(const T& obj, std::string_view api_version, std::string_view kind) {
  std::string out;
  EncodeProtobuf(obj, api_version, kind, &out);
  return out;
}

// Wraps an already encoded message (EncodeProtobufMessage's output) in the envelope.
void EncodeProtobufEnvelope(std::string_view api_version, std::string_view kind,
                            std::string_view message, std::string* out);

// An enveloped List from already encoded item messages (e.g. from an EncodingCache).
void EncodeProtobufListOfMessages(const meta::ListMeta& metadata,
                                  std::span<const std::string_view> item_messages,
                                  std::string_view api_version, std::string_view list_kind,
                                  std::string* out);

// A List sent item by item instead of assembled whole (a 100,000-Pod list is ~180 MB). The
// envelope's raw field and the List message carry their lengths before their bytes, so the
// item messages' sizes must be known before the first byte goes out. The body is `head`, then
// every item's field (AppendProtobufListItem, in the order of the sizes given), then `tail`:
// byte for byte what EncodeProtobufListOfMessages writes for the same messages.
struct ProtobufListFrame {
  std::string head;   // magic, envelope up to raw's bytes, the List's metadata field
  std::string tail;   // the envelope fields after raw
  uint64_t size = 0;  // the whole body: head, every item's field, tail
};
ProtobufListFrame FrameProtobufList(const meta::ListMeta& metadata,
                                    std::span<const size_t> item_message_sizes,
                                    std::string_view api_version, std::string_view list_kind);
// An item message as the List's field 2 (tag, length, bytes), appended to `out`.
void AppendProtobufListItem(std::string_view message, std::string* out);
// The bytes AppendProtobufListItem writes for a message of `message_size` bytes.
size_t ProtobufListItemSize(size_t message_size);
// Encodes `obj` as the List's field 2 straight into `out`, its length taken from
// `expected_message_size` (known from an earlier encoding of the same object version). False
// if the message came out another size: the bytes appended then are not a valid field.
template <typename T>
bool AppendProtobufListItemEncoded(const T& obj, size_t expected_message_size, std::string* out);

// Decodes an enveloped object and sets its kind and apiVersion from the envelope (callers check
// them against what they expect, as with JSON).
template <typename T>
Result<T> DecodeProtobuf(std::string_view data);

// Any enveloped object whose message the built-in schema knows (our kinds, their Lists,
// meta.Status), as JSON: {"kind":..,"apiVersion":..,<fields>}. For logging a body whose type
// the caller does not know (the audit log's requestObject); typed callers use DecodeProtobuf.
// Errors: not an envelope, a kind the schema lacks, a malformed message (kBadRequest).
Result<std::string> ProtobufToJson(std::string_view data);

// An enveloped List built from the server's stored objects without copying them.
template <typename T>
void EncodeProtobufList(const meta::ListMeta& metadata, std::span<const T* const> items,
                        std::string_view api_version, std::string_view list_kind, std::string* out);

// --- watch streams (Content-Type application/vnd.kubernetes.protobuf;stream=watch) -------------
// Each event is one frame: a 4-byte big-endian length, then a metav1.WatchEvent{type = 1,
// object = 2: RawExtension{raw = 1}} whose raw holds the enveloped object (as EncodeProtobuf
// writes it). The WatchEvent itself has no envelope.
void AppendProtobufWatchFrame(std::string_view type, std::string_view enveloped_object,
                              std::string* out);

struct ProtobufWatchEvent {
  std::string type;
  std::string_view object;  // the enveloped object, a view into the stream
};
// Takes one complete frame off the front of *stream; nullopt (stream untouched) while the frame
// is incomplete; an error for a frame longer than max_frame or a malformed event.
Result<std::optional<ProtobufWatchEvent>> NextProtobufWatchFrame(std::string_view* stream,
                                                                 size_t max_frame = 64u << 20);

}  // namespace svcplane::api::codec
