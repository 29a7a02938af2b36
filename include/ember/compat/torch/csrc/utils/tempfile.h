#pragma once
/// ember's drop-in for older libtorch's <torch/csrc/utils/tempfile.h> (target ember::torch).
#include "../../../c10/util/tempfile.h"
