// Force actuators on cables (model.hpp, ForceActuator; MuJoCo's tendon actuators): the force on
// the nodes by hand (motor with a gear), a position servo against the spring it is (stiffness
// kp gear^2, rest length ctrl / gear), the ctrl and force ranges, a drive moving the command, the
// model file's `actuators` and its errors.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace ts = tendyn::tensegrity;
using Eigen::Vector3d;

namespace {

// A 0.5 kg rod, its top end tied to an anchor by a cable of stiffness 0 (the actuator acts alone
// unless the test gives the cable a spring); no gravity, at rest.
const char* kActuatedYaml = R"(
name: actuated
gravity: [0, 0, 0]
nodes:
  - {id: hook, position: [0.1, 0.2, 1.0], fixed: true}
  - {id: top, position: [0, 0, 0.69]}
  - {id: bottom, position: [0, 0, 0.19]}
rods:
  - {id: A, mass: 0.5, length: 0.5, nodes: [bottom, top]}
cables:
  - {id: c, nodes: [hook, top], stiffness: 0, damping: 0, rest_length: 0.3, tension_only: false}
)";

ts::Model with_actuator(const std::string& actuator_yaml) {
  return ts::load_model_string(std::string(kActuatedYaml) + "actuators:\n  - " + actuator_yaml + "\n", "actuated.yaml").model;
}

// Forces on the nodes at the initial state.
ts::Data forces_at_start(const ts::Model& m) {
  ts::Data d = ts::make_data(m);
  ts::compute_derivative(m, m.initial_state, d);
  return d;
}

std::string actuator_load_error(const std::string& actuator_yaml) {
  try {
    (void)with_actuator(actuator_yaml);
  } catch (const tendyn::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ForceActuator, MotorPushesTheNodesApartWithGearTimesCtrl) {
  const ts::Model m = with_actuator("{name: m, cable: c, gear: 2, ctrl: -3}");  // F = -3: pulls
  const ts::Data d = forces_at_start(m);
  const Vector3d hook(0.1, 0.2, 1.0), top(0, 0, 0.69);
  const Vector3d u = (top - hook).normalized();  // from node a (hook) to node b (top)
  EXPECT_EQ(d.actuator_force_N[0], -3.0);
  EXPECT_EQ(d.actuator_ctrl[0], -3.0);
  // node b gets gear F u = -6 u (towards the hook), node a +6 u
  EXPECT_LE((Vector3d(d.f_W_node.col(1)) - (-6.0) * u).norm(), 1e-14);
  EXPECT_LE((Vector3d(d.f_W_node.col(0)) - 6.0 * u).norm(), 1e-14);
  // and nothing else: the cable's spring is 0
  EXPECT_EQ(d.cable_tension_N[0], 0.0);
}

TEST(ForceActuator, PositionServoIsTheSpringOfStiffnessKpGearSquared) {
  // F = kp (ctrl - L) - kv V with L = g l, V = g l': the nodes get g F = -kp g^2 (l - ctrl / g) - kv g^2 l',
  // a spring of stiffness kp g^2, damping kv g^2 and rest length ctrl / g (both signs, axial damping)
  const double kp = 40.0, kv = 0.7, g = 1.5, ctrl = 0.45;
  ts::Model m = with_actuator("{cable: c, gear: 1.5, gain: [40, 0, 0], bias: [0, -40, -0.7], ctrl: 0.45}");
  ts::State s = m.initial_state;
  s.v_WC(0) = Vector3d(0.3, -0.2, 0.5);  // a rate on the cable
  s.w_W(0) = Vector3d(0.1, 0.4, -0.2);
  m.initial_state = s;
  ts::Model spring = ts::load_model_string(kActuatedYaml, "spring.yaml").model;
  spring.cables[0].stiffness_Npm = kp * g * g;
  spring.cables[0].damping_Nspm = kv * g * g;
  spring.cables[0].rest_length_m = ctrl / g;
  spring.initial_state = s;
  const ts::Data a = forces_at_start(m), b = forces_at_start(spring);
  EXPECT_LE((a.f_W_node - b.f_W_node).norm(), 1e-12 * b.f_W_node.norm());
  EXPECT_LE((a.xdot - b.xdot).norm(), 1e-12 * b.xdot.norm());
  // the actuator force by hand
  const double l = a.cable_length_m[0], rate = a.cable_rate_mps[0];
  EXPECT_NEAR(a.actuator_force_N[0], kp * (ctrl - g * l) - kv * g * rate, 1e-12);
}

TEST(ForceActuator, CtrlAndForceRangesClamp) {
  // motor: ctrl 5 clamped to 1
  EXPECT_EQ(forces_at_start(with_actuator("{cable: c, ctrl: 5, ctrl_range: [-1, 1]}")).actuator_force_N[0], 1.0);
  // servo: F = 1000 (0.3 - 0.45...) far below -2: clamped to -2
  const ts::Data d = forces_at_start(with_actuator("{cable: c, gain: [1000, 0, 0], bias: [0, -1000, 0], ctrl: 0.3, force_range: [-2, 2]}"));
  EXPECT_GT(d.cable_length_m[0], 0.35);
  EXPECT_EQ(d.actuator_force_N[0], -2.0);
  // the ctrl written by a controller persists and is clamped when the force is made
  ts::Model m = with_actuator("{cable: c, ctrl: 0, ctrl_range: [-1, 1]}");
  ts::Data e = ts::make_data(m);
  e.actuator_ctrl[0] = -7.0;
  ts::compute_derivative(m, m.initial_state, e);
  EXPECT_EQ(e.actuator_ctrl[0], -7.0);
  EXPECT_EQ(e.actuator_force_N[0], -1.0);
}

TEST(ForceActuator, ADriveOnTheCableMovesTheCommandNotTheRestLength) {
  ts::Model m = with_actuator("{cable: c, ctrl: 0.5}");
  ts::CableDrive drive;
  drive.cable = 0;
  drive.u = ts::SinusoidDrive{2.0, 3.0, 0.0, 0.25};  // u = 2 sin(3 t) + 0.25: outside any rest-length limit, fine for a command
  m.drives.push_back(drive);
  ts::validate(m);
  ts::Data d = ts::make_data(m);
  ts::State s = m.initial_state;
  s.time_s = 0.4;
  ts::compute_derivative(m, s, d);
  EXPECT_DOUBLE_EQ(d.actuator_ctrl[0], 0.5 + 2.0 * std::sin(1.2) + 0.25);
  EXPECT_EQ(d.actuator_force_N[0], d.actuator_ctrl[0]);
  EXPECT_EQ(d.cable_rest_length_m[0], 0.3);
}

TEST(ForceActuator, ModelFileRoundTripAndErrors) {
  const ts::Model m = with_actuator(
      "{name: servo, cable: c, gear: -2, gain: [3, 0.5, 0.1], bias: [1, -3, -0.2], ctrl: 0.4, "
      "ctrl_range: [0, 1], force_range: [-10, 5]}");
  const ts::Model back = ts::load_model_string(ts::to_yaml(m), "back.yaml").model;
  ASSERT_EQ(back.nactuator(), 1);
  const ts::ForceActuator &a = m.force_actuators[0], &b = back.force_actuators[0];
  EXPECT_EQ(back.actuator_ids, m.actuator_ids);
  EXPECT_EQ(b.cable, a.cable);
  EXPECT_EQ(b.gear, a.gear);
  EXPECT_EQ(b.gain, a.gain);
  EXPECT_EQ(b.bias, a.bias);
  EXPECT_EQ(b.ctrl, a.ctrl);
  EXPECT_TRUE(b.ctrl_limited && b.force_limited);
  EXPECT_EQ(b.ctrl_min, 0.0);
  EXPECT_EQ(b.ctrl_max, 1.0);
  EXPECT_EQ(b.force_min_N, -10.0);
  EXPECT_EQ(b.force_max_N, 5.0);
  // names: the file's, or the cable's for a model built without actuator names
  EXPECT_EQ(m.actuator_name(0), "servo");
  EXPECT_EQ(m.force_actuator_on(0), 0);
  ts::Model unnamed = m;
  unnamed.actuator_ids.clear();
  EXPECT_EQ(unnamed.actuator_name(0), "c");
  EXPECT_NE(actuator_load_error("{cable: nope}").find("names cable 'nope'"), std::string::npos) << actuator_load_error("{cable: nope}");
  EXPECT_NE(actuator_load_error("{cable: c, gear: 0}").find("must not be 0"), std::string::npos);
  EXPECT_NE(actuator_load_error("{cable: c, ctrl_range: [1, 0]}").find("lower bound above upper bound"), std::string::npos);
  EXPECT_NE(actuator_load_error("{cable: c, gain: [1, 2]}").find("gain"), std::string::npos)
      << actuator_load_error("{cable: c, gain: [1, 2]}");
  EXPECT_NE(actuator_load_error("{cable: c, torque: 1}").find("unknown field 'torque'"), std::string::npos)
      << actuator_load_error("{cable: c, torque: 1}");
  // validate(): two on one cable
  ts::Model two = m;
  two.force_actuators.push_back(two.force_actuators[0]);
  two.actuator_ids.push_back("again");
  try {
    ts::validate(two);
    ADD_FAILURE() << "two actuators on one cable accepted";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("has two force actuators"), std::string::npos) << e.what();
  }
}

TEST(ForceActuator, ActivationsFollowTheirClosedForms) {
  // filter: act = ctrl + (act0 - ctrl) exp(-t / tau); integrator: act = act0 + clamp(ctrl) t; the
  // force is gain act (no bias), so it follows the activation, not the command
  ts::Model m = with_actuator("{name: f, cable: c, ctrl: 1.0, dynamics: filter, time_constant: 0.1, act: 0.2}");
  ts::Model mi = with_actuator("{name: i, cable: c, ctrl: 5.0, ctrl_range: [-2, 2], dynamics: integrator, act: -0.5}");
  for (ts::Model* model : {&m, &mi}) {
    ASSERT_EQ(model->nx(), 14);
    ASSERT_EQ(model->activation_offset(0), 13);
  }
  EXPECT_EQ(m.initial_state.x[13], 0.2);
  ts::Data d = ts::make_data(m), di = ts::make_data(mi);
  ts::State s = m.initial_state, si = mi.initial_state;
  for (int k = 0; k < 300; ++k) {
    ts::step(m, d, s, 1e-3, ts::StepOptions{});
    ts::step(mi, di, si, 1e-3, ts::StepOptions{});
  }
  const double t = s.time_s;
  EXPECT_NEAR(s.x[13], 1.0 + (0.2 - 1.0) * std::exp(-t / 0.1), 1e-10);  // RK4 at h = tau / 100
  EXPECT_NEAR(si.x[13], -0.5 + 2.0 * t, 1e-12);
  ts::compute_derivative(m, s, d);
  EXPECT_EQ(d.actuator_force_N[0], s.x[13]);
  // the model file keeps the dynamics and the initial activation
  const ts::Model back = ts::load_model_string(ts::to_yaml(m), "back.yaml").model;
  EXPECT_EQ(back.force_actuators[0].dynamics, ts::ForceActuator::Dynamics::kFilter);
  EXPECT_EQ(back.force_actuators[0].time_constant_s, 0.1);
  EXPECT_EQ(back.initial_state.x[13], 0.2);
  EXPECT_NE(actuator_load_error("{cable: c, act: 1}").find("initial activation of an actuator with dynamics"), std::string::npos);
  EXPECT_NE(actuator_load_error("{cable: c, dynamics: filter, time_constant: 0}").find("must be > 0"), std::string::npos)
      << actuator_load_error("{cable: c, dynamics: filter, time_constant: 0}");
  EXPECT_NE(actuator_load_error("{cable: c, dynamics: spring}").find("unknown actuator dynamics 'spring'"), std::string::npos)
      << actuator_load_error("{cable: c, dynamics: spring}");
}
