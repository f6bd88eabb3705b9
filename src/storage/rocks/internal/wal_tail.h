#pragma once

// Crash images of pre-written WAL files (see prewritten_wal.h) end in zeros that RocksDB never
// wrote. RocksDB's own log reader skips a clean zero tail, but after a torn last write (a
// kill -9 or power loss inside write(2)) the torn record is followed by zeros instead of by the
// end of the file, and the reader then reports "checksum mismatch" in the middle of the log and
// refuses to open. Reading such a file only up to WalContentEnd turns every such image back into
// what an appended file would have shown: a torn record at the very end, which RocksDB drops (it
// was never acknowledged, since acknowledgement follows the sync of the whole write).

#include <cstdint>
#include <optional>
#include <string_view>

namespace svcplane::storage::rocks::internal {

// Where a WAL file's content ends so that no pre-written zeros follow it, or
// nullopt if nothing follows it. Never cuts into a record whose checksum holds: the cut is at
// the later of the end of the last intact record and the last non-zero byte. Corruption
// before the content's end is left for RocksDB to report.
std::optional<uint64_t> WalContentEnd(std::string_view log);

}  // namespace svcplane::storage::rocks::internal
