// Motorised winches (model.hpp, Winch): the motor's speed limit, the position loop's step response
// against its first-order law, the load's steady-state error and its removal by the integral, the
// energy balance (motor work = change of energy), and the model file's winches.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/batch.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include "support/tensegrity_fixtures.hpp"

#include <cmath>

namespace ts = tendyn::tensegrity;

namespace {

// A 0.5 kg rod hanging on one cable (k = 2000 N/m, rest 0.3 m) from an anchor at 1 m, the cable
// reeled by a winch with a 10 mm spool and a 20:1 gear (5e-4 m per motor radian).
ts::Model hanging(bool gravity) {
  const std::string yaml = R"(
name: hanging
gravity: [0, 0, -9.81]
nodes:
  - {id: hook, position: [0, 0, 1.0], fixed: true}
  - {id: top, position: [0, 0, 0.69]}
  - {id: bottom, position: [0, 0, 0.19]}
rods:
  - {id: A, mass: 0.5, length: 0.5, nodes: [bottom, top]}
cables:
  - {id: c, nodes: [hook, top], stiffness: 2000, damping: 20, rest_length: 0.3}
winches:
  - {cable: c, spool_radius: 0.01, gear_ratio: 20, stall_torque: 0.2, no_load_speed: 600, rotor_inertia: 1.0e-6, kp: 20}
)";
  ts::Model m = ts::load_model_string(yaml, "hanging.yaml").model;
  if (!gravity) m.gravity_W.setZero();
  return m;
}

struct Rig {
  ts::Model model;
  ts::Data data;
  ts::State state;
  explicit Rig(ts::Model m) : model(std::move(m)), data(ts::make_data(model)), state(model.initial_state) {
    ts::compute_derivative(model, state, data);
  }
  void step(double h) { ts::step(model, data, state, h, ts::StepOptions{}); }
  [[nodiscard]] double rest() const { return data.cable_rest_length_m[0]; }
  [[nodiscard]] double omega() const { return state.x[model.winch_offset(0) + 1]; }
};

}  // namespace

TEST(Winch, CannotChangeTheLengthFasterThanItsNoLoadSpeed) {
  // full command, the cable slack (no load): the rest length's rate rises to, and never above,
  // the no-load speed times the metres per radian (600 * 5e-4 = 0.3 m/s)
  ts::Model m = hanging(false);
  m.winches[0].control = ts::Winch::Control::kVoltage;
  m.cables[0].rest_length_m = 0.5;  // longer than the distance: slack all along
  Rig r(m);
  r.data.winch_target_m[0] = 1.0;
  const double vmax = m.winches[0].max_rate_mps();
  EXPECT_DOUBLE_EQ(vmax, 0.3);
  double fastest = 0.0, last = r.rest();
  for (int k = 0; k < 2000; ++k) {
    r.step(1e-4);
    fastest = std::max(fastest, (r.rest() - last) / 1e-4);
    last = r.rest();
  }
  EXPECT_LE(fastest, vmax * (1.0 + 1e-9));
  EXPECT_GT(fastest, 0.99 * vmax);  // and it gets there (mechanical time constant J w0 / tau_s = 3 ms)
  // a 0.2 m move at the limit takes at least 0.2 / 0.3 s
  Rig p(hanging(false));
  p.data.winch_target_m[0] = 0.3 + 0.2;
  double t_half = -1.0;
  for (int k = 0; k < 20000 && t_half < 0.0; ++k) {
    p.step(1e-4);
    if (p.rest() >= 0.4) t_half = p.state.time_s;
  }
  EXPECT_GE(t_half, 0.1 / vmax);
}

TEST(Winch, PositionLoopFollowsItsFirstOrderLaw) {
  // no load (no gravity, cable slack), small step: the loop is first order with time constant
  // tau = 1 / (kp * w0 * r / G) = 1 / (20 * 600 * 5e-4) = 1/6 s (the motor's own 3 ms is far faster)
  ts::Model m = hanging(false);
  m.cables[0].rest_length_m = 0.5;
  Rig r(m);
  const double step = 0.01, tau = 1.0 / (20.0 * 600.0 * 5e-4);
  r.data.winch_target_m[0] = 0.5 + step;
  for (double t : {tau, 2.0 * tau, 5.0 * tau}) {
    while (r.state.time_s < t - 1e-9) r.step(1e-4);
    const double remaining = (0.5 + step - r.rest()) / step;
    EXPECT_NEAR(remaining, std::exp(-t / tau), 0.02) << "t = " << t;
  }
}

TEST(Winch, LoadLeavesTheProportionalErrorAndTheIntegralRemovesIt) {
  // hanging weight: holding the cable takes a motor torque (r / G) T, so a P loop settles with
  // e = (r / G) T / (tau_s kp) (tension T = m g); with ki > 0 the error goes to 0
  Rig p(hanging(true));
  for (int k = 0; k < 40000; ++k) p.step(1e-4);  // 4 s
  const double T = p.data.cable_tension_N[0];
  EXPECT_NEAR(T, 0.5 * 9.81, 1e-3);
  const double e = p.data.winch_target_m[0] - p.rest();
  EXPECT_NEAR(e, -(5e-4 * T) / (0.2 * 20.0), 1e-6);  // the load pays the cable out: rest above target
  ts::Model mi = hanging(true);
  mi.winches[0].ki_per_ms = 100.0;
  Rig i(mi);
  for (int k = 0; k < 60000; ++k) i.step(1e-4);
  EXPECT_LT(std::abs(i.data.winch_target_m[0] - i.rest()), 1e-6);
}

TEST(Winch, MotorWorkEqualsTheChangeOfEnergy) {
  // no friction, no cable damping: d/dt (robot + cable + rotor energy) = tau_m * omega exactly
  ts::Model m = hanging(true);
  m.cables[0].damping_Nspm = 0.0;
  m.winches[0].control = ts::Winch::Control::kVoltage;
  Rig r(m);
  r.data.controller = [](double t, const ts::State&, ts::Data& d) { d.winch_target_m[0] = 0.6 * std::sin(7.0 * t); };
  ts::compute_derivative(r.model, r.state, r.data);
  const double E0 = ts::compute_energy(r.model, r.state, r.data).total();
  double work = 0.0, p_prev = r.data.winch_torque_Nm[0] * r.omega();
  const double h = 5e-5;
  for (int k = 0; k < 20000; ++k) {  // 1 s, trapezoid rule on the motor power
    r.step(h);
    const double p = r.data.winch_torque_Nm[0] * r.omega();
    work += 0.5 * h * (p + p_prev);
    p_prev = p;
  }
  const double dE = ts::compute_energy(r.model, r.state, r.data).total() - E0;
  ASSERT_GT(std::abs(work), 0.01);  // the motor did work
  EXPECT_NEAR(dE, work, 1e-5 * std::abs(work));
  // with friction the balance has the friction's loss on the other side
}

TEST(Winch, ModelFileRoundTripAndErrors) {
  const ts::Model m = hanging(true);
  ASSERT_EQ(m.nwinch(), 1);
  EXPECT_EQ(m.initial_state.x.size(), 13 + 3);
  const auto again = ts::load_model_string(ts::to_yaml(m), "again.yaml").model;
  ASSERT_EQ(again.nwinch(), 1);
  EXPECT_EQ(again.winches[0].gear_ratio, 20.0);
  EXPECT_EQ(again.winches[0].kp_per_m, 20.0);
  const auto err = [](const std::string& w) {
    const std::string y =
        "nodes:\n  - {id: h, position: [0, 0, 1], fixed: true}\n  - {id: a, position: [0, 0, 0.5]}\n"
        "  - {id: b, position: [0, 0, 0]}\nrods:\n  - {id: A, mass: 1, length: 0.5, nodes: [b, a]}\n"
        "cables:\n  - {id: c, nodes: [h, a], stiffness: 10, rest_length: 0.4}\nwinches:\n" +
        w;
    try {
      ts::load_model_string(y, "w.yaml");
    } catch (const tendyn::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(err("  - {cable: d}\n").find("w.yaml:10:"), std::string::npos);
  EXPECT_NE(err("  - {cable: c, gear_ratio: 0}\n").find("must be > 0"), std::string::npos);
  EXPECT_NE(err("  - {cable: c, command_limit: 2}\n").find("(0, 1]"), std::string::npos);
  EXPECT_NE(err("  - {cable: c, coulomb_friction: 0.5}\n").find("can never turn"), std::string::npos);
  EXPECT_NE(err("  - {cable: c}\n  - {cable: c}\n").find("already has a winch"), std::string::npos);
  EXPECT_NE(err("  - {cable: c, control: current}\n").find("valid: position, voltage"), std::string::npos);
}

TEST(Winch, DriveCommandsTheTargetNotTheRestLength) {
  ts::Model m = hanging(false);
  ts::CableDrive d;
  d.cable = 0;
  d.u = ts::SinusoidDrive{0.0, 0.0, 0.0, 0.02};  // constant +2 cm
  m.drives.push_back(d);
  ts::validate(m);
  Rig r(m);
  EXPECT_DOUBLE_EQ(r.data.winch_target_m[0], 0.32);
  EXPECT_DOUBLE_EQ(r.rest(), 0.3);  // the motor has not moved yet
  for (int k = 0; k < 30000; ++k) r.step(1e-4);
  EXPECT_NEAR(r.rest(), 0.32, 1e-4);
}

TEST(Winch, TorqueControlAppliesTheTorqueInsideTheTorqueSpeedEnvelope) {
  // no load, no friction: from rest the motor accelerates at tau / J; a torque above the
  // envelope is held to stall (limit - omega / w0), so the speed tends to limit * w0, never above
  ts::Model m = hanging(false);
  m.cables[0].rest_length_m = 0.5;  // slack
  m.winches[0].control = ts::Winch::Control::kTorque;
  m.winches[0].command_limit = 0.5;
  Rig r(m);
  r.data.winch_target_m[0] = 0.01;  // N m, inside the envelope at rest (0.5 * 0.2 = 0.1)
  ts::compute_derivative(r.model, r.state, r.data);
  EXPECT_DOUBLE_EQ(r.data.winch_torque_Nm[0], 0.01);
  EXPECT_DOUBLE_EQ(r.data.xdot[r.model.winch_offset(0) + 1], 0.01 / 1e-6);
  EXPECT_DOUBLE_EQ(r.data.winch_command[0], 0.01 / 0.2);
  r.data.winch_target_m[0] = 5.0;  // far above: the envelope
  ts::compute_derivative(r.model, r.state, r.data);
  EXPECT_DOUBLE_EQ(r.data.winch_torque_Nm[0], 0.1);
  double fastest = 0.0;
  for (int k = 0; k < 1000; ++k) {
    r.step(1e-4);
    fastest = std::max(fastest, r.omega());
    EXPECT_LE(r.data.winch_torque_Nm[0], 0.2 * (0.5 - r.omega() / 600.0) * (1 + 1e-12) + 1e-15);
  }
  EXPECT_LE(fastest, 0.5 * 600.0 * (1 + 1e-9));
  EXPECT_GT(fastest, 0.99 * 0.5 * 600.0);
  EXPECT_NEAR(m.winches[0].max_rate_mps(), 0.5 * 600.0 * 5e-4, 1e-15);
  // and the file form
  EXPECT_EQ(ts::winch_control_from_string("torque"), ts::Winch::Control::kTorque);
}

TEST(Winch, RateLimitBoundsThePositionLoopsSpeed) {
  // unloaded, a 0.1 m step with a 0.05 m/s rate limit: the rest length never moves faster than
  // 0.05 m/s (without the limit the loop would start at kp e w0 r / G = 20 * 0.1 * 0.3 = 0.6 -> 0.3 m/s)
  ts::Model m = hanging(false);
  m.cables[0].rest_length_m = 0.5;
  m.winches[0].rate_limit_mps = 0.05;
  EXPECT_DOUBLE_EQ(m.winches[0].max_rate_mps(), 0.05);
  Rig r(m);
  r.data.winch_target_m[0] = 0.6;
  double fastest = 0.0, last = r.rest();
  for (int k = 0; k < 30000; ++k) {
    r.step(1e-4);
    fastest = std::max(fastest, (r.rest() - last) / 1e-4);
    last = r.rest();
  }
  EXPECT_LE(fastest, 0.05 * (1.0 + 1e-9));
  EXPECT_GT(fastest, 0.98 * 0.05);
  EXPECT_NEAR(r.rest(), 0.6, 1e-3);  // and it arrives
  // in the model file; refused for other controls and when not positive
  const std::string base =
      "nodes:\n  - {id: h, position: [0, 0, 1], fixed: true}\n  - {id: a, position: [0, 0, 0.5]}\n  - {id: b, position: [0, 0, 0]}\n"
      "rods:\n  - {id: A, mass: 1, length: 0.5, nodes: [b, a]}\ncables:\n  - {id: c, nodes: [h, a], stiffness: 10, rest_length: 0.5}\n";
  const auto f = ts::load_model_string(base + "winches:\n  - {cable: c, rate_limit: 0.02}\n", "w.yaml");
  EXPECT_DOUBLE_EQ(f.model.winches[0].rate_limit_mps, 0.02);
  EXPECT_NE(ts::to_yaml(f.model).find("rate_limit: 0.02"), std::string::npos);
  try {
    ts::load_model_string(base + "winches:\n  - {cable: c, control: voltage, rate_limit: 0.02}\n", "w.yaml");
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("w.yaml:10:46: winches[0].rate_limit: is a limit of the position loop"), std::string::npos)
        << e.what();
  }
}

TEST(Winch, BatchSetRestLengthsCommandsTheWinchTarget) {
  // set_rest_lengths on a winch's cable sets its target; the motor then reels toward it
  ts::Model m = hanging(false);
  m.cables[0].rest_length_m = 0.5;
  ts::Batch b = ts::make_batch(m, 2);
  Eigen::MatrixXd L(2, 1);
  L << 0.52, 0.48;
  ts::set_rest_lengths(m, b, L);
  EXPECT_DOUBLE_EQ(b.datas[0].winch_target_m[0], 0.52);
  EXPECT_DOUBLE_EQ(b.datas[1].winch_target_m[0], 0.48);
  ts::BatchStepOptions o;
  o.h_s = 1e-4;
  o.nstep = 20000;
  o.threads = 1;
  ASSERT_EQ(ts::step_batch(m, b, o), 0);
  EXPECT_NEAR(b.datas[0].cable_rest_length_m[0], 0.52, 1e-4);
  EXPECT_NEAR(b.datas[1].cable_rest_length_m[0], 0.48, 1e-4);
}
