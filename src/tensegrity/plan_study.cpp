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
  static const std::vector<std::string> names = {"drive-cables",  "middle-cables",    "stiffness",
                                                 "distributions", "drive-vs-passive", "configuration"};
  return names;
}

// Drive cables (issue 18 item 3). Where a section lists them we use its list; where it does not,
// we read section 3.4.2: the software picks drive cables by the smallest index i and the count j,
// "then the drive cables are ci, c(i+1), ..., c(i+j-1)" (a consecutive run), and take i from the
// sentence named at each variant (docs/VALIDATION.md quotes the Chinese). The sentences per study:
// * drive-cables (4.2.1, no list): consecutive from c1: "7 cables (1 middle cable) ... 8 cables (2
//   middle), 9 cables (3 middle)" holds only for c1..cm (c1..c7 holds c7; c2..c8 would hold two).
// * middle-cables (4.2.2, no list): 4 cables with 0..3 middle ones. 1, 2, 3 middle: the only
//   consecutive runs of 4 are c4-c7, c5-c8, c6-c9. 0 middle ("4 ring cables"): runs c1-c4, c2-c5 and c3-c6
//   qualify; we take c1-c4, the 4-cable run of 4.2.1, which 4.2.2 continues ("this fully confirms
//   the view of section 4.2.1").
// * stiffness (4.3.1): "the drive cables chosen are c1, c2, c3, c4".
// * distributions (4.3.2) and drive-vs-passive (4.3.3): "the drive cables chosen are c2, c3, c4, c5".
// * configuration (4.4.1): "the drive cables are c2, c3, c4, c5 for both" (standing and lying); then
//   4.4.2 (lying, no list; "the initial state is the same as in 4.4.1"): 4 ring cables = c2-c5 as in
//   4.4.1, 1/2/3 middle = the only consecutive runs c4-c7, c5-c8, c6-c9.
std::vector<PlanStudyVariant> plan_study_variants(const std::string& name) {
  const std::string standing = "three_bar.yaml", lying = "three_bar_lying.yaml";
  auto run = [](int first, int count) {  // c<first> .. c<first + count - 1> (section 3.4.2)
    return std::vector<std::string>(kAll.begin() + (first - 1), kAll.begin() + (first - 1 + count));
  };
  const std::vector<std::string> c1_c4 = run(1, 4), c2_c5 = run(2, 4);
  std::vector<PlanStudyVariant> v;
  if (name == "drive-cables") {  // 4.2.1
    for (int m = 3; m <= 9; ++m) v.push_back({std::to_string(m) + " drive cables", standing, run(1, m), {}});
  } else if (name == "middle-cables") {  // 4.2.2
    v.push_back({"0 middle (c1-c4)", standing, c1_c4, {}});
    v.push_back({"1 middle (c4-c7)", standing, run(4, 4), {}});
    v.push_back({"2 middle (c5-c8)", standing, run(5, 4), {}});
    v.push_back({"3 middle (c6-c9)", standing, run(6, 4), {}});
  } else if (name == "stiffness") {  // 4.3.1: c1-c4
    for (int k = 200; k <= 600; k += 100) v.push_back({"k = " + std::to_string(k) + " N/m", standing, c1_c4, set_k(kAll, k)});
  } else if (name == "distributions") {  // 4.3.2: c2-c5
    auto a = set_k(kAll, 400);
    for (auto& p : a)
      if (p.first <= "c3") p.second = 300;
    v.push_back({"a: top 300, rest 400", standing, c2_c5, a});
    auto b = set_k(kAll, 300);
    for (auto& p : b)
      if (p.first >= "c7") p.second = 400;
    v.push_back({"b: rings 300, middle 400", standing, c2_c5, b});
    auto c = set_k(kAll, 400);
    for (auto& p : c)
      if (p.first >= "c4" && p.first <= "c6") p.second = 300;
    v.push_back({"c: bottom 300, rest 400", standing, c2_c5, c});
    v.push_back({"d: uniform 300", standing, c2_c5, set_k(kAll, 300)});
    v.push_back({"e: uniform 400", standing, c2_c5, set_k(kAll, 400)});
  } else if (name == "drive-vs-passive") {  // 4.3.3: c2-c5 are the drive cables whose stiffness is k1
    auto mix = [&](double kd, double kp) {
      auto s = set_k(kAll, kp);
      for (auto& p : s)
        for (const auto& d : c2_c5)
          if (p.first == d) p.second = kd;
      return s;
    };
    v.push_back({"drive 300 = passive 300", standing, c2_c5, mix(300, 300)});
    v.push_back({"drive 400 > passive 300", standing, c2_c5, mix(400, 300)});
    v.push_back({"drive 300 < passive 400", standing, c2_c5, mix(300, 400)});
  } else if (name == "configuration") {  // 4.4.1 (c2-c5, both), then 4.4.2 (lying, 0..3 middle)
    v.push_back({"standing, c2-c5", standing, c2_c5, {}});
    v.push_back({"lying, c2-c5 (4 ring)", lying, c2_c5, {}});
    v.push_back({"lying, c4-c7 (3 ring + 1 middle)", lying, run(4, 4), {}});
    v.push_back({"lying, c5-c8 (2 ring + 2 middle)", lying, run(5, 4), {}});
    v.push_back({"lying, c6-c9 (1 ring + 3 middle)", lying, run(6, 4), {}});
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
  for (std::size_t i = 0; i < stiff.size(); ++i)
    f.model.cables[static_cast<std::size_t>(stiff[i])].stiffness_Npm = v.stiffness_Npm[i].second;
  PlannerOptions o;
  o.drive_cables = cable_indices(f.model, v.drive_cables, where + " drive cables");
  o.u0_m = s.u0_m;
  o.increment = s.increment;
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
