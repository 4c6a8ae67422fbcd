// The op filter: ops it lists run on the CPU while the rest stay on the device under test. An
// entry names an op kind, optionally one phase and some shape parameters:
//   ssm_conv                      every ssm_conv
//   ssm_conv@prompt               ssm_conv of prompt batches only
//   ssm_conv@prompt:channels=1024 ... and only with 1024 channels
//   matmul:type=q4_k:rows=2048    parameters joined by ':' (op_call.h lists each kind's)
// A list separates entries with commas, spaces or newlines; in a file, '#' starts a comment.
// `none` is the empty filter.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/op_call.h"

namespace kz {

struct OpFilterEntry {
  std::string kind;
  std::optional<Phase> phase;  // none: both phases
  std::vector<std::pair<std::string, std::string>> params;

  bool matches(const OpShape& shape) const;
  std::string to_string() const;
  // The entry that matches exactly this shape.
  static OpFilterEntry of(const OpShape& shape);
};

class OpFilter {
 public:
  // Throws kz::Error naming the entry at fault and why ("unknown op kind 'ssm_con'").
  static OpFilter parse(std::string_view text);
  // `list_or_file`: the path of an existing file holding a filter, else a list as above.
  static OpFilter from_arg(const std::string& list_or_file);
  // Writes one entry a line after `header` (each line a comment), through a temporary file
  // renamed into place; throws kz::Error naming the file if it cannot.
  void save(const std::string& path, const std::string& header) const;

  bool matches(const OpShape& shape) const;
  bool empty() const { return entries_.empty(); }
  void add(OpFilterEntry e);
  const std::vector<OpFilterEntry>& entries() const { return entries_; }
  // Entries joined by ',' ("none" when empty): how run and bench print the filter in force.
  std::string to_string() const;

 private:
  std::vector<OpFilterEntry> entries_;
};

}  // namespace kz
