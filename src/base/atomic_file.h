#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/status.h"

namespace svcplane {

// A file that appears at `path` whole or not at all: bytes go to a temporary file beside it
// (same folder, so the rename cannot cross file systems), and Commit syncs it, renames it over
// `path` and syncs the folder entry. Destroyed without Commit (an error, a crash of the writer),
// the temporary file is removed and `path` is left as it was.
//
// One thread at a time.
class AtomicFile {
 public:
  // Creates the temporary file with `mode` (exactly, whatever the umask).
  static Result<AtomicFile> Create(std::string path, unsigned mode = 0600);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) = delete;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  Status Append(std::string_view bytes);
  // Syncs the bytes written so far without moving the file into place, so they can be read
  // back from temp_path() (to check them) before Commit.
  Status Sync();
  // Moves the file into place; after an error the temporary file is gone and `path` unchanged.
  Status Commit();

  const std::string& temp_path() const { return temp_; }

 private:
  AtomicFile(std::string path, std::string temp, int fd)
      : path_(std::move(path)), temp_(std::move(temp)), fd_(fd) {}
  void Abandon();

  std::string path_;
  std::string temp_;
  int fd_ = -1;  // -1 once committed or abandoned
};

}  // namespace svcplane
