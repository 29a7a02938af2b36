#pragma once
/// ember's drop-in for libtorch's <ATen/ATen.h> (target ember::torch).
#include "../ember_torch_names.h"
