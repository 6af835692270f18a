// Ground contact of rod ends with the plane z = height (normal n = +z), two models:
//
// Both touch the ground with the same points: the documents' rods with their two end points;
// models with body geometry (Model::has_body_geometry()) with every rod end and every body point
// marked `contact`, a node with an end-cap radius r > 0 with its sphere's lowest point (the node
// position - r z), so that a resting end-cap sits with its centre at height r.
//
// * Impulse (document 001, section 2.3, eqs. 2-55..2-64): rigid ground, Newton restitution
//   u_n+ = -e u_n- and Coulomb friction in the impulse (sticking when the sticking impulse lies in
//   the friction cone |P_t| <= mu P_n, sliding on the cone otherwise). Applied at step boundaries;
//   the simulation driver locates the impact time inside a step (the step is redone up to the
//   impact) so that no end sinks deeper than `max_penetration_m`. When both ends of a rod touch at
//   once, their two impulses are solved together (projected Gauss-Seidel on the 2-point impulse
//   problem, iterated to convergence); with one contact this is exactly the document's law.
//   The law is that of a rigid body: the contact point's velocity is v_C + w x (p_c - p_C), and an
//   impulse P at p_c changes v_C by P / m and w by I_W^-1 ((p_c - p_C) x P), with the rod's
//   inverse inertia in world axes (axisymmetric, or a general tensor R I_B^-1 R^T); all contact
//   points of one rod (at most kMaxImpulseContactsPerRod) are solved together.
//   Resting contact: an end at or below the ground that is not approaching but penetrates is pushed
//   out at the rate baumgarte * depth / h (no energy is added at a located impact, where depth ~ 0).
//   With Ground::FrictionLaw::kPrinted the velocity impulse is instead eqs. (2-62)-(2-64) as
//   printed: P = P_n (mu v_x, mu v_y, 1), (v_x, v_y) the end's tangential velocity before the
//   impact [m/s], P_n from (2-64) (two ends of a rod: the same law at both, solved together).
//   That tangential impulse points along the slip, not against it: it accelerates a sliding
//   end (a rod sliding on the ground speeds up as v0 exp(mu g t); tests/tensegrity/contact_test.cpp)
//   and is not even dimensionally consistent (mu v is in m/s). No resting-contact pre-impulse is
//   applied (the document applies impulses after each step); the depth correction is unchanged.
//   Kept to show what the document's printed figures imply (docs/VALIDATION.md), not for use.
// * Compliant (as in MuJoCo / NTRT users expect): per end a normal force
//   F_n = max(0, k d - c u_n) for depth d > 0, and regularised Coulomb friction
//   F_t = -mu F_n u_t / sqrt(|u_t|^2 + v_slip^2). A smooth force: works with every integrator.
#pragma once
#include <tendyn/tensegrity/dynamics.hpp>

namespace tendyn::tensegrity {

/// The most points of one rod that may touch the impulse ground (its rod ends and body points
/// marked `contact`); validate(Model) refuses more.
inline constexpr int kMaxImpulseContactsPerRod = 16;

/// Applies the impulse model at the current state for a step of size h [s] (h sets the
/// resting-contact correction rate). Changes rod velocities, and the poses of rods whose contact
/// points penetrate (the depth correction). Returns the number of contact points that received an
/// impulse. Requires forward_kinematics on `state` (node positions/velocities
/// in data). O(nrod). Throws SimulationError under FrictionLaw::kPrinted when (2-64) has no
/// positive normal impulse (its denominator n . K a <= 0 at a fast sliding end).
int apply_ground_impulses(const Model& model, Data& data, State& state, double h);

/// Resting contact, before a step of size h [s]: for contact points touching the ground that the
/// forces would press into it during the step, half of the impulse that keeps them on the ground (no
/// normal approach, Coulomb friction) is applied now and the other half follows at the step end
/// (apply_ground_impulses), like the two kicks of a Verlet step. This removes the O(h) creep of a
/// post-step-only impulse scheme (a block under a pull below mu N then does not move). Requires
/// compute_derivative on `state`. Returns the number of contact points that received an impulse (always 0
/// under FrictionLaw::kPrinted: the document has no such step).
int apply_ground_pre_impulses(const Model& model, Data& data, State& state, double h);

/// Adds compliant ground forces to data.f_W_node (called by compute_element_forces when the
/// model's ground is compliant). Rod ends and body points marked `contact` touch the ground; a node
/// with an end-cap radius r touches it with the bottom of its sphere (depth and slip of that point,
/// which needs `state` for the rod's angular velocity), and the extra lever of that force goes to
/// data.tau_W_contact_rod. Returns the ground's elastic energy 1/2 k d^2 summed [J].
double add_compliant_ground_forces(const Model& model, Data& data, const State* state = nullptr);

/// Elastic energy stored in the compliant ground at the state in data [J] (0 for other grounds).
double ground_energy(const Model& model, const Data& data);

/// Lowest height above the ground [m] of the points that touch it (negative: penetration): rod
/// ends, and with body geometry also body points marked `contact`, an end-cap's sphere bottom
/// (node height - radius). From data.p_W_node.
double lowest_end_height(const Model& model, const Data& data);

}  // namespace tendyn::tensegrity
