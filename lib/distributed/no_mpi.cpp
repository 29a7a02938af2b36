// Stands in for the MPI backend when ember is built without MPI: the library builds, and
// init_process_group says what is missing and how to get it.
#include "core/check.h"
#include "distributed/group_impl.h"

namespace ember::distributed::detail {

std::unique_ptr<GroupImpl> make_mpi_group(const LaunchEnv&) {
  EMBER_THROW(NotImplemented,
              "init_process_group: ember was built without MPI, which every backend needs (MPI moves the data, "
              "NCCL's rendezvous runs over it); install Open MPI (Debian: apt-get install openmpi-bin "
              "libopenmpi-dev) and configure ember again with EMBER_DISTRIBUTED=AUTO or ON");
}

void finalize_mpi() {}

}  // namespace ember::distributed::detail
