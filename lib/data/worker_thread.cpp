// Loader and preloader threads run their ops on one thread each: PyTorch's DataLoader
// workers do the same (torch.set_num_threads(1)). Otherwise every worker would start its
// own OpenMP team whose spinning threads take the cores from the training thread's team;
// on 2 cores a training step became 40 times slower with 2 workers.
#include "ember/data/detail/worker_thread.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace ember::data::detail {

void enter_worker_thread() {
#if defined(_OPENMP)
  omp_set_num_threads(1);  // this thread's own setting; the training thread keeps its team
#endif
}

}  // namespace ember::data::detail
