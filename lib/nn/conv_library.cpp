// Convolution as one registry op, for devices whose backend has a library kernel.
//
// Note [Library kernels]
// Convolution (and, as they come, pooling, normalization, RNN and fused attention) is a
// registry op family like any other, but optional: a backend registers Op::Convolution and
// Op::ConvolutionBackward when it has a vendor library (oneDNN on the CPU, float32; cuDNN
// on CUDA), and the front-end uses them when the op's device has them for the dtype, else
// composes the portable im2col + GEMM form (conv.cpp), which every device can run. The
// library form is recorded as one node, ConvolutionBackward0 as in libtorch, whose backward
// is Op::ConvolutionBackward. Under create_graph that backward is instead written in
// ordinary ember ops (a transposed convolution for the input, columns times the gradient
// for the weight), so double backward works on every device. Library state (primitive
// caches, streams) lives in the backend, per thread; workspaces come from ember's caching
// allocator through ConvArgs::workspace. ember::set_onednn_enabled(false) switches the CPU
// library off, as libtorch's setUserEnabledMkldnn does. A kernel with no algorithm for a
// shape throws NotImplemented from inside the kernel call, and only there does the
// front-end take it as "declined": it runs the portable form (forward) or the ember-op
// gradients (backward) instead; the same error from anywhere else reaches the user.
#include "nn/conv_library.h"

#include <vector>

#include "autograd/node.h"
#include "dispatch/kernel_table.h"
#include "dispatch/library_kernels.h"
#include "ember/autograd.h"
#include "ember/nn/conv_transpose.h"
#include "ember/ops.h"
#include "nn/channel_dims.h"
#include "nn/kernel_applies.h"
#include "nn/sliding_windows.h"
#include "placement/placement.h"
#include "tensor/memory_format.h"

namespace ember::nn::detail {

namespace {

// ConvArgs::workspace: each request is a byte tensor from the device's caching allocator,
// kept until the kernel has returned (the Workspace outlives the call).
struct Workspace {
  Device device;
  std::vector<Tensor> blocks;

  explicit Workspace(ConvArgs& a, Device d) : device(d) {
    a.workspace = &Workspace::allocate;
    a.workspace_ctx = this;
  }
  static void* allocate(void* ctx, size_t bytes) {
    auto* w = static_cast<Workspace*>(ctx);
    w->blocks.push_back(empty({int64_t(bytes)}, TensorOptions(kByte).device(w->device)));
    return w->blocks.back().data_ptr();
  }
};

// The shape fields of ConvArgs for contiguous operands.
ConvArgs conv_args(const Tensor& input, const Tensor& weight, IntArrayRef out_sizes, const ConvParams& p,
                   MemoryFormat format) {
  ConvArgs a;
  a.dtype = input.dtype();
  a.channels_last = format != MemoryFormat::Contiguous;
  a.spatial = int(input.dim() - 2);
  a.batch = input.size(0);
  a.in_channels = input.size(1);
  a.out_channels = weight.size(0);
  a.groups = p.groups;
  for (int d = 0; d < a.spatial; ++d) {
    a.input_size[d] = input.size(d + 2);
    a.output_size[d] = out_sizes[size_t(d) + 2];
    a.kernel[d] = weight.size(d + 2);
    a.stride[d] = p.stride[size_t(d)];
    a.padding[d] = p.padding[size_t(d)];
    a.dilation[d] = p.dilation[size_t(d)];
  }
  return a;
}

std::vector<int64_t> output_sizes(const Tensor& input, const Tensor& weight, const ConvParams& p) {
  std::vector<int64_t> out = {input.size(0), weight.size(0)};
  for (size_t d = 0; d + 2 < size_t(input.dim()); ++d) {
    const int64_t k = weight.size(int64_t(d) + 2);
    out.push_back((input.size(int64_t(d) + 2) + 2 * p.padding[d] - p.dilation[d] * (k - 1) - 1) / p.stride[d] + 1);
  }
  return out;
}

// grad_input in ember ops: the transposed convolution of g, with the output padding that
// gives back the input's size (what the floor rule dropped).
Tensor input_grad_composite(const Tensor& g, const Tensor& weight, IntArrayRef input_sizes, const ConvParams& p) {
  std::vector<int64_t> output_padding;
  for (size_t d = 0; d + 2 < input_sizes.size(); ++d) {
    const int64_t k = weight.size(int64_t(d) + 2), out = g.size(int64_t(d) + 2);
    output_padding.push_back(input_sizes[d + 2] -
                             ((out - 1) * p.stride[d] - 2 * p.padding[d] + p.dilation[d] * (k - 1) + 1));
  }
  if (g.dim() == 3)
    return conv_transpose1d(g, weight, {}, p.stride, p.padding, output_padding, p.groups, p.dilation);
  if (g.dim() == 4)
    return conv_transpose2d(g, weight, {}, p.stride, p.padding, output_padding, p.groups, p.dilation);
  return conv_transpose3d(g, weight, {}, p.stride, p.padding, output_padding, p.groups, p.dilation);
}

// grad_weight in ember ops: per group, g [N, C_out/G, L] times the columns of the padded
// input [N, K, L] transposed, summed over the batch.
Tensor weight_grad_composite(const Tensor& input, const Tensor& g, IntArrayRef weight_sizes, const ConvParams& p) {
  const size_t spatial = size_t(input.dim() - 2);
  if (spatial == 1) {  // as 2-D with a height of 1
    ConvParams p2{{1, p.stride[0]}, {0, p.padding[0]}, {1, p.dilation[0]}, p.groups, {}};
    const std::vector<int64_t> w2 = {weight_sizes[0], weight_sizes[1], 1, weight_sizes[2]};
    return weight_grad_composite(input.unsqueeze(2), g.unsqueeze(2), w2, p2).view(weight_sizes);
  }
  std::vector<int64_t> out;
  const Tensor cols = conv_columns(input, weight_sizes.slice(2), p, out);
  const int64_t n = input.size(0), groups = p.groups, out_c = weight_sizes[0];
  int64_t l = 1;
  for (int64_t o : out) l *= o;
  const int64_t k = cols.numel() / (n * groups * l);  // C_in / groups * kernel volume
  const Tensor gw = matmul(g.reshape({n, groups, out_c / groups, l}), cols.view({n, groups, k, l}).transpose(-1, -2));
  return gw.sum(0).reshape(weight_sizes);
}

// Runs the kernel on its device; false when the library declines the shape.
bool run_library_kernel(ConvKernel kernel, const ConvArgs& a, const Device& device) {
  DeviceScope scope(device);
  try {
    kernel(a);
  } catch (const NotImplemented&) {  // the library declines this shape
    return false;
  }
  return true;
}

// The kernel's backward: the gradients the node needs, on the forward's device; empty
// when the library declines the shape.
autograd::variable_list kernel_backward(const Tensor& g0, const Tensor& input, const Tensor& weight, const ConvParams& p,
                              const autograd::FormulaNode& node) {
  autograd::variable_list out(3);
  Tensor ins[3] = {g0, input, weight};
  ember::detail::DeviceEntry& dev = ember::detail::place_op(Op::ConvolutionBackward, ins, 3, input.dtype());
  auto kernel = ember::detail::lookup_kernel<ConvKernel>(Op::ConvolutionBackward, dev.device.type(), input.dtype());
  // The forward's layout: channels-last when its input was.
  const MemoryFormat format = ember::detail::channels_last_of(input);
  const Tensor g = ins[0].contiguous(format), x = ins[1].contiguous(format), w = ins[2].contiguous();
  ConvArgs a = conv_args(x, w, g.sizes(), p, format);
  Workspace ws(a, x.device());
  a.input = static_cast<const char*>(x.data_ptr());
  a.weight = static_cast<const char*>(w.data_ptr());
  a.grad_output = static_cast<const char*>(g.data_ptr());
  if (node.needs(0)) {
    out[0] = ember::detail::empty_in_format(x.sizes(), x.dtype(), dev, format);
    a.grad_input = static_cast<char*>(out[0].data_ptr());
  }
  if (node.needs(1)) {
    out[1] = empty(w.sizes(), w.options());
    a.grad_weight = static_cast<char*>(out[1].data_ptr());
  }
  if (node.needs(2)) {
    out[2] = empty({w.size(0)}, w.options());
    a.grad_bias = static_cast<char*>(out[2].data_ptr());
  }
  if (!run_library_kernel(kernel, a, dev.device)) return {};
  return out;
}

// The gradients as ember ops (the create_graph form), for double backward and for shapes
// whose backward the library cannot run.
autograd::variable_list composite_backward(const Tensor& g, const Tensor& x, const Tensor& w,
                                           const ConvParams& p, const autograd::FormulaNode& node) {
  autograd::variable_list out(3);
  if (node.needs(0)) out[0] = input_grad_composite(g, w, x.sizes(), p);
  if (node.needs(1)) out[1] = weight_grad_composite(x, g, w.sizes(), p);
  if (node.needs(2)) out[2] = g.sum(all_but_channel_dims(g.dim()));
  return out;
}

}  // namespace

bool library_convolution_applies(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (input.numel() == 0) return false;
  if (input.device().is_cpu() && !ember::detail::g_onednn_user_enabled.load(std::memory_order_relaxed)) return false;
  return kernel_applies(Op::Convolution, {&input, &weight, &bias});
}

Tensor library_convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p) {
  Tensor ins[3] = {input, weight, bias};
  ember::detail::DeviceEntry& dev = ember::detail::place_op(Op::Convolution, ins, bias.defined() ? 3 : 2, input.dtype());
  auto kernel = ember::detail::lookup_kernel<ConvKernel>(Op::Convolution, dev.device.type(), input.dtype());
  // A channels-last input gives a channels-last output, as libtorch's (and oneDNN reads
  // and writes NHWC directly).
  const MemoryFormat format = ember::detail::channels_last_of(ins[0]);
  const Tensor x = ins[0].contiguous(format), w = ins[1].contiguous();
  const Tensor b = bias.defined() ? ins[2].contiguous() : Tensor();
  const std::vector<int64_t> out_sizes = output_sizes(x, w, p);
  Tensor y = ember::detail::empty_in_format(out_sizes, x.dtype(), dev, format);
  ConvArgs a = conv_args(x, w, out_sizes, p, format);
  Workspace ws(a, x.device());
  a.input = static_cast<const char*>(x.data_ptr());
  a.weight = static_cast<const char*>(w.data_ptr());
  a.bias = b.defined() ? static_cast<const char*>(b.data_ptr()) : nullptr;
  a.output = static_cast<char*>(y.data_ptr());
  if (!run_library_kernel(kernel, a, dev.device)) return Tensor();
  if (!(GradMode::is_enabled() && autograd::any_requires_grad({&input, &weight, &bias}))) return y;
  auto node = autograd::record(
      "ConvolutionBackward0", {&input, &weight, &bias}, {&y},
      [p](autograd::FormulaNode& node, autograd::variable_list& grads) -> autograd::variable_list {
        if (!grads[0].defined()) return autograd::variable_list(3);
        const Tensor x = node.saved(0), w = node.saved(1);
        // create_graph: the same gradients as differentiable ember ops (double backward).
        if (GradMode::is_enabled()) return composite_backward(grads[0], x, w, p, node);
        autograd::variable_list out = kernel_backward(grads[0], x, w, p, node);
        return out.empty() ? composite_backward(grads[0], x, w, p, node) : out;
      });
  node->saved_[0] = autograd::SavedVariable(input, false);
  node->saved_[1] = autograd::SavedVariable(weight, false);
  return y;
}

}  // namespace ember::nn::detail
