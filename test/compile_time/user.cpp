// What a user file looks like: include ember, multiply two matrices.
#include <ember/ember.h>

int main() {
  ember::Tensor c = ember::matmul(ember::ones({2, 3}), ember::ones({3, 2}));
  return c.sum().item<float>() == 12.0f ? 0 : 1;
}
