#pragma once
/// DataLoaderOptions (libtorch's, plus pin_memory, device and prefetch) and the resolved
/// FullDataLoaderOptions a loader runs with.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "ember/arg.h"
#include "ember/device.h"
#include "ember/error.h"

namespace ember::data {

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}

  EMBER_ARG(size_t, batch_size) = 1;
  /// Worker threads; 0 loads every batch on the thread that iterates.
  EMBER_ARG(size_t, workers) = 0;
  /// Batches requested ahead at once; default 2 * workers.
  EMBER_ARG(std::optional<size_t>, max_jobs);
  /// How long to wait for one batch before throwing.
  EMBER_ARG(std::optional<std::chrono::milliseconds>, timeout);
  /// Batches arrive in the sampler's order (otherwise as workers finish them).
  EMBER_ARG(bool, enforce_ordering) = true;
  /// Leave out a last batch smaller than batch_size.
  EMBER_ARG(bool, drop_last) = false;
  /// Beyond libtorch: every batch's tensors are moved to `device` before the loop sees
  /// them; with pin_memory the host-to-device copies are asynchronous, through ember's
  /// pinned staging memory, on a side stream. On the CPU the option only copies.
  EMBER_ARG(std::optional<Device>, device);
  EMBER_ARG(bool, pin_memory) = false;
  /// Beyond libtorch: this many batches are loaded and already on `device` ahead of the
  /// one the loop is using.
  EMBER_ARG(size_t, prefetch) = 0;
};

/// The options a loader runs with: defaults resolved, values checked.
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(const DataLoaderOptions& options)
      : batch_size(options.batch_size()),
        workers(options.workers()),
        max_jobs(std::max(options.max_jobs().value_or(2 * options.workers()), options.prefetch())),
        timeout(options.timeout()),
        enforce_ordering(options.enforce_ordering()),
        drop_last(options.drop_last()),
        device(options.device()),
        pin_memory(options.pin_memory()),
        prefetch(options.prefetch()) {
    if (batch_size == 0) throw InvalidArgument("DataLoaderOptions: batch_size must be positive, got 0");
    if (workers > 0 && max_jobs == 0) {
      throw InvalidArgument("DataLoaderOptions: max_jobs must be positive when there are workers, got 0 with " +
                            std::to_string(workers) + " workers");
    }
    if (timeout && timeout->count() <= 0) {
      throw InvalidArgument("DataLoaderOptions: timeout must be positive, got " + std::to_string(timeout->count()) +
                            " ms");
    }
  }

  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
  std::optional<Device> device;
  bool pin_memory;
  size_t prefetch;
};

}  // namespace ember::data
