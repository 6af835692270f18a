// The two models on which tendyn is compared with MuJoCo 2.2.2 (bench/tensegrity_vs_mujoco.cpp,
// bench/tensegrity_step.cpp, tests/peers/mujoco_crosscheck_test.cpp): every cable stays taut over
// the 1 s runs, because 2.2.2 tendon springs also push. Every parameter is set explicitly, so that
// a change of a builder default cannot change the comparison.
#pragma once
#include <tendyn/tensegrity/builders.hpp>

#include <numbers>

namespace tendyn::test {

/// 3-prism of document 000's rods (m = 1 kg, L = 0.3 m), tilt psi = 50 deg about a small pivot
/// circle (r = 35 mm, pivot at mid-rod); cables of 50 N/m with rest lengths near those of the twisted
/// equilibrium (ring 0.165 m, side `rest_side_m`, 0.132 m by default) and well below the cable
/// lengths, so the prism untwists through a large motion while no cable slackens during 1 s.
inline tensegrity::Model taut_prism(double damping_Nspm, double rest_side_m = 0.132) {
  tensegrity::PrismParams p;
  p.n = 3;
  p.rod_mass_kg = 1.0;
  p.rod_length_m = 0.3;
  p.psi_rad = 50.0 * std::numbers::pi / 180.0;
  p.radius_m = 0.035;
  p.pivot = 0.5;
  p.height_m = 0.0;
  p.stiffness_Npm = 50.0;
  p.rest_top_m = 0.165;
  p.rest_bottom_m = 0.165;
  p.rest_side_m = rest_side_m;
  p.damping_Nspm = damping_Nspm;
  p.damping_law = tensegrity::DampingLaw::kAxial;
  return tensegrity::make_prism(p);
}

/// SUPERball-like 6-bar (m = 1 kg, L = 1 m, 24 cables of 100 N/m, rest 0.5 m against a symmetric
/// cable length of 0.612 m), pairs spaced 10 % wider than equilibrium and perturbed by 20 mm.
inline tensegrity::Model taut_six_bar(double damping_Nspm) {
  tensegrity::OctahedronParams o;
  o.rod_mass_kg = 1.0;
  o.rod_length_m = 1.0;
  o.stiffness_Npm = 100.0;
  o.rest_length_m = 0.5;
  o.spacing_scale = 1.1;
  o.perturbation_m = 0.02;
  o.damping_Nspm = damping_Nspm;
  o.damping_law = tensegrity::DampingLaw::kAxial;
  return tensegrity::make_expanded_octahedron(o);
}

}  // namespace tendyn::test
