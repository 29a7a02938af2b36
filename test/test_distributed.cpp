// ember::distributed in one process without a launcher: the default group's state before
// init_process_group, and (in a build without MPI) the error naming the missing backend.
// The collectives and DDP run on 2 ranks in mpi_distributed.cpp and mpi_ddp.cpp.
#include <catch2/catch.hpp>
#include <ember/distributed.h>

#include "test_util.h"

using namespace ember;
namespace dist = ember::distributed;

TEST_CASE("distributed: no default group before init_process_group") {
  CHECK_FALSE(dist::is_initialized());
  ember_test::expect_throw<InvalidArgument>([&] { (void)dist::default_group(); }, "default_group: Default process group has not been initialized");
  dist::destroy_process_group();  // nothing to destroy: a no-op
  CHECK_FALSE(dist::is_initialized());
  ember_test::expect_throw<InvalidArgument>([&] { (void)dist::DistributedDataParallel(std::vector<Tensor>{}); }, "Default process group has not been initialized");
}

TEST_CASE("distributed: backend and op names") {
  CHECK(std::string(dist::name(dist::Backend::MPI)) == "MPI");
  CHECK(std::string(dist::name(dist::Backend::NCCL)) == "NCCL");
  CHECK(std::string(dist::name(dist::ReduceOp::AVG)) == "AVG");
  CHECK(std::string(dist::name(dist::ReduceOp::PRODUCT)) == "PRODUCT");
}

#if !EMBER_TEST_WITH_MPI
TEST_CASE("distributed: without MPI init_process_group names the missing backend") {
  ember_test::expect_throw<NotImplemented>([] { dist::init_process_group(dist::Backend::MPI); },
                                          "init_process_group: ember was built without MPI");
  ember_test::expect_throw<NotImplemented>([] { dist::init_process_group(dist::Backend::NCCL); },
                                          "apt-get install openmpi-bin libopenmpi-dev");
  CHECK_FALSE(dist::is_initialized());
}
#endif
