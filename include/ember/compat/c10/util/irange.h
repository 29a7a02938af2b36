#pragma once
/// ember's drop-in for libtorch's <c10/util/irange.h> (target ember::torch).
#include "../../ember_torch_names.h"
