#pragma once
/// ember's drop-in for libtorch's <torch/torch.h> (target ember::torch).
#include "../ember_torch_names.h"
