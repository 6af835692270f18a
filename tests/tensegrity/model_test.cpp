// Model-level checks: validation messages and actuation (rest-length drives, limits, callbacks).
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <filesystem>
#include <fstream>

#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;

namespace {
ts::Model driven_prism() {
  auto m = tendyn::test::doc000_prism(50.0, 0.5);
  ts::CableDrive d;
  d.cable = 0;
  d.u = ts::SinusoidDrive{0.02, 3.14, 0.3, 0.01};
  m.drives.push_back(d);
  ts::CableDrive t;
  t.cable = 4;
  t.u = ts::TableDrive{{0.0, 1.0, 2.0}, {0.0, -0.03, 0.01}};
  m.drives.push_back(t);
  ts::validate(m);
  return m;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tendyn::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Model, DrivesSetRestLengths) {
  const auto m = driven_prism();
  auto d = ts::make_data(m);
  ts::State s = m.initial_state;
  for (double t : {0.0, 0.4, 1.5, 2.5}) {
    s.time_s = t;
    ts::compute_derivative(m, s, d);
    EXPECT_NEAR(d.cable_rest_length_m[0], 0.2 + 0.02 * std::sin(3.14 * t + 0.3) + 0.01, 1e-15);
    const double table = t <= 1.0 ? -0.03 * t : t <= 2.0 ? -0.03 + 0.04 * (t - 1.0) : 0.01;
    EXPECT_NEAR(d.cable_rest_length_m[4], 0.2 + table, 1e-15) << t;
    EXPECT_EQ(d.cable_rest_length_m[1], 0.2);
  }
}

TEST(Model, DriveLimitsAreCheckedWithTheCableNamed) {
  auto m = driven_prism();
  m.cables[0].rest_length_max_m = 0.225;  // sinusoid reaches 0.23
  EXPECT_NE(message_of([&] { ts::validate(m); }).find("cable 'top1': drive takes the rest length to [0.19"), std::string::npos)
      << message_of([&] { ts::validate(m); });
  m = driven_prism();
  m.cables[0].rest_rate_max_mps = 0.05;  // |a b| = 0.0628 m/s
  EXPECT_NE(message_of([&] { ts::validate(m); }).find("above the limit"), std::string::npos);
  m = driven_prism();
  m.drives[1].u = ts::TableDrive{{0.0, 0.0}, {0.0, 0.1}};
  EXPECT_NE(message_of([&] { ts::validate(m); }).find("increase strictly"), std::string::npos);
  m = driven_prism();
  m.drives[1].cable = 0;
  EXPECT_NE(message_of([&] { ts::validate(m); }).find("two drives"), std::string::npos);
}

TEST(Model, ControllerCallbackAndItsLimits) {
  auto m = tendyn::test::doc000_prism(50.0, 0.5);
  for (auto& c : m.cables) {
    c.rest_length_min_m = 0.1;
    c.rest_rate_max_mps = 0.05;
  }
  ts::SimulationOptions o;
  o.duration_s = 1.0;
  int calls = 0;
  auto slow = [&](double t, const ts::State&, ts::Data& d) {
    ++calls;
    d.cable_rest_length_m[2] = 0.2 - 0.04 * t;  // 0.04 m/s, within the limit
  };
  const auto s = ts::simulate(m, o, nullptr, {}, nullptr, slow);
  EXPECT_GE(calls, 4 * 1000);
  EXPECT_NEAR(s.final_length_m[2] - s.final_strain[2] * (0.2 - 0.04), 0.2 - 0.04, 1e-12);
  auto fast = [](double t, const ts::State&, ts::Data& d) { d.cable_rest_length_m[2] = 0.2 - 0.1 * t; };
  const auto msg = message_of([&] { ts::simulate(m, o, nullptr, {}, nullptr, fast); });
  EXPECT_NE(msg.find("cable 'side1' at 0.1"), std::string::npos) << msg;
  auto too_short = [](double, const ts::State&, ts::Data& d) { d.cable_rest_length_m[2] = 0.05; };
  EXPECT_NE(message_of([&] { ts::simulate(m, o, nullptr, {}, nullptr, too_short); }).find("outside its limits"), std::string::npos);
}

TEST(Model, DrivesFromModelFileAndCsvTable) {
  const auto dir = std::filesystem::temp_directory_path() / ("tendyn_drive_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "u.csv") << "t_s,u_m\n0,0\n1,0.01\n2,-0.01\n";
  std::ofstream(dir / "bad.csv") << "t_s,u_m\n0,0\n1,oops\n";
  const std::string base = "tendyn: tensegrity\nbuilder: {type: prism}\n";
  std::ofstream(dir / "m.yaml") << base << "drives:\n  - {cable: top1, table: u.csv}\n  - {cable: side2, sinusoid: {a: 0.01, b: 2}}\n";
  const auto f = ts::load_model_file((dir / "m.yaml").string());
  ASSERT_EQ(f.model.drives.size(), 2u);
  EXPECT_NEAR(ts::drive_offset(f.model.drives[0], 1.5), 0.0, 1e-15);
  EXPECT_NEAR(ts::drive_offset(f.model.drives[1], 0.25), 0.01 * std::sin(0.5), 1e-15);
  std::ofstream(dir / "b.yaml") << base << "drives:\n  - {cable: top1, table: bad.csv}\n";
  EXPECT_NE(message_of([&] { ts::load_model_file((dir / "b.yaml").string()); }).find("bad.csv:3:3 (u_m): 'oops' is not a finite number"),
            std::string::npos);
  // The table reader is io::CsvReader with an optional header: a bare table reads the same, text
  // after the second number (once silently ignored) and a third column are refused.
  std::ofstream(dir / "bare.csv") << "0,0\n1,0.01\n2,-0.01\n";
  std::ofstream(dir / "bare.yaml") << base << "drives:\n  - {cable: top1, table: bare.csv}\n";
  EXPECT_EQ(ts::drive_offset(ts::load_model_file((dir / "bare.yaml").string()).model.drives[0], 1.5),
            ts::drive_offset(f.model.drives[0], 1.5));
  const auto table_error = [&](const std::string& csv) {
    std::ofstream(dir / "t.csv") << csv;
    std::ofstream(dir / "t.yaml") << base << "drives:\n  - {cable: top1, table: t.csv}\n";
    return message_of([&] { ts::load_model_file((dir / "t.yaml").string()); });
  };
  EXPECT_NE(table_error("0,0\n1,0.01 m\n").find("t.csv:2:3 (column 2): '0.01 m' is not a finite number"), std::string::npos);
  EXPECT_NE(table_error("0,0,1\n1,0.01,1\n").find("a drive table has 2 columns (t_s,u_m), this one has 3"), std::string::npos);
  EXPECT_NE(table_error("0,0\n0,0.01\n").find("t.csv:2:1: times must increase strictly"), std::string::npos);
  EXPECT_NE(table_error("t_s,u_m\n0,0\n").find("a drive table needs at least 2 rows"), std::string::npos);
  std::ofstream(dir / "m2.yaml") << base << "drives:\n  - {cable: top1, table: nowhere.csv}\n";
  const auto missing = message_of([&] { ts::load_model_file((dir / "m2.yaml").string()); });
  EXPECT_NE(missing.find("m2.yaml:4:26: drives[0].table: drive table: "), std::string::npos) << missing;
  EXPECT_NE(missing.find("nowhere.csv: no such file"), std::string::npos) << missing;
  std::ofstream(dir / "c.yaml") << base << "drives:\n  - {cable: top9, sinusoid: {a: 0.01}}\n";
  const auto msg = message_of([&] { ts::load_model_file((dir / "c.yaml").string()); });
  EXPECT_NE(msg.find("c.yaml:4:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("drives[0].cable: names cable 'top9'"), std::string::npos) << msg;
  // round trip keeps the drives
  const auto back = ts::load_model_string(ts::to_yaml(f.model), "rt.yaml").model;
  ASSERT_EQ(back.drives.size(), 2u);
  EXPECT_NEAR(ts::drive_offset(back.drives[0], 1.5), 0.0, 1e-15);
  std::filesystem::remove_all(dir);
}

TEST(Model, ValidateNamesTheElement) {
  auto m = tendyn::test::doc000_prism();
  m.rods[1].mass_kg = -1.0;
  EXPECT_NE(message_of([&] { ts::validate(m); }).find("rod 'II': mass must be > 0"), std::string::npos);
  m = tendyn::test::doc000_prism();
  m.cables[3].node[1] = 17;
  EXPECT_NE(message_of([&] { ts::validate(m); }).find("cable 'top2': node index 17 out of range"), std::string::npos);
  m = tendyn::test::doc000_prism();
  m.initial_state.x[3] = std::nan("");
  EXPECT_NE(message_of([&] { ts::validate(m); }).find("not finite"), std::string::npos);
}

TEST(Model, EnumNamesRoundTripAndUnknownNamesAreErrors) {
  for (auto law : {ts::DampingLaw::kAxial, ts::DampingLaw::kRelativeVelocity})
    EXPECT_EQ(ts::damping_law_from_string(ts::to_string(law)), law);
  EXPECT_STREQ(ts::to_string(ts::DampingLaw::kRelativeVelocity), "relative_velocity");
  for (auto type : {ts::Ground::Type::kNone, ts::Ground::Type::kImpulse, ts::Ground::Type::kCompliant})
    EXPECT_EQ(ts::ground_type_from_string(ts::to_string(type)), type);
  EXPECT_STREQ(ts::to_string(ts::Ground::Type::kImpulse), "impulse");
  try {
    (void)ts::damping_law_from_string("Axiall");
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_STREQ(e.what(), "unknown damping law 'Axiall' (valid: axial, relative_velocity)");
  }
  try {
    (void)ts::ground_type_from_string("soft");
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_STREQ(e.what(), "unknown ground type 'soft' (valid: none, impulse, compliant)");
  }
}
