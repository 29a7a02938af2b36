// Device strings (API.md section 1): libtorch forms ("cuda:1") and TensorFlow names
// ("/job:localhost/replica:0/task:0/device:GPU:1"). Parsing is pure string work.

#include "ember/device.h"

#include <cctype>
#include <limits>
#include <optional>
#include <ostream>
#include <string_view>

#include "core/check.h"

namespace ember {
namespace {

// Registration happens once at start-up, before devices are parsed, so no lock.
std::string& privateuse1_name() {
  static std::string name = "privateuseone";  // torch's default until a backend registers
  return name;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

[[noreturn]] void bad_spec(const std::string& spec, const std::string& why) {
  EMBER_THROW(InvalidArgument,
              "Device: invalid device string '{}': {}; expected <type>[:<index>] with type cpu, "
              "gpu, cuda or {} (the registered backend name) and a decimal index, or a "
              "TensorFlow name such as '/device:GPU:0' or "
              "'/job:localhost/replica:0/task:0/device:CPU:0'",
              spec, why, privateuse1_name());
}

// Type names are case-insensitive; "gpu" is TensorFlow's spelling of "cuda".
std::optional<DeviceType> type_from_name(std::string_view name) {
  const std::string n = to_lower(name);
  if (n == "cpu") return DeviceType::CPU;
  if (n == "cuda" || n == "gpu") return DeviceType::CUDA;
  if (n == privateuse1_name()) return DeviceType::PrivateUse1;
  return std::nullopt;
}

// A plain decimal: no sign, no leading zero, at most `max`. `what` names the field.
int parse_decimal(std::string_view s, const char* what, int max, const std::string& spec) {
  if (s.empty()) bad_spec(spec, fmt::format("{} is empty", what));
  if (s[0] == '-') bad_spec(spec, fmt::format("{} '{}' is negative", what, s));
  for (char c : s) {
    if (!is_digit(c)) bad_spec(spec, fmt::format("{} '{}' is not a decimal number", what, s));
  }
  if (s.size() > 1 && s[0] == '0')
    bad_spec(spec, fmt::format("{} '{}' has a leading zero", what, s));
  long long value = 0;
  for (char c : s) {
    value = value * 10 + (c - '0');
    if (value > max) bad_spec(spec, fmt::format("{} {} is too large (at most {})", what, s, max));
  }
  return static_cast<int>(value);
}

// "<type>[:<index>]", the libtorch form and the value of TensorFlow's "/device:" part.
Device parse_type_and_index(std::string_view s, const std::string& spec) {
  const size_t colon = s.find(':');
  const std::string_view name = s.substr(0, colon);
  if (name.empty()) bad_spec(spec, "device type is empty");
  const std::optional<DeviceType> type = type_from_name(name);
  if (!type) bad_spec(spec, fmt::format("unknown device type '{}'", name));
  if (colon == std::string_view::npos) return Device(*type);
  return Device(*type, parse_decimal(s.substr(colon + 1), "index",
                                     std::numeric_limits<int16_t>::max(), spec));
}

// "/job:<name>/replica:<n>/task:<n>/device:<TYPE>[:<index>]", every part optional but the
// device, plus the legacy "/cpu:0" spelling. Job, replica and task are checked, then dropped:
// ember has only the local process.
Device parse_tf_name(std::string_view s, const std::string& spec) {
  bool has_job = false, has_replica = false, has_task = false;
  std::optional<Device> device;
  while (!s.empty()) {
    s.remove_prefix(1);  // the '/'
    const size_t slash = s.find('/');
    const std::string_view part = s.substr(0, slash);
    s = slash == std::string_view::npos ? std::string_view() : s.substr(slash);
    if (part.empty()) bad_spec(spec, "empty part (a '/' doubled or at the end)");

    const size_t colon = part.find(':');
    const std::string key = to_lower(part.substr(0, colon));
    const std::string_view value =
        colon == std::string_view::npos ? std::string_view() : part.substr(colon + 1);
    auto once = [&](bool& seen) {
      if (seen) bad_spec(spec, fmt::format("'/{}:' is given twice", key));
      seen = true;
    };
    if (key == "job") {
      once(has_job);
      bool ok = !value.empty() && std::isalpha(static_cast<unsigned char>(value[0]));
      for (char c : value) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
      if (!ok) bad_spec(spec, fmt::format("job name '{}' is not a name", value));
    } else if (key == "replica") {
      once(has_replica);
      parse_decimal(value, "replica", std::numeric_limits<int>::max(), spec);
    } else if (key == "task") {
      once(has_task);
      parse_decimal(value, "task", std::numeric_limits<int>::max(), spec);
    } else if (key == "device" || type_from_name(key)) {
      if (device) bad_spec(spec, "more than one device type");
      device = parse_type_and_index(key == "device" ? value : part, spec);
    } else {
      bad_spec(spec, fmt::format("unknown part '/{}' (known parts: /job:<name>, /replica:<n>, "
                                 "/task:<n>, /device:<type>[:<index>], /<type>[:<index>])",
                                 part));
    }
  }
  if (!device) bad_spec(spec, "no device type (add /device:<type>[:<index>])");
  return *device;
}

Device parse_device(const std::string& spec) {
  if (spec.empty()) bad_spec(spec, "the string is empty");
  if (spec[0] == '/') return parse_tf_name(spec, spec);
  return parse_type_and_index(spec, spec);
}

}  // namespace

std::string device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU:
      return "cpu";
    case DeviceType::CUDA:
      return "cuda";
    case DeviceType::PrivateUse1:
      return privateuse1_name();
  }
  EMBER_THROW(InvalidArgument, "device_type_name: unknown device type {}", static_cast<int>(t));
}

void register_privateuse1_name(const std::string& name) {
  bool ok = !name.empty() && name[0] >= 'a' && name[0] <= 'z';
  for (char c : name) ok = ok && ((c >= 'a' && c <= 'z') || is_digit(c) || c == '_');
  EMBER_CHECK_ARG(ok,
                  "register_privateuse1_name: invalid name '{}'; expected lower-case letters, "
                  "digits and '_', starting with a letter (e.g. 'npu')",
                  name);
  // These would make device strings ambiguous.
  for (const char* taken : {"cpu", "gpu", "cuda", "job", "replica", "task", "device"}) {
    EMBER_CHECK_ARG(name != taken,
                    "register_privateuse1_name: name '{}' is already taken (cpu, gpu, cuda and "
                    "the TensorFlow parts job, replica, task, device are reserved)",
                    name);
  }
  privateuse1_name() = name;
}

Device::Device(const std::string& spec) : Device(parse_device(spec)) {}

std::string Device::str() const {
  if (!has_index()) return device_type_name(type_);
  return fmt::format("{}:{}", device_type_name(type_), index_);
}

std::string Device::tf_str() const {
  std::string type = type_ == DeviceType::CUDA ? "GPU" : to_upper(device_type_name(type_));
  // Device(kCPU) is cpu:0 (Note [CPU device index]); other types' -1 has no index yet.
  if (!has_index() && !is_cpu()) return "/job:localhost/replica:0/task:0/device:" + type;
  return fmt::format("/job:localhost/replica:0/task:0/device:{}:{}", type, compared_index());
}

void Device::throw_bad_index(DeviceType type, int index) {
  EMBER_THROW(InvalidArgument, "Device: index {} for device type {} is invalid; expected -1 (the current device) or 0..32767",
              index, device_type_name(type));
}

std::ostream& operator<<(std::ostream& stream, const Device& device) { return stream << device.str(); }
std::ostream& operator<<(std::ostream& stream, DeviceType type) { return stream << device_type_name(type); }

}  // namespace ember
