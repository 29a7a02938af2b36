// ember::data: datasets, transforms, samplers and the loader, with real values: batches
// compared element by element, orders, seeds, worker faults and every error path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;
namespace ds = ember::data::datasets;
namespace tf = ember::data::transforms;
namespace sp = ember::data::samplers;

namespace {

// A temporary directory removed with its files at scope exit.
struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/ember_data_XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string file(const std::string& name) const { return path + "/" + name; }
  std::string path;
};

void put_u32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(char((v >> shift) & 0xff));
}

std::string idx_images(uint32_t count, uint32_t rows, uint32_t cols, uint32_t magic = 2051) {
  std::string out;
  put_u32(out, magic);
  put_u32(out, count);
  put_u32(out, rows);
  put_u32(out, cols);
  for (uint32_t i = 0; i < count * rows * cols; ++i) out.push_back(char((i * 7 + 3) % 256));
  return out;
}

std::string idx_labels(uint32_t count, uint32_t magic = 2049) {
  std::string out;
  put_u32(out, magic);
  put_u32(out, count);
  for (uint32_t i = 0; i < count; ++i) out.push_back(char(i % 10));
  return out;
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Writes an MNIST-format training set of `count` images of rows x cols.
void write_mnist(const TempDir& dir, uint32_t count, uint32_t rows = 4, uint32_t cols = 3) {
  write(dir.file("train-images-idx3-ubyte"), idx_images(count, rows, cols));
  write(dir.file("train-labels-idx1-ubyte"), idx_labels(count));
}

std::vector<int64_t> ints(const Tensor& t) {
  Tensor c = t.to(kInt64).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Example i is {i, 10 i}; throws on `bad_index`, sleeps `delay` per example.
struct Numbers : ds::Dataset<Numbers> {
  Numbers(size_t n, std::optional<size_t> bad_index = std::nullopt,
          std::chrono::milliseconds delay = std::chrono::milliseconds(0))
      : n(n), bad_index(bad_index), delay(delay) {}
  data::Example<> get(size_t i) override {
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    if (bad_index && i == *bad_index) throw std::out_of_range("example " + std::to_string(i) + " is broken");
    return {tensor(int64_t(i)), tensor(int64_t(10 * i))};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
  std::optional<size_t> bad_index;
  std::chrono::milliseconds delay;
};

template <class Loader>
std::vector<std::vector<int64_t>> collect(Loader& loader) {
  std::vector<std::vector<int64_t>> batches;
  for (auto& batch : loader) batches.push_back(ints(batch.data));
  return batches;
}

}  // namespace

TEST_CASE("data: TensorDataset and Stack give the rows in sampler order", "[data]") {
  auto dataset = ds::TensorDataset(arange(12).reshape({6, 2})).map(tf::Stack<data::TensorExample>());
  auto loader = data::make_data_loader<sp::SequentialSampler>(std::move(dataset), 4);
  std::vector<std::vector<int64_t>> seen;
  std::vector<std::vector<int64_t>> shapes;
  for (auto& batch : *loader) {
    seen.push_back(ints(batch.data));
    shapes.push_back(batch.data.sizes().vec());
  }
  CHECK(seen == std::vector<std::vector<int64_t>>{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11}});
  CHECK(shapes == std::vector<std::vector<int64_t>>{{4, 2}, {2, 2}});

  auto dropped = data::make_data_loader<sp::SequentialSampler>(
      ds::TensorDataset(arange(12).reshape({6, 2})).map(tf::Stack<data::TensorExample>()),
      data::DataLoaderOptions(4).drop_last(true));
  size_t batches = 0;
  for (auto& batch : *dropped) {
    CHECK(batch.data.size(0) == 4);
    ++batches;
  }
  CHECK(batches == 1);
  CHECK_THROWS_AS(ds::TensorDataset(tensor(3)), InvalidArgument);
}

TEST_CASE("data: a dataset's examples batched with Stack<Example<>>", "[data]") {
  auto loader = data::make_data_loader<sp::SequentialSampler>(Numbers(5).map(tf::Stack<>()), 2);
  std::vector<std::vector<int64_t>> data, targets;
  for (auto& batch : *loader) {
    data.push_back(ints(batch.data));
    targets.push_back(ints(batch.target));
  }
  CHECK(data == std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}, {4}});
  CHECK(targets == std::vector<std::vector<int64_t>>{{0, 10}, {20, 30}, {40}});
  // Without a collation the batch is the vector of examples.
  auto raw = data::make_data_loader<sp::SequentialSampler>(Numbers(3), 2);
  std::vector<size_t> sizes;
  for (auto& batch : *raw) sizes.push_back(batch.size());
  CHECK(sizes == std::vector<size_t>{2, 1});
}

TEST_CASE("data: iterating again starts a new epoch", "[data]") {
  for (size_t workers : {0, 2}) {
    auto loader = data::make_data_loader<sp::SequentialSampler>(
        Numbers(7).map(tf::Stack<>()), data::DataLoaderOptions(3).workers(workers));
    const auto first = collect(*loader);
    const auto second = collect(*loader);
    CHECK(first == std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}});
    CHECK(second == first);
  }
}

TEST_CASE("data: workers keep the sampler's order with enforce_ordering", "[data]") {
  // Later examples are faster, so workers finish out of order.
  struct Uneven : ds::Dataset<Uneven> {
    data::Example<> get(size_t i) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(i < 4 ? 20 : 1));
      return {tensor(int64_t(i)), tensor(int64_t(i))};
    }
    std::optional<size_t> size() const override { return 12; }
  };
  auto ordered = data::make_data_loader<sp::SequentialSampler>(
      Uneven().map(tf::Stack<>()), data::DataLoaderOptions(2).workers(2).max_jobs(6));
  CHECK(collect(*ordered) ==
        std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}});

  auto unordered = data::make_data_loader<sp::SequentialSampler>(
      Uneven().map(tf::Stack<>()), data::DataLoaderOptions(2).workers(2).max_jobs(6).enforce_ordering(false));
  auto batches = collect(*unordered);
  std::set<std::vector<int64_t>> got(batches.begin(), batches.end());
  CHECK(batches.size() == 6);
  CHECK(got == std::set<std::vector<int64_t>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}});
}

TEST_CASE("data: a worker's exception reaches the loop at its batch, with its type", "[data]") {
  for (size_t workers : {0, 2}) {
    INFO("workers " << workers);
    auto loader = data::make_data_loader<sp::SequentialSampler>(Numbers(8, 5).map(tf::Stack<>()),
                                                                 data::DataLoaderOptions(2).workers(workers));
    auto it = loader->begin();
    CHECK(ints((*it).data) == std::vector<int64_t>{0, 1});
    ++it;
    CHECK(ints((*it).data) == std::vector<int64_t>{2, 3});
    try {
      ++it;
      FAIL("expected the worker's exception");
    } catch (const std::out_of_range& e) {
      CHECK(std::string(e.what()) == "example 5 is broken");
    }
    // The epoch goes on after the failed batch.
    ++it;
    CHECK(ints((*it).data) == std::vector<int64_t>{6, 7});
    ++it;
    CHECK(it == loader->end());
  }
}

TEST_CASE("data: destroying a loader mid-epoch joins its workers", "[data]") {
  const auto start = std::chrono::steady_clock::now();
  {
    auto loader = data::make_data_loader<sp::SequentialSampler>(
        Numbers(1000, std::nullopt, std::chrono::milliseconds(2)).map(tf::Stack<>()),
        data::DataLoaderOptions(4).workers(2).max_jobs(8));
    auto it = loader->begin();
    CHECK(ints((*it).data) == std::vector<int64_t>{0, 1, 2, 3});
    // A second iterator while this epoch is unfinished is refused, as in libtorch.
    CHECK_THROWS_WITH(loader->begin(), Catch::Contains("another iterator is not yet exhausted"));
  }
  // The queued jobs were dropped, not run: far less than the 2 s the epoch would take.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
}

TEST_CASE("data: a timeout names its length", "[data]") {
  auto loader = data::make_data_loader<sp::SequentialSampler>(
      Numbers(4, std::nullopt, std::chrono::milliseconds(300)).map(tf::Stack<>()),
      data::DataLoaderOptions(1).workers(1).timeout(std::chrono::milliseconds(20)));
  CHECK_THROWS_WITH(loader->begin() == loader->end(),
                    "Timeout in DataLoader queue while waiting for next batch (timeout was 20 ms)");
}

TEST_CASE("data: option and sampler errors", "[data]") {
  CHECK_THROWS_WITH(data::make_data_loader(Numbers(4), data::DataLoaderOptions(0)),
                    "DataLoaderOptions: batch_size must be positive, got 0");
  CHECK_THROWS_AS(data::make_data_loader(Numbers(4), data::DataLoaderOptions(2).workers(2).max_jobs(0)),
                  InvalidArgument);
  // A sampler for 6 examples over a dataset of 4.
  auto loader = data::make_data_loader(Numbers(4), sp::SequentialSampler(6), data::DataLoaderOptions(3));
  auto it = loader->begin();
  CHECK((*it).size() == 3);
  CHECK_THROWS_WITH(++it, "Dataset::get_batch: index 4 is out of range for a dataset of size 4 (is the sampler "
                          "larger than the dataset?)");

  struct Unsized : ds::Dataset<Unsized> {
    data::Example<> get(size_t) override { return {}; }
    std::optional<size_t> size() const override { return std::nullopt; }
  };
  CHECK_THROWS_WITH(data::make_data_loader(Unsized()),
                    "Expected the dataset to be sized in order to construct the Sampler");

  // A transform that returns examples of another shape fails in Stack, naming the sizes.
  auto ragged = Numbers(4).map(tf::Lambda<data::Example<>>([](data::Example<> e) {
    if (e.data.item<int64_t>() == 1) e.data = e.data.reshape({1});
    return e;
  }));
  auto ragged_loader = data::make_data_loader<sp::SequentialSampler>(std::move(ragged).map(tf::Stack<>()), 4);
  CHECK_THROWS_AS(ragged_loader->begin() == ragged_loader->end(), InvalidArgument);
}

TEST_CASE("data: Normalize per channel, as libtorch's", "[data]") {
  tf::Normalize<> one(0.5, 0.25);
  const Tensor image = full({2, 2}, 1.0);
  const Tensor out = one(image);
  CHECK(out.sizes().vec() == std::vector<int64_t>{1, 2, 2});  // statistics are [C, 1, 1]
  CHECK(dvalues(out) == std::vector<double>{2, 2, 2, 2});

  tf::Normalize<> per_channel({1.0, 2.0}, {2.0, 4.0});
  const Tensor rgb = stack({full({1, 2}, 3.0), full({1, 2}, 6.0)});  // [2, 1, 2]
  CHECK(dvalues(per_channel(rgb)) == std::vector<double>{1, 1, 1, 1});
  data::Example<> ex{rgb, tensor(7)};
  const data::Example<> normalized = per_channel.apply(ex);
  CHECK(dvalues(normalized.data) == std::vector<double>{1, 1, 1, 1});
  CHECK(normalized.target.item<int64_t>() == 7);

  CHECK_THROWS_AS(tf::Normalize<>({1.0, 2.0}, {1.0, 2.0, 3.0}), InvalidArgument);
  CHECK_THROWS_AS(tf::Normalize<>(std::vector<double>{}, std::vector<double>{1.0}), InvalidArgument);
}

TEST_CASE("data: Lambda, TensorLambda, BatchLambda and Collate", "[data]") {
  auto doubled = Numbers(3)
                     .map(tf::TensorLambda<>([](Tensor t) { return t * 2; }))
                     .map(tf::Lambda<data::Example<>>([](data::Example<> e) {
                       e.target = e.target + 1;
                       return e;
                     }))
                     .map(tf::Stack<>());
  auto batch = doubled.get_batch(std::vector<size_t>{0, 1, 2});
  CHECK(ints(batch.data) == std::vector<int64_t>{0, 2, 4});
  CHECK(ints(batch.target) == std::vector<int64_t>{1, 11, 21});

  auto sums = Numbers(4).map(tf::Collate<data::Example<>>([](std::vector<data::Example<>> examples) {
    Tensor total = zeros({}, kInt64);
    for (auto& e : examples) total = total + e.data;
    return data::Example<>(total, tensor(int64_t(examples.size())));
  }));
  auto loader = data::make_data_loader<sp::SequentialSampler>(std::move(sums), 2);
  std::vector<int64_t> totals;
  for (auto& b : *loader) totals.push_back(b.data.item<int64_t>());
  CHECK(totals == std::vector<int64_t>{1, 5});

  auto counts = Numbers(5).map(tf::BatchLambda<std::vector<data::Example<>>, size_t>(
      [](std::vector<data::Example<>> examples) { return examples.size(); }));
  CHECK(counts.get_batch(std::vector<size_t>{0, 1, 2}) == 3);
}

TEST_CASE("data: samplers' batches, epochs and saved positions", "[data]") {
  sp::SequentialSampler sequential(5);
  CHECK(*sequential.next(3) == std::vector<size_t>{0, 1, 2});
  serialize::OutputArchive out;
  sequential.save(out);
  std::stringstream bytes;
  out.save_to(bytes);
  CHECK(*sequential.next(3) == std::vector<size_t>{3, 4});
  CHECK(!sequential.next(3));
  serialize::InputArchive in;
  in.load_from(bytes);
  sequential.load(in);
  CHECK(sequential.index() == 3);
  CHECK(*sequential.next(3) == std::vector<size_t>{3, 4});
  sequential.reset(2);
  CHECK(*sequential.next(9) == std::vector<size_t>{0, 1});

  // A saved position past the end is refused and changes nothing.
  serialize::OutputArchive bad;
  bad.write("index", tensor(int64_t(9)));
  std::stringstream bad_bytes;
  bad.save_to(bad_bytes);
  serialize::InputArchive bad_in;
  bad_in.load_from(bad_bytes);
  sp::SequentialSampler small(3);
  small.next(1);
  CHECK_THROWS_WITH(small.load(bad_in), "SequentialSampler::load: \"index\" is 9, expected a value in [0, 3]");
  CHECK(small.index() == 1);

  sp::StreamSampler stream(5);
  CHECK(stream.next(2)->size() == 2);
  CHECK(stream.next(2)->size() == 2);
  CHECK(stream.next(2)->size() == 1);
  CHECK(!stream.next(2));
  stream.reset();
  CHECK(stream.next(9)->size() == 5);
}

TEST_CASE("data: RandomSampler draws randperm from the default generator", "[data]") {
  manual_seed(7);
  const Tensor first = randperm(10);
  const Tensor second = randperm(10);
  manual_seed(7);
  sp::RandomSampler sampler(10);
  std::vector<size_t> order;
  while (auto batch = sampler.next(4)) order.insert(order.end(), batch->begin(), batch->end());
  CHECK(std::vector<int64_t>(order.begin(), order.end()) == ints(first));
  sampler.reset();
  order.clear();
  while (auto batch = sampler.next(3)) order.insert(order.end(), batch->begin(), batch->end());
  CHECK(std::vector<int64_t>(order.begin(), order.end()) == ints(second));

  // Save mid-epoch, then a fresh sampler resumes the same epoch.
  sampler.reset();
  const auto head = *sampler.next(4);
  serialize::OutputArchive out;
  sampler.save(out);
  const auto rest = *sampler.next(6);
  std::stringstream bytes;
  out.save_to(bytes);
  serialize::InputArchive in;
  in.load_from(bytes);
  sp::RandomSampler resumed(10);
  resumed.load(in);
  CHECK(resumed.index() == 4);
  CHECK(*resumed.next(6) == rest);
  CHECK(head.size() == 4);

  // The loader's epoch uses the permutation drawn at begin() (after the constructor's).
  manual_seed(3);
  randperm(6);
  const Tensor epoch = randperm(6);
  manual_seed(3);
  auto loader = data::make_data_loader(Numbers(6).map(tf::Stack<>()), 6);
  CHECK(collect(*loader) == std::vector<std::vector<int64_t>>{ints(epoch)});
}

TEST_CASE("data: distributed samplers split an epoch between ranks", "[data]") {
  auto all = [](auto& sampler) {
    std::vector<size_t> out;
    while (auto b = sampler.next(3)) out.insert(out.end(), b->begin(), b->end());
    return out;
  };
  // 10 examples on 3 ranks: 4 each, the last share wrapping to the first examples.
  std::vector<std::vector<size_t>> shares;
  for (size_t rank = 0; rank < 3; ++rank) {
    sp::DistributedSequentialSampler s(10, 3, rank);
    shares.push_back(all(s));
  }
  CHECK(shares == std::vector<std::vector<size_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 0, 1}});
  sp::DistributedSequentialSampler no_dup(10, 3, 2, /*allow_duplicates=*/false);
  CHECK(all(no_dup) == std::vector<size_t>{6, 7, 8});

  std::multiset<size_t> covered;
  for (size_t rank = 0; rank < 3; ++rank) {
    sp::DistributedRandomSampler s(10, 3, rank);
    const auto share = all(s);
    CHECK(share.size() == 4);
    covered.insert(share.begin(), share.end());
    s.reset();
    CHECK(all(s) == share);  // the same epoch, the same permutation
  }
  for (size_t i = 0; i < 10; ++i) CHECK(covered.count(i) >= 1);
  CHECK(covered.size() == 12);

  sp::DistributedRandomSampler a(10, 2, 0), b(10, 2, 0);
  b.set_epoch(1);
  b.reset();
  CHECK(all(a) != all(b));
  CHECK(b.epoch() == 1);

  CHECK_THROWS_WITH(sp::DistributedRandomSampler(10, 2, 2),
                    "DistributedSampler: rank 2 is not valid for 2 replicas (expected 0 <= rank < num_replicas)");
}

TEST_CASE("data: MNIST reads IDX files and checks them", "[data]") {
  TempDir dir;
  write_mnist(dir, 5);
  ds::MNIST mnist(dir.path);
  CHECK(mnist.is_train());
  CHECK(*mnist.size() == 5);
  CHECK(mnist.images().sizes().vec() == std::vector<int64_t>{5, 1, 4, 3});
  CHECK(mnist.images().scalar_type() == kFloat32);
  CHECK(mnist.targets().scalar_type() == kInt64);
  const auto pixels = dvalues(mnist.images());
  for (size_t i = 0; i < pixels.size(); ++i) REQUIRE(pixels[i] == double(float((i * 7 + 3) % 256) / 255.0f));
  CHECK(ints(mnist.targets()) == std::vector<int64_t>{0, 1, 2, 3, 4});
  const data::Example<> third = mnist.get(2);
  CHECK(third.target.item<int64_t>() == 2);
  CHECK(third.data.sizes().vec() == std::vector<int64_t>{1, 4, 3});

  // Through the loader, as libtorch's MNIST example reads it.
  auto loader = data::make_data_loader<sp::SequentialSampler>(
      ds::MNIST(dir.path).map(tf::Normalize<>(0.1307, 0.3081)).map(tf::Stack<>()), 2);
  size_t examples = 0;
  for (auto& batch : *loader) {
    const Tensor expect = (mnist.images().slice(0, int64_t(examples), int64_t(examples) + batch.data.size(0)) - 0.1307) / 0.3081;
    CHECK(dvalues(batch.data) == dvalues(expect));
    examples += size_t(batch.data.size(0));
  }
  CHECK(examples == 5);

  CHECK_THROWS_AS(ds::MNIST(dir.path, ds::MNIST::Mode::kTest), IOError);
  CHECK_THROWS_WITH(ds::MNIST(dir.path, ds::MNIST::Mode::kTest), Catch::Contains("t10k-images-idx3-ubyte"));

  write(dir.file("train-labels-idx1-ubyte"), idx_labels(4));
  CHECK_THROWS_WITH(ds::MNIST(dir.path), Catch::Contains("holds 5 images but") && Catch::Contains("holds 4 labels"));
  write(dir.file("train-labels-idx1-ubyte"), idx_labels(5, 2051));
  CHECK_THROWS_WITH(ds::MNIST(dir.path),
                    Catch::Contains("magic number is 0x00000803, expected 0x00000801 (2049, an IDX label file"));
  write(dir.file("train-labels-idx1-ubyte"), idx_labels(5));
  std::string truncated = idx_images(5, 4, 3);
  truncated.pop_back();
  write(dir.file("train-images-idx3-ubyte"), truncated);
  CHECK_THROWS_WITH(ds::MNIST(dir.path), Catch::Contains("the header says 5 images of 4x3 pixels (60 bytes), but the "
                                                         "file holds 59 bytes after its 16-byte header"));
  write(dir.file("train-images-idx3-ubyte"), truncated.substr(0, 10));
  CHECK_THROWS_WITH(ds::MNIST(dir.path), Catch::Contains("the file is 10 bytes, shorter than the 16-byte header"));
  // Counts whose product overflows are refused before anything is allocated.
  std::string huge;
  put_u32(huge, 2051);
  put_u32(huge, 0xffffffffu);
  put_u32(huge, 0xffffffffu);
  put_u32(huge, 0xffffffffu);
  write(dir.file("train-images-idx3-ubyte"), huge);
  CHECK_THROWS_WITH(ds::MNIST(dir.path), Catch::Contains("more than 2^63"));
  // No images, but an image size whose pixel count is no int64 (found by fuzz_idx).
  std::string empty_huge;
  put_u32(empty_huge, 2051);
  put_u32(empty_huge, 0);
  put_u32(empty_huge, 0xffffffffu);
  put_u32(empty_huge, 0xffffffffu);
  write(dir.file("train-images-idx3-ubyte"), empty_huge);
  CHECK_THROWS_WITH(ds::MNIST(dir.path), Catch::Contains("more than 2^63"));
}

namespace {

// Chunk c holds the examples 100 c, 100 c + 1, ... (sizes 5, 3, 4); chunk `bad` throws.
struct NumberChunks : ds::ChunkDataReader<int64_t> {
  explicit NumberChunks(std::optional<size_t> bad = std::nullopt) : bad(bad) {}
  ChunkType read_chunk(size_t chunk) override {
    if (bad && chunk == *bad) throw std::runtime_error("chunk " + std::to_string(chunk) + " is unreadable");
    const size_t sizes[] = {5, 3, 4};
    ChunkType out;
    for (size_t i = 0; i < sizes[chunk]; ++i) out.push_back(int64_t(100 * chunk + i));
    return out;
  }
  size_t chunk_count() override { return 3; }
  void reset() override { ++resets; }
  std::optional<size_t> bad;
  int resets = 0;
};

using SequentialChunks = ds::ChunkDataset<NumberChunks, sp::SequentialSampler, sp::SequentialSampler>;

}  // namespace

TEST_CASE("data: ChunkDataset reads chunks into batches, epoch after epoch", "[data]") {
  for (size_t workers : {0, 2}) {
    INFO("workers " << workers);
    auto dataset = ds::make_shared_dataset<SequentialChunks>(NumberChunks(), sp::SequentialSampler(0),
                                                             sp::SequentialSampler(0), ds::ChunkDatasetOptions(1, 4));
    auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(4).workers(workers));
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::vector<std::vector<int64_t>> batches;
      for (auto& batch : *loader) batches.push_back(batch);
      // One preloader with sequential samplers: the chunks in order, batches across chunks.
      // Workers share a stateful dataset, so which of two concurrent get_batch() calls
      // gets the earlier batch is up to the threads (as in libtorch): compare sorted then.
      if (workers > 0) std::sort(batches.begin(), batches.end());
      CHECK(batches == std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 100, 101, 102}, {200, 201, 202, 203}});
    }
  }

  // Random samplers and two preloaders: every example once per epoch.
  using RandomChunks = ds::ChunkDataset<NumberChunks>;
  auto shuffled = ds::make_shared_dataset<RandomChunks>(NumberChunks(), sp::RandomSampler(0), sp::RandomSampler(0),
                                                        ds::ChunkDatasetOptions(2, 5, /*cache_size=*/10));
  auto loader = data::make_data_loader(shuffled, data::DataLoaderOptions(5).workers(2));
  std::multiset<int64_t> seen;
  for (auto& batch : *loader) seen.insert(batch.begin(), batch.end());
  CHECK(seen == std::multiset<int64_t>{0, 1, 2, 3, 4, 100, 101, 102, 200, 201, 202, 203});
}

TEST_CASE("data: ChunkDataset errors", "[data]") {
  auto dataset = ds::make_shared_dataset<SequentialChunks>(NumberChunks(1), sp::SequentialSampler(0),
                                                           sp::SequentialSampler(0), ds::ChunkDatasetOptions(1, 4));
  CHECK_THROWS_WITH(dataset->get_batch(4), "Dataset needs to call reset() before calling get_batch().");
  auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(4));
  auto it = loader->begin();
  CHECK(*it == std::vector<int64_t>{0, 1, 2, 3});
  ++it;
  CHECK(*it == std::vector<int64_t>{4});  // chunk 1 failed, so chunk 0's tail is a batch alone
  CHECK_THROWS_WITH(++it, "chunk 1 is unreadable");
  ++it;
  CHECK(*it == std::vector<int64_t>{200, 201, 202, 203});
  ++it;
  CHECK(it == loader->end());

  CHECK_THROWS_WITH(dataset->get_batch(3), Catch::Contains("The requested batch size does not match"));
  CHECK_THROWS_WITH(ds::ChunkDatasetOptions(0, 4), "Preloader count is 0. At least one preloader needs to be specified.");
  CHECK_THROWS_WITH(ds::ChunkDatasetOptions(1, 8, 4), Catch::Contains("Cache size is less than batch size"));
}

TEST_CASE("data: ChunkDataset resumes from a saved chunk position", "[data]") {
  // A run that had handed out chunks 0 and 1 saved its chunk sampler there.
  sp::SequentialSampler chunk_sampler(3);
  chunk_sampler.next(2);
  serialize::OutputArchive out;
  chunk_sampler.save(out);
  std::stringstream bytes;
  out.save_to(bytes);
  serialize::InputArchive in;
  in.load_from(bytes);

  auto dataset = ds::make_shared_dataset<SequentialChunks>(NumberChunks(), sp::SequentialSampler(0),
                                                           sp::SequentialSampler(0), ds::ChunkDatasetOptions(1, 4));
  dataset->load(in);
  auto loader = data::make_data_loader(dataset, data::DataLoaderOptions(4));
  std::vector<int64_t> resumed;
  for (auto& batch : *loader) resumed.insert(resumed.end(), batch.begin(), batch.end());
  CHECK(resumed == std::vector<int64_t>{200, 201, 202, 203});
  // The next epoch starts over.
  std::vector<int64_t> next;
  for (auto& batch : *loader) next.insert(next.end(), batch.begin(), batch.end());
  CHECK(next.size() == 12);

  serialize::OutputArchive saved;
  dataset->save(saved);
  std::stringstream saved_bytes;
  saved.save_to(saved_bytes);
  serialize::InputArchive saved_in;
  saved_in.load_from(saved_bytes);
  sp::SequentialSampler reread(3);
  reread.load(saved_in);
  CHECK(reread.index() == 3);  // the finished epoch handed out every chunk
}

TEST_CASE("data: device and prefetch options give the same batches", "[data]") {
  for (size_t workers : {0, 1}) {
    auto plain = data::make_data_loader<sp::SequentialSampler>(Numbers(9).map(tf::Stack<>()), 2);
    auto moved = data::make_data_loader<sp::SequentialSampler>(
        Numbers(9).map(tf::Stack<>()),
        data::DataLoaderOptions(2).workers(workers).device(Device("/cpu:0")).pin_memory(true).prefetch(2));
    CHECK(collect(*moved) == collect(*plain));
    for (auto& batch : *moved) CHECK(batch.data.device().is_cpu());
  }
}

TEST_CASE("data: progress lines", "[data]") {
  std::ostringstream log;
  std::vector<int> items{1, 2, 3};
  {
    auto bar = progress(items, "train",
                        ProgressOptions().stream(&log).interactive(false).log_interval(std::chrono::milliseconds(0)));
    int sum = 0;
    for (int v : bar) {
      sum += v;
      bar.set("loss", 0.5 * v);
    }
    CHECK(sum == 6);
  }
  std::vector<std::string> lines;
  std::istringstream in(log.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3);  // one per tick, the last one when the total is reached
  CHECK(lines.front().rfind("train 1/3  33.3% ", 0) == 0);
  CHECK(lines.back().rfind("train 3/3 100.0% ", 0) == 0);
  CHECK(lines.back().find(" eta 00:00 loss=1.5") != std::string::npos);

  std::ostringstream term;
  {
    auto bar = progress(std::vector<int>{1, 2}, "eval", ProgressOptions().stream(&term).interactive(true));
    for (int v : bar) (void)v;
  }
  CHECK(term.str().front() == '\r');
  CHECK(term.str().find("eval 2/2 100.0%") != std::string::npos);
  CHECK(term.str().back() == '\n');

  // A loader with a given total.
  std::ostringstream loader_log;
  auto loader = data::make_data_loader<sp::SequentialSampler>(Numbers(5).map(tf::Stack<>()), 2);
  size_t n = 0;
  {
    auto bar = progress(*loader, "epoch", ProgressOptions().stream(&loader_log).interactive(false).total(3));
    for (auto& batch : bar) n += size_t(batch.data.size(0));
  }
  CHECK(n == 5);
  CHECK(loader_log.str().find("epoch 3/3 100.0%") != std::string::npos);
}

TEST_CASE("data: a sampler through save / load keeps its place; Queue::pop times out as libtorch's",
          "[data]") {
  ember_test::TempDir dir;
  const std::string path = dir.path + "/sampler.safetensors";
  sp::SequentialSampler sampler(10);
  sampler.next(3);
  save(sampler, path);  // torch::save(sampler, path): through the sampler's archive operators
  sp::SequentialSampler resumed(10);
  load(resumed, path);
  CHECK(resumed.index() == 3);
  CHECK(*resumed.next(2) == std::vector<size_t>{3, 4});
  std::stringstream bytes;
  manual_seed(5);
  sp::RandomSampler random(6);
  random.next(2);
  save(random, bytes);
  const auto rest = *random.next(4);
  sp::RandomSampler restored(6);
  load(restored, bytes);
  CHECK(*restored.next(4) == rest);

  data::detail::Queue<int> queue;
  queue.push(7);
  CHECK(queue.pop(std::chrono::milliseconds(10)) == 7);
  CHECK_THROWS_WITH(queue.pop(std::chrono::milliseconds(10)),
                    "Timeout in DataLoader queue while waiting for next batch (timeout was 10 ms)");
}

TEST_CASE("data: sequencers hand out results as libtorch's") {
  namespace seq = ember::data::detail::sequencers;
  seq::NoSequencer<int> none;
  CHECK(none.next([] { return 5; }).value() == 5);
  CHECK_FALSE(none.next([] { return std::optional<int>(); }).has_value());

  struct Job {
    size_t sequence_number;
  };
  seq::OrderedSequencer<Job> ordered(5);
  CHECK(ordered.next_sequence_number_ == 0);
  CHECK(ordered.buffer_.size() == 5);
  const std::vector<size_t> arrival{0, 2, 4, 3, 1};
  size_t produced = 0;
  auto producer = [&]() -> std::optional<Job> {
    if (produced == arrival.size()) return std::nullopt;
    return Job{arrival.at(produced++)};
  };
  CHECK(ordered.next(producer).value().sequence_number == 0);
  CHECK(produced == 1);
  // 1 comes last: 2, 4 and 3 wait in the buffer meanwhile.
  CHECK(ordered.next(producer).value().sequence_number == 1);
  CHECK(produced == 5);
  for (size_t i = 2; i <= 4; ++i) {
    CHECK(ordered.next(producer).value().sequence_number == i);
    CHECK(produced == 5);
  }
  CHECK_FALSE(ordered.next(producer).has_value());

  // A gap that never fills, and two results for one slot, are errors.
  seq::OrderedSequencer<Job> gap(3);
  std::vector<size_t> with_gap{1, 2};
  size_t k = 0;
  auto gappy = [&]() -> std::optional<Job> {
    if (k == with_gap.size()) return std::nullopt;
    return Job{with_gap[k++]};
  };
  CHECK_THROWS_WITH(gap.next(gappy), "OrderedSequencer: the results ended while result 1 waits for sequence number 0");
  seq::OrderedSequencer<Job> small(2);
  std::vector<size_t> crowded{1, 3};
  k = 0;
  auto crowd = [&]() -> std::optional<Job> { return k < crowded.size() ? std::optional<Job>(Job{crowded[k++]}) : std::nullopt; };
  CHECK_THROWS_WITH(small.next(crowd), "OrderedSequencer: result 3 arrived while waiting for 0: more than max_jobs "
                                       "= 2 jobs in flight, or a number repeated");
  seq::OrderedSequencer<Job> repeated(4);
  std::vector<size_t> twice{0, 0};
  k = 0;
  auto again = [&]() -> std::optional<Job> { return k < twice.size() ? std::optional<Job>(Job{twice[k++]}) : std::nullopt; };
  CHECK(repeated.next(again).value().sequence_number == 0);
  CHECK_THROWS_WITH(repeated.next(again), "OrderedSequencer: result 0 arrived while waiting for 1: more than "
                                          "max_jobs = 4 jobs in flight, or a number repeated");
  seq::OrderedSequencer<Job> empty(0);
  CHECK_THROWS_WITH(empty.next(producer), "OrderedSequencer: max_jobs must be positive");
}

