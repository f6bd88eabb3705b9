#pragma once

// The values kube-apiserver 1.33 keeps in etcd, for svcplane's etcd backend (spec
// etcd-backend-and-ha.md §2.2): every served kind is stored as the protobuf of its storage
// version (core v1, discovery.k8s.io/v1, coordination.k8s.io/v1) in the "k8s\0" runtime.Unknown
// envelope, and so are the allocators' maps under /registry/ranges/ (core v1 RangeAllocation with
// kube's bitmap, converted from svcplane's sparse record: range_allocation.h), so that a
// kube-apiserver and svcplane sharing one etcd read each other's objects; the master leases
// (/registry/masterleases/) are v1 Endpoints as upstream's. Writing
// protobuf rather than the JSON kube also accepts matters: kube detects a no-op update by
// comparing bytes, and a different encoding would turn each of its no-ops into a real write.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/value_codec.h"

namespace svcplane::apiserver::storage_codec {

class ProtobufValueCodec final : public storage::ValueCodec {
 public:
  ProtobufValueCodec();
  ~ProtobufValueCodec() override;

  // JSON in, protobuf out for keys of a known kind; any other key (svcplane's own records, a
  // master lease) is stored as given.
  Result<std::shared_ptr<const std::string>> Encode(
      std::string_view key, const std::shared_ptr<const std::string>& value) const override;
  // Protobuf or JSON in (kube reads both, so a value either side wrote may be either), JSON out
  // as svcplane's registries (for a range, StoredRange) encode the decoded object; other keys
  // are returned as stored. The parts our types keep as raw JSON come back with upstream's field
  // order, so the bytes may differ from what was encoded, never the object; re-encoding what
  // Decode returned gives the same bytes again, which is what a no-op update compares.
  Result<std::shared_ptr<const std::string>> Decode(
      std::string_view key, const std::shared_ptr<const std::string>& stored) const override;

  struct Kind;

 private:
  const Kind* KindOf(std::string_view key) const;

  std::vector<std::unique_ptr<Kind>> kinds_;  // longest prefix first
};

}  // namespace svcplane::apiserver::storage_codec
