// The tree binding files, one per public header include/tendyn/tree/<header>.hpp
// (python/src/tree/expose_<header>.cpp), called by module.cpp in this order; and the argument
// checks they share.
//
// Every q / v / a / tau argument goes through vec_arg: a 1-D array of the model's size, or
// tendyn.Error (a ValueError) naming the argument, the expected and the given shape.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/block.hpp>
#include <tendyn/tree/data.hpp>
#include <tendyn/tree/model.hpp>

#include "bind_util.hpp"

#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

namespace tendyn::python::tree_bind {

using namespace tendyn::tree;  // the binding files name the bound types as C++ does

void expose_model(pybind11::module_& m);       // model.hpp: JointType, BaseMode, Joint, Link, Model, convert_base
void expose_model_io(pybind11::module_& m);    // model_io.hpp: load_model, load_urdf, ..., to_urdf
void expose_data(pybind11::module_& m);        // data.hpp: LinkWrench, Data
void expose_algorithms(pybind11::module_& m);  // algorithms.hpp: forward_kinematics, rnea, crba, aba, ...
void expose_block(pybind11::module_& m);       // block.hpp: BlockData, block_*
void expose_simulate(pybind11::module_& m);    // simulate.hpp: TorqueSchedule, SimulationResult, simulate
void expose_identify(pybind11::module_& m);    // identify.hpp: regressor, base parameters, MotionLog, identify

using V = Eigen::VectorXd;
using Fext = std::vector<LinkWrench>;
using DoubleArray = pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast>;

/// x as a vector of n numbers (size_name: "nq" or "nv"). Throws tendyn::Error (tendyn.Error, a
/// ValueError) naming `what`, the expected shape (n,) and the given one.
inline V vec_arg(const pybind11::handle& x, Eigen::Index n, const char* what, const char* size_name, const Model& m) {
  const std::string expected =
      "expected shape (" + std::to_string(n) + ",) (" + size_name + " = " + std::to_string(n) + " of model '" + m.name + "')";
  if (x.is_none()) throw tendyn::Error(std::string(what) + ": " + expected + ", got None");
  DoubleArray a = DoubleArray::ensure(x);
  if (!a) throw tendyn::Error(std::string(what) + ": " + expected + ", got a " + type_name(x) + " (not numbers)");
  if (a.ndim() != 1 || a.shape(0) != n) throw tendyn::Error(std::string(what) + ": " + expected + ", got shape " + shape_str(a));
  return Eigen::Map<const V>(a.data(), n);
}
inline V q_arg(const pybind11::handle& x, const Model& m, const char* what = "q") { return vec_arg(x, m.nq, what, "nq", m); }
inline V v_arg(const pybind11::handle& x, const Model& m, const char* what = "v") { return vec_arg(x, m.nv, what, "nv", m); }

/// A Data / BlockData made for another model would be read out of bounds: tendyn::Error.
inline void check_data(const Model& m, const Data& d) {
  if (static_cast<int>(d.X_PL.size()) != m.nlinks() || d.tau.size() != m.nv)
    throw tendyn::Error("tree: data was made for another model (it has " + std::to_string(d.X_PL.size()) +
                        " links, nv = " + std::to_string(d.tau.size()) + "; model '" + m.name + "' has " + std::to_string(m.nlinks()) +
                        " links, nv = " + std::to_string(m.nv) + ")");
}
inline void check_data(const Model& m, const BlockData& d) {
  check_data(m, d.fk);
  if (d.b.size() != m.nv) throw tendyn::Error("tree: block data was made for another model");
}

/// True when every input of an algorithm is finite (vectors and external wrenches).
inline bool all_finite(std::initializer_list<const V*> inputs, const Fext& fext = {}) {
  for (const V* x : inputs)
    if (!x->allFinite()) return false;
  for (const auto& w : fext)
    if (!w.f_W.allFinite() || !w.n_W.allFinite()) return false;
  return true;
}

/// `x` (a result of `inputs`), after checking that finite inputs gave a finite result: an overflow
/// (a = 1e308, v = 1e200) raises tendyn.Error naming `where` and `quantity` (check_finite_result).
/// Non-finite inputs give their non-finite result unchanged.
template <class X>
const X& finite_result(const Model& m, const X& x, std::initializer_list<const V*> inputs, const Fext& fext, const char* where,
                       const char* quantity) {
  if (all_finite(inputs, fext)) check_finite_result(m, x, where, quantity);
  return x;
}

/// Numbers in the tree reprs: 6 significant digits (%g).
inline std::string fmt(double x) {
  std::ostringstream os;
  os.precision(6);
  os << x;
  return os.str();
}
inline std::string fmt(const Eigen::Vector3d& x) { return "[" + fmt(x[0]) + ", " + fmt(x[1]) + ", " + fmt(x[2]) + "]"; }

}  // namespace tendyn::python::tree_bind
