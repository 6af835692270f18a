// Error types of tendyn. Every failure the user can cause is reported by throwing one of these
// with a message that names the place (file:line, field, element id) and the reason.
#pragma once
#include <stdexcept>
#include <string>

namespace tendyn {

/// Bad input: a malformed model file, an invalid parameter, an inconsistent topology.
/// The CLI maps it to exit code 2.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A run that cannot continue: non-finite state, energy blow-up, singular configuration.
/// The CLI maps it to exit code 3. `time()` is the simulated time [s] at which it was detected.
class SimulationError : public Error {
 public:
  SimulationError(const std::string& what, double time_s) : Error(what), time_s_(time_s) {}
  [[nodiscard]] double time() const noexcept { return time_s_; }

 private:
  double time_s_;
};

}  // namespace tendyn
