#pragma once
/// IntArrayRef: a non-owning view of int64_t values (sizes, strides, dims), as c10's;
/// it is ArrayRef<int64_t>.

#include "ember/array_ref.h"
