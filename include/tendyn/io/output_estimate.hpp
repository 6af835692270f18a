// What a run will write and hold in memory, estimated before it starts (the CLI's --max-output-mb
// and --max-memory-mb, docs/CLI.md "Outputs"). Each module computes its own estimates
// (tensegrity/output_estimate.hpp, tree::estimate_simulate_output); this is their common type.
#pragma once
#include <string>

namespace tendyn::io {

/// Bytes per number in the CSV files and scene.json: "%.12g" of a signed value with its separator
/// (e.g. "-0.123456789012," is 16; exponents make it up to 20).
inline constexpr double kBytesPerNumber = 18.0;

struct OutputEstimate {
  double output_bytes = 0.0;  ///< files written by the run [bytes]
  double memory_bytes = 0.0;  ///< data recorded in memory during the run [bytes]
  std::string output_what;    ///< the output estimate in words ("1e+05 rows x 84 columns of results.csv and ...")
  std::string memory_what;    ///< the memory estimate in words
};

}  // namespace tendyn::io
