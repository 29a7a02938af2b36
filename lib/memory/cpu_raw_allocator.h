#pragma once
#include "ember/allocator.h"
namespace ember::detail { RawAllocator* cpu_raw_allocator(); }
