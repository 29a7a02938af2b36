#pragma once
/// ember's drop-in for libtorch's <c10/core/InferenceMode.h> (target ember::torch):
/// c10::InferenceMode is ember::InferenceMode.
#include "../../ember_torch_names.h"
