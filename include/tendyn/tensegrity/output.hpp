// Result files of a tensegrity run: a per-output-step CSV and a summary JSON.
//
// CSV columns (one row per output time; units in the names):
//   t_s,
//   per rod R:   R.x_m R.y_m R.z_m R.qw R.qx R.qy R.qz
//   per node N:  N.x_m N.y_m N.z_m
//   per cable C: C.length_m C.strain C.tension_N C.slack
//                (C.force_N instead of C.tension_N under CableForceSign::kPaperLaw: the signed
//                axial force, > 0 pulls, which may then be negative; slack = the element carries
//                no force: l <= l0, or its damped force was clamped, model.hpp)
//   kinetic_J elastic_J gravitational_J external_J total_J com_x_m com_y_m com_z_m
// Numbers are printed with 12 significant digits by one fixed routine, so the same run gives
// byte-identical files.
#pragma once
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

/// The suffix of a cable's force column: ".tension_N" (CableForceSign::kClampTension, never
/// negative) or ".force_N" (kPaperLaw, signed).
const char* cable_force_column(const Model& model);

/// Observer writing the CSV described above through an AtomicFile: the file appears only when
/// commit() is called after a successful run.
class CsvWriter final : public Observer {
 public:
  CsvWriter(const Model& model, const std::filesystem::path& path);
  void on_output(const Model& model, const State& state, const Data& data, const Energy& energy) override;
  void commit() { file_.commit(); }
  [[nodiscard]] long rows() const { return rows_; }

 private:
  io::AtomicFile file_;
  std::string line_;
  long rows_ = 0;
};

/// Observer keeping the outputs in memory (for tests, bindings, sweeps).
class Recorder final : public Observer {
 public:
  void on_output(const Model& model, const State& state, const Data& data, const Energy& energy) override;
  std::vector<double> time_s;
  std::vector<Eigen::VectorXd> x;          ///< state at each output
  std::vector<Eigen::VectorXd> strain;     ///< (ncable) at each output
  std::vector<Eigen::VectorXd> tension_N;  ///< (ncable) at each output
  std::vector<Energy> energy;
  std::vector<Eigen::Vector3d> com_m;
  std::vector<Eigen::Matrix3Xd> p_W_node;  ///< (3 x nnode) node positions [m] at each output
};

/// Summary JSON text: model name and sizes, options, steps, wall time, energies (initial, final,
/// max drift), COM and momenta, normal-mode report with cable ids, final lengths/strains/tensions
/// (`final_tension_N`; `final_force_N`, signed, under CableForceSign::kPaperLaw).
std::string summary_json(const Model& model, const SimulationOptions& options, const SimulationSummary& summary);

}  // namespace tendyn::tensegrity
