#pragma once
/// CustomBatchRequest: the interface of a batch request type other than indices or a
/// count; it reports how many examples it asks for.

#include <cstddef>

#include "ember/export.h"

namespace ember::data::samplers {

struct EMBER_API CustomBatchRequest {
  CustomBatchRequest() = default;
  CustomBatchRequest(const CustomBatchRequest&) = default;
  CustomBatchRequest(CustomBatchRequest&&) noexcept = default;
  virtual ~CustomBatchRequest() = default;

  virtual size_t size() const = 0;
};

}  // namespace ember::data::samplers
