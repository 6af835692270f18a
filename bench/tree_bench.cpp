// Tree dynamics benchmarks: RNEA, CRBA, ABA and the document-003 block-matrix EoM on the 18-link
// biped and a 35-DOF humanoid, DART 6 equivalents in the same run (when DART is found), and the
// growth of the block-matrix cost with the number of links.
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/block.hpp>
#include <tendyn/tree/model_io.hpp>

#include <benchmark/benchmark.h>

#include <random>
#include <string>

#ifdef TENDYN_HAVE_DART
#include "tree/dart_bridge.hpp"
#endif

namespace {

using namespace tendyn::tree;

std::string path(const char* f) { return std::string(TENDYN_SOURCE_DIR) + "/models/tree/" + f; }

const Model& model(int id) {
  static const Model biped = load_model(path("biped.yaml"), BaseMode::kFictitious);
  static const Model humanoid_free = load_model(path("humanoid35.urdf"), BaseMode::kFree);
  static const Model humanoid_fict = load_model(path("humanoid35.urdf"), BaseMode::kFictitious);
  switch (id) {
    case 0: return biped;
    case 1: return humanoid_fict;
    default: return humanoid_free;
  }
}
const char* model_label(int id) { return id == 0 ? "biped18" : (id == 1 ? "humanoid35_fictitious" : "humanoid35_free"); }

// Two configurations alternated every iteration: DART skips work when setPositions gets the
// values it already has, so a constant state would time its caches, not its algorithms.
struct State {
  Eigen::VectorXd q, v, a, q0, q1;
  bool flip = false;
  const Eigen::VectorXd& next() {
    flip = !flip;
    return flip ? q1 : q0;
  }
  explicit State(const Model& m) : q(m.random_configuration(1)), v(m.nv), a(m.nv), q0(q), q1(m.random_configuration(3)) {
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int k = 0; k < m.nv; ++k) {
      v[k] = u(rng);
      a[k] = u(rng);
    }
  }
};

void BM_RNEA(benchmark::State& st) {
  const Model& m = model(static_cast<int>(st.range(0)));
  Data d(m);
  State s(m);
  for (auto _ : st) benchmark::DoNotOptimize(rnea(m, d, s.next(), s.v, s.a).data());
  st.SetLabel(model_label(static_cast<int>(st.range(0))));
}
void BM_CRBA(benchmark::State& st) {
  const Model& m = model(static_cast<int>(st.range(0)));
  Data d(m);
  State s(m);
  for (auto _ : st) benchmark::DoNotOptimize(crba(m, d, s.next()).data());
  st.SetLabel(model_label(static_cast<int>(st.range(0))));
}
void BM_ABA(benchmark::State& st) {
  const Model& m = model(static_cast<int>(st.range(0)));
  Data d(m);
  State s(m);
  for (auto _ : st) benchmark::DoNotOptimize(aba(m, d, s.next(), s.v, s.a).data());
  st.SetLabel(model_label(static_cast<int>(st.range(0))));
}
void BM_BlockEoM(benchmark::State& st) {  // A(q) and b(q, q') by the block-matrix formulas
  const Model& m = model(static_cast<int>(st.range(0)));
  BlockData bd(m);
  State s(m);
  for (auto _ : st) {
    block_eom(m, bd, s.next(), s.v);
    benchmark::DoNotOptimize(bd.A.data());
  }
  st.SetLabel(model_label(static_cast<int>(st.range(0))));
}
void BM_BlockInverseDynamics(benchmark::State& st) {
  const Model& m = model(static_cast<int>(st.range(0)));
  BlockData bd(m);
  State s(m);
  for (auto _ : st) benchmark::DoNotOptimize(block_inverse_dynamics(m, bd, s.next(), s.v, s.a).data());
  st.SetLabel(model_label(static_cast<int>(st.range(0))));
}
BENCHMARK(BM_RNEA)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK(BM_CRBA)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK(BM_ABA)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK(BM_BlockEoM)->Arg(0)->Arg(1);
BENCHMARK(BM_BlockInverseDynamics)->Arg(0)->Arg(1);

#ifdef TENDYN_HAVE_DART
// DART: setPositions/setVelocities invalidate its caches, so every iteration recomputes.
// Its states: tendyn's for the models whose coordinates are the joint angles (nq == nv); for the
// free-base humanoid DART's own (6 free-joint coordinates: exponential coordinates + translation,
// then the same 29 joint angles as tendyn's state), since tendyn's base holds a quaternion.
struct DartState {
  Eigen::VectorXd q0, q1, v, a;
  bool flip = false;
  const Eigen::VectorXd& next() {
    flip = !flip;
    return flip ? q1 : q0;
  }
  explicit DartState(const Model& m) {
    const State s(m);
    v = s.v;
    a = s.a;
    if (m.nq == m.nv) {
      q0 = s.q0;
      q1 = s.q1;
      return;
    }
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    q0.resize(m.nv);
    q1.resize(m.nv);
    for (int k = 0; k < m.nv; ++k) q0[k] = u(rng), q1[k] = u(rng);
  }
};
void BM_DART_InverseDynamics(benchmark::State& st) {
  const Model& m = model(static_cast<int>(st.range(0)));
  auto skel = tendyn::tree::testing::to_dart(m);
  DartState s(m);
  for (auto _ : st) {
    skel->setPositions(s.next());
    skel->setVelocities(s.v);
    skel->setAccelerations(s.a);
    skel->computeInverseDynamics();
    benchmark::DoNotOptimize(skel->getForces().data());
  }
  st.SetLabel(model_label(static_cast<int>(st.range(0))));
}
void BM_DART_MassMatrix(benchmark::State& st) {
  const Model& m = model(static_cast<int>(st.range(0)));
  auto skel = tendyn::tree::testing::to_dart(m);
  DartState s(m);
  for (auto _ : st) {
    skel->setPositions(s.next());
    benchmark::DoNotOptimize(skel->getMassMatrix().data());
  }
  st.SetLabel(model_label(static_cast<int>(st.range(0))));
}
void BM_DART_ForwardDynamics(benchmark::State& st) {
  const Model& m = model(static_cast<int>(st.range(0)));
  auto skel = tendyn::tree::testing::to_dart(m);
  DartState s(m);
  for (auto _ : st) {
    skel->setPositions(s.next());
    skel->setVelocities(s.v);
    skel->setForces(s.a);
    skel->computeForwardDynamics();
    benchmark::DoNotOptimize(skel->getAccelerations().data());
  }
  st.SetLabel(model_label(static_cast<int>(st.range(0))));
}
BENCHMARK(BM_DART_InverseDynamics)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK(BM_DART_MassMatrix)->Arg(0)->Arg(1)->Arg(2);
BENCHMARK(BM_DART_ForwardDynamics)->Arg(0)->Arg(1)->Arg(2);
#endif

// Cost growth with n: a binary tree of n revolute links (axes cycling x, y, z).
Model binary_tree(int n) {
  ModelBuilder b(std::string("binary").append(std::to_string(n)));
  for (int i = 0; i < n; ++i) {
    Link l;
    l.name = std::string("l").append(std::to_string(i));
    l.mass_kg = 1.0;
    l.p_LC_m = Eigen::Vector3d(0.0, 0.0, -0.1);
    l.inertia_C_kgm2 = Eigen::Vector3d(0.01, 0.012, 0.008).asDiagonal();
    Joint j;
    j.type = JointType::kRevolute;
    j.axis = Eigen::Vector3d::Unit(i % 3);
    j.p_PJ_m = Eigen::Vector3d(0.05 * (i % 2 ? 1 : -1), 0.0, -0.2);
    b.add_link(l, i == 0 ? std::string() : std::string("l").append(std::to_string((i - 1) / 2)), j);
  }
  return b.build();
}
void BM_Growth_BlockEoM(benchmark::State& st) {
  const Model m = binary_tree(static_cast<int>(st.range(0)));
  BlockData bd(m);
  State s(m);
  for (auto _ : st) {
    block_eom(m, bd, s.next(), s.v);
    benchmark::DoNotOptimize(bd.A.data());
  }
}
void BM_Growth_CRBA_plus_RNEA(benchmark::State& st) {  // the same outputs (M and b) recursively
  const Model m = binary_tree(static_cast<int>(st.range(0)));
  Data d(m);
  State s(m);
  for (auto _ : st) {
    const Eigen::VectorXd& q = s.next();
    benchmark::DoNotOptimize(crba(m, d, q).data());
    benchmark::DoNotOptimize(nonlinear_effects(m, d, q, s.v).data());
  }
}
void BM_Growth_RNEA(benchmark::State& st) {
  const Model m = binary_tree(static_cast<int>(st.range(0)));
  Data d(m);
  State s(m);
  for (auto _ : st) benchmark::DoNotOptimize(rnea(m, d, s.next(), s.v, s.a).data());
}
BENCHMARK(BM_Growth_BlockEoM)->Arg(6)->Arg(12)->Arg(24)->Arg(48)->Arg(96);
BENCHMARK(BM_Growth_CRBA_plus_RNEA)->Arg(6)->Arg(12)->Arg(24)->Arg(48)->Arg(96);
BENCHMARK(BM_Growth_RNEA)->Arg(6)->Arg(12)->Arg(24)->Arg(48)->Arg(96);

}  // namespace

BENCHMARK_MAIN();
