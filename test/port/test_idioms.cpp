// A libtorch program, unchanged: the idioms of libtorch's own C++ API tests (their support
// headers, printed modules, error texts, defaults) as a test program would use them. It
// builds and passes against libtorch 1.13 as well as through ember::torch.
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <c10/util/tempfile.h>
#include <torch/nn/cloneable.h>
#include <torch/torch.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "FAILED: " << what << "\n";
    ++failures;
  }
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// libtorch 1.13's warning handler form (test/cpp/api/support.h's WarningCapture).
struct WarningCapture : public torch::WarningHandler {
  WarningCapture() : prev_(torch::Warning::get_warning_handler()) {
    torch::Warning::set_warning_handler(this);
  }
  ~WarningCapture() override { torch::Warning::set_warning_handler(prev_); }
  void process(const c10::SourceLocation&, const std::string& msg, const bool) override {
    messages_.push_back(msg);
  }
  std::string str() const { return c10::Join("\n", messages_); }

 private:
  torch::WarningHandler* prev_;
  std::vector<std::string> messages_;
};

struct Plain : torch::nn::Module {};

}  // namespace

int main() {
  // Printed modules and names read torch::nn::.
  torch::nn::Sequential seq(torch::nn::Linear(3, 2), torch::nn::ReLU());
  expect(c10::str(seq) ==
             "torch::nn::Sequential(\n"
             "  (0): torch::nn::Linear(in_features=3, out_features=2, bias=true)\n"
             "  (1): torch::nn::ReLU()\n"
             ")",
         "printed Sequential: " + c10::str(seq));
  expect(torch::nn::Linear(3, 4)->name() == "torch::nn::LinearImpl", "Module::name()");
  expect(c10::str(torch::nn::Bilinear(5, 3, 2)) ==
             "torch::nn::Bilinear(in1_features=5, in2_features=3, out_features=2, bias=true)",
         "printed Bilinear");
  Plain plain;
  expect(contains(error_of([&] { plain.modules(); }),
                  "It looks like you attempted to retrieve your top-level module as a shared_ptr"),
         "modules() of a module on the stack");

  // A transposed convolution's optional output_size, through Sequential's AnyModule.
  torch::nn::Sequential up(
      torch::nn::ConvTranspose1d(torch::nn::ConvTranspose1dOptions(1, 1, 2).bias(false)));
  expect(up->forward(torch::ones({1, 1, 3})).sizes() == torch::IntArrayRef({1, 1, 4}),
         "ConvTranspose1d default arg");

  // zero_grad zeroes (libtorch 1.13's default); Module::to converts every parameter.
  torch::nn::Linear lin(2, 1);
  lin(torch::ones({1, 2})).sum().backward();
  lin->zero_grad();
  expect(lin->weight.grad().defined() && lin->weight.grad().sum().item<float>() == 0, "Module::zero_grad()");
  torch::optim::SGD sgd(lin->parameters(), 0.1);
  lin(torch::ones({1, 2})).sum().backward();
  sgd.zero_grad();
  expect(lin->bias.grad().defined() && lin->bias.grad().item<float>() == 0, "Optimizer::zero_grad()");
  expect(contains(error_of([&] { lin->to(torch::kInt32); }),
                  "data set to a tensor that requires gradients must be floating point or complex dtype"),
         "Module::to(kInt32) with parameters that require grad");
  torch::nn::BatchNorm1d norm(2);
  norm->to(torch::kFloat64);
  expect(norm->weight.dtype() == torch::kFloat64 && norm->num_batches_tracked.dtype() == torch::kFloat64,
         "Module::to(kFloat64) converts integer buffers too");

  // Tensor idioms.
  torch::Tensor a = torch::tensor({1.0f, 5.0f, 3.0f});
  torch::Tensor b = torch::tensor({4.0f, 2.0f, 3.0f});
  expect(torch::equal(torch::max(a, b), torch::tensor({4.0f, 5.0f, 3.0f})), "torch::max(a, b)");
  expect(torch::equal(a.min(b), torch::tensor({1.0f, 2.0f, 3.0f})), "a.min(b)");
  expect(a.get_device() == -1, "get_device() of a CPU tensor");
  expect(*a.data<float>() == 1.0f, "data<float>()");
  expect(torch::squeeze(torch::zeros({2, 1, 3}), 1).sizes() == torch::IntArrayRef({2, 3}), "torch::squeeze");
  expect(torch::Device(torch::kCPU).type() == torch::Device::Type::CPU, "Device::Type");
  torch::Tensor gone = a;
  gone.reset();
  expect(!gone.defined() && a.defined(), "Tensor::reset()");
  expect(torch::typeMetaToScalarType(torch::get_default_dtype()) == torch::kFloat, "the default dtype");
  expect(a.is_variable() && a.tensor_data().data_ptr() == a.data_ptr(), "is_variable, tensor_data");
  int dtypes = 0;
#define COUNT_DTYPE(T, S) dtypes += sizeof(T) > 0 && torch::k##S != torch::kBool ? 1 : 0;
  AT_FORALL_SCALAR_TYPES_AND3(Bool, Half, BFloat16, COUNT_DTYPE)
#undef COUNT_DTYPE
  expect(dtypes == 9, "AT_FORALL_SCALAR_TYPES_AND3 visits ten dtypes, Bool among them");

  // Functional forms.
  namespace F = torch::nn::functional;
  expect(torch::equal(F::one_hot(torch::tensor({0, 2}), 3), torch::tensor({{1, 0, 0}, {0, 0, 1}})),
         "F::one_hot");
  const double l =
      F::smooth_l1_loss(torch::tensor({0.0}), torch::tensor({2.0}), torch::kMean, 0.5).item<double>();
  expect(std::abs(l - 1.75) < 1e-12, "F::smooth_l1_loss with beta 0.5");
  torch::Tensor logits = torch::zeros({3}, torch::requires_grad());
  torch::nn::BCEWithLogitsLoss(torch::nn::BCEWithLogitsLossOptions().reduction(torch::kSum))(
      logits, torch::zeros({3}))
      .backward();
  expect(torch::allclose(logits.grad(), torch::full({3}, 0.5)), "BCEWithLogits gradient at 0");

  // Warnings in libtorch 1.13's handler form.
  {
    WarningCapture warnings;
    TORCH_WARN("first");
    TORCH_WARN("second");
    expect(warnings.str() == "first\nsecond", "captured warnings: " + warnings.str());
  }

  // A sampler through torch::save / torch::load, via a temporary file.
  c10::TempFile file = c10::make_tempfile();
  torch::data::samplers::SequentialSampler sampler(10);
  sampler.next(3);
  torch::save(sampler, file.name);
  torch::data::samplers::SequentialSampler restored(10);
  torch::load(restored, file.name);
  expect(restored.index() == 3, "a sampler's position after torch::load");

  // ATen's at::tensor keeps the C++ values' dtype in one dimension (torch::tensor(123) is a
  // 0-dim Long); with options, values convert as C++ converts them.
  expect(at::tensor(123).dtype() == at::kInt && at::tensor(123).dim() == 1 && at::tensor(123).numel() == 1,
         "at::tensor(123)");
  expect(at::tensor(123.456f).dtype() == at::kFloat && at::tensor(123.456).dtype() == at::kDouble,
         "at::tensor of a float and a double");
  expect(at::tensor({1.5, 2.25}).dtype() == at::kDouble && at::tensor(std::vector<int>{1, 2}).dtype() == at::kInt,
         "at::tensor of lists");
  torch::Tensor truncated = at::tensor({1.1, 2.7, -3.9}, at::dtype(at::kInt));
  expect(truncated.dtype() == at::kInt && truncated[1].item<int>() == 2 && truncated[2].item<int>() == -3,
         "at::tensor converting to Int");
  expect((at::tensor(123, at::dtype(at::kFloat)) + 0.5).item<float>() == 123.5f, "at::tensor(123, kFloat)");
  expect(torch::tensor(123).dtype() == torch::kLong && torch::tensor(123).dim() == 0, "torch::tensor(123)");

  // A hand-written CPU loop, as extensions write them: AT_DISPATCH, accessors, parallel_for.
  {
    torch::Tensor in = torch::arange(12, torch::kDouble).reshape({3, 4}).t();  // strided
    torch::Tensor out = torch::empty({4, 3}, in.options());
    AT_DISPATCH_FLOATING_TYPES(in.scalar_type(), "square", [&] {
      auto src = in.accessor<scalar_t, 2>();
      auto dst = out.accessor<scalar_t, 2>();
      at::parallel_for(0, src.size(0), 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          for (int64_t j = 0; j < src.size(1); ++j) dst[i][j] = src[i][j] * src[i][j];
      });
    });
    expect(torch::equal(out, in * in), "AT_DISPATCH + accessor + parallel_for");
    expect(error_of([&] { AT_DISPATCH_FLOATING_TYPES(torch::kInt, "square", [&] {}); }) ==
               "\"square\" not implemented for 'Int'",
           "AT_DISPATCH's error");
    int64_t sum = 0;
    AT_DISPATCH_INDEX_TYPES(torch::kLong, "sum", [&] { sum = index_t(40) + 2; });
    expect(sum == 42, "AT_DISPATCH_INDEX_TYPES");
    const double total = at::parallel_reduce(
        int64_t(0), int64_t(1000), int64_t(100), 0.0,
        [](int64_t b, int64_t e, double ident) {
          for (int64_t i = b; i < e; ++i) ident += double(i);
          return ident;
        },
        std::plus<double>());
    expect(total == 499500.0, "at::parallel_reduce");
    expect(at::get_num_threads() >= 1 && torch::get_num_threads() == at::get_num_threads(), "thread counts");
    expect(error_of([] { at::set_num_threads(0); }) == "Expected positive number of threads", "set_num_threads(0)");
  }
  // The other checks and dtype queries.
  {
    bool index_error = false;
    try {
      TORCH_CHECK_INDEX(false, "index ", 7, " is out of range");
    } catch (const c10::IndexError& e) {
      index_error = e.what_without_backtrace() == std::string("index 7 is out of range");
    }
    expect(index_error, "TORCH_CHECK_INDEX throws c10::IndexError");
    expect(error_of([] { TORCH_CHECK_ARG(false, 2, "bad ", 7); }) == "invalid argument 2: bad 7", "TORCH_CHECK_ARG");
    expect(error_of([] { TORCH_CHECK_VALUE(1 + 1 == 2, "fine"); }) == "<no error>", "TORCH_CHECK_VALUE");
    TORCH_CHECK_EQ(2, 2) << "not shown";
    TORCH_CHECK_LT(1, 2);
    expect(std::string(c10::toString(torch::kLong)) == "Long" && c10::elementSize(torch::kHalf) == 2 &&
               c10::isFloatingType(torch::kBFloat16) && !c10::isIntegralType(torch::kBool, false) &&
               c10::isIntegralType(torch::kBool, true),
           "c10's dtype queries");
    expect(torch::ones({2}, torch::ScalarType::Long).dtype() == torch::kLong, "ScalarType::Long");
    torch::Tensor x = torch::ones({2, 3});
    expect(x.toString() == "CPUFloatType" && x.itemsize() == 4 && torch::numel(x) == 6 && x.has_storage() &&
               !x.is_sparse() && !x.is_meta(),
           "toString, itemsize, numel, has_storage, is_sparse");
    std::ostringstream options;
    options << torch::TensorOptions().dtype(torch::kLong).device(torch::kCPU);
    expect(options.str() ==
               "TensorOptions(dtype=long int, device=cpu, layout=Strided (default), requires_grad=false (default), "
               "pinned_memory=false (default), memory_format=(nullopt))",
           "printed TensorOptions: " + options.str());
  }

  // Older spellings of a dtype and a tensor's type: caffe2::TypeMeta, Tensor::type(),
  // getDeprecatedTypeProperties, and an integral default dtype (C++ allows it).
  {
    const caffe2::TypeMeta meta = caffe2::TypeMeta::Make<int64_t>();
    expect(meta.itemsize() == 8 && meta == torch::kLong && c10::typeMetaToScalarType(meta) == torch::kLong,
           "TypeMeta::Make<int64_t>()");
    std::ostringstream printed;
    printed << caffe2::TypeMeta::Make<float>();
    expect(printed.str() == "float", "printed TypeMeta: " + printed.str());
    torch::Tensor x = torch::ones({2}, torch::kDouble);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    expect(x.type().scalarType() == torch::kDouble && x.type().toString() == "CPUDoubleType" && !x.type().is_cuda(),
           "Tensor::type()");
    double twice = 0;
    AT_DISPATCH_FLOATING_TYPES(x.type(), "twice", [&] { twice = double(scalar_t(2) * x[0].item<scalar_t>()); });
#pragma GCC diagnostic pop
    expect(twice == 2, "AT_DISPATCH over x.type()");
    const at::TensorOptions sparse(at::getDeprecatedTypeProperties(at::Backend::SparseCPU, at::kByte));
    expect(sparse.layout() == torch::kSparse && sparse.dtype() == torch::kByte, "options of a sparse backend");
    const auto saved = torch::get_default_dtype();
    torch::set_default_dtype(caffe2::TypeMeta::Make<int>());
    expect(torch::ones({2}).dtype() == torch::kInt && torch::tensor(1.5).item<int>() == 1, "an Int default dtype");
    torch::set_default_dtype(saved);
    expect(torch::TensorOptions().device_index(1).device() == torch::Device(torch::kCUDA, 1), "device_index(1)");
    std::ostringstream options;
    options << torch::TensorOptions().layout(torch::kSparse).memory_format(torch::MemoryFormat::ChannelsLast);
    expect(options.str() ==
               "TensorOptions(dtype=float (default), device=cpu (default), layout=Sparse, requires_grad=false "
               "(default), pinned_memory=false (default), memory_format=ChannelsLast)",
           "printed options with a layout and a memory format: " + options.str());
    torch::Tensor t = torch::arange(6.0).view({2, 3}).t();
    expect(torch::empty_like(t, {}, torch::MemoryFormat::Preserve).strides() == t.strides(),
           "empty_like keeps dense strides under Preserve");
  }

  // out= variants.
  {
    torch::Tensor out = torch::empty({0});
    torch::exp_out(out, torch::zeros({3}));
    expect(torch::equal(out, torch::ones({3})), "exp_out");
    out.resize_(0);  // reused without a resize warning
    torch::special::i0e_out(out, torch::tensor({0.0, 1.0}));
    expect(out.dtype() == torch::kFloat && torch::allclose(out, torch::tensor({1.0f, 0.4657596f})),
           "special::i0e_out");
    std::vector<int64_t> dims{1};
    torch::sum_out(out, torch::ones({2, 3}), dims);
    expect(torch::equal(out, torch::full({2}, 3.0)), "sum_out");
    out.resize_(0);
    torch::cat_out(out, {torch::zeros({1}), torch::ones({1})}, 0);
    expect(torch::equal(out, torch::tensor({0.0f, 1.0f})), "cat_out");
    torch::Tensor ints = torch::zeros({2}, torch::kLong);
    expect(contains(error_of([&] { torch::exp_out(ints, torch::zeros({2})); }),
                    "result type Float can't be cast to the desired output type Long"),
           "exp_out into Long");
  }

  // An SGD archive in libtorch's pre-1.5 form (buffer lists) loads, with libtorch's warning.
  {
    torch::manual_seed(0);
    torch::nn::Linear model(3, 2);
    const torch::Tensor w = model->weight.detach().clone(), b = model->bias.detach().clone();
    torch::serialize::OutputArchive legacy;
    torch::optim::serialize(legacy, "momentum_buffers",
                            std::vector<torch::Tensor>{torch::full({2, 3}, 0.5), torch::full({2}, 0.25)});
    c10::TempFile old_format = c10::make_tempfile();
    legacy.save_to(old_format.name);
    torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    {
      WarningCapture warnings;
      torch::load(sgd, old_format.name);
      expect(contains(warnings.str(), "Your serialized SGD optimizer is still using the old serialization format."),
             "the old-format warning: " + warnings.str());
    }
    sgd.zero_grad();
    model(torch::ones({4, 3})).sum().backward();  // gradients 4 everywhere
    sgd.step();                                   // buffer = 0.9 * loaded + 4
    expect(torch::allclose(model->weight, w - 0.1 * (0.9 * 0.5 + 4)) &&
               torch::allclose(model->bias, b - 0.1 * (0.9 * 0.25 + 4)),
           "SGD resumed from its pre-1.5 momentum buffers");
  }

  if (failures == 0) std::cout << "ok\n";
  return failures == 0 ? 0 : 1;
}
