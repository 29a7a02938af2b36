#pragma once
// A PrivateUse1 test backend, "npu", with two devices in host memory: its own counting
// RawAllocator, memcpy copies, and kernels forwarded from the CPU table. It makes
// cross-device-type placement (auto-copies both ways, PreferAccelerator, soft placement
// to another type, copy logging) testable on CPU-only machines.
//
// It registers every CPU kernel except those in fake_accelerator_missing_ops() (so
// NotImplemented and soft placement to the CPU can be tested), and MatMul only for
// float32 and float64.

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "ember/device_api.h"
#include "ember/registry.h"

namespace ember::testing {

struct FakeAcceleratorCounters {
  std::atomic<int64_t> allocs{0}, frees{0};
  std::atomic<int64_t> bytes_in_use{0};
  std::atomic<int64_t> copies_to_host{0}, copies_from_host{0}, copies_between{0};
  // Fault injection: with fail_every = k > 0, every k-th raw request returns nullptr.
  std::atomic<int> fail_every{0};
  std::atomic<int64_t> requests{0}, refused{0};
};

/// Registers the "npu" backend once per process (thread-safe); later calls do nothing.
void ensure_fake_accelerator();
/// The counters of one fake device (index 0 or 1).
FakeAcceleratorCounters& fake_counters(int index);
/// Fake streams (tokens, never dereferenced): each device has a current one per thread
/// (null: the default stream) and the backend records the waits it is asked for, so that
/// autograd's stream rule (Note [Backward streams]) is testable without a GPU.
struct FakeStreamWait {
  int index;  // the device
  void* waiter;
  void* producer;
  bool operator==(const FakeStreamWait& o) const {
    return index == o.index && waiter == o.waiter && producer == o.producer;
  }
};
void* fake_new_stream();
void* fake_current_stream(int index);
/// Makes `stream` the current stream of npu:index on this thread for a scope.
class FakeStreamGuard {
 public:
  FakeStreamGuard(int index, void* stream);
  ~FakeStreamGuard();
  FakeStreamGuard(const FakeStreamGuard&) = delete;
  FakeStreamGuard& operator=(const FakeStreamGuard&) = delete;

 private:
  int index_;
  void* previous_;
};
/// The waits recorded since the last call, in order; clears them.
std::vector<FakeStreamWait> fake_take_stream_waits();

/// Ops the fake backend has no kernel for.
std::vector<Op> fake_accelerator_missing_ops();

/// The accelerator PreferAccelerator picks on this machine: cuda:0 when a GPU exists, else npu:0.
Device expected_accelerator();

/// Sets placement options for one test and restores the defaults every other test assumes
/// (FollowInputs, no soft placement, no logging, stderr sink, default device cpu:0).
/// With `capture`, log lines are collected into lines().
class PlacementSettings {
 public:
  explicit PlacementSettings(bool capture = false);
  ~PlacementSettings();
  PlacementSettings(const PlacementSettings&) = delete;
  PlacementSettings& operator=(const PlacementSettings&) = delete;
  /// The captured lines so far; clears them.
  std::vector<std::string> take();

 private:
  std::vector<std::string> lines_;
  std::mutex mutex_;
};

}  // namespace ember::testing
