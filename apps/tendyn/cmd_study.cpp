// tendyn study NAME: document 001's chapter 4 performance studies of the 3-bar robot.
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/plan_study.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"

namespace tendyn::cli {

namespace {

struct StudyArgs {
  std::string name;
  double duration = 2.0, period = 0.1, u0 = 0.005;
  int threads = 0;
  std::string out_dir = "out/study", increment = "ramp";
  bool quiet = false, no_plot = false;
};

void run_study(const StudyArgs& a) {
  namespace ts = tensegrity;
  const auto vs = ts::plan_study_variants(a.name);
  ts::PlanStudySettings settings;
  settings.duration_s = a.duration;
  settings.period_s = a.period;
  settings.u0_m = a.u0;
  settings.threads = a.threads;
  try {
    settings.increment = ts::increment_shape_from_string(a.increment);
  } catch (const Error& e) {
    throw Error(std::string("study: --increment: ") + e.what());
  }
  ensure_directory(a.out_dir);
  std::string csv = ts::plan_study_csv_header() + "\n";
  if (!a.quiet)
    std::printf("study %s: straight line along +x, %g s, period %g s, u0 %g m\n%-40s %12s %16s %10s %10s\n", a.name.c_str(), a.duration,
                a.period, a.u0, "variant", "speed [m/s]", "max lat. err [m]", "rollouts", "wall [s]");
  Progress progress("study " + a.name, !a.quiet);
  for (std::size_t vi = 0; vi < vs.size(); ++vi) {
    const auto& v = vs[vi];
    const auto r = ts::run_plan_study_variant(
        ts::load_model_file(data_file("models/" + v.model_file).string()), v, settings, [&](int done, int total) {
          progress.update((static_cast<double>(vi) + static_cast<double>(done) / std::max(total, 1)) / static_cast<double>(vs.size()));
        });
    csv += ts::plan_study_csv_row(v, r) + "\n";
    if (!a.quiet) {
      if (progress.shown()) std::fprintf(stderr, "\r%80s\r", "");                  // clear the progress line before the table row
      const auto fixed4 = [](double x) { return display_value(x, 1.0, 0.5e-4); };  // never "-0.0000"
      std::printf("%-40s %12.4f %16.4f %10ld %10.2f\n", v.label.c_str(), fixed4(r.speed_mps), fixed4(r.max_path_error_m), r.rollouts,
                  r.wall_time_s);
      std::fflush(stdout);
    }
  }
  progress.finish();
  const auto path = std::filesystem::path(a.out_dir) / (a.name + ".csv");
  io::write_file_atomic(path, csv);
  if (!a.quiet) std::printf("wrote %s\n", path.string().c_str());
  if (!a.no_plot) {
    const auto png = std::filesystem::path(a.out_dir) / (a.name + ".png");
    if (render_plot("study", path, png)) {
      if (!a.quiet) std::printf("wrote %s\n", png.string().c_str());
    } else if (!a.quiet) {
      std::printf("(no plot: Debian's python3-matplotlib is needed: scripts/install-deps.sh test)\n");
    }
  }
}

}  // namespace

void register_study(CLI::App& app) {
  auto a = std::make_shared<StudyArgs>();
  auto* cmd = app.add_subcommand("study", "Document 001's chapter 4 studies of the 3-bar robot (speed and lateral error)");
  cmd->add_option("name", a->name, "drive-cables | middle-cables | stiffness | distributions | drive-vs-passive | configuration")
      ->required();
  cmd->add_option("--duration", a->duration, "planned time per variant [s]")->check(positive());
  cmd->add_option("--period", a->period, "control period [s]")->check(positive());
  cmd->add_option("--u0", a->u0, "increment per period [m]")->check(positive());
  cmd->add_option("--increment", a->increment, "shape of an increment within a period: ramp (default) | step (tendyn plan --increment)");
  cmd->add_option("-j,--threads", a->threads, "rollout threads (0 = all cores)");
  cmd->add_option("-o,--out", a->out_dir, "output directory");
  cmd->add_flag("--no-plot", a->no_plot, "do not render the PNG");
  cmd->add_flag("-q,--quiet", a->quiet, "no table");
  cmd->callback([a] { run_study(*a); });
}

}  // namespace tendyn::cli
