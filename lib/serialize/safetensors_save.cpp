// save(): the header written with nlohmann::json, then each tensor's C-contiguous bytes,
// into a temporary file beside the target that is fsynced and renamed over it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/serialize.h"
#include "serialize/safetensors_format.h"

namespace ember {

namespace {

[[noreturn]] void throw_io(const char* what, const std::string& file) {
  EMBER_THROW(IOError, "save: could not {} '{}': {}", what, file, std::strerror(errno));
}

// Removes the temporary file unless the save went through.
struct TempFile {
  std::string name;
  int fd = -1;
  bool keep = false;
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (!keep && !name.empty()) ::unlink(name.c_str());
  }
};

void write_all(int fd, const char* p, size_t n, const std::string& file) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, std::min<size_t>(n, size_t(1) << 30));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw_io("write", file);
    p += w;
    n -= size_t(w);
  }
}

std::string directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

namespace detail {

void write_safetensors(const std::map<std::string, Tensor>& tensors, const std::map<std::string, std::string>& metadata,
                       const std::function<void(const char*, size_t)>& sink) {
  // Larger elements first, then by name (as Python's safetensors does), so every tensor's
  // bytes stay aligned to its element size and a mmap load can view them in place.
  std::vector<const std::pair<const std::string, Tensor>*> order;
  for (const auto& kv : tensors) {
    EMBER_CHECK_ARG(kv.first != "__metadata__", "save: '__metadata__' is reserved for the metadata, not a tensor name");
    EMBER_CHECK_ARG(kv.second.defined(), "save: tensor '{}' is undefined", kv.first);
    order.push_back(&kv);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return element_size(a->second.scalar_type()) > element_size(b->second.scalar_type());
  });

  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t at = 0;
  for (const auto* kv : order) {
    const Tensor& t = kv->second;
    uint64_t n = t.nbytes();
    header[kv->first] = {{"dtype", detail::safetensors_dtype_name(t.scalar_type())},
                         {"shape", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
                         {"data_offsets", {at, at + n}}};
    at += n;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {  // names and metadata must be valid UTF-8
    EMBER_THROW(InvalidArgument, "save: tensor names and metadata must be valid UTF-8 ({})", e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  const uint64_t header_len = text.size();
  sink(reinterpret_cast<const char*>(&header_len), 8);
  sink(text.data(), text.size());
  NoGradGuard no_grad;
  for (const auto* kv : order) {
    const Tensor& t = kv->second;
    if (t.numel() == 0) continue;
    // One tensor on the host at a time: a device or strided tensor is copied once.
    Tensor host = (t.device().is_cpu() ? t : t.to(Device(kCPU, 0))).contiguous();
    sink(static_cast<const char*>(host.data_ptr()), host.nbytes());
  }
}

}  // namespace detail

void save(const std::map<std::string, Tensor>& tensors, const std::string& path,
          const std::map<std::string, std::string>& metadata) {
  EMBER_CHECK_ARG(!path.empty(), "save: empty path");
  // A unique name beside the target: rename() is atomic only within one file system.
  static std::atomic<unsigned> counter{0};
  TempFile tmp;
  for (int attempt = 0; tmp.fd < 0; ++attempt) {
    tmp.name = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
    tmp.fd = ::open(tmp.name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (tmp.fd < 0 && (errno != EEXIST || attempt > 100)) {
      tmp.name.clear();
      throw_io("create a temporary file beside", path);
    }
  }
  detail::write_safetensors(tensors, metadata,
                            [&](const char* p, size_t n) { write_all(tmp.fd, p, n, tmp.name); });
  if (::fsync(tmp.fd) != 0) throw_io("fsync", tmp.name);
  int fd = tmp.fd;
  tmp.fd = -1;
  if (::close(fd) != 0) throw_io("close", tmp.name);
  if (::rename(tmp.name.c_str(), path.c_str()) != 0) throw_io("rename the temporary file onto", path);
  tmp.keep = true;
  // The rename itself is durable once the directory is synced (best effort: some file
  // systems refuse fsync on a directory).
  int dir = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace ember
