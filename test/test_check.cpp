// The public check and warning macros (ember/check.h), as libtorch's TORCH_CHECK,
// TORCH_WARN and TORCH_WARN_ONCE: message values, the default text, once per call site.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <string>
#include <vector>

using namespace ember;

namespace {

struct CaptureWarnings : WarningHandler {
  std::vector<std::string> messages;
  void process(const Warning& warning) override { messages.push_back(warning.msg()); }
};

std::string check_message(bool ok, int n) {
  try {
    EMBER_CHECK(ok, "expected ", 2, " dims, got ", n, " (", 1.5, ", ", std::string("x"), ")");
  } catch (const Error& e) {
    return e.what();
  }
  return "no throw";
}

void warn_once_helper(int i) { EMBER_WARN_ONCE("helper ", i); }

}  // namespace

TEST_CASE("check: ember::str joins pieces with operator<< as c10::str") {
  CHECK(ember::str().empty());
  CHECK(ember::str("a", 1, 'c', 2.5, true) == "a1c2.51");
  CHECK(ember::str(std::string("size "), int64_t(-3)) == "size -3");
  CHECK_THAT(ember::str(tensor({1, 2})), Catch::Contains("[ CPULongType{2} ]"));
}

TEST_CASE("check: EMBER_CHECK throws ember::Error with the joined message") {
  CHECK(check_message(true, 3) == "no throw");
  CHECK(check_message(false, 3) == "expected 2 dims, got 3 (1.5, x)");
  auto lone = [] { EMBER_CHECK(1 + 1 == 3, "lone C string"); };
  CHECK_THROWS_AS(lone(), Error);
  CHECK_THROWS_WITH(lone(), "lone C string");
  // A passing check does not build its message.
  int built = 0;
  auto piece = [&] {
    ++built;
    return "piece";
  };
  EMBER_CHECK(built == 0, piece());
  CHECK(built == 0);
  // Not a subclass: exactly ember::Error, which is a std::runtime_error.
  try {
    EMBER_CHECK(false, "x");
  } catch (const InvalidArgument&) {
    FAIL("EMBER_CHECK threw InvalidArgument");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "x");
  }
}

TEST_CASE("check: EMBER_CHECK without a message uses libtorch's default text") {
  const int n = 3;
  CHECK_THROWS_WITH([&] { EMBER_CHECK(n > 5); }(),
                    "Expected n > 5 to be true, but got false.  (Could this error message be improved?  If so, "
                    "please report an enhancement request to PyTorch.)");
}

TEST_CASE("check: EMBER_WARN reports the joined message to the thread's WarningHandler") {
  CaptureWarnings capture;
  WarningUtils::WarningHandlerGuard guard(&capture);
  EMBER_WARN("learning rate ", 0.5, " is large");
  EMBER_WARN("plain");
  CHECK(capture.messages == std::vector<std::string>{"learning rate 0.5 is large", "plain"});
}

TEST_CASE("check: EMBER_WARN_ONCE warns once per call site; set_warnAlways makes it warn each time") {
  CaptureWarnings capture;
  WarningUtils::WarningHandlerGuard guard(&capture);
  for (int i = 0; i < 5; ++i) EMBER_WARN_ONCE("loop ", i);
  for (int i = 0; i < 3; ++i) EMBER_WARN_ONCE("second site ", i);
  warn_once_helper(1);
  warn_once_helper(2);
  CHECK(capture.messages == std::vector<std::string>{"loop 0", "second site 0", "helper 1"});
  capture.messages.clear();
  {
    WarningUtils::WarnAlways always;
    CHECK(WarningUtils::get_warnAlways());
    for (int i = 0; i < 3; ++i) EMBER_WARN_ONCE("always ", i);
    warn_once_helper(3);
  }
  CHECK(!WarningUtils::get_warnAlways());
  warn_once_helper(4);
  CHECK(capture.messages == std::vector<std::string>{"always 0", "always 1", "always 2", "helper 3"});
}
