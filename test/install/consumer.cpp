// Built against the installed package: prints matmul(ones({2,3}), ones({3,2})).
#include <ember/ember.h>

#include <iostream>

int main() {
  ember::Tensor c = ember::matmul(ember::ones({2, 3}), ember::ones({3, 2}));
  std::cout << c << "\n";
  return c.sizes() == std::vector<int64_t>{2, 2} && c.equal(ember::full({2, 2}, 3.0)) ? 0 : 1;
}
