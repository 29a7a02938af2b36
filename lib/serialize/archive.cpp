// serialize::OutputArchive / InputArchive over safetensors: nested archives are flattened
// into dotted names, IValues are typed strings in "__metadata__" (see ember/serialize/archive.h).
#include "ember/serialize/archive.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <istream>
#include <iterator>
#include <ostream>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/serialize.h"
#include "placement/device_table.h"
#include "placement/placement.h"
#include "serialize/safetensors_format.h"

namespace ember::serialize {

namespace {

// The type prefixes of IValues in "__metadata__"; kArchive marks an empty nested archive.
constexpr std::string_view kNone = "none:", kDouble = "float64:", kInt = "int64:", kBool = "bool:",
                           kStr = "str:", kArchive = "archive:";

void check_key(const char* op, const std::string& key) {
  EMBER_CHECK_ARG(!key.empty(), "{}: empty key (a key names a tensor, a value or a nested archive)", op);
  EMBER_CHECK_ARG(key != "__metadata__",
                  "{}: '__metadata__' is reserved by the safetensors format, not a key", op);
}

std::string encode(const IValue& v) {
  if (v.isNone()) return std::string(kNone);
  if (v.isDouble())
    return std::string(kDouble) + fmt::format("{}", v.toDouble());  // shortest round-trip form
  if (v.isInt()) return std::string(kInt) + std::to_string(v.toInt());
  if (v.isBool()) return std::string(kBool) + (v.toBool() ? "true" : "false");
  return std::string(kStr) + v.toStringRef();
}

bool starts_with(const std::string& s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

template <class T>
bool parse_number(std::string_view text, T& out) {
  const char* end = text.data() + text.size();
  auto r = std::from_chars(text.data(), end, out);
  return r.ec == std::errc() && r.ptr == end;
}

// A metadata entry as an IValue; false for the empty-archive marker. A value without a known
// prefix (metadata written by another program) is a String as it stands.
bool decode(const std::string& file, const std::string& key, const std::string& text, IValue& out) {
  auto bad = [&](const char* kind) {
    EMBER_THROW(InvalidArgument, "load: '{}': metadata '{}' = '{}' is not a valid {} (expected {})", file,
                key, text, kind,
                kind == std::string("bool") ? "bool:true or bool:false" : "the type prefix and a number");
  };
  if (text == kArchive) return false;
  if (text == kNone) {
    out = IValue();
  } else if (starts_with(text, kDouble)) {
    double d = 0;
    if (!parse_number(std::string_view(text).substr(kDouble.size()), d)) bad("float64");
    out = IValue(d);
  } else if (starts_with(text, kInt)) {
    int64_t i = 0;
    if (!parse_number(std::string_view(text).substr(kInt.size()), i)) bad("int64");
    out = IValue(i);
  } else if (starts_with(text, kBool)) {
    const std::string b = text.substr(kBool.size());
    if (b != "true" && b != "false") bad("bool");
    out = IValue(b == "true");
  } else if (starts_with(text, kStr)) {
    out = IValue(text.substr(kStr.size()));
  } else {
    out = IValue(text);
  }
  return true;
}

// "2" before "10": digit runs compare by value, so numbered keys list in the order written.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      size_t iz = i, jz = j;  // leading zeros do not change the value
      while (iz + 1 < ie && a[iz] == '0') ++iz;
      while (jz + 1 < je && b[jz] == '0') ++jz;
      if (ie - iz != je - jz) return ie - iz < je - jz;
      int c = a.compare(iz, ie - iz, b, jz, je - jz);
      if (c != 0) return c < 0;
      if (ie - i != je - j) return ie - i < je - j;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

const std::string& key_of(const std::string& k) { return k; }
template <class V>
const std::string& key_of(const std::pair<const std::string, V>& kv) {
  return kv.first;
}

// Whether a key of `m` starts with `prefix` (an ordered container keeps them together).
template <class Container>
bool any_under(const Container& m, const std::string& prefix) {
  auto it = m.lower_bound(prefix);
  return it != m.end() && starts_with(key_of(*it), prefix);
}

template <class Container>
void erase_under(Container& m, const std::string& prefix) {
  for (auto it = m.lower_bound(prefix); it != m.end() && starts_with(key_of(*it), prefix);) it = m.erase(it);
}

Device checked_device(Device d) {
  Device dev = ember::detail::resolve_index(d);
  EMBER_CHECK_ARG(ember::detail::find_device(dev) != nullptr, "load_from: device {} ({}) does not exist",
                  dev.tf_str(), dev.str());
  return dev;
}

}  // namespace

// ---- OutputArchive

void OutputArchive::erase(const std::string& key) {
  tensors_.erase(key);
  values_.erase(key);
  empty_archives_.erase(key);
}

void OutputArchive::write(const std::string& key, const IValue& ivalue) {
  if (ivalue.isTensor()) return write(key, ivalue.toTensor());
  check_key("OutputArchive::write", key);
  EMBER_CHECK_ARG(!ivalue.isTensorList(),
                  "OutputArchive::write: '{}' is a TensorList value; write its tensors one by one (or a nested archive)",
                  key);
  erase(key);
  values_.emplace(key, ivalue);
}

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool /*is_buffer*/) {
  check_key("OutputArchive::write", key);
  erase(key);
  if (tensor.defined()) {
    tensors_.emplace(key, tensor);
  } else {
    values_.emplace(key, IValue());  // safetensors has no undefined tensor: a None reads back as one
  }
}

void OutputArchive::write(const std::string& key, OutputArchive& nested_archive) {
  check_key("OutputArchive::write", key);
  EMBER_CHECK_ARG(&nested_archive != this,
                  "OutputArchive::write: an archive cannot be nested in itself (key '{}')", key);
  erase(key);
  const std::string prefix = key + ".";
  // The nested archive replaces whatever was under "<key>." before.
  erase_under(tensors_, prefix);
  erase_under(values_, prefix);
  erase_under(empty_archives_, prefix);
  for (const auto& [k, t] : nested_archive.tensors_) tensors_.emplace(prefix + k, t);
  for (const auto& [k, v] : nested_archive.values_) values_.emplace(prefix + k, v);
  for (const auto& k : nested_archive.empty_archives_) empty_archives_.insert(prefix + k);
  if (nested_archive.tensors_.empty() && nested_archive.values_.empty() &&
      nested_archive.empty_archives_.empty())
    empty_archives_.insert(key);
}

std::map<std::string, std::string> OutputArchive::metadata() const {
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : values_) m.emplace(k, encode(v));
  for (const auto& k : empty_archives_) m.emplace(k, std::string(kArchive));
  return m;
}

void OutputArchive::save_to(const std::string& filename) const {
  ember::save(tensors_, filename, metadata());
}

void OutputArchive::save_to(std::ostream& stream) const {
  ember::detail::write_safetensors(tensors_, metadata(), [&](const char* p, size_t n) {
    stream.write(p, std::streamsize(n));
    EMBER_CHECK_TYPED(stream.good(), IOError, "save_to: writing {} bytes to the stream failed", n);
  });
  stream.flush();
  EMBER_CHECK_TYPED(stream.good(), IOError, "save_to: flushing the stream failed");
}

void OutputArchive::save_to(const std::function<size_t(const void*, size_t)>& func) const {
  EMBER_CHECK_ARG(bool(func), "save_to: empty writer function");
  ember::detail::write_safetensors(tensors_, metadata(), [&](const char* p, size_t n) {
    const size_t took = func(p, n);
    EMBER_CHECK_TYPED(took == n, IOError, "save_to: the writer function took {} of {} bytes", took, n);
  });
}

// ---- InputArchive

struct InputArchive::Contents {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, IValue> values;
  std::set<std::string> archives;  // empty nested archives
  std::optional<Device> device;
};

namespace {
const InputArchive::Contents& empty_contents() {
  static const InputArchive::Contents c;
  return c;
}

// The values of a validated header's metadata; InvalidArgument for a malformed typed one.
void decode_metadata(const std::map<std::string, std::string>& metadata, const std::string& file,
                     InputArchive::Contents& c) {
  for (const auto& [k, text] : metadata) {
    IValue v;
    if (decode(file, k, text, v)) {
      c.values.emplace(k, std::move(v));
    } else {
      c.archives.insert(k);
    }
  }
}

// "'a', 'b', ..." with at most 16 names, for the errors of a missing key.
std::string key_list(const std::vector<std::string>& keys) {
  if (keys.empty()) return "none";
  std::string s;
  for (size_t i = 0; i < keys.size() && i < 16; ++i) s += (i ? ", '" : "'") + keys[i] + "'";
  if (keys.size() > 16) s += fmt::format(", ... ({} more)", keys.size() - 16);
  return s;
}
}  // namespace

InputArchive::InputArchive() = default;
InputArchive::~InputArchive() = default;

std::optional<Device> InputArchive::device() const { return contents_ ? contents_->device : std::nullopt; }

std::map<std::string, Tensor> InputArchive::tensors() const {
  const Contents& c = contents_ ? *contents_ : empty_contents();
  std::map<std::string, Tensor> out;
  for (auto it = c.tensors.lower_bound(prefix_); it != c.tensors.end() && starts_with(it->first, prefix_); ++it)
    out.emplace_hint(out.end(), it->first.substr(prefix_.size()), it->second);
  return out;
}

std::vector<std::string> InputArchive::keys() const {
  const Contents& c = contents_ ? *contents_ : empty_contents();
  std::vector<std::string> out;
  auto add = [&](const std::string& full) {
    std::string rest = full.substr(prefix_.size());
    out.push_back(rest.substr(0, rest.find('.')));
  };
  for (auto it = c.tensors.lower_bound(prefix_); it != c.tensors.end() && starts_with(it->first, prefix_);
       ++it)
    add(it->first);
  for (auto it = c.values.lower_bound(prefix_); it != c.values.end() && starts_with(it->first, prefix_); ++it)
    add(it->first);
  for (auto it = c.archives.lower_bound(prefix_); it != c.archives.end() && starts_with(*it, prefix_); ++it)
    add(*it);
  std::sort(out.begin(), out.end(), natural_less);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool InputArchive::try_read(const std::string& key, IValue& ivalue) const {
  const Contents& c = contents_ ? *contents_ : empty_contents();
  const std::string full = prefix_ + key;
  if (auto v = c.values.find(full); v != c.values.end()) {
    ivalue = v->second;
    return true;
  }
  if (auto t = c.tensors.find(full); t != c.tensors.end()) {
    ivalue = IValue(t->second);
    return true;
  }
  return false;
}

void InputArchive::read(const std::string& key, IValue& ivalue) const {
  EMBER_CHECK_ARG(try_read(key, ivalue),
                  "InputArchive::read: the archive does not have a field with name '{}{}' (keys here: {})",
                  prefix_, key, key_list(keys()));
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/) const {
  const Contents& c = contents_ ? *contents_ : empty_contents();
  const std::string full = prefix_ + key;
  auto t = c.tensors.find(full);
  if (t == c.tensors.end()) {
    auto v = c.values.find(full);
    if (v == c.values.end() || !v->second.isNone()) return false;
    tensor = Tensor();  // an undefined tensor was written
    return true;
  }
  if (!tensor.defined()) {
    tensor = t->second;
  } else {
    NoGradGuard no_grad;  // as libtorch's set_: the same tensor now holds the stored data
    tensor.set_data(t->second);
  }
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) const {
  if (try_read(key, tensor, is_buffer)) return;
  IValue other;
  EMBER_CHECK_ARG(!try_read(key, other), "InputArchive::read: '{}{}' holds a {}, not a tensor", prefix_, key,
                  other.tagKind());
  EMBER_THROW(InvalidArgument, "InputArchive::read: No such serialized tensor '{}{}' (keys here: {})",
              prefix_, key, key_list(keys()));
}

bool InputArchive::try_read(const std::string& key, InputArchive& archive) const {
  const Contents& c = contents_ ? *contents_ : empty_contents();
  const std::string full = prefix_ + key;
  const std::string nested = full + ".";
  if (!c.archives.count(full) && !any_under(c.tensors, nested) && !any_under(c.values, nested) &&
      !any_under(c.archives, nested))
    return false;
  archive.contents_ = contents_;
  archive.prefix_ = nested;
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& archive) const {
  EMBER_CHECK_ARG(try_read(key, archive),
                  "InputArchive::read: No such serialized submodule: '{}{}' (keys here: {})", prefix_, key,
                  key_list(keys()));
}

void InputArchive::load_bytes(const char* data, size_t size, const std::string& name,
                              std::optional<Device> device) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  const ember::detail::SafetensorsHeader h = ember::detail::parse_safetensors(bytes, size, name);
  auto c = std::make_shared<Contents>();
  decode_metadata(h.metadata, name, *c);
  const std::optional<Device> dev = device ? std::optional<Device>(checked_device(*device)) : std::nullopt;
  c->device = dev;
  for (const auto& [key, e] : h.entries) {
    Tensor t = empty(e.shape, TensorOptions(e.dtype).device(Device(kCPU, 0)));
    if (e.end > e.begin) std::memcpy(t.data_ptr(), bytes + h.data_start + e.begin, size_t(e.end - e.begin));
    c->tensors.emplace(key, dev ? t.to(*dev) : t);
  }
  contents_ = std::move(c);
  prefix_.clear();
}

void InputArchive::load_from(const std::string& filename, std::optional<Device> device) {
  const SafetensorsFile file(filename);  // mapped and validated whole
  auto c = std::make_shared<Contents>();
  decode_metadata(file.metadata(), filename, *c);
  const LoadOptions options = device ? LoadOptions().device(checked_device(*device)) : LoadOptions();
  c->device = device ? std::optional<Device>(options.device()) : std::nullopt;
  for (const auto& key : file.keys()) c->tensors.emplace(key, file.get(key, options));
  contents_ = std::move(c);
  prefix_.clear();
}

void InputArchive::load_from(std::istream& stream, std::optional<Device> device) {
  const std::string bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  EMBER_CHECK_TYPED(!stream.bad(), IOError, "load_from: reading the stream failed after {} bytes",
                    bytes.size());
  load_bytes(bytes.data(), bytes.size(), "<stream>", device);
}

void InputArchive::load_from(const char* data, size_t size, std::optional<Device> device) {
  EMBER_CHECK_ARG(data != nullptr || size == 0, "load_from: null data with size {}", size);
  load_bytes(data, size, "<memory>", device);
}

void InputArchive::load_from(const std::function<size_t(uint64_t pos, void* buf, size_t nbytes)>& read_func,
                             const std::function<size_t(void)>& size_func, std::optional<Device> device) {
  EMBER_CHECK_ARG(read_func && size_func, "load_from: empty read or size function");
  std::string bytes(size_func(), '\0');
  for (size_t at = 0; at < bytes.size();) {
    const size_t got = read_func(at, bytes.data() + at, bytes.size() - at);
    EMBER_CHECK_TYPED(got > 0 && got <= bytes.size() - at, IOError,
                      "load_from: the read function returned {} bytes at offset {} of {}", got, at,
                      bytes.size());
    at += got;
  }
  load_bytes(bytes.data(), bytes.size(), "<reader>", device);
}

}  // namespace ember::serialize

namespace ember {

serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Tensor& tensor) {
  archive.write("0", tensor);
  return archive;
}

serialize::InputArchive& operator>>(serialize::InputArchive& archive, Tensor& tensor) {
  archive.read("0", tensor);
  return archive;
}

}  // namespace ember
