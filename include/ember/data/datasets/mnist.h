#pragma once
/// datasets::MNIST (libtorch's): the four IDX files of MNIST (or any data in that format)
/// under a root directory. Images are float32 [N, 1, rows, cols] scaled to [0, 1], targets
/// int64 [N]. Unlike libtorch's, any count, row and column size the headers state is
/// accepted; each file is checked (magic number, header against file size, images against
/// labels) and an error names the file and what was wrong.

#include <cstddef>
#include <optional>
#include <string>

#include "ember/data/datasets/base.h"
#include "ember/export.h"
#include "ember/tensor.h"

namespace ember::data::datasets {

class EMBER_API MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  /// Reads train-images-idx3-ubyte and train-labels-idx1-ubyte (kTrain) or the t10k-
  /// files (kTest) in `root`. IOError when a file cannot be read, InvalidArgument when one
  /// is not a valid IDX file or the two disagree.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;

  bool is_train() const noexcept { return train_; }
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_, targets_;
  bool train_;
};

/// The IDX parsers behind MNIST, on bytes in memory; `name` is used in error messages.
/// Images: magic 2051, count, rows, cols (big-endian), then count*rows*cols bytes; returned
/// as uint8 [count, 1, rows, cols]. Labels: magic 2049, count, then count bytes; uint8 [count].
EMBER_API Tensor read_idx_images(const unsigned char* data, size_t size, const std::string& name);
EMBER_API Tensor read_idx_labels(const unsigned char* data, size_t size, const std::string& name);

}  // namespace ember::data::datasets
