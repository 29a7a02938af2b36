#pragma once
/// Called first on every loader worker and chunk preloader thread: its ops run
/// single-threaded, leaving intra-op parallelism to the training thread.

#include "ember/export.h"

namespace ember::data::detail {

EMBER_API void enter_worker_thread();

}  // namespace ember::data::detail
