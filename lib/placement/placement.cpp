// Note [Placement rules]
// An op's device is chosen in this order (API.md section 5):
//  1. Inside a DeviceScope: the scope's device; inputs elsewhere are copied there.
//  2. Outside: creation ops use the default device; other ops run where their inputs
//     live. PreferAccelerator sends ops whose inputs are on the CPU (and creation ops,
//     when the default device is cpu:0) to the accelerator: gpu:0, else device 0 of a
//     registered PrivateUse1 backend (TF ranks a PluggableDevice above the CPU the same
//     way), when it exists and has a kernel; inputs already on an accelerator stay there.
//     FollowInputs rejects inputs on two devices (a 0-dim CPU tensor may join any
//     device, as in libtorch).
//  3. A requested device that does not exist is InvalidArgument, unless soft placement
//     is on: then the same type's lowest index, else cpu:0 (also when the op has no
//     kernel for the device type).
//  4. With logging on, each op and each automatic copy writes one line.
// The common case (no scope, inputs on one existing device) costs a thread-local read
// and a few compares; strings are built only for logging and errors.
#include "placement/placement.h"

#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/check.h"
#include "dispatch/kernel_table.h"

namespace ember {

namespace detail {

namespace {

constexpr int kMaxScopeDepth = 64;
// Plain data so the thread-local needs no constructor guard, and initial-exec TLS so
// reading it from the shared library is one instruction, not a __tls_get_addr call.
struct ScopeStack {
  int depth;
  DeviceType types[kMaxScopeDepth];
  int16_t indices[kMaxScopeDepth];
};
thread_local ScopeStack t_scopes __attribute__((tls_model("initial-exec")));
// Depth of QuietPlacementLog guards on this thread; read only when logging is on.
thread_local int t_quiet __attribute__((tls_model("initial-exec")));

std::atomic<Placement> g_policy{Placement::FollowInputs};
std::atomic<bool> g_soft_placement{false};
// The default device packed as (type << 16 | index) so reading it takes no lock.
std::atomic<int32_t> g_default_device{0};

std::mutex g_sink_mutex;
std::function<void(const std::string&)>& sink() {
  static auto* s = new std::function<void(const std::string&)>();
  return *s;
}

void emit(const std::string& line) {
  if (t_quiet) return;
  // The sink is called outside the lock: a sink may itself run (logged) ember ops.
  std::function<void(const std::string&)> fn;
  {
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    fn = sink();
  }
  if (fn) fn(line);
  else std::fprintf(stderr, "%s\n", line.c_str());
}

// Soft placement's fallback: the same type's lowest index, else cpu:0.
DeviceEntry& fallback_for(Device requested, Op op, ScalarType dtype) {
  if (has_kernel(op, requested.type(), dtype))
    if (DeviceEntry* e = find_device(Device(requested.type(), 0))) return *e;
  return *find_device(Device(kCPU, 0));
}

Device default_device() {
  const int32_t packed = g_default_device.load(std::memory_order_relaxed);
  return Device(static_cast<DeviceType>(packed >> 16), packed & 0xffff);
}

}  // namespace

std::atomic<bool> g_log_placement{false};

std::string available_devices() {
  std::string s;
  for (int t = 0; t < kNumDeviceTypes; ++t)
    for (DeviceEntry* e : devices_of(static_cast<DeviceType>(t)))
      s += (s.empty() ? "" : ", ") + e->device.tf_str();
  return s;
}

bool scope_device(Device* out) {
  const ScopeStack& s = t_scopes;
  if (!s.depth) return false;
  *out = Device(s.types[s.depth - 1], s.indices[s.depth - 1]);
  return true;
}

Device resolve_index(Device device) {
  if (device.has_index()) return device;
  if (device.is_cpu()) return Device(kCPU, 0);  // "the CPU" (Note [CPU device index])
  // The innermost scope of that type, then the default device, then index 0.
  const ScopeStack& s = t_scopes;
  for (int i = s.depth - 1; i >= 0; --i)
    if (s.types[i] == device.type()) return Device(s.types[i], s.indices[i]);
  Device def = default_device();
  if (def.type() == device.type() && def.has_index()) return def;
  return Device(device.type(), 0);
}

DeviceEntry& require_device(Device requested, Op op, ScalarType dtype) {
  Device d = resolve_index(requested);
  DeviceEntry* e = find_device(d);
  // find_device has run discovery, which registered the built-in kernels.
  const KernelEntry& k = g_kernel_table[static_cast<int>(op)][static_cast<int>(d.type())];
  const bool has = e && k.fn && (k.dtypes & (1u << static_cast<int>(dtype)));
  if (__builtin_expect(has, 1)) return *e;
  if (g_soft_placement.load(std::memory_order_relaxed)) return fallback_for(d, op, dtype);
  if (!e)
    EMBER_THROW(InvalidArgument,
                "Could not satisfy explicit device specification '{}': the device does not exist "
                "(op {}; {} device(s) of type {}); available devices: {}. Enable soft placement "
                "(set_soft_device_placement(true)) to fall back to an existing device",
                d.tf_str(), op_name(op), devices_of(d.type()).size(), device_type_name(d.type()),
                available_devices());
  throw_no_kernel(op, d.type(), dtype);
}

void check_strided_layout(const TensorOptions& options) {
  if (__builtin_expect(options.layout() != kStrided, 0))
    EMBER_THROW(NotImplemented,
                "creating a tensor: ember supports only the strided layout (kStrided), got the options' layout {}",
                layout_name(options.layout()));
}

DeviceEntry& place_creation(const TensorOptions& options, Op op) {
  check_strided_layout(options);
  ScalarType dtype = options.dtype();
  if (auto d = options.device_opt()) return require_device(*d, op, dtype);
  Device s(kCPU, 0);
  if (scope_device(&s)) return require_device(s, op, dtype);
  Device def = default_device();
  if (g_policy.load(std::memory_order_relaxed) == Placement::PreferAccelerator && def == Device(kCPU, 0))
    if (DeviceEntry* g = preferred_accelerator(op, dtype)) return *g;
  return require_device(def, op, dtype);
}

DeviceEntry* preferred_accelerator(Op op, ScalarType dtype) {
  for (DeviceType type : {kCUDA, kPrivateUse1})
    if (DeviceEntry* e = find_device(Device(type, 0)); e && has_kernel(op, type, dtype)) return e;
  return nullptr;
}

namespace {
void log_copy(const char* name, int i, Device from, Device to) {
  emit(fmt::format("Copying input {} of {} from {} to {}", i, name, from.tf_str(), to.tf_str()));
}
}  // namespace

DeviceEntry& place_op(Op op, Tensor* inputs, int n, ScalarType dtype) {
  return place_op(op, inputs, n, dtype, nullptr);
}

DeviceEntry& place_op(Op op, Tensor* inputs, int n, ScalarType dtype, const char* log_name) {
  // Fast path (no scope, FollowInputs, all inputs on one existing device with a kernel).
  if (__builtin_expect(t_scopes.depth == 0 && g_policy.load(std::memory_order_relaxed) == Placement::FollowInputs &&
                           !g_log_placement.load(std::memory_order_relaxed),
                       1)) {
    const Device d = inputs[0].device();
    bool same = true;
    for (int i = 1; i < n; ++i) same = same && inputs[i].device() == d;
    if (same) {
      DeviceEntry* e = find_device(d);
      const KernelEntry& k = g_kernel_table[static_cast<int>(op)][static_cast<int>(d.type())];
      if (e && k.fn && (k.dtypes & (1u << static_cast<int>(dtype)))) return *e;
    }
  }
  DeviceEntry* target = nullptr;
  Device s(kCPU, 0);
  if (scope_device(&s)) {
    target = &require_device(s, op, dtype);
  } else {
    // Inputs' device: the first non-0-dim input's, else the first input's.
    int lead = 0;
    for (int i = 0; i < n; ++i)
      if (inputs[i].dim() != 0) {
        lead = i;
        break;
      }
    Device d = inputs[lead].device();
    // PreferAccelerator moves the op when any input is on the CPU, whatever its position.
    bool any_cpu = false;
    for (int i = 0; i < n; ++i) any_cpu = any_cpu || inputs[i].device().is_cpu();
    if (g_policy.load(std::memory_order_relaxed) == Placement::PreferAccelerator && any_cpu)
      target = preferred_accelerator(op, dtype);
    if (!target) {
      for (int i = 0; i < n; ++i) {
        Device di = inputs[i].device();
        EMBER_CHECK_TYPED(di == d || (inputs[i].dim() == 0 && di.is_cpu()), InvalidArgument,
                          "{}: expected all tensors to be on the same device, but found at least two devices, "
                          "{} ({}) and {} ({}); move them with .to(device), use a DeviceScope, or "
                          "set_placement(Placement::PreferAccelerator)",
                          log_name ? log_name : op_name(op), d.tf_str(), d.str(), di.tf_str(), di.str());
      }
      target = &require_device(d, op, dtype);
    }
  }
  const bool log = g_log_placement.load(std::memory_order_relaxed) && !t_quiet;
  const char* name = log && !log_name ? op_name(op) : log_name;  // only read when logging
  // `inputs` is the front-end's own array of handles: a failed copy leaves the user's
  // tensors where they were.
  for (int i = 0; i < n; ++i) {
    if (!inputs[i].defined() || inputs[i].device() == target->device) continue;
    if (log) log_copy(name, i, inputs[i].device(), target->device);
    inputs[i] = inputs[i].to(target->device);
  }
  if (log) log_op(name, *target);
  return *target;
}

void log_op(Op op, const DeviceEntry& entry) { log_op(op_name(op), entry); }

void log_op(const char* name, const DeviceEntry& entry) {
  emit(fmt::format("Executing op {} in device {}", name, entry.device.tf_str()));
}

QuietPlacementLog::QuietPlacementLog() { ++t_quiet; }
QuietPlacementLog::~QuietPlacementLog() { --t_quiet; }

}  // namespace detail

DeviceScope::DeviceScope(Device device) {
  detail::ScopeStack& s = detail::t_scopes;
  EMBER_CHECK_ARG(s.depth < detail::kMaxScopeDepth, "DeviceScope: more than {} nested scopes",
                  detail::kMaxScopeDepth);
  // A scope without an index takes the index of the innermost enclosing scope of that type.
  if (!device.has_index()) device = detail::resolve_index(device);
  s.types[s.depth] = device.type();
  s.indices[s.depth] = int16_t(device.index());
  depth_ = ++s.depth;
}

DeviceScope::~DeviceScope() { detail::t_scopes.depth = depth_ - 1; }

Device current_device() {
  Device d(kCPU, 0);
  if (detail::scope_device(&d)) return d;
  return detail::default_device();
}

void set_default_device(Device device) {
  const int index = device.has_index() ? device.index() : 0;
  detail::g_default_device.store((int32_t(device.type()) << 16) | index);
}

void set_placement(Placement policy) { detail::g_policy.store(policy); }
Placement placement() { return detail::g_policy.load(); }
void set_soft_device_placement(bool enabled) { detail::g_soft_placement.store(enabled); }
void set_log_device_placement(bool enabled) { detail::g_log_placement.store(enabled); }
void set_placement_log_sink(std::function<void(const std::string&)> fn) {
  std::lock_guard<std::mutex> lock(detail::g_sink_mutex);
  detail::sink() = std::move(fn);
}

}  // namespace ember
