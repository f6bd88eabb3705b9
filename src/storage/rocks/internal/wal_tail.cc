#include "storage/rocks/internal/wal_tail.h"

#include <boost/crc.hpp>

#include <algorithm>
#include <cstring>

namespace svcplane::storage::rocks::internal {

namespace {

// RocksDB's log format (db/log_format.h): 32 KB blocks of records, each with a 7-byte header
// (masked CRC32C of type and payload, 16-bit length, type). A block's last < 7 bytes are a
// zero trailer. Recyclable records (types 5-8) have longer headers; svcplane never writes them.
constexpr size_t kBlockSize = 32768;
constexpr size_t kHeaderSize = 7;
constexpr unsigned kFirstRecyclableType = 5;
constexpr unsigned kLastRecyclableType = 8;

using Crc32c = boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;

uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

uint32_t Fixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // little-endian, as RocksDB writes it on the platforms we build for
  return v;
}

// The record at `off` (header included) is intact.
bool ChecksumHolds(std::string_view log, size_t off, size_t length) {
  Crc32c crc;
  crc.process_bytes(log.data() + off + kHeaderSize - 1, 1 + length);  // type byte, payload
  return crc.checksum() == Unmask(Fixed32(log.data() + off));
}

bool AllZero(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 0; });
}

}  // namespace

std::optional<uint64_t> WalContentEnd(std::string_view log) {
  // Walk the records by their lengths up to the first all-zero header (the pre-written zeros,
  // or a header torn before any of its bytes landed) or the first impossible length.
  size_t off = 0;
  std::optional<size_t> last_start;
  size_t last_length = 0;
  while (off < log.size()) {
    const size_t left_in_block = kBlockSize - off % kBlockSize;
    if (left_in_block < kHeaderSize) {
      off += left_in_block;
      continue;
    }
    if (off + kHeaderSize > log.size()) break;
    const std::string_view header = log.substr(off, kHeaderSize);
    if (AllZero(header)) break;
    const unsigned type = static_cast<unsigned char>(header[6]);
    if (type >= kFirstRecyclableType && type <= kLastRecyclableType) return std::nullopt;
    const size_t length = static_cast<unsigned char>(header[4]) |
                          (static_cast<size_t>(static_cast<unsigned char>(header[5])) << 8);
    if (kHeaderSize + length > left_in_block || off + kHeaderSize + length > log.size()) break;
    last_start = off;
    last_length = length;
    off += kHeaderSize + length;
  }
  // Only the last write can be torn, so only the last record walked can fail its checksum;
  // if it does, the content that holds ends before it.
  size_t intact_end = off;
  if (last_start && !ChecksumHolds(log, *last_start, last_length)) intact_end = *last_start;
  size_t nonzero_end = log.size();
  while (nonzero_end > 0 && log[nonzero_end - 1] == 0) --nonzero_end;
  const size_t end = std::max(intact_end, nonzero_end);
  if (end >= log.size()) return std::nullopt;
  return end;
}

}  // namespace svcplane::storage::rocks::internal
