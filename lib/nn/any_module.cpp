// AnyValue, AnyModule and Functional: the error texts (libtorch's words) and Functional's calls.
#include "ember/nn/any_module.h"

#include "core/check.h"
#include "ember/nn/functional_module.h"

namespace ember::nn {

namespace detail {

void throw_any_value_cast(const std::type_info& wanted, const std::type_info& actual) {
  EMBER_THROW(InvalidArgument, "Attempted to cast AnyValue to {}, but its actual type is {}", demangle(wanted),
              demangle(actual));
}

void throw_any_module_error(const char* what) { throw InvalidArgument(what); }

void throw_any_module_cast(const std::type_info& held, const std::type_info& wanted) {
  EMBER_THROW(InvalidArgument, "Attempted to cast module of type {} to type {}", demangle(held), demangle(wanted));
}

void throw_forward_argument(size_t index, const std::type_info& wanted, const std::type_info& received) {
  EMBER_THROW(InvalidArgument, "Expected argument #{} to be of type {}, but received value of type {}", index,
              demangle(wanted), demangle(received));
}

void check_forward_arity(const std::type_info& module, size_t received, size_t expected,
                         std::optional<size_t> required) {
  if (required) {
    EMBER_CHECK_ARG(received >= *required && received <= expected,
                    "{}'s forward() method expects at least {} argument(s) and at most {} argument(s), but "
                    "received {}.",
                    demangle(module), *required, expected, received);
    return;
  }
  EMBER_CHECK_ARG(received == expected,
                  "{0}'s forward() method expects {1} argument(s), but received {2}.{3}", demangle(module),
                  expected, received,
                  received < expected ? " If " + demangle(module) +
                                            "'s forward() method has default arguments, please make sure the "
                                            "forward() method is declared with a corresponding "
                                            "`" +
                                            std::string(macro_prefix()) + "FORWARD_HAS_DEFAULT_ARGS` macro."
                                      : std::string());
}

}  // namespace detail

FunctionalImpl::FunctionalImpl(Function function) : function_(std::move(function)) {
  EMBER_CHECK_ARG(function_ != nullptr, "Functional: the function is empty");
}

void FunctionalImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Functional()";
}

Tensor FunctionalImpl::forward(Tensor input) { return function_(std::move(input)); }

}  // namespace ember::nn
