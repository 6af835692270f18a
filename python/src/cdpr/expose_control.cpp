// Bindings of include/tendyn/cdpr/control.hpp: LowerProfile, ControllerConfig, SensorConfig, typical_sensor_noise.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/cdpr/control.hpp>

#include "cdpr/expose.hpp"

#include <string>
#include <vector>

namespace tendyn::python::cdpr_bind {

namespace py = pybind11;

void expose_control(py::module_& m) {
  py::enum_<LowerProfile>(m, "LowerProfile", "Source of the optimal lower-group profile (control.hpp).")
      .value("kFull", LowerProfile::kFull)
      .value("kSystem4", LowerProfile::kSystem4);
  m.def("lower_profile_from_string", &lower_profile_from_string, py::arg("name"), "'full' or 'system4' (tendyn.Error otherwise).");
  m.def("to_string", py::overload_cast<LowerProfile>(&to_string), py::arg("profile"), "'full' or 'system4'.");
  py::class_<ControllerConfig> cc(m, "ControllerConfig", "The printer controller's gains and options (control.hpp).");
  cc.def_readwrite("kp_pos_Npm", &ControllerConfig::kp_pos_Npm, "position stiffness [N/m]")
      .def_readwrite("kd_pos_Nspm", &ControllerConfig::kd_pos_Nspm, "position damping [N s/m]")
      .def_readwrite("kp_rot_Nmprad", &ControllerConfig::kp_rot_Nmprad, "orientation stiffness [N m/rad]")
      .def_readwrite("kd_rot_Nmsprad", &ControllerConfig::kd_rot_Nmsprad, "orientation damping [N m s/rad]")
      .def_readwrite("tau_tension_s", &ControllerConfig::tau_tension_s, "tension regulator time constant [s]")
      .def_readwrite("tau_filter_s", &ControllerConfig::tau_filter_s, "low-pass of its readings [s] (0 = off)")
      .def_readwrite("f_min_N", &ControllerConfig::f_min_N,
                     "lower tension bound of the full and upper solves [N]; None (default) = the model's tension.min")
      .def_readwrite("f_max_N", &ControllerConfig::f_max_N, "upper tension bound [N]; None (default) = the model's tension.max")
      .def_readwrite("method", &ControllerConfig::method, "solver of the full 6 x n distribution")
      .def_readwrite("lower_profile", &ControllerConfig::lower_profile, "source of the optimal lower-group profile")
      .def_readwrite("lower_method", &ControllerConfig::lower_method, "solver of system (4) (lower_profile kSystem4)");
  def_kw_init(cc);
  py::class_<SensorConfig> sc(m, "SensorConfig", "Gaussian sensor noise (sigma = 0: exact), seeded.");
  sc.def_readwrite("force_sigma_N", &SensorConfig::force_sigma_N, "lower-cable force [N]")
      .def_readwrite("inclination_sigma_rad", &SensorConfig::inclination_sigma_rad, "lower-cable inclination [rad]")
      .def_readwrite("accel_sigma", &SensorConfig::accel_sigma, "accelerometer [m/s^2]")
      .def_readwrite("gyro_sigma", &SensorConfig::gyro_sigma, "gyro [rad/s]")
      .def_readwrite("position_sigma_m", &SensorConfig::position_sigma_m, "pose tracker position [m]")
      .def_readwrite("velocity_sigma_m_s", &SensorConfig::velocity_sigma_m_s, "pose tracker velocity [m/s]")
      .def_readwrite("seed", &SensorConfig::seed, "noise seed");
  def_kw_init(sc);
  m.def("typical_sensor_noise", &typical_sensor_noise, py::arg("seed"), "The noise levels of `tendyn cdpr-experiment --noise`.");
}

}  // namespace tendyn::python::cdpr_bind
