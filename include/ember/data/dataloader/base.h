#pragma once
/// DataLoaderBase: iterates a dataset in batches, on worker threads or on the calling
/// thread. Note [Loader jobs]: the iterating thread turns batch requests from the sampler
/// into numbered jobs, keeping max_jobs of them queued or running; each worker takes a job,
/// loads the batch (moving it to the device when asked) and queues the result, or the
/// exception it threw. The iterating thread takes results in job order (enforce_ordering)
/// or as they come, rethrows a worker's exception at the batch it belongs to, and queues
/// one new job per result. join() drops the queued jobs and stops the workers; a worker in
/// the middle of a batch finishes it first.

#include <chrono>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ember/check.h"
#include "ember/data/dataloader_options.h"
#include "ember/data/detail/device_transfer.h"
#include "ember/data/detail/queue.h"
#include "ember/data/detail/worker_thread.h"
#include "ember/data/iterator.h"

namespace ember::data {

template <class Dataset, class Batch, class BatchRequest>
class DataLoaderBase {
 public:
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  DataLoaderBase(const DataLoaderOptions& options, std::unique_ptr<Dataset> main_thread_dataset = nullptr)
      : main_thread_dataset_(std::move(main_thread_dataset)),
        options_(options),
        transfer_(options_.device, options_.pin_memory) {}

  virtual ~DataLoaderBase() { join(); }

  DataLoaderBase(const DataLoaderBase&) = delete;
  DataLoaderBase& operator=(const DataLoaderBase&) = delete;

  /// Starts a new epoch (resetting the sampler or the stateful dataset).
  Iterator<Batch> begin() {
    EMBER_CHECK(in_flight_ == 0,
                "Attempted to get a new DataLoader iterator while another iterator is not yet exhausted");
    reset();
    return Iterator<Batch>([this] { return next(); });
  }
  Iterator<Batch> end() { return Iterator<Batch>(); }

  /// Stops and joins the workers; called by the destructor, and safe to call twice.
  void join() {
    if (joined_) return;
    joined_ = true;
    jobs_.clear();
    for (size_t i = 0; i < workers_.size(); ++i) jobs_.push(Job{0, std::nullopt});
    for (auto& worker : workers_) worker.join();
    workers_.clear();
    results_.clear();
  }

  const FullDataLoaderOptions& options() const noexcept { return options_; }

 protected:
  /// The next request of the epoch, or nullopt at its end.
  virtual std::optional<BatchRequest> get_batch_request() = 0;

  virtual void reset() {
    jobs_.clear();
    results_.clear();
    in_flight_ = 0;
    next_sequence_ = 0;
    next_result_ = 0;
    early_results_.clear();
    staged_.clear();
    exhausted_ = false;
    if (!workers_.empty()) queue_jobs(options_.max_jobs);
  }

  /// Starts one worker per dataset; each loads from its own (stateless loaders give each a
  /// copy) or all from the same one (stateful datasets are shared and thread-safe).
  void start_workers(const std::vector<Dataset*>& datasets) {
    for (Dataset* dataset : datasets) workers_.emplace_back([this, dataset] { work(*dataset); });
  }

  std::unique_ptr<Dataset> main_thread_dataset_;

 private:
  struct Job {
    size_t sequence;
    std::optional<BatchRequest> request;  // nullopt: the worker stops
  };
  struct Result {
    size_t sequence;
    std::optional<Batch> batch;  // nullopt: a stateful dataset ran out
    std::exception_ptr exception;
  };

  // The batch for a request: nullopt when a stateful dataset has run out for this epoch.
  std::optional<Batch> load(Dataset& dataset, BatchRequest request) {
    if constexpr (Dataset::is_stateful) {
      auto batch = dataset.get_batch(std::move(request));
      if (!batch) return std::nullopt;
      return transfer_.to_device(std::move(*batch));
    } else {
      return transfer_.to_device(dataset.get_batch(std::move(request)));
    }
  }

  void work(Dataset& dataset) {
    detail::enter_worker_thread();
    while (true) {
      Job job = jobs_.pop();
      if (!job.request) return;
      Result result{job.sequence, std::nullopt, nullptr};
      try {
        result.batch = load(dataset, std::move(*job.request));
      } catch (...) {
        result.exception = std::current_exception();
      }
      results_.push(std::move(result));
    }
  }

  void queue_jobs(size_t count) {
    for (size_t i = 0; i < count && !exhausted_; ++i) {
      std::optional<BatchRequest> request = get_batch_request();
      if (!request) {
        exhausted_ = true;
        return;
      }
      jobs_.push(Job{next_sequence_++, std::move(request)});
      ++in_flight_;
    }
  }

  Result take_result() {
    if (options_.enforce_ordering) {
      auto early = early_results_.find(next_result_);
      if (early != early_results_.end()) {
        Result result = std::move(early->second);
        early_results_.erase(early);
        ++next_result_;
        return result;
      }
    }
    while (true) {
      Result result = results_.pop(options_.timeout);
      if (!options_.enforce_ordering || result.sequence == next_result_) {
        ++next_result_;
        return result;
      }
      const size_t sequence = result.sequence;
      early_results_.emplace(sequence, std::move(result));
    }
  }

  std::optional<Batch> next_from_workers() {
    while (in_flight_ > 0) {
      Result result = take_result();
      --in_flight_;
      if (result.exception) {
        queue_jobs(1);  // the epoch goes on if the caller catches and continues
        std::rethrow_exception(result.exception);
      }
      if (result.batch) {
        queue_jobs(1);
        return std::move(result.batch);
      }
      exhausted_ = true;  // a stateful dataset ran out: take what is in flight, ask no more
    }
    return std::nullopt;
  }

  std::optional<Batch> next_on_this_thread() {
    // With prefetch, `staged_` holds the batches already loaded (and on the device) ahead.
    while (!exhausted_ && staged_.size() <= options_.prefetch) {
      std::optional<BatchRequest> request = get_batch_request();
      std::optional<Batch> batch;
      if (request) batch = load(*main_thread_dataset_, std::move(*request));
      if (!batch) {
        exhausted_ = true;
        break;
      }
      staged_.push_back(std::move(*batch));
    }
    if (staged_.empty()) return std::nullopt;
    std::optional<Batch> batch(std::move(staged_.front()));
    staged_.pop_front();
    return batch;
  }

  std::optional<Batch> next() {
    std::optional<Batch> batch = workers_.empty() ? next_on_this_thread() : next_from_workers();
    if (batch) transfer_.hand_over(*batch);
    return batch;
  }

  FullDataLoaderOptions options_;
  detail::DeviceTransfer transfer_;
  detail::Queue<Job> jobs_;
  detail::Queue<Result> results_;
  std::vector<std::thread> workers_;
  std::map<size_t, Result> early_results_;  // arrived before their turn (enforce_ordering)
  std::deque<Batch> staged_;
  size_t in_flight_ = 0;
  size_t next_sequence_ = 0;
  size_t next_result_ = 0;
  bool exhausted_ = false;
  bool joined_ = false;
};

}  // namespace ember::data
