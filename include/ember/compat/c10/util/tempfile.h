#pragma once
/// ember's drop-in for libtorch's <c10/util/tempfile.h> (target ember::torch): temporary
/// files and directories under $TMPDIR, $TMP, $TEMP or $TEMPDIR (else /tmp), removed when their handle goes
/// away.

#include <stdlib.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../../ember_torch_names.h"

namespace c10 {
namespace detail {
// The mkstemp / mkdtemp pattern "<tmp-dir>/<prefix>XXXXXX", NUL-terminated.
inline std::vector<char> temp_pattern(const std::string& prefix) {
  const char* dir = nullptr;
  for (const char* name : {"TMPDIR", "TMP", "TEMP", "TEMPDIR"})
    if (!dir || !*dir) dir = std::getenv(name);
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/" + prefix + "XXXXXX";
  return std::vector<char>(path.c_str(), path.c_str() + path.size() + 1);
}
}  // namespace detail

struct TempFile {
  TempFile() = default;
  TempFile(std::string name, int fd) : fd(fd), name(std::move(name)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  TempFile(TempFile&& other) noexcept : fd(std::exchange(other.fd, -1)), name(std::move(other.name)) {
    other.name.clear();
  }
  TempFile& operator=(TempFile&& other) noexcept {
    if (this != &other) {
      release();
      fd = std::exchange(other.fd, -1);
      name = std::move(other.name);
      other.name.clear();
    }
    return *this;
  }
  ~TempFile() { release(); }

  int fd = -1;
  std::string name;

 private:
  void release() {
    if (fd < 0) return;
    ::unlink(name.c_str());
    ::close(fd);
    fd = -1;
  }
};

struct TempDir {
  TempDir() = default;
  explicit TempDir(std::string name) : name(std::move(name)) {}
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept : name(std::exchange(other.name, std::string())) {}
  TempDir& operator=(TempDir&& other) noexcept {
    if (this != &other) {
      if (!name.empty()) ::rmdir(name.c_str());
      name = std::exchange(other.name, std::string());
    }
    return *this;
  }
  ~TempDir() {
    if (!name.empty()) ::rmdir(name.c_str());  // only an empty directory goes, as libtorch's
  }

  std::string name;
};

/// A new file "<tmp-dir>/<prefix>XXXXXX", open for reading and writing; nullopt on failure.
inline std::optional<TempFile> try_make_tempfile(std::string name_prefix = "torch-file-") {
  std::vector<char> path = detail::temp_pattern(name_prefix);
  const int fd = ::mkstemp(path.data());
  if (fd == -1) return std::nullopt;
  return TempFile(std::string(path.data()), fd);
}

inline TempFile make_tempfile(std::string name_prefix = "torch-file-") {
  std::optional<TempFile> file = try_make_tempfile(std::move(name_prefix));
  if (!file) throw ::ember::Error("Error generating temporary file");
  return std::move(*file);
}

/// A new directory "<tmp-dir>/<prefix>XXXXXX"; nullopt on failure.
inline std::optional<TempDir> try_make_tempdir(std::string name_prefix = "torch-dir-") {
  std::vector<char> path = detail::temp_pattern(name_prefix);
  if (::mkdtemp(path.data()) == nullptr) return std::nullopt;
  return TempDir(std::string(path.data()));
}

inline TempDir make_tempdir(std::string name_prefix = "torch-dir-") {
  std::optional<TempDir> dir = try_make_tempdir(std::move(name_prefix));
  if (!dir) throw ::ember::Error("Error generating temporary directory");
  return std::move(*dir);
}
}  // namespace c10

namespace torch::utils {
// Older libtorch releases spelled these torch::utils:: (<torch/csrc/utils/tempfile.h>).
using c10::make_tempdir;
using c10::make_tempfile;
using c10::TempDir;
using c10::TempFile;
using c10::try_make_tempdir;
using c10::try_make_tempfile;
}  // namespace torch::utils
