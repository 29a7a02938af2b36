#pragma once
/// ember's error types (API.md section 2). Every error derives from ember::Error.

#include <stdexcept>
#include <string>

#include "ember/export.h"

namespace ember {

/// Base of every ember error; what() holds the whole message.
class EMBER_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
  /// libtorch's name for the message (ember's errors carry no backtrace).
  const char* what_without_backtrace() const noexcept { return what(); }
  const char* msg() const noexcept { return what(); }
};

/// Bad device string, shape, dtype, dim or index; a device that does not exist.
class EMBER_API InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// No kernel for (op, device type, dtype); the message lists where the op is available.
class EMBER_API NotImplemented : public Error {
 public:
  using Error::Error;
};

/// An allocator could not satisfy a request within its limit.
class EMBER_API OutOfMemory : public Error {
 public:
  using Error::Error;
};

/// A backend (CUDA, cuBLAS, a user backend) reported a failure.
class EMBER_API DeviceError : public Error {
 public:
  using Error::Error;
};

/// A file could not be opened, mapped, written, synced or renamed; the message names the
/// file and holds the operating system's reason.
class EMBER_API IOError : public Error {
 public:
  using Error::Error;
};

}  // namespace ember
