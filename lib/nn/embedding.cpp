// Embedding and EmbeddingBag: torch::embedding, embedding_renorm_, embedding_bag, their F::
// forms and modules. Lookups are index_select (or a custom node whose backward is an
// index_add of ember ops, for padding and frequency scaling), bags are index_add / max over
// a gathered dense block, so autograd differentiates everything, twice included.
#include "ember/nn/embedding.h"

#include <limits>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

using autograd::AutogradContext;
using autograd::variable_list;

// libtorch's "CPUFloatType" naming of a tensor's type in its argument checks.
std::string type_text(const Tensor& t) {
  return std::string(t.device().is_cpu() ? "CPU" : "CUDA") + ember::detail::torch_name(t.dtype()) + "Type";
}

bool is_index_type(const Tensor& t) { return t.dtype() == kInt64 || t.dtype() == kInt32; }

void check_bag_index_type(const Tensor& t) {
  EMBER_CHECK_ARG(
      is_index_type(t),
      "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
      "Int; but got {} instead (while checking arguments for embedding_bag)",
      type_text(t));
}

// Rows of weight at index; the gradient of row r is the sum of its lookups' gradients times
// scale (1 / frequency), padding lookups (mask) giving none -- libtorch's embedding_backward.
struct ScaledLookup : autograd::Function<ScaledLookup> {
  static Tensor forward(AutogradContext* ctx, const Tensor& weight, const Tensor& index, const Tensor& scale,
                        const Tensor& mask) {
    ctx->saved_data["rows"] = weight.size(0);
    ctx->save_for_backward({index, scale, mask});
    return weight.index_select(0, index);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const Tensor& index = saved[0];
    Tensor g = grads[0];
    g = (g * saved[1].unsqueeze(1)).masked_fill(saved[2].unsqueeze(1), 0);
    Tensor gw =
        ember::zeros({ctx->saved_data["rows"].toInt(), g.size(1)}, g.options()).index_add(0, index, g);
    return {gw, Tensor(), Tensor(), Tensor()};
  }
};

// weight's rows at the flat int64 index; padding_idx < 0 is none.
Tensor lookup(const Tensor& weight, const Tensor& flat, int64_t padding_idx, bool scale_grad_by_freq) {
  if (padding_idx < 0 && !scale_grad_by_freq) return weight.index_select(0, flat);
  const Tensor ones = ember::ones({flat.numel()}, weight.options().dtype(kFloat));
  Tensor scale = ones.to(weight.dtype());
  if (scale_grad_by_freq) {
    const Tensor counts = ember::zeros({weight.size(0)}, ones.options()).index_add(0, flat, ones);
    scale = counts.index_select(0, flat).to(weight.dtype()).reciprocal();
  }
  return ScaledLookup::apply(weight, flat, scale, flat == padding_idx);
}

void check_embedding_range(const Tensor& flat, int64_t n) {
  if (flat.numel() == 0) return;
  const int64_t lo = flat.min().item<int64_t>(), hi = flat.max().item<int64_t>();
  EMBER_CHECK_ARG(lo >= 0 && hi < n, "index out of range in self");
}

// libtorch's F:: padding_idx normalisation (a negative one counts from the end).
std::optional<int64_t> normalised_padding(std::optional<int64_t> padding_idx, int64_t n) {
  if (!padding_idx) return padding_idx;
  if (*padding_idx > 0) {
    EMBER_CHECK_ARG(*padding_idx < n, "Padding_idx must be within num_embeddings");
  } else if (*padding_idx < 0) {
    EMBER_CHECK_ARG(*padding_idx >= -n, "Padding_idx must be within num_embedding");
    return *padding_idx + n;
  }
  return padding_idx;
}

void check_not_sparse(bool sparse, const char* op) {
  EMBER_CHECK_TYPED(!sparse, NotImplemented,
                    "{}: sparse=true is not supported: ember has no sparse tensors for the sparse gradient; "
                    "use sparse=false (a dense gradient)",
                    op);
}

}  // namespace

const char* nn::EmbeddingBagMode::name() const {
  switch (kind_) {
    case Kind::Sum:
      return "kSum";
    case Kind::Mean:
      return "kMean";
    case Kind::Max:
      return "kMax";
    default:
      return "kNone";
  }
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  EMBER_CHECK_ARG(indices.defined() && weight.defined(),
                  "embedding: input and weight must be defined tensors");
  EMBER_CHECK_ARG(is_index_type(indices),
                  "embedding: Expected tensor for argument #1 'indices' to have one of the following "
                  "scalar types: Long, Int; but got {} instead",
                  ember::detail::torch_name(indices.dtype()));
  EMBER_CHECK_ARG(weight.dim() == 2,
                  "embedding: weight must be 2-D (num_embeddings, embedding_dim), got shape {}",
                  ember::detail::shape_str(weight.sizes()));
  check_not_sparse(sparse, "embedding");
  const Tensor flat = indices.reshape({-1}).to(kInt64);
  Tensor rows;
  try {
    rows = lookup(weight, flat, padding_idx, scale_grad_by_freq);
  } catch (const InvalidArgument&) {
    // index_select checks the range without a host sync; only a failure pays for the search.
    check_embedding_range(flat, weight.size(0));
    throw;
  }
  std::vector<int64_t> shape(indices.sizes().begin(), indices.sizes().end());
  shape.push_back(weight.size(1));
  return rows.reshape(shape);
}

Tensor& embedding_renorm_(Tensor& self, const Tensor& indices, double max_norm, double norm_type) {
  EMBER_CHECK_ARG(self.defined() && indices.defined(), "embedding_renorm_: self and indices must be defined");
  EMBER_CHECK_ARG(
      self.dim() == 2,
      "Expected 2-dimensional tensor, but got {}-dimensional tensor for argument #1 'self' (while "
      "checking arguments for embedding_renorm_)",
      self.dim());
  EMBER_CHECK_ARG(
      is_index_type(indices),
      "Expected tensor for argument #2 'indices' to have one of the following scalar types: Long, "
      "Int; but got {} instead (while checking arguments for embedding_renorm_)",
      type_text(indices));
  NoGradGuard no_grad;
  const Tensor flat = indices.reshape({-1}).to(kInt64);
  if (flat.numel() == 0) return self;
  check_embedding_range(flat, self.size(0));
  const Tensor rows = self.index_select(0, flat);
  // As libtorch: the norm in self's dtype, the scale max_norm / (norm + 1e-7) in double.
  const Tensor norms = rows.norm(norm_type, {1}).to(kDouble);
  const Tensor scale = ember::where(norms > max_norm, max_norm / (norms + 1e-7), 1.0);
  // Repeated indices write the same row twice with the same values.
  self.index_put_({std::optional<Tensor>(flat)}, rows * scale.to(self.dtype()).unsqueeze(1));
  return self;
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(const Tensor& weight, const Tensor& indices,
                                                         const Tensor& offsets, bool scale_grad_by_freq,
                                                         int64_t mode, bool sparse,
                                                         const std::optional<Tensor>& per_sample_weights,
                                                         bool include_last_offset,
                                                         std::optional<int64_t> padding_idx) {
  EMBER_CHECK_ARG(weight.defined() && indices.defined() && offsets.defined(),
                  "embedding_bag: weight, indices and offsets must be defined tensors");
  EMBER_CHECK_ARG(
      weight.dim() == 2,
      "Expected 2-dimensional tensor, but got {}-dimensional tensor for argument #1 'weight' (while "
      "checking arguments for embedding_bag)",
      weight.dim());
  check_bag_index_type(indices);
  check_bag_index_type(offsets);
  EMBER_CHECK_ARG(
      indices.dim() == 1,
      "Expected 1-dimensional tensor, but got {}-dimensional tensor for argument #1 'indices' (while "
      "checking arguments for embedding_bag)",
      indices.dim());
  EMBER_CHECK_ARG(
      offsets.dim() == 1,
      "Expected 1-dimensional tensor, but got {}-dimensional tensor for argument #1 'offsets' (while "
      "checking arguments for embedding_bag)",
      offsets.dim());
  EMBER_CHECK_ARG(mode >= 0 && mode <= 2, "mode has to be one of sum, mean or max");
  check_not_sparse(sparse, "embedding_bag");
  const int64_t n = weight.size(0), dim = weight.size(1), n_idx = indices.size(0);
  const bool weighted = per_sample_weights && per_sample_weights->defined();
  if (weighted) {
    const Tensor& psw = *per_sample_weights;
    EMBER_CHECK_ARG(mode == 0, "embedding_bag: per_sample_weights only supported with mode='sum'");
    EMBER_CHECK_ARG(
        psw.dtype() == weight.dtype(),
        "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
        "'per_sample_weights'; but type {} does not equal {} (while checking arguments for "
        "embedding_bag)",
        type_text(weight), type_text(psw));
    EMBER_CHECK_ARG(psw.dim() == 1, "embedding_bag: expected per_sample_weights to be 1D tensor");
    EMBER_CHECK_ARG(
        psw.numel() == n_idx,
        "embedding_bag: expected per_sample_weights.numel() ({}) to be the same as indices.numel() "
        "({})",
        psw.numel(), n_idx);
  }
  int64_t pad = -1;
  if (padding_idx) {
    EMBER_CHECK_ARG(*padding_idx >= -n && *padding_idx < n,
                    "padding_idx must be within the number of embeddings, -{} through {}, but got {}", n,
                    n - 1, *padding_idx);
    pad = *padding_idx < 0 ? *padding_idx + n : *padding_idx;
  }

  const Tensor flat = indices.to(kInt64);
  const Tensor offs = offsets.to(kInt64);
  EMBER_CHECK_TYPED(offs.numel() > 0, InvalidArgument,
                    "select(): index 0 out of range for tensor of size [0] at dimension 0");
  const int64_t num_bags = include_last_offset ? offs.numel() - 1 : offs.numel();
  const int64_t first = offs[0].item<int64_t>(), last = offs[-1].item<int64_t>();
  EMBER_CHECK_ARG(
      first == 0,
      "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position "
      "0. However, got {}",
      first);
  EMBER_CHECK_ARG(last <= n_idx,
                  "offsets[-1] can not be greater than input's length({{{}}}), but got offsets[-1] of {{{}}}",
                  n_idx, last);
  // libtorch reads past the bags here (pytorch issue 89677); ember asks for the documented form.
  EMBER_CHECK_ARG(
      !include_last_offset || last == n_idx,
      "embedding_bag: with include_last_offset, offsets[-1] has to be input's length ({}), but got {}", n_idx,
      last);
  if (offs.numel() > 1)
    EMBER_CHECK_ARG(
        (offs.narrow(0, 1, offs.numel() - 1) >= offs.narrow(0, 0, offs.numel() - 1)).all().item<bool>(),
        "embedding_bag: offsets have to be non-decreasing");
  if (n_idx > 0) {
    const int64_t lo = flat.min().item<int64_t>(), hi = flat.max().item<int64_t>();
    if (lo < 0 || hi >= n) {
      const Tensor bad = ((flat < 0).to(kInt64) + (flat >= n).to(kInt64));
      const int64_t at = bad.argmax().item<int64_t>();
      EMBER_THROW(InvalidArgument,
                  "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {}",
                  flat[at].item<int64_t>());
    }
  }

  const TensorOptions long_opts = offs.options();
  const Tensor starts = offs.narrow(0, 0, num_bags);
  // offset2bag: each index's bag (libtorch's index_add of ones at the starts, then cumsum).
  Tensor offset2bag = ember::zeros({n_idx + 1}, long_opts)
                          .index_add(0, starts, ember::ones({num_bags}, long_opts))
                          .cumsum(0)
                          .narrow(0, 0, n_idx) -
                      1;
  const Tensor keep = pad >= 0 ? (flat != pad) : ember::ones({n_idx}, long_opts.dtype(kBool));
  const Tensor bag_count = ember::zeros({num_bags}, long_opts).index_add(0, offset2bag, keep.to(kInt64));
  const Tensor empty_bag = (bag_count == 0).unsqueeze(1);

  Tensor output, bag_size, max_indices;
  if (mode != 2) {
    Tensor rows = lookup(weight, flat, pad, scale_grad_by_freq);
    if (pad >= 0) rows = rows.masked_fill((flat == pad).unsqueeze(1), 0);
    if (weighted) rows = rows * per_sample_weights->unsqueeze(1);
    output = ember::zeros({num_bags, dim}, weight.options()).index_add(0, offset2bag, rows);
    if (mode == 1) {
      output = output / bag_count.clamp_min(1).to(weight.dtype()).unsqueeze(1);
      bag_size = bag_count;
      max_indices = bag_count.clone();
    } else {
      // libtorch zeroes bag_size in sum mode; it has one entry per offset unless weight needs a gradient.
      bag_size = ember::zeros({weight.requires_grad() ? num_bags : offs.numel()}, long_opts);
      max_indices = bag_size.clone();
    }
  } else {
    const Tensor next = offs.narrow(0, 1, offs.numel() - 1);
    const Tensor ends = include_last_offset ? next : ember::cat({next, ember::full({1}, n_idx, long_opts)});
    const int64_t width = num_bags == 0 ? 0 : (ends - starts).max().item<int64_t>();
    if (width == 0) {
      output = ember::zeros({num_bags, dim}, weight.options());
      max_indices = ember::zeros({num_bags, dim}, long_opts);
    } else {
      // A dense (bag, position) block of rows; absent and padding slots read a -inf row.
      const Tensor position = ember::arange(n_idx, long_opts) - starts.index_select(0, offset2bag);
      const Tensor source = ember::where(keep, ember::arange(n_idx, long_opts), n_idx);
      Tensor slots = ember::full({num_bags * width}, n_idx, long_opts);
      slots.index_put_({std::optional<Tensor>(offset2bag * width + position)}, source);
      const Tensor rows =
          ember::cat({lookup(weight, flat, -1, false),
                      ember::full({1, dim}, -std::numeric_limits<double>::infinity(), weight.options())});
      const Tensor block = rows.index_select(0, slots).reshape({num_bags, width, dim});
      auto [values, arg] = block.max(1);
      output = ember::where(empty_bag, 0.0, values);
      const Tensor slot_of_max = slots.index_select(
          0, (ember::arange(num_bags, long_opts).unsqueeze(1) * width + arg).reshape({-1}));
      const Tensor flat_ext = ember::cat({flat, ember::zeros({1}, long_opts)});
      max_indices =
          ember::where(empty_bag, int64_t(0), flat_ext.index_select(0, slot_of_max).reshape({num_bags, dim}));
    }
    bag_size = bag_count;
  }
  return {output, offset2bag.to(indices.dtype()), bag_size.to(offsets.dtype()),
          max_indices.to(offsets.dtype())};
}

namespace nn {
namespace functional {

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  EMBER_CHECK_ARG(input.defined(), "embedding: input is an undefined tensor");
  EMBER_CHECK_ARG(weight.defined(), "embedding: weight is an undefined tensor");
  EMBER_CHECK_ARG(weight.dim() == 2,
                  "embedding: weight must be 2-D (num_embeddings, embedding_dim), got shape {}",
                  ember::detail::shape_str(weight.sizes()));
  const std::optional<int64_t> pad = normalised_padding(options.padding_idx(), weight.size(0));
  check_not_sparse(options.sparse(), "embedding");
  if (options.max_norm()) {
    EMBER_CHECK_ARG(is_index_type(input),
                    "embedding: Expected tensor for argument #1 'indices' to have one of the following "
                    "scalar types: Long, Int; but got {} instead",
                    ember::detail::torch_name(input.dtype()));
    // libtorch passes max_norm and norm_type through float.
    Tensor w = weight;
    embedding_renorm_(w, input, float(*options.max_norm()), float(options.norm_type()));
  }
  return ember::embedding(weight, input, pad.value_or(-1), options.scale_grad_by_freq(), options.sparse());
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options) {
  EMBER_CHECK_ARG(input.defined() && weight.defined(),
                  "embedding_bag: input and weight must be defined tensors");
  Tensor in = input, offsets = options.offsets(), psw = options.per_sample_weights();
  EMBER_CHECK_ARG(
      !psw.defined() || in.sizes() == psw.sizes(),
      "embedding_bag: If per_sample_weights ({}) is not null, then it must have the same shape as the "
      "input ({})",
      ember::detail::shape_str(psw.defined() ? psw.sizes() : IntArrayRef{}),
      ember::detail::shape_str(in.sizes()));
  if (in.dim() == 2) {
    EMBER_CHECK_ARG(
        !offsets.defined(),
        "If input is 2D, then offsets has to be null, as input is treated is a mini-batch of fixed "
        "length sequences. However, found offsets of type Tensor");
    const int64_t bags = in.size(0), len = in.size(1);
    // libtorch's arange fails for rows of length 0; here those bags are empty.
    offsets = len == 0 ? ember::zeros({bags}, in.options().dtype(kInt64))
                       : ember::arange(0, in.numel(), len, in.options().dtype(kInt64));
    in = in.reshape({-1});
    if (psw.defined()) psw = psw.reshape({-1});
  } else if (in.dim() == 1) {
    EMBER_CHECK_ARG(offsets.defined(), "offsets has to be a 1D Tensor but got null");
    EMBER_CHECK_ARG(offsets.dim() == 1, "offsets has to be a 1D Tensor");
    check_bag_index_type(offsets);
    EMBER_CHECK_ARG(offsets.numel() > 0,
                    "select(): index 0 out of range for tensor of size [0] at dimension 0");
    const int64_t first = offsets[0].item<int64_t>(), last = offsets[-1].item<int64_t>();
    EMBER_CHECK_ARG(
        first == 0,
        "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position "
        "0. However, got {}",
        first);
    EMBER_CHECK_ARG(
        last <= in.size(0),
        "offsets[-1] can not be greater than input's length({{{}}}), but got offsets[-1] of {{{}}}",
        in.size(0), last);
  } else {
    EMBER_THROW(InvalidArgument, "input has to be 1D or 2D Tensor, but got Tensor of dimension {}", in.dim());
  }
  const EmbeddingBagMode mode = options.mode();
  EMBER_CHECK_ARG(mode.kind() != EmbeddingBagMode::Kind::Invalid, "mode has to be one of sum, mean or max");
  if (mode == kMax) {
    EMBER_CHECK_ARG(!options.scale_grad_by_freq(),
                    "max mode does not support scaling the gradient by the frequency");
    EMBER_CHECK_ARG(!options.sparse(), "max mode does not support sparse weights");
  }
  // Checked before the in-place renorm (libtorch checks after), so an error leaves weight as it was.
  EMBER_CHECK_ARG(!psw.defined() || mode == kSum,
                  "embedding_bag: per_sample_weights was not null. per_sample_weights is only supported for "
                  "mode='kSum' (got mode='{}').Please open a feature request on GitHub.",
                  mode.name());
  check_not_sparse(options.sparse(), "embedding_bag");
  if (options.max_norm()) {
    check_bag_index_type(in);
    const int64_t n = weight.dim() == 2 ? weight.size(0) : 0;
    if (in.numel() > 0 && weight.dim() == 2) {
      const Tensor flat = in.to(kInt64);
      const bool bad = flat.min().item<int64_t>() < 0 || flat.max().item<int64_t>() >= n;
      if (bad) {
        const int64_t at = ((flat < 0).to(kInt64) + (flat >= n).to(kInt64)).argmax().item<int64_t>();
        EMBER_THROW(InvalidArgument,
                    "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {}",
                    flat[at].item<int64_t>());
      }
    }
    Tensor w = weight;
    embedding_renorm_(w, in, float(*options.max_norm()), float(options.norm_type()));
  }
  return std::get<0>(ember::embedding_bag(weight, in, offsets, options.scale_grad_by_freq(),
                                          static_cast<int64_t>(mode.kind()), options.sparse(),
                                          psw.defined() ? std::optional<Tensor>(psw) : std::nullopt,
                                          options.include_last_offset(), options.padding_idx()));
}

}  // namespace functional

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options_) : options(std::move(options_)) {
  EMBER_CHECK_ARG(options.num_embeddings() >= 0 && options.embedding_dim() >= 0,
                  "Embedding: num_embeddings and embedding_dim must be non-negative, got {} and {}",
                  options.num_embeddings(), options.embedding_dim());
  reset();
}

void EmbeddingImpl::reset() {
  options.padding_idx(normalised_padding(options.padding_idx(), options.num_embeddings()));
  const Tensor& given = options._weight();
  if (!given.defined()) {
    weight = register_parameter("weight", ember::empty({options.num_embeddings(), options.embedding_dim()}));
    reset_parameters();
  } else {
    EMBER_CHECK_ARG(given.sizes() == IntArrayRef({options.num_embeddings(), options.embedding_dim()}),
                    "Shape of _weight does not match num_embeddings and embedding_dim");
    weight = register_parameter("weight", given);
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (auto pad = options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *pad).fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return functional::embedding(indices, weight,
                               functional::EmbeddingFuncOptions()
                                   .padding_idx(options.padding_idx())
                                   .max_norm(options.max_norm())
                                   .norm_type(options.norm_type())
                                   .scale_grad_by_freq(options.scale_grad_by_freq())
                                   .sparse(options.sparse()));
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=true";
  if (options.sparse()) stream << ", sparse=true";
  stream << ")";
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  EMBER_CHECK_ARG(embeddings.defined() && embeddings.dim() == 2,
                  "Embeddings parameter is expected to be 2-dimensional");
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings)
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  embedding->weight.set_requires_grad(!options.freeze());
  return embedding;
}

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions options_) : options(std::move(options_)) {
  EMBER_CHECK_ARG(options.num_embeddings() >= 0 && options.embedding_dim() >= 0,
                  "EmbeddingBag: num_embeddings and embedding_dim must be non-negative, got {} and {}",
                  options.num_embeddings(), options.embedding_dim());
  reset();
}

void EmbeddingBagImpl::reset() {
  options.padding_idx(normalised_padding(options.padding_idx(), options.num_embeddings()));
  const Tensor& given = options._weight();
  if (!given.defined()) {
    weight = register_parameter("weight", ember::empty({options.num_embeddings(), options.embedding_dim()}));
    reset_parameters();
  } else {
    EMBER_CHECK_ARG(given.sizes() == IntArrayRef({options.num_embeddings(), options.embedding_dim()}),
                    "Shape of weight does not match num_embeddings and embedding_dim");
    weight = register_parameter("weight", given);
  }
}

void EmbeddingBagImpl::reset_parameters() {
  // libtorch zeroes the padding row before normal_, which overwrites it: the same stream results.
  if (auto pad = options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *pad).fill_(0);
  }
  init::normal_(weight);
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                 const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

void EmbeddingBagImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "EmbeddingBag(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=true";
  if (options.sparse()) stream << ", sparse=true";
  if (options.mode() != kMean) stream << ", mode=" << options.mode().name();
  if (options.include_last_offset()) stream << ", include_last_offset=true";
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings,
                                           const EmbeddingBagFromPretrainedOptions& options) {
  EMBER_CHECK_ARG(embeddings.defined() && embeddings.dim() == 2,
                  "Embeddings parameter is expected to be 2-dimensional");
  // include_last_offset is passed on too (libtorch 1.13 drops it).
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       ._weight(embeddings)
                       .max_norm(options.max_norm())
                       .norm_type(options.norm_type())
                       .scale_grad_by_freq(options.scale_grad_by_freq())
                       .mode(options.mode())
                       .sparse(options.sparse())
                       .include_last_offset(options.include_last_offset())
                       .padding_idx(options.padding_idx()));
  bag->weight.set_requires_grad(!options.freeze());
  return bag;
}

}  // namespace nn
}  // namespace ember
