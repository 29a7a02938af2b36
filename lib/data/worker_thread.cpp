// Loader and preloader threads run their ops on one thread each: PyTorch's DataLoader
// workers do the same (torch.set_num_threads(1)). Otherwise every worker would start its
// own OpenMP team whose spinning threads take the cores from the training thread's team;
// on 2 cores a training step became 40 times slower with 2 workers.
#include "ember/data/detail/worker_thread.h"

#include <omp.h>

#include "cpu/parallel_region.h"

namespace ember::data::detail {

void enter_worker_thread() {
  omp_set_num_threads(1);  // this thread's own setting; the training thread keeps its team
  ember::detail::t_threads_pinned = true;  // and set_num_threads elsewhere does not undo it
}

}  // namespace ember::data::detail
