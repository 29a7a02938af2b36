// A libtorch program, unchanged: the idioms of libtorch's own C++ API tests (their support
// headers, printed modules, error texts, defaults) as a test program would use them. It
// builds and passes against libtorch 1.13 as well as through ember::torch.
#include <c10/util/Exception.h>
#include <c10/util/tempfile.h>
#include <torch/nn/cloneable.h>
#include <torch/torch.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <cmath>
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

  if (failures == 0) std::cout << "ok\n";
  return failures == 0 ? 0 : 1;
}
