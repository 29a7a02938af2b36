// SafetensorsFile and load(): the file is mapped once and validated whole before any
// tensor is made; each tensor is then copied once to its device, or viewed in place.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "core/check.h"
#include "ember/ops.h"
#include "ember/serialize.h"
#include "placement/device_table.h"
#include "placement/placement.h"
#include "serialize/safetensors_format.h"

namespace ember {

namespace {

// A private, copy-on-write mapping: tensors viewing it may be written in place without
// touching the file.
struct Mapping {
  unsigned char* addr = nullptr;
  size_t size = 0;
  unsigned char short_bytes[8] = {};  // a file too short to map (under 8 bytes), read instead
  ~Mapping() {
    if (addr) ::munmap(addr, size);
  }
};

std::shared_ptr<Mapping> map_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK_TYPED(fd >= 0, IOError, "load: could not open '{}': {}", path, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    EMBER_THROW(IOError, "load: could not stat '{}': {}", path, std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    EMBER_THROW(InvalidArgument, "load: '{}' is not a regular file", path);
  }
  auto m = std::make_shared<Mapping>();
  m->size = size_t(st.st_size);
  if (m->size < 8) {  // too short for the length: the parser says so (mmap of 0 bytes fails)
    const ssize_t got = ::read(fd, m->short_bytes, m->size);
    const int e = errno;
    ::close(fd);
    EMBER_CHECK_TYPED(got >= 0, IOError, "load: could not read '{}': {}", path, std::strerror(e));
    m->size = size_t(got);
    return m;
  }
  void* a = ::mmap(nullptr, m->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  int e = errno;
  ::close(fd);
  EMBER_CHECK_TYPED(a != MAP_FAILED, IOError, "load: could not map '{}' ({} bytes): {}", path, m->size, std::strerror(e));
  m->addr = static_cast<unsigned char*>(a);
  return m;
}

void release_mapping(void* context, void*) { delete static_cast<std::shared_ptr<Mapping>*>(context); }

}  // namespace

struct SafetensorsFile::Impl {
  std::string path;
  std::shared_ptr<Mapping> map;
  detail::SafetensorsHeader header;

  const detail::SafetensorsEntry& entry(const std::string& name) const {
    auto it = header.entries.find(name);
    EMBER_CHECK_ARG(it != header.entries.end(), "load: '{}' holds no tensor named '{}' ({} tensors)", path, name,
                    header.entries.size());
    return it->second;
  }
};

SafetensorsFile::SafetensorsFile(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->map = map_file(path);
  const Mapping& m = *impl_->map;
  impl_->header = detail::parse_safetensors(m.addr ? m.addr : m.short_bytes, m.size, path);
}
SafetensorsFile::~SafetensorsFile() = default;
SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;

const std::string& SafetensorsFile::path() const { return impl_->path; }
const std::map<std::string, std::string>& SafetensorsFile::metadata() const { return impl_->header.metadata; }
std::vector<std::string> SafetensorsFile::keys() const {
  std::vector<std::string> r;
  r.reserve(impl_->header.entries.size());
  for (const auto& kv : impl_->header.entries) r.push_back(kv.first);
  return r;
}
bool SafetensorsFile::contains(const std::string& name) const { return impl_->header.entries.count(name) != 0; }
ScalarType SafetensorsFile::dtype(const std::string& name) const { return impl_->entry(name).dtype; }
std::vector<int64_t> SafetensorsFile::shape(const std::string& name) const { return impl_->entry(name).shape; }

Tensor SafetensorsFile::get(const std::string& name, const LoadOptions& options) const {
  const detail::SafetensorsEntry& e = impl_->entry(name);
  Device dev = detail::resolve_index(options.device());
  EMBER_CHECK_ARG(detail::find_device(dev) != nullptr, "load: device {} ({}) does not exist", dev.tf_str(), dev.str());
  const size_t nbytes = size_t(e.end - e.begin);
  unsigned char* src = nbytes ? impl_->map->addr + impl_->header.data_start + e.begin : nullptr;
  const TensorOptions opts = TensorOptions(e.dtype).device(dev);
  const bool aligned = reinterpret_cast<uintptr_t>(src) % element_size(e.dtype) == 0;
  if (dev.is_cpu() && options.mmap() && aligned) {
    auto keep = std::make_unique<std::shared_ptr<Mapping>>(impl_->map);
    Storage storage = Storage::adopt(new StorageImpl(src, nbytes, dev, &release_mapping, keep.get()));
    keep.release();  // the storage's deleter owns it now
    return Tensor(IntrusivePtr<TensorImpl>::adopt(new TensorImpl(std::move(storage), e.dtype, e.shape)));
  }
  if (dev.is_cpu()) {
    Tensor out = empty(e.shape, opts);
    if (nbytes) std::memcpy(out.data_ptr(), src, nbytes);
    return out;
  }
  // Another device: the backend copies straight from the mapping (kept alive by impl_).
  if (aligned) return from_blob(src, e.shape, TensorOptions(e.dtype)).to(dev);
  Tensor host = empty(e.shape, TensorOptions(e.dtype));
  if (nbytes) std::memcpy(host.data_ptr(), src, nbytes);
  return host.to(dev);
}

std::map<std::string, Tensor> load(const std::string& path, const LoadOptions& options) {
  SafetensorsFile file(path);
  std::map<std::string, Tensor> out;
  for (const auto& name : file.keys()) out.emplace(name, file.get(name, options));
  return out;
}

std::map<std::string, Tensor> load(const std::string& path, Device device) {
  return load(path, LoadOptions().device(device));
}

}  // namespace ember
