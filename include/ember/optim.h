#pragma once
/// ember's optimizers (torch::optim): SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS, StepLR,
/// ReduceLROnPlateauScheduler, and the GradScaler of mixed-precision training.

#include "ember/optim/adagrad.h"
#include "ember/optim/adam.h"
#include "ember/optim/grad_scaler.h"
#include "ember/optim/lbfgs.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/serialize.h"
#include "ember/optim/sgd.h"
