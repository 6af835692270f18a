// The dynamics kernel of issue 19 item 2 (src/tensegrity/dynamics.cpp: per-rod pass, restrict
// pointers, cables as SIMD packets) against the kernel it replaced, kept verbatim in
// tests/support/legacy_dynamics.hpp: same derivative, node kinematics, cable lengths, rates,
// tensions and slack flags, and the same RK4 trajectory, within 1e-14 relative on every shipped
// model and the models of the MuJoCo comparison (the kernel is designed to be bit-identical:
// the last test counts differing bits, so that a change of operation order shows up there first).
#include <tendyn/tensegrity/contact.hpp>
#include <tendyn/tensegrity/integrate.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/legacy_body_path.hpp"
#include "support/legacy_dynamics.hpp"
#include "support/peer_models.hpp"
#include "support/tensegrity_fixtures.hpp"

namespace ts = tendyn::tensegrity;
namespace legacy = tendyn::test::legacy;
namespace legacy_body = tendyn::test::legacy_body;

namespace {

struct KernelCase {
  std::string name;
  ts::Model model;
};

std::vector<KernelCase> cases() {
  std::vector<KernelCase> c;
  for (const char* f : {"prism3.yaml", "prism3_matrices.yaml", "superball.yaml", "three_bar.yaml", "three_bar_lying.yaml", "tower.yaml"})
    c.push_back({f, ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/" + f).model});
  c.push_back({"taut_prism damped", tendyn::test::taut_prism(0.5)});
  c.push_back({"taut_six_bar damped", tendyn::test::taut_six_bar(1.0)});
  // relative-velocity damping with the paper's sign law, and clamped damping (slack by clamp)
  ts::Model rel = tendyn::test::doc000_prism(50.0, 2.0);
  rel.damping_law = ts::DampingLaw::kRelativeVelocity;
  rel.cable_force_sign = ts::CableForceSign::kPaperLaw;
  c.push_back({"prism relative/paper", rel});
  ts::Model clamp = tendyn::test::doc000_prism(50.0, 50.0);
  c.push_back({"prism strong damping (clamp)", clamp});
  return c;
}

// A state with every rod moving and tumbling (seeded), so that velocities and rates are non-zero.
ts::State shaken(const ts::Model& m, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ts::State s = m.initial_state;
  for (int j = 0; j < m.nrod(); ++j) {
    s.v_WC(j) = 0.3 * Eigen::Vector3d(u(gen), u(gen), u(gen));
    s.w_W(j) = 2.0 * Eigen::Vector3d(u(gen), u(gen), u(gen));
  }
  return s;
}

// Largest |a - b| / max(|b|, floor) over the entries.
double rel_diff(const Eigen::Ref<const Eigen::ArrayXd>& a, const Eigen::Ref<const Eigen::ArrayXd>& b, double floor = 1e-300) {
  double r = 0.0;
  for (Eigen::Index i = 0; i < a.size(); ++i) r = std::max(r, std::abs(a[i] - b[i]) / std::max(std::abs(b[i]), floor));
  return r;
}

Eigen::ArrayXd flat(const Eigen::Matrix3Xd& m) { return Eigen::Map<const Eigen::ArrayXd>(m.data(), m.size()); }

}  // namespace

TEST(DynamicsKernel, DerivativeEqualsLegacyKernel) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    for (unsigned seed : {0u, 1u, 2u}) {
      const ts::State s = seed == 0 ? c.model.initial_state : shaken(c.model, seed);
      ts::Data d_new = ts::make_data(c.model), d_old = ts::make_data(c.model);
      ts::compute_derivative(c.model, s, d_new);
      legacy::compute_derivative(c.model, s, d_old);
      EXPECT_GT(d_old.xdot.cwiseAbs().maxCoeff(), 0.0);
      EXPECT_LE(rel_diff(d_new.xdot.array(), d_old.xdot.array()), 1e-14);
      EXPECT_LE(rel_diff(flat(d_new.p_W_node), flat(d_old.p_W_node)), 1e-14);
      EXPECT_LE(rel_diff(flat(d_new.v_W_node), flat(d_old.v_W_node)), 1e-14);
      EXPECT_LE(rel_diff(flat(d_new.f_W_rod), flat(d_old.f_W_rod)), 1e-14);
      EXPECT_LE(rel_diff(flat(d_new.tau_W_rod), flat(d_old.tau_W_rod)), 1e-14);
      EXPECT_LE(rel_diff(d_new.cable_length_m.array(), d_old.cable_length_m.array()), 1e-14);
      EXPECT_LE(rel_diff(d_new.cable_rate_mps.array(), d_old.cable_rate_mps.array()), 1e-14);
      EXPECT_LE(rel_diff(d_new.cable_tension_N.array(), d_old.cable_tension_N.array()), 1e-14);
      EXPECT_EQ(d_new.cable_slack, d_old.cable_slack);
    }
  }
}

TEST(DynamicsKernel, Rk4TrajectoryEqualsLegacyKernel) {
  // 500 RK4 steps of 1 ms (the shipped models fall, swing and go slack): every state equal
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    ts::State s_new = shaken(c.model, 7), s_old = s_new;
    ts::Data d_new = ts::make_data(c.model), d_old = ts::make_data(c.model);
    ts::compute_derivative(c.model, s_new, d_new);
    legacy::compute_derivative(c.model, s_old, d_old);
    double worst = 0.0;
    for (int k = 0; k < 500; ++k) {
      ts::step_rk4(c.model, d_new, s_new, 1e-3);
      ts::compute_derivative(c.model, s_new, d_new);
      legacy::step_rk4(c.model, d_old, s_old, 1e-3);
      legacy::compute_derivative(c.model, s_old, d_old);
      worst = std::max(worst, rel_diff(s_new.x.array(), s_old.x.array(), 1e-3));
    }
    EXPECT_LE(worst, 1e-14);
    // the two runs moved the same: the test is not comparing two resting states
    EXPECT_GT((s_old.x - shaken(c.model, 7).x).cwiseAbs().maxCoeff(), 1e-3);
  }
}

TEST(DynamicsKernel, BitIdenticalToLegacyKernel) {
  // the stronger property the kernel is built for (same operations, same order): a failure here
  // with the two tests above passing means an operation order changed (e.g. FMA contraction in a
  // -march build without -ffp-contract=off), which changes the recorded output hashes
  long differing = 0, total = 0;
  for (const auto& c : cases()) {
    const ts::State s = shaken(c.model, 3);
    ts::Data d_new = ts::make_data(c.model), d_old = ts::make_data(c.model);
    ts::compute_derivative(c.model, s, d_new);
    legacy::compute_derivative(c.model, s, d_old);
    for (Eigen::Index i = 0; i < d_new.xdot.size(); ++i, ++total) differing += d_new.xdot[i] != d_old.xdot[i] ? 1 : 0;
  }
  EXPECT_GT(total, 100);
  EXPECT_EQ(differing, 0) << "of " << total << " derivative entries";
}

namespace {

// Entries whose bit patterns differ.
int differing_bits(const double* a, const double* b, Eigen::Index n) {
  int k = 0;
  for (Eigen::Index i = 0; i < n; ++i) k += std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i]) ? 1 : 0;
  return k;
}

// Models of the general-body path (Data::body_geometry): the motorised 3-bar (end-caps, 18 off-axis
// cable points, full inertia tensors, winches) and without winches, the documents' 3-bar with
// end-caps only (ideal rods: the axial rule of Model::p_BN inside the general path) and with its
// rods declared of general inertia, and two imported MJCF robots.
std::vector<KernelCase> body_cases() {
  const std::string dir = std::string(TENDYN_SOURCE_DIR);
  std::vector<KernelCase> c;
  const ts::Model motorised = ts::load_model_file(dir + "/models/three_bar_motorised.yaml").model;
  c.push_back({"three_bar_motorised", motorised});
  ts::Model no_winch = motorised;
  no_winch.winches.clear();
  no_winch.initial_state.x.conservativeResize(no_winch.nx());
  c.push_back({"three_bar_motorised without winches", no_winch});
  ts::Model caps = ts::load_model_file(dir + "/models/three_bar.yaml").model;
  caps.ground.type = ts::Ground::Type::kCompliant;
  ts::Model general = caps;
  for (const ts::Rod& r : caps.rods)
    for (int e = 0; e < 2; ++e) caps.nodes[static_cast<std::size_t>(r.node[e])].radius_m = 0.02;
  c.push_back({"three_bar with end-caps", caps});
  for (ts::Rod& r : general.rods) {
    for (int e = 0; e < 2; ++e) general.nodes[static_cast<std::size_t>(r.node[e])].p_B_m = caps.p_BN(r.node[e]);
    r.inertia_B_kgm2 = Eigen::Vector3d(r.inertia_transverse_kgm2, r.inertia_transverse_kgm2, r.inertia_axial_kgm2).asDiagonal();
    r.general_inertia = true;
  }
  c.push_back({"three_bar of general inertia", general});
  for (const char* f : {"three_bar_local.xml", "six_bar.xml"}) c.push_back({f, ts::load_mjcf_file(dir + "/tests/data/mjcf/" + f).model});
  return c;
}

}  // namespace

// The general-body path on raw restrict pointers against its first version (Eigen columns,
// Model::p_BN per node; tests/support/legacy_body_path.hpp): the same node kinematics, rotations,
// rod wrenches and rod derivatives, bit for bit, at rest and tumbling (with ground contact).
TEST(DynamicsKernel, GeneralBodyPathBitIdenticalToItsFirstVersion) {
  for (const auto& c : body_cases()) {
    SCOPED_TRACE(c.name);
    ts::validate(c.model);
    ASSERT_TRUE(c.model.has_body_geometry());
    for (unsigned seed : {0u, 1u, 2u, 3u}) {
      SCOPED_TRACE(seed);
      const ts::State s = seed == 0 ? c.model.initial_state : shaken(c.model, seed);
      ts::Data d_new = ts::make_data(c.model), d_old = ts::make_data(c.model);
      ts::compute_derivative(c.model, s, d_new);
      legacy_body::body_kinematics(c.model, s, d_old);
      ts::compute_element_forces(c.model, s, d_old);
      legacy_body::body_accelerations(c.model, s, d_old);
      const Eigen::Index nrod13 = ts::State::kStride * c.model.nrod();
      EXPECT_GT(d_old.xdot.head(nrod13).cwiseAbs().maxCoeff(), 0.0);
      EXPECT_EQ(differing_bits(d_new.p_W_node.data(), d_old.p_W_node.data(), d_old.p_W_node.size()), 0);
      EXPECT_EQ(differing_bits(d_new.v_W_node.data(), d_old.v_W_node.data(), d_old.v_W_node.size()), 0);
      EXPECT_EQ(differing_bits(d_new.r_W_node.data(), d_old.r_W_node.data(), d_old.r_W_node.size()), 0);
      EXPECT_EQ(differing_bits(d_new.R_WB_rod.data(), d_old.R_WB_rod.data(), d_old.R_WB_rod.size()), 0);
      EXPECT_EQ(differing_bits(d_new.e_W_rod.data(), d_old.e_W_rod.data(), d_old.e_W_rod.size()), 0);
      EXPECT_EQ(differing_bits(d_new.f_W_rod.data(), d_old.f_W_rod.data(), d_old.f_W_rod.size()), 0);
      EXPECT_EQ(differing_bits(d_new.tau_W_rod.data(), d_old.tau_W_rod.data(), d_old.tau_W_rod.size()), 0);
      EXPECT_EQ(differing_bits(d_new.xdot.data(), d_old.xdot.data(), nrod13), 0);
    }
  }
}

// The general path's compliant ground (only the nodes listed in Data::ground_contact_nodes) and the
// winches' motor equations (the position loop's limit without a division when it has no rate limit)
// against their first versions (tests/support/legacy_body_path.hpp): the same contact forces,
// contact torques, energies and state derivatives, bit for bit, with the end-caps pressed into the
// ground, a body point marked `contact`, and winches of every control kind, with a rate limit and
// with a gear that holds the load.
TEST(DynamicsKernel, GeneralPathGroundAndWinchesBitIdenticalToTheirFirstVersion) {
  std::vector<KernelCase> cases = body_cases();
  ts::Model kinds = cases.front().model;  // the motorised 3-bar
  ASSERT_GE(kinds.nwinch(), 5);
  kinds.winches[1].rate_limit_mps = 0.05;
  kinds.winches[2].control = ts::Winch::Control::kVoltage;
  kinds.winches[3].control = ts::Winch::Control::kTorque;
  kinds.winches[4].backdrivable = false;
  kinds.nodes[7].contact = true;  // a cable point that touches the ground too
  cases.push_back({"three_bar_motorised, winches of every kind, a contact body point", kinds});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ts::validate(c.model);
    ts::Model no_ground = c.model;  // the element forces without the ground, for the reference's own loop
    no_ground.ground.type = ts::Ground::Type::kImpulse;
    const bool compliant = c.model.ground.type == ts::Ground::Type::kCompliant;
    int pressed = 0;
    for (unsigned seed : {0u, 1u, 2u, 3u}) {
      for (const double drop_m : {0.0, 0.004}) {
        SCOPED_TRACE(::testing::Message() << "seed " << seed << ", lowered by " << drop_m << " m");
        ts::State s = seed == 0 ? c.model.initial_state : shaken(c.model, seed);
        for (int j = 0; j < c.model.nrod(); ++j) s.p_WC(j).z() -= drop_m;
        for (int w = 0; w < c.model.nwinch(); ++w) {  // the motors turning, the integrals loaded
          s.x[c.model.winch_offset(w) + 1] = 40.0 * std::sin(1.0 + w + seed);
          s.x[c.model.winch_offset(w) + 2] = 1e-4 * std::cos(2.0 * w + seed);
        }
        s.time_s = 0.1 * seed;
        ts::Data d_new = ts::make_data(c.model), d_old = ts::make_data(c.model);
        for (int w = 0; w < c.model.nwinch(); ++w)
          if (c.model.winches[static_cast<std::size_t>(w)].control != ts::Winch::Control::kPosition) {
            d_new.winch_target_m[w] = d_old.winch_target_m[w] = 0.3 - 0.1 * w;  // a command or a torque
          }
        ts::compute_derivative(c.model, s, d_new);
        legacy_body::body_kinematics(c.model, s, d_old);
        ts::compute_element_forces(no_ground, s, d_old);
        const double energy_old = compliant ? legacy_body::compliant_ground_forces(c.model, d_old, &s) : 0.0;
        legacy_body::winch_rates(c.model, s, d_old);
        legacy_body::body_accelerations(c.model, s, d_old);
        pressed += energy_old > 0.0 ? 1 : 0;
        EXPECT_EQ(differing_bits(d_new.f_W_node.data(), d_old.f_W_node.data(), d_old.f_W_node.size()), 0);
        EXPECT_EQ(differing_bits(d_new.tau_W_contact_rod.data(), d_old.tau_W_contact_rod.data(), d_old.tau_W_contact_rod.size()), 0);
        EXPECT_EQ(differing_bits(d_new.xdot.data(), d_old.xdot.data(), d_old.xdot.size()), 0);
        EXPECT_EQ(differing_bits(d_new.winch_command.data(), d_old.winch_command.data(), d_old.winch_command.size()), 0);
        EXPECT_EQ(differing_bits(d_new.winch_torque_Nm.data(), d_old.winch_torque_Nm.data(), d_old.winch_torque_Nm.size()), 0);
        if (!compliant) continue;
        // the energy the loop returns, and the ground's energy and lowest point from the list
        ts::Data d_again = d_new;
        d_again.f_W_node.setZero();
        const double energy_new = ts::add_compliant_ground_forces(c.model, d_again, &s);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(energy_new), std::bit_cast<std::uint64_t>(energy_old));
        double energy_all = 0.0, lowest_all = std::numeric_limits<double>::infinity();
        for (int nd = 0; nd < c.model.nnode(); ++nd) {
          const ts::Node& n = c.model.nodes[static_cast<std::size_t>(nd)];
          if (!n.touches_ground()) continue;
          const double depth = c.model.ground.height_m - (d_old.p_W_node(2, nd) - n.radius_m);
          if (depth > 0.0) energy_all += 0.5 * c.model.ground.stiffness_Npm * depth * depth;
          lowest_all = std::min(lowest_all, (d_old.p_W_node(2, nd) - n.radius_m) - c.model.ground.height_m);
        }
        EXPECT_EQ(std::bit_cast<std::uint64_t>(ts::ground_energy(c.model, d_new)), std::bit_cast<std::uint64_t>(energy_all));
        EXPECT_EQ(std::bit_cast<std::uint64_t>(ts::lowest_end_height(c.model, d_new)), std::bit_cast<std::uint64_t>(lowest_all));
      }
    }
    if (compliant) {
      EXPECT_GT(pressed, 0);  // points pressed into the ground
    }
  }
}
