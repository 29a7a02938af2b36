// ember::data against libtorch's torch::data: the random epochs of RandomSampler and the
// distributed samplers for the same seed and epoch, and Normalize's values.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <catch2/catch.hpp>

#include <vector>

#include "torch_crosscheck_util.h"

namespace {

template <class Sampler>
std::vector<size_t> epoch(Sampler& sampler, size_t batch_size) {
  std::vector<size_t> order;
  while (auto batch = sampler.next(batch_size)) order.insert(order.end(), batch->begin(), batch->end());
  return order;
}

}  // namespace

TEST_CASE("data crosscheck: RandomSampler epochs equal libtorch's for a seed", "[data]") {
  for (const int64_t size : {1, 7, 64, 1000}) {
    for (const uint64_t seed : {0ull, 42ull}) {
      INFO("size " << size << ", seed " << seed);
      ember::manual_seed(seed);
      torch::manual_seed(seed);
      ember::data::samplers::RandomSampler ours(size);
      torch::data::samplers::RandomSampler theirs(size);
      for (int e = 0; e < 3; ++e) {
        CHECK(epoch(ours, 5) == epoch(theirs, 5));
        ours.reset();
        theirs.reset();
      }
    }
  }
  ember::manual_seed(1);
  torch::manual_seed(1);
  ember::data::samplers::RandomSampler ours32(50, ember::kInt32);
  torch::data::samplers::RandomSampler theirs32(50, torch::kInt32);
  CHECK(epoch(ours32, 8) == epoch(theirs32, 8));
}

TEST_CASE("data crosscheck: distributed samplers equal libtorch's", "[data]") {
  for (const size_t size : {10, 17, 64}) {
    for (const size_t replicas : {1, 3, 4}) {
      for (size_t rank = 0; rank < replicas; ++rank) {
        for (const bool dup : {true, false}) {
          INFO("size " << size << ", " << replicas << " replicas, rank " << rank << ", duplicates " << dup);
          ember::data::samplers::DistributedRandomSampler ours(size, replicas, rank, dup);
          torch::data::samplers::DistributedRandomSampler theirs(size, replicas, rank, dup);
          CHECK(epoch(ours, 3) == epoch(theirs, 3));
          ours.set_epoch(5);
          theirs.set_epoch(5);
          ours.reset();
          theirs.reset();
          CHECK(epoch(ours, 3) == epoch(theirs, 3));
          ember::data::samplers::DistributedSequentialSampler ours_seq(size, replicas, rank, dup);
          torch::data::samplers::DistributedSequentialSampler theirs_seq(size, replicas, rank, dup);
          CHECK(epoch(ours_seq, 4) == epoch(theirs_seq, 4));
        }
      }
    }
  }
}

TEST_CASE("data crosscheck: Normalize and Stack values equal libtorch's", "[data]") {
  const torch::Tensor images = torch::rand({6, 3, 4, 5});
  const ember::Tensor ours_images = ember::from_blob(images.data_ptr<float>(), {6, 3, 4, 5}, ember::kFloat32).clone();
  torch::data::transforms::Normalize<> theirs({0.1, 0.2, 0.3}, {0.5, 0.25, 2.0});
  ember::data::transforms::Normalize<> ours({0.1, 0.2, 0.3}, {0.5, 0.25, 2.0});
  for (int64_t i = 0; i < 6; ++i) {
    const torch::Tensor want = theirs(images[i]);
    const ember::Tensor got = ours(ours_images[i]);
    REQUIRE(got.sizes().vec() == want.sizes().vec());
    CHECK(torch::equal(crosscheck::as_torch(got), want));
  }
}
