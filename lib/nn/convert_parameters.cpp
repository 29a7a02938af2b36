// nn::utils::parameters_to_vector / vector_to_parameters (libtorch's convert_parameters.h).
#include "ember/nn/utils/convert_parameters.h"

#include "core/check.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::nn::utils {

namespace {
// All parameters on one device, as libtorch's _check_param_device.
void check_same_device(const std::vector<Tensor>& parameters, const char* fn) {
  for (size_t i = 0; i < parameters.size(); ++i) {
    EMBER_CHECK_ARG(parameters[i].defined(), "{}: parameter {} is an undefined tensor", fn, i);
    EMBER_CHECK_ARG(parameters[i].device() == parameters[0].device(),
                    "Found two parameters on different devices, this is currently not supported. ({}: parameter "
                    "0 is on {}, parameter {} on {})",
                    fn, parameters[0].device().str(), i, parameters[i].device().str());
  }
}
}  // namespace

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  check_same_device(parameters, "parameters_to_vector");
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& p : parameters) flat.push_back(p.view(-1));
  return ember::cat(flat);
}

void vector_to_parameters(const Tensor& vec, std::vector<Tensor> parameters) {
  check_same_device(parameters, "vector_to_parameters");
  EMBER_CHECK_ARG(vec.defined() && vec.dim() == 1, "vector_to_parameters: expected vec to be a 1-D tensor, got {}",
                  vec.defined() ? "shape " + ember::detail::shape_str(vec.sizes()) : std::string("an undefined tensor"));
  int64_t needed = 0;
  for (const Tensor& p : parameters) needed += p.numel();
  EMBER_CHECK_ARG(vec.numel() >= needed,
                  "vector_to_parameters: vec has {} elements, but the {} parameters need {}", vec.numel(),
                  parameters.size(), needed);
  int64_t pointer = 0;
  for (const Tensor& p : parameters) {
    const int64_t n = p.numel();
    p.set_data(vec.slice(0, pointer, pointer + n).view_as(p).data());
    pointer += n;
  }
}

}  // namespace ember::nn::utils
