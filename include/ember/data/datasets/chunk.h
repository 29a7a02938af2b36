#pragma once
/// ChunkDataset (libtorch's): data larger than memory, read a chunk at a time by a
/// ChunkDataReader. Note [Chunk loading]: on reset() preloader threads take chunk indices
/// from the chunk sampler (cross_chunk_shuffle_count at a time), read those chunks, and cut
/// them into batches in the order of the example sampler (shuffled within what was read);
/// the batches wait in a buffer of at most cache_size examples, which get_batch() empties.
/// get_batch() returns nullopt once every chunk is read and the buffer is empty; an
/// exception from read_chunk() is rethrown by the get_batch() call that reaches it.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "ember/arg.h"
#include "ember/check.h"
#include "ember/data/datasets/stateful.h"
#include "ember/data/detail/worker_thread.h"
#include "ember/data/samplers/random.h"
#include "ember/serialize/archive.h"

namespace ember::data::datasets {

/// Reads chunk `index` of the data; chunk_count() chunks in all.
template <class ExampleType_, class ChunkType_ = std::vector<ExampleType_>>
class ChunkDataReader {
 public:
  using ChunkType = ChunkType_;
  using ExampleType = ExampleType_;
  using BatchType = ChunkType;

  virtual ~ChunkDataReader() = default;
  virtual ChunkType read_chunk(size_t chunk_index) = 0;
  virtual size_t chunk_count() = 0;
  /// Called at the start of every epoch.
  virtual void reset() = 0;
};

struct ChunkDatasetOptions {
  ChunkDatasetOptions() = delete;
  ChunkDatasetOptions(size_t preloader_count, size_t batch_size, size_t cache_size = 2048,
                      size_t cross_chunk_shuffle_count = 1)
      : preloader_count_(preloader_count),
        batch_size_(batch_size),
        cache_size_(cache_size),
        cross_chunk_shuffle_count_(cross_chunk_shuffle_count) {
    EMBER_CHECK(preloader_count_ > 0, "Preloader count is 0. At least one preloader needs to be specified.");
    EMBER_CHECK(batch_size_ > 0, "Batch size is 0. A positive batch size needs to be specified.");
    EMBER_CHECK(cache_size_ > 0, "Cache size is 0. A positive cache size needs to be specified.");
    EMBER_CHECK(cache_size_ >= batch_size_,
                "Cache size is less than batch size. Cache needs to be large enough to hold at least one batch.");
    EMBER_CHECK(cross_chunk_shuffle_count_ > 0, "cross_chunk_shuffle_count needs to be greater than 0.");
  }

  EMBER_ARG(size_t, preloader_count);
  EMBER_ARG(size_t, batch_size);
  EMBER_ARG(size_t, cache_size) = 2048;
  EMBER_ARG(size_t, cross_chunk_shuffle_count) = 1;
};

namespace detail {

/// The buffer between preloaders and get_batch(): whole batches (the last one may be
/// filling), or an exception in the place of the chunk that threw.
template <class Batch, class ExampleSampler>
class BatchDataBuffer {
 public:
  BatchDataBuffer(size_t preloaders, size_t batch_size, ExampleSampler& example_sampler, size_t cache_size)
      : running_preloaders_(preloaders),
        batch_size_(batch_size),
        example_sampler_(example_sampler),
        cache_size_(cache_size) {}

  /// The next batch; nullopt once every preloader has finished and every batch is taken.
  std::optional<Batch> get_batch() {
    std::unique_lock<std::mutex> lock(mutex_);
    // As libtorch's: a batch is taken once there are batch_size examples (so batches span
    // chunks), an error is taken at once, and the rest once the preloaders are done.
    readable_.wait(lock, [this] {
      const bool ready = !queue_.empty() && (queue_.front().exception || buffered_examples_ >= batch_size_);
      return ready || running_preloaders_ == 0 || stopped_;
    });
    if (queue_.empty()) return std::nullopt;
    Entry entry = std::move(queue_.front());
    queue_.pop_front();
    buffered_examples_ -= entry.batch.size();
    lock.unlock();
    writable_.notify_all();
    if (entry.exception) std::rethrow_exception(entry.exception);
    return std::move(entry.batch);
  }

  /// Cuts chunk data into batches in the example sampler's order; waits while the buffer
  /// is full.
  void add_chunk_data(Batch data) {
    std::unique_lock<std::mutex> lock(mutex_);
    writable_.wait(lock, [this] { return buffered_examples_ < cache_size_ || stopped_; });
    if (stopped_) return;
    example_sampler_.reset(data.size());
    while (auto indices = example_sampler_.next(data.size())) {
      for (const size_t index : *indices) {
        if (queue_.empty() || queue_.back().exception || queue_.back().batch.size() >= batch_size_) {
          queue_.emplace_back();
          queue_.back().batch.reserve(batch_size_);
        }
        queue_.back().batch.push_back(std::move(data[index]));
        ++buffered_examples_;
      }
    }
    lock.unlock();
    readable_.notify_all();
  }

  /// A chunk's read error, in the place of its batches.
  void add_chunk_error(std::exception_ptr exception) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.emplace_back();
      queue_.back().exception = exception;
    }
    readable_.notify_all();
  }

  /// A preloader found no more chunks in this epoch.
  void preloader_finished() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --running_preloaders_;
    }
    readable_.notify_all();
  }

  /// Releases every waiting thread; later adds are dropped.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    readable_.notify_all();
    writable_.notify_all();
  }

 private:
  struct Entry {
    Batch batch;
    std::exception_ptr exception;
  };

  std::mutex mutex_;
  std::condition_variable readable_, writable_;
  std::deque<Entry> queue_;
  size_t buffered_examples_ = 0;
  size_t running_preloaders_;
  size_t batch_size_;
  ExampleSampler& example_sampler_;
  size_t cache_size_;
  bool stopped_ = false;
};

}  // namespace detail

template <class ChunkReader, class ChunkSampler = samplers::RandomSampler,
          class ExampleSampler = samplers::RandomSampler>
class ChunkDataset final
    : public StatefulDataset<ChunkDataset<ChunkReader, ChunkSampler, ExampleSampler>,
                             typename ChunkReader::BatchType, size_t> {
 public:
  using BatchType = std::optional<typename ChunkReader::BatchType>;
  using UnwrappedBatchType = typename ChunkReader::BatchType;
  using BatchRequestType = size_t;
  using ChunkSamplerType = ChunkSampler;
  using ExampleSamplerType = ExampleSampler;

  ChunkDataset(ChunkReader chunk_reader, ChunkSampler chunk_sampler, ExampleSampler example_sampler,
               ChunkDatasetOptions options,
               std::function<void(UnwrappedBatchType&)> preprocessing_policy = std::function<void(UnwrappedBatchType&)>())
      : chunk_reader_(std::move(chunk_reader)),
        chunk_sampler_(std::move(chunk_sampler)),
        example_sampler_(std::move(example_sampler)),
        options_(std::move(options)),
        preprocessing_policy_(std::move(preprocessing_policy)) {}

  ~ChunkDataset() override { stop_preloaders(); }

  /// The next batch of options().batch_size() examples (the last may be smaller).
  BatchType get_batch(size_t batch_size) override {
    EMBER_CHECK(buffer_ != nullptr, "Dataset needs to call reset() before calling get_batch().");
    EMBER_CHECK(batch_size == options_.batch_size(),
                "The requested batch size does not match with the initialized batch size.\n The requested batch size "
                "is ",
                batch_size, ", while the dataset is created with batch size equal to ", options_.batch_size());
    return buffer_->get_batch();
  }
  BatchType get_batch() { return get_batch(options_.batch_size()); }

  /// Starts an epoch: stops the previous one's preloaders and starts new ones.
  void reset() override {
    stop_preloaders();
    const size_t chunks = chunk_reader_.chunk_count();
    {
      std::lock_guard<std::mutex> lock(chunk_index_mutex_);
      if (load_checkpoint_) {
        load_checkpoint_ = false;  // this epoch continues from the loaded position
      } else {
        chunk_sampler_.reset(chunks);
      }
    }
    chunk_reader_.reset();
    buffer_ = std::make_unique<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSampler>>(
        options_.preloader_count(), options_.batch_size(), example_sampler_, options_.cache_size());
    quit_ = false;
    for (size_t i = 0; i < options_.preloader_count(); ++i) preloaders_.emplace_back([this] { preload(); });
  }

  std::optional<size_t> size() const override { return std::nullopt; }

  ChunkSampler& chunk_sampler() { return chunk_sampler_; }

  /// The chunk sampler's position (as libtorch's); load before reset() to resume.
  void save(serialize::OutputArchive& archive) const override {
    std::lock_guard<std::mutex> lock(chunk_index_mutex_);
    chunk_sampler_.save(archive);
  }
  void load(serialize::InputArchive& archive) override {
    std::lock_guard<std::mutex> lock(chunk_index_mutex_);
    // Sized for this reader first, so the sampler can check the loaded position against it.
    chunk_sampler_.reset(chunk_reader_.chunk_count());
    chunk_sampler_.load(archive);
    // The loaded position holds until the next reset(), which would start over.
    load_checkpoint_ = true;
  }

 private:
  void preload() {
    ::ember::data::detail::enter_worker_thread();
    while (!quit_) {
      std::vector<size_t> chunk_indices;
      {
        std::lock_guard<std::mutex> lock(chunk_index_mutex_);
        auto next = chunk_sampler_.next(options_.cross_chunk_shuffle_count());
        if (!next) break;
        chunk_indices = std::move(*next);
      }
      const size_t chunks = chunk_indices.size();
      try {
        UnwrappedBatchType data = chunk_reader_.read_chunk(chunk_indices[0]);
        for (size_t i = 1; i < chunks; ++i) {
          UnwrappedBatchType more = chunk_reader_.read_chunk(chunk_indices[i]);
          data.insert(data.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        }
        if (preprocessing_policy_) preprocessing_policy_(data);
        if (!data.empty()) buffer_->add_chunk_data(std::move(data));
      } catch (...) {
        buffer_->add_chunk_error(std::current_exception());
      }
    }
    buffer_->preloader_finished();
  }

  void stop_preloaders() {
    quit_ = true;
    if (buffer_) buffer_->stop();
    for (auto& preloader : preloaders_) preloader.join();
    preloaders_.clear();
  }

  ChunkReader chunk_reader_;
  ChunkSampler chunk_sampler_;
  ExampleSampler example_sampler_;
  ChunkDatasetOptions options_;
  std::function<void(UnwrappedBatchType&)> preprocessing_policy_;
  std::unique_ptr<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSampler>> buffer_;
  std::vector<std::thread> preloaders_;
  std::atomic<bool> quit_{false};
  mutable std::mutex chunk_index_mutex_;
  bool load_checkpoint_ = false;
};

}  // namespace ember::data::datasets
