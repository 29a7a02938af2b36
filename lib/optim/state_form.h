#pragma once
// Pieces of Optimizer::state_tensors()'s flat form ("param_groups.<g>.<option>",
// "state.<g>.<i>.<field>"), shared by state_tensors() and the readers of libtorch's
// pre-1.5 optimizer archives.

#include <initializer_list>
#include <map>
#include <string>

#include "ember/optim/optimizer.h"
#include "ember/serialize/archive.h"

namespace ember::optim::detail {

/// Every group's "param_groups.<g>.size" and its options' current values.
std::map<std::string, Tensor> group_entries(const std::vector<OptimizerParamGroup>& groups);

/// A pre-1.5 per-parameter list: entry i of archive list `key` is field `field` of the first
/// group's parameter i.
struct LegacyList {
  const char* key;
  const char* field;
};

/// libtorch's warning on loading a pre-1.5 archive: "Your serialized <optimizer> optimizer is
/// still using the old serialization format. <lost>You should re-save ...".
void warn_legacy_format(const char* optimizer, const char* lost = "");

/// group_entries() plus "state.0.<i>.<field>" for every entry of each list, read with
/// optim::serialize (a missing list is the archive's error naming it).
std::map<std::string, Tensor> legacy_lists_state(const std::vector<OptimizerParamGroup>& groups,
                                                 serialize::InputArchive& archive,
                                                 std::initializer_list<LegacyList> lists);

}  // namespace ember::optim::detail
