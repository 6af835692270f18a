// Time integrators for the rod-and-cable dynamics.
//
// Every step function has the same precondition: data.xdot holds f(state), i.e.
// compute_derivative(model, state, data) was called on the current state (the simulation driver
// does this once per step, and uses the same evaluation for monitoring and output). The driver's
// step() (simulate.hpp) establishes it itself: use it unless you need a bare integrator step. On return the
// state is advanced and its quaternions have unit norm; data holds scratch from the last
// evaluation, not necessarily of the new state. No step allocates.
#pragma once
#include <tendyn/core/enum_names.hpp>
#include <tendyn/core/integrate.hpp>
#include <tendyn/tensegrity/dynamics.hpp>

#include <string>

namespace tendyn::tensegrity {

enum class Integrator {
  kRK4,              ///< classical Runge-Kutta, 4th order, 4 evaluations per step
  kDormandPrince45,  ///< Dormand-Prince 5(4), adaptive step with error control, 7 evaluations per step
  kLieVerlet,        ///< symplectic splitting (kick-drift-kick) with the exact free motion of an
                     ///< axisymmetric rigid body in the drift (Dullweber, Leimkuhler, McLachlan 1997);
                     ///< 2nd order, no energy drift in long conservative runs, 2 evaluations per step
};

/// The names of Integrator (tendyn/core/enum_names.hpp), aliases after the name.
constexpr EnumNames<Integrator, 5> enum_names(Integrator) {
  return {"integrator",
          {{{Integrator::kRK4, "rk4"},
            {Integrator::kDormandPrince45, "dopri5"},
            {Integrator::kDormandPrince45, "dormand-prince"},
            {Integrator::kLieVerlet, "lie-verlet"},
            {Integrator::kLieVerlet, "symplectic"}}}};
}
/// "rk4", "dopri5", "lie-verlet". Throws tendyn::Error on an unknown name (listing the valid ones).
inline Integrator integrator_from_string(const std::string& name) { return enum_from_string<Integrator>(name); }
inline const char* to_string(Integrator integrator) { return enum_to_string(integrator); }

/// One RK4 step of size h [s].
void step_rk4(const Model& model, Data& data, State& state, double h);

/// One kick-drift-kick step of size h [s] (see Integrator::kLieVerlet). With velocity-dependent
/// forces (damping) the second kick uses half-step velocities (explicit, first order in damping).
void step_lie_verlet(const Model& model, Data& data, State& state, double h);

/// Result of one attempted Dormand-Prince step, and its error control (rtol, atol, h_min_s,
/// h_max_s): the shared types of core/integrate.hpp.
using tendyn::AdaptiveStep;
using tendyn::Tolerance;

/// One attempted Dormand-Prince 5(4) step of size h (5th-order solution propagated). If the error
/// estimate exceeds the tolerance the state is left unchanged and accepted = false.
/// Throws SimulationError when the step would fall below h_min_s.
AdaptiveStep step_dopri5(const Model& model, Data& data, State& state, double h, const Tolerance& tol);

}  // namespace tendyn::tensegrity
