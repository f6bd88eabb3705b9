#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "storage/internal/versioned_map.h"
#include "storage/store.h"

// The on-disk layout of the RocksDB backend. Three key spaces in one column family:
//   "m/format"         kFormat, written once at creation (a DB without it is not ours)
//   "m/rev"            the current revision, rewritten in every commit batch
//   "m/compact"        history at and below this revision is gone
//   "k/<key>"          latest state: create rev, mod rev, value
//   "h/<rev BE64>"     one watch-history event with its previous state and commit time
// Fixed-width little-endian integers; lengths are checked on decode so a damaged record is
// reported as corruption instead of being misread.
namespace svcplane::storage::rocks::internal {

inline constexpr std::string_view kFormatKey = "m/format";
inline constexpr std::string_view kFormat = "svcplane-store-v1";
inline constexpr std::string_view kRevisionKey = "m/rev";
inline constexpr std::string_view kCompactedKey = "m/compact";
inline constexpr std::string_view kLivePrefix = "k/";
inline constexpr std::string_view kHistoryPrefix = "h/";

std::string EncodeRevision(Revision revision);
Result<Revision> DecodeRevision(std::string_view bytes);

std::string LiveKey(std::string_view key);
std::string HistoryKey(Revision revision);

std::string EncodeLive(const KeyValue& kv);
Result<KeyValue> DecodeLive(std::string_view db_key, std::string_view bytes);

// A history record keeps an event's previous value but not a put's new value: that value is
// also the live value (while the put is the key's latest event) or the previous value of the
// key's next event, both stored anyway. Every value is thus written twice (live and history)
// rather than three times. Records of older stores, which carry the value ('P'), still decode.
std::string EncodeEvent(const storage::internal::HistoryEntry& entry);
// A put decoded from the current format has no value yet; ResolveHistoryValues fills it in.
Result<storage::internal::HistoryEntry> DecodeEvent(std::string_view db_key,
                                                    std::string_view bytes);
// Gives every put in `history` (gapless, in revision order) its value from the key's next
// event, or from `live` for the key's latest. Corruption when one cannot be found.
Status ResolveHistoryValues(const std::vector<KeyValue>& live,
                            std::vector<storage::internal::HistoryEntry>& history);

}  // namespace svcplane::storage::rocks::internal
