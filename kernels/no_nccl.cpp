// Stands in for the NCCL backend when ember is built without CUDA or without NCCL.
#include "core/check.h"
#include "distributed/group_impl.h"

namespace ember::distributed::detail {

std::unique_ptr<GroupImpl> make_nccl_group(std::unique_ptr<GroupImpl>, const LaunchEnv&) {
  EMBER_THROW(NotImplemented,
              "init_process_group: ember was built without the NCCL backend (it needs the CUDA backend and NCCL's "
              "nccl.h and libnccl, which the CUDA toolkit ships); configure ember with EMBER_CUDA=ON and NCCL_ROOT "
              "set where NCCL is installed, or use Backend::MPI");
}

}  // namespace ember::distributed::detail
