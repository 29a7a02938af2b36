// A libtorch program, unchanged: custom autograd functions in libtorch's forms (a tensor
// argument with a default, a double argument kept in saved_data), checked against the
// gradients of the same computation written with built-in ops.
#include <torch/csrc/autograd/custom_function.h>
#include <torch/torch.h>

#include <iostream>

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct LinearFunction : public torch::autograd::Function<LinearFunction> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, torch::Tensor weight,
                               torch::Tensor bias = torch::Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    torch::Tensor output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto input = saved[0], weight = saved[1], bias = saved[2];
    auto grad_output = grad_outputs[0];
    auto grad_input = grad_output.mm(weight);
    auto grad_weight = grad_output.t().mm(input);
    auto grad_bias = torch::Tensor();
    if (bias.defined()) grad_bias = grad_output.sum(0);
    return {grad_input, grad_weight, grad_bias};
  }
};

struct MulConstant : public torch::autograd::Function<MulConstant> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    // One gradient per forward argument: none for the double.
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), torch::Tensor()};
  }
};

int main() {
  torch::manual_seed(0);
  auto x = torch::randn({2, 3}, torch::dtype(torch::kDouble).requires_grad(true));
  auto weight = torch::randn({4, 3}, torch::dtype(torch::kDouble).requires_grad(true));
  auto bias = torch::randn({4}, torch::dtype(torch::kDouble).requires_grad(true));

  auto y = LinearFunction::apply(x, weight, bias);
  y.sum().backward();
  auto gx = x.grad().clone(), gw = weight.grad().clone(), gb = bias.grad().clone();
  x.grad().zero_();
  weight.grad().zero_();
  bias.grad().zero_();
  torch::nn::functional::linear(x, weight, bias).sum().backward();
  TORCH_CHECK(
      torch::allclose(gx, x.grad()) && torch::allclose(gw, weight.grad()) && torch::allclose(gb, bias.grad()),
      "LinearFunction's gradients differ from linear's");
  std::cout << "LinearFunction grad_fn: " << y.grad_fn()->name() << "\n";

  auto no_bias = LinearFunction::apply(x, weight);  // the default argument
  TORCH_CHECK(torch::allclose(no_bias, x.mm(weight.t())), "LinearFunction without bias");

  auto a = torch::randn({4}, torch::requires_grad());
  auto b = MulConstant::apply(a, 5.5);
  b.sum().backward();
  TORCH_CHECK(torch::allclose(a.grad(), torch::full({4}, 5.5)), "MulConstant's gradient");
  std::cout << "MulConstant grad " << a.grad() << "\n";
  std::cout << "ok\n";
}
