#include "storage/snapshot/snapshot_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>
#include <vector>

#include "storage/snapshot/internal/sha256.h"

namespace svcplane::storage::snapshot {

namespace {

constexpr char kRecordTag = 'R';
constexpr char kTrailerTag = 'T';
constexpr char kErrorTag = 'E';
constexpr size_t kMaxHeaderBytes = 4096;
constexpr size_t kDigestBytes = 32;

void PutU32(std::string* out, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out->append(buf, 4);
}

void PutU64(std::string* out, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out->append(buf, 8);
}

uint64_t GetLe(std::string_view in) {
  uint64_t v = 0;
  for (size_t i = 0; i < in.size(); ++i)
    v |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return v;
}

// "revision=123" -> 123, for the field `name`.
std::optional<std::string_view> Field(std::string_view token, std::string_view name) {
  if (token.size() <= name.size() || !token.starts_with(name) || token[name.size()] != '=') {
    return std::nullopt;
  }
  return token.substr(name.size() + 1);
}

}  // namespace

// --- Encoder ---------------------------------------------------------------------------------

Encoder::Encoder(Header header)
    : header_(std::move(header)), hash_(std::make_unique<internal::Sha256>()) {}

Encoder::~Encoder() = default;

void Encoder::Hashed(std::string* out, size_t from) {
  hash_->Update(std::string_view(*out).substr(from));
}

void Encoder::AppendHeader(std::string* out) {
  const size_t from = out->size();
  out->append(fmt::format("{} {} revision={} prefix={}\n", kMagic, kVersion, header_.revision,
                          header_.prefix));
  Hashed(out, from);
}

void Encoder::AppendRecord(const KeyValue& kv, std::string* out) {
  const size_t from = out->size();
  const std::string_view value = kv.value ? std::string_view(*kv.value) : std::string_view();
  out->push_back(kRecordTag);
  PutU32(out, static_cast<uint32_t>(kv.key.size()));
  out->append(kv.key);
  PutU64(out, static_cast<uint64_t>(kv.create_revision));
  PutU64(out, static_cast<uint64_t>(kv.mod_revision));
  PutU32(out, static_cast<uint32_t>(value.size()));
  out->append(value);
  Hashed(out, from);
  ++records_;
}

void Encoder::AppendTrailer(std::string* out) {
  out->push_back(kTrailerTag);
  PutU64(out, records_);
  out->append(hash_->Final());
}

void Encoder::AppendError(std::string_view message, std::string* out) {
  out->push_back(kErrorTag);
  PutU32(out, static_cast<uint32_t>(message.size()));
  out->append(message);
}

// --- Reader ----------------------------------------------------------------------------------

Result<std::unique_ptr<Reader>> Reader::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rbe");
  if (f == nullptr) {
    const int err = errno;
    if (err == ENOENT) return NotFoundError(fmt::format("snapshot {} does not exist", path));
    return UnavailableError(fmt::format("cannot open snapshot {}: {}", path, std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(::fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(f);
    return InvalidError(fmt::format("snapshot {} is not a regular file", path));
  }
  std::unique_ptr<Reader> r(new Reader(path, f, static_cast<uint64_t>(st.st_size)));
  SVC_RETURN_IF_ERROR(r->ReadHeader());
  return r;
}

Reader::Reader(std::string path, std::FILE* file, uint64_t size)
    : path_(std::move(path)),
      file_(file, &std::fclose),
      file_bytes_(size),
      hash_(std::make_unique<internal::Sha256>()) {
  // Records are small and read field by field: a large stdio buffer makes that cheap.
  std::setvbuf(file_.get(), nullptr, _IOFBF, 1 << 20);
}

Reader::~Reader() = default;

Status Reader::Truncated(std::string_view what) const {
  return InvalidError(fmt::format("snapshot {} is truncated: {} (the file ends at byte {})", path_,
                                  what, file_bytes_));
}

Status Reader::Damaged(std::string_view what) const {
  return InvalidError(fmt::format("snapshot {} is damaged: {}", path_, what));
}

bool Reader::ReadExact(size_t n, std::string* out, bool hash) {
  out->resize(n);
  if (n > 0 && std::fread(out->data(), 1, n, file_.get()) != n) return false;
  offset_ += n;
  if (hash) hash_->Update(*out);
  return true;
}

Status Reader::ReadHeader() {
  std::string line;
  int c;
  while ((c = std::fgetc(file_.get())) != EOF && c != '\n' && line.size() < kMaxHeaderBytes) {
    line.push_back(static_cast<char>(c));
  }
  const std::string not_ours = fmt::format("{} is not a svcplane snapshot", path_);
  if (!line.starts_with(std::string(kMagic) + " ")) return InvalidError(not_ours);
  if (c != '\n') return InvalidError(not_ours + " (its first line does not end)");
  offset_ = line.size() + 1;
  hash_->Update(line);
  hash_->Update("\n");

  std::string_view rest = std::string_view(line).substr(kMagic.size() + 1);
  std::vector<std::string_view> tokens;
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    tokens.push_back(rest.substr(0, space));
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  if (tokens.empty() || tokens[0] != std::to_string(kVersion)) {
    return InvalidError(
        fmt::format("snapshot {} is of version \"{}\"; this svcplane reads version {}", path_,
                    tokens.empty() ? "" : tokens[0], kVersion));
  }
  std::optional<std::string_view> revision, prefix;
  for (size_t i = 1; i < tokens.size(); ++i) {
    if (auto v = Field(tokens[i], "revision")) revision = v;
    if (auto v = Field(tokens[i], "prefix")) prefix = v;
  }
  if (!revision || !prefix) {
    return Damaged("its header lacks revision= or prefix=: \"" + line + "\"");
  }
  const auto [end, ec] =
      std::from_chars(revision->data(), revision->data() + revision->size(), header_.revision);
  if (ec != std::errc() || end != revision->data() + revision->size() || header_.revision < 0) {
    return Damaged(fmt::format("bad revision \"{}\" in its header", *revision));
  }
  header_.prefix = std::string(*prefix);
  return Status::Ok();
}

Result<std::optional<KeyValue>> Reader::Next() {
  if (!failed_.ok()) return failed_;
  if (done_) return std::optional<KeyValue>();
  auto fail = [this](Status st) -> Result<std::optional<KeyValue>> {
    failed_ = std::move(st);
    return failed_;
  };
  const uint64_t at = offset_;
  std::string tag;
  if (!ReadExact(1, &tag, /*hash=*/false)) {
    return fail(Truncated(
        fmt::format("it ends after {} records, at byte {}, without its trailer", records_, at)));
  }
  if (tag[0] == kTrailerTag) {
    Status st = ReadTrailer();
    if (!st.ok()) return fail(std::move(st));
    done_ = true;
    return std::optional<KeyValue>();
  }
  if (tag[0] == kErrorTag) {
    std::string len, message;
    if (!ReadExact(4, &len, false) ||
        !ReadExact(std::min<uint64_t>(GetLe(len), kMaxHeaderBytes), &message, false)) {
      return fail(Truncated(fmt::format("its error record at byte {} is cut off", at)));
    }
    return fail(UnavailableError(
        fmt::format("snapshot {} is incomplete: its writer failed after {} records: {}", path_,
                    records_, message)));
  }
  if (tag[0] != kRecordTag) {
    return fail(Damaged(fmt::format("unknown record type 0x{:02x} at byte {}",
                                    static_cast<unsigned char>(tag[0]), at)));
  }
  hash_->Update(tag);
  last_offset_ = at;
  auto kv = ReadRecordBody(/*hash=*/true);
  if (!kv.ok()) return fail(kv.status());
  if (kv->key <= last_key_ && records_ > 0) {
    return fail(
        Damaged(fmt::format("key \"{}\" at byte {} is not after \"{}\"", kv->key, at, last_key_)));
  }
  last_key_ = kv->key;
  ++records_;
  return std::optional<KeyValue>(std::move(*kv));
}

Result<KeyValue> Reader::ReadRecordBody(bool hash) {
  const uint64_t at = offset_ - 1;
  auto cut = [&] { return Truncated(fmt::format("the record at byte {} is cut off", at)); };
  std::string n, key, revs, value;
  if (!ReadExact(4, &n, hash)) return cut();
  const uint64_t key_len = GetLe(n);
  if (key_len == 0 || key_len > kMaxKeyBytes) {
    return Damaged(fmt::format("the record at byte {} has a key of {} bytes", at, key_len));
  }
  if (offset_ + key_len > file_bytes_) return cut();
  if (!ReadExact(key_len, &key, hash) || !ReadExact(16, &revs, hash) || !ReadExact(4, &n, hash)) {
    return cut();
  }
  const uint64_t value_len = GetLe(n);
  if (value_len > kMaxValueBytes) {
    return Damaged(fmt::format("the record at byte {} has a value of {} bytes", at, value_len));
  }
  if (offset_ + value_len > file_bytes_ || !ReadExact(value_len, &value, hash)) return cut();
  KeyValue kv;
  kv.create_revision = static_cast<Revision>(GetLe(std::string_view(revs).substr(0, 8)));
  kv.mod_revision = static_cast<Revision>(GetLe(std::string_view(revs).substr(8)));
  if (!key.starts_with(header_.prefix) || kv.create_revision <= 0 ||
      kv.create_revision > kv.mod_revision || kv.mod_revision > header_.revision) {
    return Damaged(fmt::format(
        "the record at byte {} (\"{}\", created at {}, modified at {}) is outside prefix {} or "
        "revision {}",
        at, key, kv.create_revision, kv.mod_revision, header_.prefix, header_.revision));
  }
  kv.key = std::move(key);
  kv.value = std::make_shared<const std::string>(std::move(value));
  return kv;
}

Status Reader::ReadTrailer() {
  const uint64_t at = offset_ - 1;
  std::string count, digest;
  if (!ReadExact(8, &count, false) || !ReadExact(kDigestBytes, &digest, false)) {
    return Truncated(fmt::format("its trailer at byte {} is cut off", at));
  }
  if (GetLe(count) != records_) {
    return Damaged(
        fmt::format("its trailer counts {} records, the file holds {}", GetLe(count), records_));
  }
  const std::string computed = hash_->Final();
  if (computed != digest) {
    return Damaged(
        fmt::format("checksum mismatch: the trailer says SHA-256 {}, the content hashes "
                    "to {}",
                    internal::Hex(digest), internal::Hex(computed)));
  }
  if (std::fgetc(file_.get()) != EOF) {
    return Damaged(fmt::format("bytes follow its trailer (at byte {})", offset_));
  }
  sha256_hex_ = internal::Hex(computed);
  return Status::Ok();
}

Result<KeyValue> Reader::ReadAt(uint64_t offset) {
  if (::fseeko(file_.get(), static_cast<off_t>(offset), SEEK_SET) != 0) {
    return UnavailableError(fmt::format("seek in snapshot {}: {}", path_, std::strerror(errno)));
  }
  offset_ = offset;
  std::string tag;
  if (!ReadExact(1, &tag, false)) return Truncated(fmt::format("no record at byte {}", offset));
  if (tag[0] != kRecordTag) return Damaged(fmt::format("no record at byte {}", offset));
  return ReadRecordBody(/*hash=*/false);
}

}  // namespace svcplane::storage::snapshot
