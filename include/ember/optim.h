#pragma once
/// ember's optimizers (torch::optim): SGD, Adam, AdamW, StepLR, and the GradScaler of
/// mixed-precision training.

#include "ember/optim/adam.h"
#include "ember/optim/grad_scaler.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/sgd.h"
