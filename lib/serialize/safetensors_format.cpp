// Parsing and validating a safetensors header with nlohmann::json, following the checks of
// the format's reference implementation (huggingface/safetensors, Rust).
#include "serialize/safetensors_format.h"

#include <algorithm>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "core/check.h"

namespace ember::detail {

namespace {

struct DtypeName {
  const char* name;
  ScalarType type;
};
constexpr DtypeName kDtypes[] = {
    {"F64", kDouble}, {"F32", kFloat}, {"F16", kHalf},  {"BF16", kBFloat16}, {"I64", kInt64},
    {"I32", kInt32},  {"I16", kInt16}, {"I8", kInt8},   {"U8", kUInt8},      {"BOOL", kBool},
};

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

SafetensorsEntry parse_entry(const std::string& name, const nlohmann::json& v, const std::string& path) {
  EMBER_CHECK_ARG(v.is_object(), "load: '{}': tensor '{}': expected an object with dtype, shape and data_offsets, got {}",
                  path, name, v.type_name());
  SafetensorsEntry e;
  auto dt = v.find("dtype");
  EMBER_CHECK_ARG(dt != v.end() && dt->is_string(), "load: '{}': tensor '{}': missing or non-string \"dtype\"", path, name);
  const std::string& dname = dt->get_ref<const std::string&>();
  auto known = std::find_if(std::begin(kDtypes), std::end(kDtypes), [&](const DtypeName& d) { return dname == d.name; });
  EMBER_CHECK_ARG(known != std::end(kDtypes),
                  "load: '{}': tensor '{}': unsupported dtype '{}' (valid: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL)", path,
                  name, dname);
  e.dtype = known->type;

  auto sh = v.find("shape");
  EMBER_CHECK_ARG(sh != v.end() && sh->is_array(), "load: '{}': tensor '{}': missing or non-array \"shape\"", path, name);
  uint64_t numel = 1;
  for (const auto& d : *sh) {
    EMBER_CHECK_ARG(d.is_number_unsigned(), "load: '{}': tensor '{}': shape entries must be non-negative integers, got {}",
                    path, name, d.dump());
    uint64_t n = d.get<uint64_t>();
    EMBER_CHECK_ARG(n <= uint64_t(INT64_MAX) && !__builtin_mul_overflow(numel, n, &numel) && numel <= uint64_t(INT64_MAX),
                    "load: '{}': tensor '{}': shape {} has more elements than fit in int64", path, name, sh->dump());
    e.shape.push_back(int64_t(n));
  }
  auto off = v.find("data_offsets");
  EMBER_CHECK_ARG(off != v.end() && off->is_array() && off->size() == 2 && (*off)[0].is_number_unsigned() &&
                      (*off)[1].is_number_unsigned(),
                  "load: '{}': tensor '{}': \"data_offsets\" must be two non-negative integers [begin, end]", path, name);
  e.begin = (*off)[0].get<uint64_t>();
  e.end = (*off)[1].get<uint64_t>();
  EMBER_CHECK_ARG(e.begin <= e.end, "load: '{}': tensor '{}': data_offsets [{}, {}] end before they begin", path, name,
                  e.begin, e.end);
  uint64_t nbytes = 0;
  EMBER_CHECK_ARG(!__builtin_mul_overflow(numel, uint64_t(element_size(e.dtype)), &nbytes),
                  "load: '{}': tensor '{}': shape {} of {} overflows a byte size", path, name, shape_str(e.shape), dname);
  EMBER_CHECK_ARG(nbytes == e.end - e.begin,
                  "load: '{}': tensor '{}': shape {} of {} needs {} bytes but data_offsets [{}, {}] hold {}", path, name,
                  shape_str(e.shape), dname, nbytes, e.begin, e.end, e.end - e.begin);
  return e;
}

}  // namespace

const char* safetensors_dtype_name(ScalarType t) {
  for (const auto& d : kDtypes)
    if (d.type == t) return d.name;
  return "?";
}

SafetensorsHeader parse_safetensors(const unsigned char* data, size_t size, const std::string& path) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian");
  // A safetensors file never starts so (its first 8 bytes, the header length, would be far
  // over the limit), so a zip archive is named as such rather than as a bad header length.
  EMBER_CHECK_TYPED(size < 4 || std::memcmp(data, "PK\x03\x04", 4) != 0, NotImplemented,
                    "load: '{}' is a zip archive (the format of libtorch's torch::save and PyTorch's torch.save), "
                    "which ember does not read; ember reads safetensors. Convert it in Python with "
                    "safetensors.torch.save_file(torch.load(path), out) for a saved state dict, or "
                    "safetensors.torch.save_file(torch.jit.load(path).state_dict(), out) for a libtorch module archive",
                    path);
  EMBER_CHECK_ARG(size >= 8, "load: '{}': file of {} bytes is too short for the 8-byte header length", path, size);
  uint64_t n = 0;
  std::memcpy(&n, data, 8);
  EMBER_CHECK_ARG(n <= kMaxSafetensorsHeader, "load: '{}': header length {} exceeds the limit of {} bytes", path, n,
                  kMaxSafetensorsHeader);
  EMBER_CHECK_ARG(n <= size - 8, "load: '{}': header length {} runs past the end of the file ({} bytes after the length)",
                  path, n, size - 8);
  SafetensorsHeader h;
  h.data_start = 8 + n;

  // nlohmann keeps the last of duplicate keys silently: the callback sees every top-level key.
  std::set<std::string> seen;
  std::string duplicate;
  auto on_event = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    if (ev == nlohmann::json::parse_event_t::key && depth == 1 && !seen.insert(parsed.get<std::string>()).second &&
        duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  const char* text = reinterpret_cast<const char*>(data + 8);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, text + n, on_event);
  } catch (const nlohmann::json::exception& e) {
    EMBER_THROW(InvalidArgument, "load: '{}': header is not valid JSON: {}", path, e.what());
  }
  EMBER_CHECK_ARG(j.is_object(), "load: '{}': header must be a JSON object, got {}", path, j.type_name());
  EMBER_CHECK_ARG(duplicate.empty(), "load: '{}': tensor '{}' appears twice in the header", path, duplicate);

  std::vector<std::pair<const std::string*, const SafetensorsEntry*>> order;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") {
      EMBER_CHECK_ARG(it->is_object(), "load: '{}': \"__metadata__\" must map strings to strings, got {}", path,
                      it->type_name());
      for (auto m = it->begin(); m != it->end(); ++m) {
        EMBER_CHECK_ARG(m->is_string(), "load: '{}': \"__metadata__\" value of '{}' must be a string, got {}", path,
                        m.key(), m->type_name());
        h.metadata.emplace(m.key(), m->get<std::string>());
      }
      continue;
    }
    auto ins = h.entries.emplace(it.key(), parse_entry(it.key(), *it, path));
    order.emplace_back(&ins.first->first, &ins.first->second);
  }
  // Ranges sorted by begin must tile the data section exactly: from 0, no gap, no overlap.
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->begin != b.second->begin ? a.second->begin < b.second->begin : a.second->end < b.second->end;
  });
  uint64_t at = 0;
  for (const auto& [name, e] : order) {
    EMBER_CHECK_ARG(e->begin == at,
                    "load: '{}': tensor '{}': data_offsets [{}, {}] {} (the ranges sorted by begin must start at 0 and "
                    "leave no gap; expected begin {})",
                    path, *name, e->begin, e->end, e->begin < at ? "overlap the previous tensor" : "leave a gap", at);
    at = e->end;
  }
  const uint64_t data_bytes = size - h.data_start;
  EMBER_CHECK_ARG(at == data_bytes, "load: '{}': tensor data ends at byte {} but the file holds {} data bytes ({})", path, at,
                  data_bytes, at < data_bytes ? "trailing bytes" : "truncated file");
  return h;
}

}  // namespace ember::detail
