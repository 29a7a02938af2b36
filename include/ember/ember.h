#pragma once
/// ember: an eager tensor library with a PyTorch-like API and TensorFlow's device model.
/// Everything a user needs comes from this header.

#include "ember/autocast.h"
#include "ember/autograd.h"
#include "ember/check.h"
#include "ember/cuda.h"
#include "ember/device.h"
#include "ember/device_api.h"
#include "ember/distributed.h"
#include "ember/dlpack.h"
#include "ember/error.h"
#include "ember/format.h"
#include "ember/memory.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "ember/parallel.h"
#include "ember/scalar.h"
#include "ember/scalar_type.h"
#include "ember/serialize.h"
#include "ember/tensor.h"
#include "ember/warning.h"
