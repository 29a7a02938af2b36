#pragma once
/// ember's drop-in for libtorch's <torch/all.h> (target ember::torch).
#include "../ember_torch_names.h"
