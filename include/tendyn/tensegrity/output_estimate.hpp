// Up-front estimates of what a run writes to files and holds in memory, so that a run that would
// fill the disk or the memory is refused before it starts (the CLI's --max-output-mb and
// --max-memory-mb, docs/CLI.md "Outputs"). Estimates are upper bounds: every number is counted
// as kBytesPerNumber bytes (measured files are ~1.6x smaller) and rows/frames are rounded up.
#pragma once
#include <tendyn/io/output_estimate.hpp>
#include <tendyn/tensegrity/planner.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <string>

namespace tendyn::tensegrity {

using io::kBytesPerNumber;
using io::OutputEstimate;

/// `tendyn simulate`: results.csv (rows = floor(duration / output step) + 2, output step =
/// max(output_interval_s or dt_s, dt_s); columns: time, 7 per rod, 3 per node, 4 per cable, 8
/// summary columns) and scene.json, whose frames (floor(duration / max(frame_interval_s, output
/// step)) + 2, each 3 x (2 nrod + nnode) positions, 2 per cable, COM and energies) are also held
/// in memory (8 bytes per number). `files` false (--no-csv): nothing is estimated (zeros).
/// Never throws (non-positive or non-finite options give inf or nan bytes, which no budget admits).
OutputEstimate estimate_simulate_output(const Model& model, const SimulationOptions& options, double frame_interval_s, bool files);

/// `tendyn plan`: schedule.csv (nperiod + 2 rows of 1 + 2 m + 4 columns, m drive cables,
/// nperiod = plan_nperiod(options)), planned.yaml (the model plus the schedule as table drives:
/// (nperiod + 1) or, with ramp_fraction < 1 or a step increment, (2 nperiod + 1) knots of 2 numbers per drive cable,
/// plus 32 numbers per rod, node and cable for the model itself) and scene.json of the replay
/// (the simulate estimate for duration nperiod x period_s with `replay` and frame_interval_s,
/// plus one path-error value per frame). Memory: the replay's frames as for simulate, plus the
/// rollouts kept at once (3^m candidates for kExhaustive, (1 + beam_width) 3^m for kLookahead, 2m (1 + max_rounds) + 1 + screen_count for kScreened, 2m
/// for kCoordinateSearch), each an end state of 13 nrod numbers plus 3 cable flags per cable and
/// 64 bytes of bookkeeping. Never throws.
OutputEstimate estimate_plan_output(const Model& model, const PlannerOptions& options, const SimulationOptions& replay,
                                    double frame_interval_s);

}  // namespace tendyn::tensegrity
