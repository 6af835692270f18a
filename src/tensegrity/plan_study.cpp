#include <tendyn/core/error.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/plan_study.hpp>

namespace tendyn::tensegrity {

namespace {

const std::vector<std::string> kAll = {"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"};

std::vector<std::pair<std::string, double>> set_k(const std::vector<std::string>& ids, double k) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& id : ids) out.emplace_back(id, k);
  return out;
}

}  // namespace

const std::vector<std::string>& plan_study_names() {
  static const std::vector<std::string> names = {"drive-cables", "middle-cables",    "stiffness",
                                                 "distributions", "drive-vs-passive", "configuration"};
  return names;
}

std::vector<PlanStudyVariant> plan_study_variants(const std::string& name) {
  const std::string standing = "three_bar.yaml", lying = "three_bar_lying.yaml";
  const std::vector<std::string> four = {"c1", "c2", "c3", "c4"};
  std::vector<PlanStudyVariant> v;
  if (name == "drive-cables") {
    for (int m = 3; m <= 9; ++m)
      v.push_back({std::to_string(m) + " drive cables", standing, std::vector<std::string>(kAll.begin(), kAll.begin() + m), {}});
  } else if (name == "middle-cables") {
    v.push_back({"0 middle (c1-c4)", standing, four, {}});
    v.push_back({"1 middle (c1-c3, c7)", standing, {"c1", "c2", "c3", "c7"}, {}});
    v.push_back({"2 middle (c1-c2, c7-c8)", standing, {"c1", "c2", "c7", "c8"}, {}});
    v.push_back({"3 middle (c1, c7-c9)", standing, {"c1", "c7", "c8", "c9"}, {}});
  } else if (name == "stiffness") {
    for (int k = 200; k <= 600; k += 100) v.push_back({"k = " + std::to_string(k) + " N/m", standing, four, set_k(kAll, k)});
  } else if (name == "distributions") {
    auto a = set_k(kAll, 400);
    for (auto& p : a)
      if (p.first <= "c3") p.second = 300;
    v.push_back({"a: top 300, rest 400", standing, four, a});
    auto b = set_k(kAll, 300);
    for (auto& p : b)
      if (p.first >= "c7") p.second = 400;
    v.push_back({"b: rings 300, middle 400", standing, four, b});
    auto c = set_k(kAll, 400);
    for (auto& p : c)
      if (p.first >= "c4" && p.first <= "c6") p.second = 300;
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
    std::string valid;
    for (const auto& n : plan_study_names()) valid += (valid.empty() ? "" : ", ") + n;
    throw Error("study: unknown study '" + name + "' (valid: " + valid + ")");
  }
  return v;
}

PlanResult run_plan_study_variant(ModelFile f, const PlanStudyVariant& v, const PlanStudySettings& s,
                                  const std::function<void(int, int)>& progress) {
  f.model.drives.clear();
  const std::string where = "study variant '" + v.label + "'";
  std::vector<std::string> ids;
  for (const auto& [id, k] : v.stiffness_Npm) ids.push_back(id);
  const auto stiff = cable_indices(f.model, ids, where + " stiffness");
  for (std::size_t i = 0; i < stiff.size(); ++i) f.model.cables[static_cast<std::size_t>(stiff[i])].stiffness_Npm = v.stiffness_Npm[i].second;
  PlannerOptions o;
  o.drive_cables = cable_indices(f.model, v.drive_cables, where + " drive cables");
  o.u0_m = s.u0_m;
  o.period_s = s.period_s;
  o.duration_s = s.duration_s;
  o.rollout = rollout_options(f.model, f.simulation);
  o.threads = s.threads;
  return plan(f.model, o, progress);
}

std::string plan_study_csv_header() { return "variant,drive_cables,speed_mps,max_lateral_error_m,progress_m,rollouts,forced_periods"; }

std::string plan_study_csv_row(const PlanStudyVariant& v, const PlanResult& r) {
  std::string drive;
  for (const auto& d : v.drive_cables) drive += (drive.empty() ? "" : " ") + d;
  io::CsvLine line;
  line.text("\"" + v.label + "\"").text("\"" + drive + "\"");
  line.num(r.speed_mps).num(r.max_path_error_m).num(r.progress_m).num(static_cast<double>(r.rollouts)).num(r.forced_periods);
  return line.str();
}

}  // namespace tendyn::tensegrity
