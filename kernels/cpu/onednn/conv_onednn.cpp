// Op::Convolution and Op::ConvolutionBackward on the CPU through oneDNN, float32
// (Note [Library kernels]). ember's tensors stay in their plain layout (NCHW, or NHWC when
// channels-last; OIHW);
// each primitive is created with the layouts oneDNN prefers ("any") and the plain buffers
// are reordered in and out around it, as libtorch's mkldnn convolution does. Primitives and
// reorders are cached per thread, keyed by every shape field of ConvArgs, so a training
// loop creates them once and no lock is taken; scratchpads and reordered copies come from
// the front-end's workspace callback (ember's caching allocator), never from oneDNN's.
#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <memory>
#include <unordered_map>

#include "core/check.h"
#include "cpu/register_cpu.h"
#include "ember/registry.h"

namespace ember::detail {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& cpu_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

enum class Pass : int64_t { Forward, BackwardData, BackwardWeights };

// Every field that changes a primitive: the pass, whether a bias takes part, and the
// shapes. Compared as one array.
struct ConvKey {
  static constexpr int kFields = 8 + 6 * ConvArgs::kMaxSpatial;
  std::array<int64_t, kFields> f{};
  bool operator==(const ConvKey& o) const { return f == o.f; }
};

struct ConvKeyHash {
  size_t operator()(const ConvKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : k.f) h = (h ^ uint64_t(v)) * 1099511628211ull;
    return size_t(h);
  }
};

ConvKey key_of(const ConvArgs& a, Pass pass, bool with_bias) {
  ConvKey k;
  size_t i = 0;
  for (int64_t v : {int64_t(pass) * 2 + int64_t(a.channels_last), int64_t(with_bias), int64_t(a.dtype),
                    int64_t(a.spatial), a.batch, a.in_channels, a.out_channels, a.groups})
    k.f[i++] = v;
  for (int d = 0; d < ConvArgs::kMaxSpatial; ++d)
    for (int64_t v : {a.input_size[d], a.output_size[d], a.kernel[d], a.stride[d], a.padding[d], a.dilation[d]})
      k.f[i++] = v;
  return k;
}

// The plain (ember) descriptions of the operands, and the geometry oneDNN takes.
struct Geometry {
  memory::desc src, weights, bias, dst;
  memory::dims strides, dilates, pad_l, pad_r;
};

Geometry geometry_of(const ConvArgs& a) {
  const auto f32 = memory::data_type::f32;
  const int s = a.spatial;
  memory::dims src{a.batch, a.in_channels}, dst{a.batch, a.out_channels}, weights;
  if (a.groups > 1)
    weights = {a.groups, a.out_channels / a.groups, a.in_channels / a.groups};
  else
    weights = {a.out_channels, a.in_channels};
  Geometry g;
  for (int d = 0; d < s; ++d) {
    src.push_back(a.input_size[d]);
    dst.push_back(a.output_size[d]);
    weights.push_back(a.kernel[d]);
    g.strides.push_back(a.stride[d]);
    g.dilates.push_back(a.dilation[d] - 1);  // oneDNN counts the gaps
    g.pad_l.push_back(a.padding[d]);
    // What the floor rule leaves on the far side: may be less than pad_l, or negative.
    g.pad_r.push_back((a.output_size[d] - 1) * a.stride[d] + (a.kernel[d] - 1) * a.dilation[d] + 1 -
                      a.input_size[d] - a.padding[d]);
  }
  static constexpr Tag act_tags[] = {Tag::ncw, Tag::nchw, Tag::ncdhw};
  static constexpr Tag channels_last_tags[] = {Tag::nwc, Tag::nhwc, Tag::ndhwc};
  static constexpr Tag weight_tags[] = {Tag::oiw, Tag::oihw, Tag::oidhw};
  static constexpr Tag group_tags[] = {Tag::goiw, Tag::goihw, Tag::goidhw};
  const Tag act = a.channels_last ? channels_last_tags[s - 1] : act_tags[s - 1];
  g.src = memory::desc(src, f32, act);
  g.dst = memory::desc(dst, f32, act);
  g.weights = memory::desc(weights, f32, a.groups > 1 ? group_tags[s - 1] : weight_tags[s - 1]);
  g.bias = memory::desc({a.out_channels}, f32, Tag::x);
  return g;
}

memory::desc any_of(const memory::desc& plain) {
  return memory::desc(plain.dims(), plain.data_type(), Tag::any);
}

// An operand as the primitive reads or writes it: the plain layout, the primitive's, and
// the reorder between them when they differ.
struct Operand {
  memory::desc plain, chosen;
  bool reordered = false;
  dnnl::reorder to_chosen, to_plain;

  Operand() = default;
  Operand(const memory::desc& p, const memory::desc& c, bool is_input) : plain(p), chosen(c) {
    reordered = plain != chosen;
    if (!reordered) return;
    auto& e = cpu_engine();
    if (is_input)
      to_chosen = dnnl::reorder(dnnl::reorder::primitive_desc(e, plain, e, chosen));
    else
      to_plain = dnnl::reorder(dnnl::reorder::primitive_desc(e, chosen, e, plain));
  }
};

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::convolution_forward::primitive_desc forward_pd(const Geometry& g, bool with_bias) {
  const auto alg = dnnl::algorithm::convolution_direct;
  const auto prop = dnnl::prop_kind::forward_training;
  // A zero memory descriptor for the bias disables the bias term.
  const dnnl::convolution_forward::desc desc(prop, alg, any_of(g.src), any_of(g.weights),
                                             with_bias ? g.bias : memory::desc(), any_of(g.dst), g.strides,
                                             g.dilates, g.pad_l, g.pad_r);
  return dnnl::convolution_forward::primitive_desc(desc, user_scratchpad(), cpu_engine());
}

// One cached pass: the primitive, its scratchpad size and its operands (a, b, c are
// src/weights/dst forward; diff_dst/weights/diff_src backward-data; src/diff_dst/
// diff_weights backward-weights).
struct Primitive {
  dnnl::primitive prim;
  size_t scratchpad_bytes = 0;
  Operand a, b, c;
};

std::unique_ptr<Primitive> make_primitive(const ConvArgs& args, Pass pass, bool with_bias) {
  const Geometry g = geometry_of(args);
  const auto alg = dnnl::algorithm::convolution_direct;
  auto p = std::make_unique<Primitive>();
  auto fwd = forward_pd(g, with_bias);
  if (pass == Pass::Forward) {
    p->prim = dnnl::convolution_forward(fwd);
    p->scratchpad_bytes = fwd.scratchpad_desc().get_size();
    p->a = Operand(g.src, fwd.src_desc(), true);
    p->b = Operand(g.weights, fwd.weights_desc(), true);
    p->c = Operand(g.dst, fwd.dst_desc(), false);
  } else if (pass == Pass::BackwardData) {
    dnnl::convolution_backward_data::desc desc(alg, any_of(g.src), any_of(g.weights), any_of(g.dst), g.strides,
                                               g.dilates, g.pad_l, g.pad_r);
    dnnl::convolution_backward_data::primitive_desc pd(desc, user_scratchpad(), cpu_engine(), fwd);
    p->prim = dnnl::convolution_backward_data(pd);
    p->scratchpad_bytes = pd.scratchpad_desc().get_size();
    p->a = Operand(g.dst, pd.diff_dst_desc(), true);
    p->b = Operand(g.weights, pd.weights_desc(), true);
    p->c = Operand(g.src, pd.diff_src_desc(), false);
  } else {
    const dnnl::convolution_backward_weights::desc desc(alg, any_of(g.src), any_of(g.weights),
                                                        with_bias ? g.bias : memory::desc(), any_of(g.dst),
                                                        g.strides, g.dilates, g.pad_l, g.pad_r);
    dnnl::convolution_backward_weights::primitive_desc pd(desc, user_scratchpad(), cpu_engine(), fwd);
    p->prim = dnnl::convolution_backward_weights(pd);
    p->scratchpad_bytes = pd.scratchpad_desc().get_size();
    p->a = Operand(g.src, pd.src_desc(), true);
    p->b = Operand(g.dst, pd.diff_dst_desc(), true);
    p->c = Operand(g.weights, pd.diff_weights_desc(), false);
  }
  return p;
}

// The primitive for (args, pass), created on first use in this thread. A long-lived thread
// that meets many shapes starts afresh past kMaxEntries rather than growing without bound.
Primitive& cached_primitive(const ConvArgs& args, Pass pass, bool with_bias) {
  static constexpr size_t kMaxEntries = 256;
  thread_local std::unordered_map<ConvKey, std::unique_ptr<Primitive>, ConvKeyHash> cache;
  const ConvKey key = key_of(args, pass, with_bias);
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  if (cache.size() >= kMaxEntries) cache.clear();
  return *cache.emplace(key, make_primitive(args, pass, with_bias)).first->second;
}

void* workspace(const ConvArgs& args, size_t bytes) {
  void* p = args.workspace(args.workspace_ctx, bytes);
  EMBER_CHECK_TYPED(p != nullptr, OutOfMemory, "convolution: no workspace of {} bytes", bytes);
  return p;
}

// The primitive's view of an input: the plain buffer itself, or its reordered copy.
memory input_memory(const ConvArgs& args, const Operand& op, const char* data) {
  memory plain(op.plain, cpu_engine(), const_cast<char*>(data));
  if (!op.reordered) return plain;
  memory chosen(op.chosen, cpu_engine(), workspace(args, op.chosen.get_size()));
  op.to_chosen.execute(cpu_stream(), plain, chosen);
  return chosen;
}

// The primitive's view of an output: the plain buffer, or a copy to reorder back afterwards.
memory output_memory(const ConvArgs& args, const Operand& op, char* data) {
  if (!op.reordered) return memory(op.plain, cpu_engine(), data);
  return memory(op.chosen, cpu_engine(), workspace(args, op.chosen.get_size()));
}

void finish_output(const Operand& op, memory& produced, char* data) {
  if (!op.reordered) return;
  memory plain(op.plain, cpu_engine(), data);
  op.to_plain.execute(cpu_stream(), produced, plain);
}

void run(const ConvArgs& args, Primitive& p, int a_arg, const char* a, int b_arg, const char* b, int c_arg,
         char* c, int bias_arg, char* bias) {
  std::unordered_map<int, memory> io;
  io[a_arg] = input_memory(args, p.a, a);
  io[b_arg] = input_memory(args, p.b, b);
  memory out = output_memory(args, p.c, c);
  io[c_arg] = out;
  if (bias) io[bias_arg] = memory(memory::desc({args.out_channels}, memory::data_type::f32, Tag::x), cpu_engine(), bias);
  if (p.scratchpad_bytes > 0)
    io[DNNL_ARG_SCRATCHPAD] = memory(memory::desc({int64_t(p.scratchpad_bytes)}, memory::data_type::u8, Tag::x),
                                     cpu_engine(), workspace(args, p.scratchpad_bytes));
  p.prim.execute(cpu_stream(), io);
  finish_output(p.c, out, c);
  cpu_stream().wait();
}

void convolution_onednn(const ConvArgs& args) {
  try {
    Primitive& p = cached_primitive(args, Pass::Forward, args.bias != nullptr);
    run(args, p, DNNL_ARG_SRC, args.input, DNNL_ARG_WEIGHTS, args.weight, DNNL_ARG_DST, args.output, DNNL_ARG_BIAS,
        const_cast<char*>(args.bias));
  } catch (const dnnl::error& e) {
    EMBER_THROW(Error, "convolution: oneDNN failed: {}", e.what());
  }
}

void convolution_backward_onednn(const ConvArgs& args) {
  try {
    if (args.grad_input) {
      Primitive& p = cached_primitive(args, Pass::BackwardData, false);
      run(args, p, DNNL_ARG_DIFF_DST, args.grad_output, DNNL_ARG_WEIGHTS, args.weight, DNNL_ARG_DIFF_SRC,
          args.grad_input, 0, nullptr);
    }
    if (args.grad_weight || args.grad_bias) {
      Primitive& p = cached_primitive(args, Pass::BackwardWeights, args.grad_bias != nullptr);
      // A bias gradient alone still runs the weights pass, into scratch memory.
      char* grad_weight =
          args.grad_weight ? args.grad_weight : static_cast<char*>(workspace(args, p.c.plain.get_size()));
      run(args, p, DNNL_ARG_SRC, args.input, DNNL_ARG_DIFF_DST, args.grad_output, DNNL_ARG_DIFF_WEIGHTS, grad_weight,
          DNNL_ARG_DIFF_BIAS, args.grad_bias);
    }
  } catch (const dnnl::error& e) {
    EMBER_THROW(Error, "convolution backward: oneDNN failed: {}", e.what());
  }
}

}  // namespace

void register_cpu_library_kernels() {
  register_kernel(Op::Convolution, kCPU, convolution_onednn, {kFloat});
  register_kernel(Op::ConvolutionBackward, kCPU, convolution_backward_onednn, {kFloat});
}

}  // namespace ember::detail
