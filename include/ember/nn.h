#pragma once
/// ember::nn: modules, containers, layers (convolution, pooling, normalization, padding and dropout),
/// nn::functional, nn::init and nn::utils (libtorch's torch::nn).

#include "ember/nn/activation.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/container.h"
#include "ember/nn/conv.h"
#include "ember/nn/conv_transpose.h"
#include "ember/nn/dropout.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/layers.h"
#include "ember/nn/loss.h"
#include "ember/nn/module.h"
#include "ember/nn/normalization.h"
#include "ember/nn/options.h"
#include "ember/nn/ordered_dict.h"
#include "ember/nn/padding.h"
#include "ember/nn/pimpl.h"
#include "ember/nn/pooling.h"
#include "ember/nn/utils.h"
