#pragma once
// Renders an audit as a human table with totals, or as JSON (docs/audit.md describes both).
#include <nlohmann/json.hpp>

#include <string>

#include "audit/audit.h"

namespace kf::audit {

struct AuditTotals {
  int problems = 0;                    // audited without error
  int errors = 0;                      // could not be audited
  int rows = 0;                        // (problem, output, trivial) combinations checked
  std::vector<int> allclose_problems;  // per tolerance: problems where some trivial output passes
  std::vector<int> allclose_rows;      // per tolerance: rows that pass
  int kforge_problems = 0;
  int kforge_rows = 0;
  // Per tolerance: names of the problems where allclose is fooled (it accepts a trivial output that is wrong)
  // and of the degenerate ones (a trivial output it accepts is itself correct); disjoint.
  std::vector<std::vector<std::string>> allclose_fooled, allclose_degenerate;
  std::vector<std::string> kforge_degenerate;  // kforge admits a trivial output only when it is itself correct
};
AuditTotals totals(const AuditReport& report);

// "1e-2" for powers of ten, else the shortest %g form.
std::string format_tolerance(double tolerance);

std::string render_table(const AuditReport& report);
nlohmann::json to_json(const AuditReport& report);

}  // namespace kf::audit
