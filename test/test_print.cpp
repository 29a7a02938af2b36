// Printing: the text of operator<< compared with libtorch 1.13's own output for the same
// tensors (every dtype and rank, scale factors, column blocks, NaN/inf), which was
// captured once by running the same expressions through libtorch and stored here.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <cmath>
#include <iomanip>
#include <sstream>

using namespace ember;

namespace {

std::string printed(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

struct PrintCase {
  const char* name;
  Tensor (*make)();
  const char* libtorch_text;
};

// Each expression reads the same in ember and libtorch; the text is libtorch's output.
const PrintCase kCases[] = {
    {"0-dim float", [] { return full({}, 3.5); },
     "3.5\n"
     "[ CPUFloatType{} ]"},
    {"0-dim float needing a scale", [] { return full({}, 1e-10); },
     "1e-10\n"
     "[ CPUFloatType{} ]"},
    {"0-dim large float", [] { return full({}, 123456789.f); },
     "1.23457e+08\n"
     "[ CPUFloatType{} ]"},
    {"0-dim negative zero", [] { return full({}, -0.0); },
     "-0\n"
     "[ CPUFloatType{} ]"},
    {"0-dim nan", [] { return full({}, NAN); },
     "nan\n"
     "[ CPUFloatType{} ]"},
    {"0-dim double", [] { return full({}, 0.1, kDouble); },
     "0.1\n"
     "[ CPUDoubleType{} ]"},
    {"0-dim half", [] { return full({}, 0.1, kHalf); },
     "0.0999756\n"
     "[ CPUHalfType{} ]"},
    {"0-dim int64", [] { return full({}, 7); },
     "7\n"
     "[ CPULongType{} ]"},
    {"0-dim bool", [] { return full({}, true); },
     "1\n"
     "[ CPUBoolType{} ]"},
    {"1-D float", [] { return tensor({1.5, 2.25, -3.0}); },
     " 1.5000\n"
     " 2.2500\n"
     "-3.0000\n"
     "[ CPUFloatType{3} ]"},
    {"1-D small magnitudes", [] { return tensor({0.00012, 0.00034}); },
     "0.0001 *\n"
     " 1.2000\n"
     " 3.4000\n"
     "[ CPUFloatType{2} ]"},
    {"1-D tiny magnitudes", [] { return tensor({1e-10, 3e-10}); },
     "1e-10 *\n"
     " 1.0000\n"
     " 3.0000\n"
     "[ CPUFloatType{2} ]"},
    {"1-D large float", [] { return tensor({123456789.0}); },
     "1.23457e+08\n"
     "[ CPUFloatType{1} ]"},
    {"1-D large floats", [] { return tensor({123456789.0, 1.0}); },
     "1.23457e+08\n"
     "         1\n"
     "[ CPUFloatType{2} ]"},
    {"1-D integral floats", [] { return tensor({1.0, 2.0, -3.0}); },
     " 1\n"
     " 2\n"
     "-3\n"
     "[ CPUFloatType{3} ]"},
    {"1-D integral floats, 9 digits", [] { return tensor({100000000.0, 1.0}); },
     "     1e+08\n"
     "         1\n"
     "[ CPUFloatType{2} ]"},
    {"1-D scale above 1e5", [] { return tensor({100000.5, 2.0}); },
     " 1.0000e+05\n"
     " 2.0000e+00\n"
     "[ CPUFloatType{2} ]"},
    {"1-D wide range", [] { return tensor({1e-5, 1e5}); },
     " 1.0000e-05\n"
     " 1.0000e+05\n"
     "[ CPUFloatType{2} ]"},
    {"1-D nan and inf", [] { return tensor({double(NAN), double(INFINITY), -double(INFINITY), 1.5}); },
     "    nan\n"
     "    inf\n"
     "   -inf\n"
     " 1.5000\n"
     "[ CPUFloatType{4} ]"},
    {"1-D only nan", [] { return tensor({double(NAN), double(NAN)}); },
     "nan\n"
     "nan\n"
     "[ CPUFloatType{2} ]"},
    {"1-D only inf", [] { return tensor({double(INFINITY), -double(INFINITY)}); },
     "inf\n"
     "-inf\n"
     "[ CPUFloatType{2} ]"},
    {"1-D integral with inf", [] { return tensor({double(INFINITY), 2.0}); },
     "inf\n"
     " 2\n"
     "[ CPUFloatType{2} ]"},
    {"1-D negative zero", [] { return tensor({-0.0, 1.5}); },
     "-0.0000\n"
     " 1.5000\n"
     "[ CPUFloatType{2} ]"},
    {"1-D negative zero integral", [] { return tensor({-0.0, 1.0}); },
     "-0\n"
     " 1\n"
     "[ CPUFloatType{2} ]"},
    {"1-D negative magnitude after a positive", [] { return tensor({1.5, -100.25}); },
     " 1.5000\n"
     "-100.2500\n"
     "[ CPUFloatType{2} ]"},
    {"1-D negative magnitude first", [] { return tensor({-100.25, 1.5}); },
     "-100.2500\n"
     "   1.5000\n"
     "[ CPUFloatType{2} ]"},
    {"1-D zeros", [] { return zeros({3}); },
     " 0\n"
     " 0\n"
     " 0\n"
     "[ CPUFloatType{3} ]"},
    {"1-D double wide exponents", [] { return tensor({1e100, 1.0}, kDouble); },
     "1.0000e+100\n"
     " 1.0000e+00\n"
     "[ CPUDoubleType{2} ]"},
    {"1-D double small", [] { return tensor({1.5e-7, 2.5e-7}, kDouble); },
     "1e-07 *\n"
     " 1.5000\n"
     " 2.5000\n"
     "[ CPUDoubleType{2} ]"},
    {"1-D empty", [] { return zeros({0}); },
     "[ CPUFloatType{0} ]"},
    {"1-D int64", [] { return tensor({1, -20, 300}); },
     "   1\n"
     " -20\n"
     " 300\n"
     "[ CPULongType{3} ]"},
    {"1-D bool", [] { return tensor({true, false, true}); },
     " 1\n"
     " 0\n"
     " 1\n"
     "[ CPUBoolType{3} ]"},
    {"2-D float", [] { return arange(6, kFloat).reshape({2, 3}) / 7; },
     " 0.0000  0.1429  0.2857\n"
     " 0.4286  0.5714  0.7143\n"
     "[ CPUFloatType{2,3} ]"},
    {"2-D with scale", [] { return arange(6, kFloat).reshape({2, 3}) * 1e-5; },
     "1e-05 *\n"
     " 0.0000  1.0000  2.0000\n"
     "  3.0000  4.0000  5.0000\n"
     "[ CPUFloatType{2,3} ]"},
    {"2-D large", [] { return arange(6, kFloat).reshape({2, 3}) * 1e6 + 0.5; },
     " 5.0000e-01  1.0000e+06  2.0000e+06\n"
     " 3.0000e+06  4.0000e+06  5.0000e+06\n"
     "[ CPUFloatType{2,3} ]"},
    {"2-D scientific", [] { return tensor({1e-3, 1e3, 5.0, 7.0}).reshape({2, 2}); },
     " 1.0000e-03  1.0000e+03\n"
     " 5.0000e+00  7.0000e+00\n"
     "[ CPUFloatType{2,2} ]"},
    {"2-D wide", [] { return arange(30, kFloat).reshape({2, 15}) / 3; },
     "Columns 1 to 10 0.0000  0.3333  0.6667  1.0000  1.3333  1.6667  2.0000  2.3333  2.6667  3.0000\n"
     " 5.0000  5.3333  5.6667  6.0000  6.3333  6.6667  7.0000  7.3333  7.6667  8.0000\n"
     "\n"
     "Columns 11 to 15 3.3333  3.6667  4.0000  4.3333  4.6667\n"
     " 8.3333  8.6667  9.0000  9.3333  9.6667\n"
     "[ CPUFloatType{2,15} ]"},
    {"2-D wide with scale", [] { return arange(40, kFloat).reshape({2, 20}) * 1e-5 + 1e-6; },
     "Columns 1 to 100.0001 *\n"
     " 0.0100  0.1100  0.2100  0.3100  0.4100  0.5100  0.6100  0.7100  0.8100  0.9100\n"
     "  2.0100  2.1100  2.2100  2.3100  2.4100  2.5100  2.6100  2.7100  2.8100  2.9100\n"
     "\n"
     "Columns 11 to 200.0001 *\n"
     " 1.0100  1.1100  1.2100  1.3100  1.4100  1.5100  1.6100  1.7100  1.8100  1.9100\n"
     "  3.0100  3.1100  3.2100  3.3100  3.4100  3.5100  3.6100  3.7100  3.8100  3.9100\n"
     "[ CPUFloatType{2,20} ]"},
    {"2-D wide scientific", [] { return tensor({1e-4, 2e4, 3e-4, 4e4, 5e-4, 6e4, 7e-4, 8e4, 9e-4, 1e5, 1.1e-3, 1.2e5, 1.3e-3, 1.4e5, 1.5e-3, 1.6e5}).reshape({2, 8}); },
     "Columns 1 to 6 1.0000e-04  2.0000e+04  3.0000e-04  4.0000e+04  5.0000e-04  6.0000e+04\n"
     " 9.0000e-04  1.0000e+05  1.1000e-03  1.2000e+05  1.3000e-03  1.4000e+05\n"
     "\n"
     "Columns 7 to 8 7.0000e-04  8.0000e+04\n"
     " 1.5000e-03  1.6000e+05\n"
     "[ CPUFloatType{2,8} ]"},
    {"2-D wide int64", [] { return arange(60).reshape({2, 30}); },
     "Columns 1 to 20  0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16  17  18  19\n"
     " 30  31  32  33  34  35  36  37  38  39  40  41  42  43  44  45  46  47  48  49\n"
     "\n"
     "Columns 21 to 30 20  21  22  23  24  25  26  27  28  29\n"
     " 50  51  52  53  54  55  56  57  58  59\n"
     "[ CPULongType{2,30} ]"},
    {"2-D exactly 80 columns", [] { return arange(20, kFloat).reshape({2, 10}) / 3; },
     " 0.0000  0.3333  0.6667  1.0000  1.3333  1.6667  2.0000  2.3333  2.6667  3.0000\n"
     " 3.3333  3.6667  4.0000  4.3333  4.6667  5.0000  5.3333  5.6667  6.0000  6.3333\n"
     "[ CPUFloatType{2,10} ]"},
    {"2-D one column", [] { return arange(3, kFloat).reshape({3, 1}) / 3; },
     " 0.0000\n"
     " 0.3333\n"
     " 0.6667\n"
     "[ CPUFloatType{3,1} ]"},
    {"2-D empty rows", [] { return zeros({0, 3}); },
     "[ CPUFloatType{0,3} ]"},
    {"2-D empty cols", [] { return zeros({2, 0}); },
     "[ CPUFloatType{2,0} ]"},
    {"3-D float", [] { return arange(24, kFloat).reshape({2, 3, 4}) / 7; },
     "(1,.,.) = \n"
     "  0.0000  0.1429  0.2857  0.4286\n"
     "  0.5714  0.7143  0.8571  1.0000\n"
     "  1.1429  1.2857  1.4286  1.5714\n"
     "\n"
     "(2,.,.) = \n"
     "  1.7143  1.8571  2.0000  2.1429\n"
     "  2.2857  2.4286  2.5714  2.7143\n"
     "  2.8571  3.0000  3.1429  3.2857\n"
     "[ CPUFloatType{2,3,4} ]"},
    {"3-D int64", [] { return arange(12).reshape({3, 2, 2}); },
     "(1,.,.) = \n"
     "  0  1\n"
     "  2  3\n"
     "\n"
     "(2,.,.) = \n"
     "  4  5\n"
     "  6  7\n"
     "\n"
     "(3,.,.) = \n"
     "   8   9\n"
     "  10  11\n"
     "[ CPULongType{3,2,2} ]"},
    {"3-D magnitudes differ per matrix", [] { return tensor({0.5, 1.5, 2.5, 3.5, 1000.5, 2000.5, 3000.5, 4000.5}).reshape({2, 2, 2}); },
     "(1,.,.) = \n"
     "  0.5000  1.5000\n"
     "  2.5000  3.5000\n"
     "\n"
     "(2,.,.) = \n"
     "  1000.5000  2000.5000\n"
     "  3000.5000  4000.5000\n"
     "[ CPUFloatType{2,2,2} ]"},
    {"3-D scale per matrix", [] { return tensor({1e-5, 2e-5, 3e-5, 4e-5, 1.5, 2.5, 3.5, 4.5}).reshape({2, 2, 2}); },
     "(1,.,.) = \n"
     " 1e-05 *\n"
     "  1.0000  2.0000\n"
     "   3.0000  4.0000\n"
     "\n"
     "(2,.,.) = \n"
     "  1.5000  2.5000\n"
     "  3.5000  4.5000\n"
     "[ CPUFloatType{2,2,2} ]"},
    {"3-D wide", [] { return arange(100, kFloat).reshape({2, 2, 25}) / 3; },
     "(1,.,.) = \n"
     " Columns 1 to 8   0.0000   0.3333   0.6667   1.0000   1.3333   1.6667   2.0000   2.3333\n"
     "   8.3333   8.6667   9.0000   9.3333   9.6667  10.0000  10.3333  10.6667\n"
     "\n"
     "Columns 9 to 16   2.6667   3.0000   3.3333   3.6667   4.0000   4.3333   4.6667   5.0000\n"
     "  11.0000  11.3333  11.6667  12.0000  12.3333  12.6667  13.0000  13.3333\n"
     "\n"
     "Columns 17 to 24   5.3333   5.6667   6.0000   6.3333   6.6667   7.0000   7.3333   7.6667\n"
     "  13.6667  14.0000  14.3333  14.6667  15.0000  15.3333  15.6667  16.0000\n"
     "\n"
     "Columns 25 to 25   8.0000\n"
     "  16.3333\n"
     "\n"
     "(2,.,.) = \n"
     " Columns 1 to 8  16.6667  17.0000  17.3333  17.6667  18.0000  18.3333  18.6667  19.0000\n"
     "  25.0000  25.3333  25.6667  26.0000  26.3333  26.6667  27.0000  27.3333\n"
     "\n"
     "Columns 9 to 16  19.3333  19.6667  20.0000  20.3333  20.6667  21.0000  21.3333  21.6667\n"
     "  27.6667  28.0000  28.3333  28.6667  29.0000  29.3333  29.6667  30.0000\n"
     "\n"
     "Columns 17 to 24  22.0000  22.3333  22.6667  23.0000  23.3333  23.6667  24.0000  24.3333\n"
     "  30.3333  30.6667  31.0000  31.3333  31.6667  32.0000  32.3333  32.6667\n"
     "\n"
     "Columns 25 to 25  24.6667\n"
     "  33.0000\n"
     "[ CPUFloatType{2,2,25} ]"},
    {"3-D wide with scale", [] { return arange(48, kFloat).reshape({2, 2, 12}) * 1e-6 + 1e-7; },
     "(1,.,.) = \n"
     " Columns 1 to 9 1e-05 *\n"
     "  0.0100  0.1100  0.2100  0.3100  0.4100  0.5100  0.6100  0.7100  0.8100\n"
     "   1.2100  1.3100  1.4100  1.5100  1.6100  1.7100  1.8100  1.9100  2.0100\n"
     "\n"
     "Columns 10 to 12 1e-05 *\n"
     "  0.9100  1.0100  1.1100\n"
     "   2.1100  2.2100  2.3100\n"
     "\n"
     "(2,.,.) = \n"
     " Columns 1 to 9 1e-05 *\n"
     "  2.4100  2.5100  2.6100  2.7100  2.8100  2.9100  3.0100  3.1100  3.2100\n"
     "   3.6100  3.7100  3.8100  3.9100  4.0100  4.1100  4.2100  4.3100  4.4100\n"
     "\n"
     "Columns 10 to 12 1e-05 *\n"
     "  3.3100  3.4100  3.5100\n"
     "   4.5100  4.6100  4.7100\n"
     "[ CPUFloatType{2,2,12} ]"},
    {"3-D empty", [] { return zeros({2, 0, 3}); },
     "[ CPUFloatType{2,0,3} ]"},
    {"4-D", [] { return arange(24, kFloat).reshape({2, 3, 2, 2}) / 2; },
     "(1,1,.,.) = \n"
     "  0.0000  0.5000\n"
     "  1.0000  1.5000\n"
     "\n"
     "(2,1,.,.) = \n"
     "  6.0000  6.5000\n"
     "  7.0000  7.5000\n"
     "\n"
     "(1,2,.,.) = \n"
     "  2.0000  2.5000\n"
     "  3.0000  3.5000\n"
     "\n"
     "(2,2,.,.) = \n"
     "  8.0000  8.5000\n"
     "  9.0000  9.5000\n"
     "\n"
     "(1,3,.,.) = \n"
     "  4.0000  4.5000\n"
     "  5.0000  5.5000\n"
     "\n"
     "(2,3,.,.) = \n"
     "  10.0000  10.5000\n"
     "  11.0000  11.5000\n"
     "[ CPUFloatType{2,3,2,2} ]"},
    {"5-D", [] { return arange(16).reshape({2, 2, 2, 1, 2}); },
     "(1,1,1,.,.) = \n"
     "  0  1\n"
     "\n"
     "(2,1,1,.,.) = \n"
     "  8  9\n"
     "\n"
     "(1,2,1,.,.) = \n"
     "  4  5\n"
     "\n"
     "(2,2,1,.,.) = \n"
     "  12  13\n"
     "\n"
     "(1,1,2,.,.) = \n"
     "  2  3\n"
     "\n"
     "(2,1,2,.,.) = \n"
     "  10  11\n"
     "\n"
     "(1,2,2,.,.) = \n"
     "  6  7\n"
     "\n"
     "(2,2,2,.,.) = \n"
     "  14  15\n"
     "[ CPULongType{2,2,2,1,2} ]"},
    {"half", [] { return (arange(6, kFloat).reshape({2, 3}) / 7).to(kHalf); },
     " 0.0000  0.1428  0.2856\n"
     " 0.4285  0.5713  0.7144\n"
     "[ CPUHalfType{2,3} ]"},
    {"bfloat16", [] { return (arange(6, kFloat).reshape({2, 3}) / 7).to(kBFloat16); },
     " 0.0000  0.1426  0.2852\n"
     " 0.4277  0.5703  0.7148\n"
     "[ CPUBFloat16Type{2,3} ]"},
    {"double", [] { return arange(6, kDouble).reshape({2, 3}) / 7; },
     " 0.0000  0.1429  0.2857\n"
     " 0.4286  0.5714  0.7143\n"
     "[ CPUDoubleType{2,3} ]"},
    {"bool", [] { return tensor({true, false, false, true}).reshape({2, 2}); },
     " 1  0\n"
     " 0  1\n"
     "[ CPUBoolType{2,2} ]"},
    {"uint8", [] { return arange(6, kUInt8).reshape({2, 3}); },
     " 0  1  2\n"
     " 3  4  5\n"
     "[ CPUByteType{2,3} ]"},
    {"int8", [] { return (arange(6, kInt8) - 3).reshape({2, 3}); },
     "-3 -2 -1\n"
     " 0  1  2\n"
     "[ CPUCharType{2,3} ]"},
    {"int16", [] { return (arange(6, kInt16) * 100).reshape({2, 3}); },
     "   0  100  200\n"
     " 300  400  500\n"
     "[ CPUShortType{2,3} ]"},
    {"int32", [] { return (arange(6, kInt32) * -1000).reshape({3, 2}); },
     " 0 -1000\n"
     "-2000 -3000\n"
     "-4000 -5000\n"
     "[ CPUIntType{3,2} ]"},
    {"int64 negative after positive", [] { return tensor({5, -100}); },
     " 5\n"
     "-100\n"
     "[ CPULongType{2} ]"},
    {"half 3-D with nan", [] { return tensor({1.5, double(NAN), -2.0, double(INFINITY)}).reshape({1, 2, 2}).to(kHalf); },
     "(1,.,.) = \n"
     "  1.5000     nan\n"
     " -2.0000     inf\n"
     "[ CPUHalfType{1,2,2} ]"},
    {"non-contiguous", [] { return arange(6, kFloat).reshape({2, 3}).t() / 4; },
     " 0.0000  0.7500\n"
     " 0.2500  1.0000\n"
     " 0.5000  1.2500\n"
     "[ CPUFloatType{3,2} ]"},
};

}  // namespace

TEST_CASE("print: the text is libtorch's for every dtype and rank") {
  for (const PrintCase& c : kCases) {
    INFO(c.name);
    CHECK(printed(c.make()) == c.libtorch_text);
  }
}

TEST_CASE("print: integer dtypes print exact digits where libtorch rounds through double") {
  // libtorch prints these as 1.23457e+06 and 9.0072e+15 (ember's deliberate difference).
  CHECK(printed(tensor({1234567, 1})) == " 1234567\n       1\n[ CPULongType{2} ]");
  CHECK(printed(tensor({int64_t(9007199254740993), int64_t(-5)})) ==
        " 9007199254740993\n               -5\n[ CPULongType{2} ]");
  CHECK(printed(full({}, int64_t(9007199254740993))) == "9007199254740993\n[ CPULongType{} ]");
  CHECK(printed(tensor({INT64_MIN})) == "-9223372036854775808\n[ CPULongType{1} ]");
}

TEST_CASE("print: the stream's own settings are kept and restored") {
  std::ostringstream os;
  os << std::setprecision(3) << std::fixed;
  os << full({}, 0.123456789, kDouble) << ' ' << 0.5;
  // A 0-dim value uses the stream's precision in default notation, as in libtorch.
  CHECK(os.str() == "0.123\n[ CPUDoubleType{} ] 0.500");
  std::ostringstream filled;
  filled << std::setfill('*') << tensor({1.5, -2.0}) << std::setw(3) << 7;
  CHECK(filled.str() == "*1.5000\n-2.0000\n[ CPUFloatType{2} ]**7");
}

TEST_CASE("print: undefined and empty tensors") {
  CHECK(printed(Tensor()) == "[ Tensor (undefined) ]");
  CHECK(printed(zeros({0}, kInt32)) == "[ CPUIntType{0} ]");
  CHECK(printed(zeros({3, 0, 2}, kBool)) == "[ CPUBoolType{3,0,2} ]");
}
