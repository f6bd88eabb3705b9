#pragma once

#include <sys/types.h>

#include <string>

#include "base/result.h"
#include "base/status.h"

namespace svcplane::apiserver::pki::internal {

// Reads a whole file. NotFound when it does not exist, Internal on other I/O errors.
Result<std::string> ReadFile(const std::string& path);

// Writes `data` to `path` so that readers see either the old or the new content, never a torn
// file: write to a temporary sibling, fsync, chmod `mode`, rename over `path`, fsync the folder.
Status WriteFileAtomic(const std::string& path, std::string_view data, mode_t mode);

// mkdir -p with `mode` for the folders it creates.
Status MakeDirs(const std::string& path, mode_t mode);

bool FileExists(const std::string& path);

}  // namespace svcplane::apiserver::pki::internal
