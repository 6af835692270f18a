// tendyn study NAME: document 001's chapter 4 performance studies of the 3-bar robot.
#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/output.hpp>
#include <tendyn/tensegrity/planner.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"

namespace tendyn::cli {

namespace {

struct Variant {
  std::string label;
  std::string model_file;             // relative to models/
  std::vector<std::string> drive;     // drive cable ids
  std::vector<std::pair<std::string, double>> stiffness;  // cable id -> k (others unchanged)
};

struct StudyArgs {
  std::string name;
  double duration = 2.0, period = 0.1, u0 = 0.005;
  int threads = 0;
  std::string out_dir = "out/study";
  bool quiet = false, no_plot = false;
};

const std::vector<std::string> kRing = {"c1", "c2", "c3", "c4", "c5", "c6"};
const std::vector<std::string> kTop = {"c1", "c2", "c3"}, kBottom = {"c4", "c5", "c6"}, kMiddle = {"c7", "c8", "c9"};
const std::vector<std::string> kAll = {"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"};

std::vector<std::pair<std::string, double>> set_k(const std::vector<std::string>& ids, double k) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& id : ids) out.emplace_back(id, k);
  return out;
}

std::vector<Variant> variants(const std::string& name) {
  const std::string standing = "three_bar.yaml", lying = "three_bar_lying.yaml";
  const std::vector<std::string> four = {"c1", "c2", "c3", "c4"};
  std::vector<Variant> v;
  if (name == "drive-cables") {
    for (int m = 3; m <= 9; ++m) v.push_back({std::to_string(m) + " drive cables", standing, std::vector<std::string>(kAll.begin(), kAll.begin() + m), {}});
  } else if (name == "middle-cables") {
    v.push_back({"0 middle (c1-c4)", standing, four, {}});
    v.push_back({"1 middle (c1-c3, c7)", standing, {"c1", "c2", "c3", "c7"}, {}});
    v.push_back({"2 middle (c1-c2, c7-c8)", standing, {"c1", "c2", "c7", "c8"}, {}});
    v.push_back({"3 middle (c1, c7-c9)", standing, {"c1", "c7", "c8", "c9"}, {}});
  } else if (name == "stiffness") {
    for (int k = 200; k <= 600; k += 100) v.push_back({"k = " + std::to_string(k) + " N/m", standing, four, set_k(kAll, k)});
  } else if (name == "distributions") {
    auto a = set_k(kAll, 400);
    for (auto& p : a) if (p.first <= "c3") p.second = 300;
    v.push_back({"a: top 300, rest 400", standing, four, a});
    auto b = set_k(kAll, 300);
    for (auto& p : b) if (p.first >= "c7") p.second = 400;
    v.push_back({"b: rings 300, middle 400", standing, four, b});
    auto c = set_k(kAll, 400);
    for (auto& p : c) if (p.first >= "c4" && p.first <= "c6") p.second = 300;
    v.push_back({"c: bottom 300, rest 400", standing, four, c});
    v.push_back({"d: uniform 300", standing, four, set_k(kAll, 300)});
    v.push_back({"e: uniform 400", standing, four, set_k(kAll, 400)});
  } else if (name == "drive-vs-passive") {
    auto mix = [&](double kd, double kp) {
      auto s = set_k(kAll, kp);
      for (auto& p : s)
        for (const auto& d : four)
          if (p.first == d) p.second = kd;
      return s;
    };
    v.push_back({"drive 300 = passive 300", standing, four, mix(300, 300)});
    v.push_back({"drive 400 > passive 300", standing, four, mix(400, 300)});
    v.push_back({"drive 300 < passive 400", standing, four, mix(300, 400)});
  } else if (name == "configuration") {
    v.push_back({"standing, c1-c4", standing, four, {}});
    v.push_back({"lying, c1-c4 (4 ring)", lying, four, {}});
    v.push_back({"lying, c1, c7-c9 (1 ring + 3 middle)", lying, {"c1", "c7", "c8", "c9"}, {}});
  } else {
    throw Error("study: unknown study '" + name +
                "' (valid: drive-cables, middle-cables, stiffness, distributions, drive-vs-passive, configuration)");
  }
  return v;
}

void run_study(const StudyArgs& a) {
  namespace ts = tensegrity;
  const auto vs = variants(a.name);
  ensure_directory(a.out_dir);
  // no wall-clock column: files are byte-identical on reruns (the table prints the wall time)
  std::string csv = "variant,drive_cables,speed_mps,max_lateral_error_m,progress_m,rollouts,forced_periods\n";
  if (!a.quiet)
    std::printf("study %s: straight line along +x, %g s, period %g s, u0 %g m\n%-40s %12s %16s %10s %10s\n", a.name.c_str(), a.duration,
                a.period, a.u0, "variant", "speed [m/s]", "max lat. err [m]", "rollouts", "wall [s]");
  Progress progress("study " + a.name, !a.quiet);
  for (std::size_t vi = 0; vi < vs.size(); ++vi) {
    const auto& v = vs[vi];
    auto f = ts::load_model_file(data_file("models/" + v.model_file).string());
    f.model.drives.clear();
    for (const auto& [id, k] : v.stiffness)
      for (int c = 0; c < f.model.ncable(); ++c)
        if (f.model.cable_ids[static_cast<std::size_t>(c)] == id) f.model.cables[static_cast<std::size_t>(c)].stiffness_Npm = k;
    ts::PlannerOptions o;
    for (const auto& id : v.drive)
      for (int c = 0; c < f.model.ncable(); ++c)
        if (f.model.cable_ids[static_cast<std::size_t>(c)] == id) o.drive_cables.push_back(c);
    o.u0_m = a.u0;
    o.period_s = a.period;
    o.duration_s = a.duration;
    o.rollout = f.simulation;
    o.threads = a.threads;
    const auto r = ts::plan(f.model, o, [&](int done, int total) {
      progress.update((static_cast<double>(vi) + static_cast<double>(done) / std::max(total, 1)) / static_cast<double>(vs.size()));
    });
    std::string drive;
    for (const auto& d : v.drive) drive += (drive.empty() ? "" : " ") + d;
    std::string line = "\"" + v.label + "\",\"" + drive + "\"";
    for (double x : {r.speed_mps, r.max_path_error_m, r.progress_m, static_cast<double>(r.rollouts), static_cast<double>(r.forced_periods)}) {
      line += ",";
      ts::append_number(line, x);
    }
    csv += line + "\n";
    if (!a.quiet) {
      if (progress.shown()) std::fprintf(stderr, "\r%80s\r", "");  // clear the progress line before the table row
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
  cmd->add_option("name", a->name,
                  "drive-cables | middle-cables | stiffness | distributions | drive-vs-passive | configuration")
      ->required();
  cmd->add_option("--duration", a->duration, "planned time per variant [s]")->check(positive());
  cmd->add_option("--period", a->period, "control period [s]")->check(positive());
  cmd->add_option("--u0", a->u0, "increment per period [m]")->check(positive());
  cmd->add_option("-j,--threads", a->threads, "rollout threads (0 = all cores)");
  cmd->add_option("-o,--out", a->out_dir, "output directory");
  cmd->add_flag("--no-plot", a->no_plot, "do not render the PNG");
  cmd->add_flag("-q,--quiet", a->quiet, "no table");
  cmd->callback([a] { run_study(*a); });
}

}  // namespace tendyn::cli
