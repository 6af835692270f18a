// `tendyn sweep --spec FILE`: runs the parameter grid of a sweep spec (YAML or JSON) on threads and
// appends one JSON line {"index", "point", "result"} per point to the spec's `out` file; points
// already there are skipped (resume). Spec keys as in tendyn.sweep (Python): model ("prism" or a
// model file), prism (PrismParams field names, psi_deg, damping_law), simulation
// (SimulationOptions field names), grid (name -> list; Cartesian product, first name slowest),
// out, threads. `out_override` (from -o DIR: DIR/results.jsonl), when not empty, replaces the spec's
// `out`. "never" (no slack, no over-strain) is null in the records. Throws tendyn::Error naming the
// file and field on a bad spec.
#pragma once
#include <cstddef>
#include <string>

namespace tendyn::cli {
void run_sweep_spec(const std::string& path, int threads, bool quiet, const std::string& out_override = "");
/// Reads and checks a spec without running it (entry point of fuzz/sweep_spec_fuzz.cpp): `text` is
/// the spec file's content (`name` stands for the file in messages); the grid is expanded and each
/// point's model and options built as run_sweep_spec does (a `model:` file is read); nothing is
/// simulated or written. Returns the number of grid points. Throws tendyn::Error on a bad spec.
std::size_t check_sweep_spec(const std::string& text, const std::string& name);
}
