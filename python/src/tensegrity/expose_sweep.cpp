// Bindings of include/tendyn/tensegrity/sweep.hpp into tendyn.tensegrity: sweep specs, their grid,
// one point's metrics and the resumable run. tendyn.run_spec / tendyn.sweep (python/tendyn) call
// these, so Python and `tendyn sweep --spec` accept and refuse the same specs for the same reasons.
// A spec given as a dict has no file places: messages name "sweep spec" instead.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/sweep.hpp>

#include "tensegrity/expose.hpp"

#include <cmath>
#include <string>

namespace py = pybind11;

namespace tendyn::python::tensegrity_bind {

namespace ts = tendyn::tensegrity;

namespace {

// A Python value as the spec reader sees a YAML value: int -> integer (|v| < 2^53, else a real),
// float -> real (inf/nan: text, refused by the numeric fields), str -> text, a NumPy scalar by
// its .item(); bool, None, lists, dicts -> "other" (refused by every field). Messages quote repr().
ts::SweepValue value_from_py(py::handle v) {
  ts::SweepValue s;
  if (py::isinstance<py::bool_>(v)) {
    s.kind = ts::SweepValue::Kind::kOther;
  } else if (py::isinstance<py::int_>(v)) {
    const double d = py::cast<double>(py::float_(py::reinterpret_borrow<py::object>(v)));
    s = std::abs(d) < 9007199254740992.0 ? ts::SweepValue::integer(v.cast<long long>()) : ts::SweepValue::real(d);
  } else if (py::isinstance<py::float_>(v)) {
    s = ts::SweepValue::real(v.cast<double>());
  } else if (py::isinstance<py::str>(v)) {
    s = ts::SweepValue::of_text(v.cast<std::string>());
  } else if (py::hasattr(v, "dtype") && py::hasattr(v, "item") && py::len(v.attr("shape")) == 0) {
    return value_from_py(v.attr("item")());
  } else {
    s.kind = ts::SweepValue::Kind::kOther;
  }
  if (s.kind != ts::SweepValue::Kind::kText) s.text = py::repr(v).cast<std::string>();
  return s;
}

py::object value_to_py(const ts::SweepValue& v) {
  switch (v.kind) {
    case ts::SweepValue::Kind::kInteger: return py::int_(static_cast<long long>(v.number));
    case ts::SweepValue::Kind::kReal: return py::float_(v.number);
    case ts::SweepValue::Kind::kText: return py::str(v.text);
    case ts::SweepValue::Kind::kOther: break;
  }
  return py::none();
}

std::string key_of(py::handle k, const std::string& where) {
  if (!py::isinstance<py::str>(k)) throw tendyn::Error(where + ": a key must be a name (str), got " + py::repr(k).cast<std::string>());
  return k.cast<std::string>();
}

py::dict as_mapping(py::handle v, const std::string& where) {
  if (!py::isinstance(v, py::module_::import("collections.abc").attr("Mapping")))
    throw tendyn::Error(where + ": expected a mapping (key: value)");
  return py::dict(py::reinterpret_borrow<py::object>(v));
}

std::vector<ts::SweepField> fields_from_py(py::handle section, const std::string& name, const std::string& what) {
  std::vector<ts::SweepField> out;
  for (const auto item : as_mapping(section, name + ": " + what))
    out.push_back({key_of(item.first, name + ": " + what), value_from_py(item.second), ""});
  return out;
}

// A spec dict, with the keys and checks of a spec file (sweep_spec_from_string).
ts::SweepSpec spec_from_dict(py::handle spec_obj, const std::string& name) {
  ts::SweepSpec spec;
  spec.name = name;
  const py::dict d = as_mapping(spec_obj, name);
  static const char* const allowed = "model, prism, simulation, grid, out, threads";
  for (const auto item : d) {
    const std::string k = key_of(item.first, name);
    if (k != "model" && k != "prism" && k != "simulation" && k != "grid" && k != "out" && k != "threads")
      throw tendyn::Error(name + ": " + k + ": unknown field '" + k + "' (allowed: " + allowed + ")");
  }
  if (d.contains("model")) {
    if (!py::isinstance<py::str>(d["model"])) throw tendyn::Error(name + ": model: must be \"prism\" or a model file path");
    spec.model = d["model"].cast<std::string>();
  }
  if (d.contains("prism")) {
    spec.has_prism = true;
    if (spec.model != "prism")
      throw tendyn::Error(name + ": prism: 'prism' is given but 'model' is the file '" + spec.model +
                          "' (prism parameters apply only to model: prism)");
    spec.prism = fields_from_py(d["prism"], name, "prism");
  }
  if (d.contains("simulation")) spec.simulation = fields_from_py(d["simulation"], name, "simulation");
  if (d.contains("grid")) {
    for (const auto item : as_mapping(d["grid"], name + ": grid")) {
      ts::SweepAxis axis{key_of(item.first, name + ": grid"), "", {}};
      if (py::isinstance<py::str>(item.second) || !py::isinstance<py::iterable>(item.second))
        throw tendyn::Error(name + ": grid." + axis.name + ": must be a non-empty list");
      for (const auto v : item.second) axis.values.push_back(value_from_py(v));
      spec.grid.push_back(std::move(axis));
    }
  }
  if (d.contains("out")) spec.out = py::str(py::module_::import("os").attr("fspath")(d["out"])).cast<std::string>();
  if (d.contains("threads")) {
    const ts::SweepValue v = value_from_py(d["threads"]);
    if (v.kind != ts::SweepValue::Kind::kInteger || v.number < 0 || v.number > 4096)
      throw tendyn::Error(name + ": threads: must be an integer in [0, 4096] (0: all hardware threads; got '" + v.text + "')");
    spec.threads = static_cast<int>(v.number);
  }
  ts::validate(spec);
  return spec;
}

ts::SweepPoint point_from_dict(py::handle point, const std::string& name) {
  ts::SweepPoint p;
  for (const auto item : as_mapping(point, name + ": grid point"))
    p.push_back({key_of(item.first, name + ": grid point"), value_from_py(item.second), ""});
  return p;
}

py::dict point_to_py(const ts::SweepPoint& p) {
  py::dict d;
  for (const auto& f : p) d[py::str(f.name)] = value_to_py(f.value);
  return d;
}

py::object never_none(double t_s) { return t_s < 0 ? py::none() : py::object(py::float_(t_s)); }
py::object id_or_none(const std::string& id) { return id.empty() ? py::none() : py::object(py::str(id)); }

py::dict metrics_to_py(const ts::SweepMetrics& m) {
  py::dict d;
  d["normal_mode"] = m.normal_mode;
  d["first_slack_time_s"] = never_none(m.first_slack_time_s);
  d["first_slack_cable"] = id_or_none(m.first_slack_cable);
  d["first_overstrain_time_s"] = never_none(m.first_overstrain_time_s);
  d["first_overstrain_cable"] = id_or_none(m.first_overstrain_cable);
  d["max_strain"] = py::cast(m.max_strain);
  d["min_strain"] = py::cast(m.min_strain);
  d["kinetic_final_J"] = m.kinetic_final_J;
  d["elastic_final_J"] = m.elastic_final_J;
  d["energy_final_J"] = m.energy_final_J;
  d["max_abs_energy_drift_J"] = m.max_abs_energy_drift_J;
  d["com_final_m"] = py::cast(std::vector<double>{m.com_final_m.x(), m.com_final_m.y(), m.com_final_m.z()});
  d["steps"] = m.steps;
  return d;
}

}  // namespace

void expose_sweep(py::module_& m) {
  py::class_<ts::SweepSpec>(m, "SweepSpec",
                            "A checked sweep spec (tendyn::tensegrity::SweepSpec): make it with sweep_spec_from_dict, "
                            "sweep_spec_from_string or load_sweep_spec.")
      .def_readonly("name", &ts::SweepSpec::name, "the spec's name in messages (its file)")
      .def_readonly("model", &ts::SweepSpec::model, "\"prism\" or a model file path")
      .def_readonly("out", &ts::SweepSpec::out, "the results file (JSON lines)")
      .def_readonly("threads", &ts::SweepSpec::threads, "0: all hardware threads")
      .def_property_readonly(
          "npoint", [](const ts::SweepSpec& s) { return static_cast<long long>(ts::sweep_npoint(s)); }, "number of grid points")
      .def("__repr__", [](const ts::SweepSpec& s) {
        return "SweepSpec(name='" + s.name + "', model='" + s.model +
               "', npoint=" + std::to_string(static_cast<long long>(ts::sweep_npoint(s))) + ")";
      });

  m.def("sweep_spec_from_dict", &spec_from_dict, py::arg("spec"), py::arg("name") = "sweep spec",
        "A spec from a mapping with the keys of a spec file (model, prism, simulation, grid, out, threads), "
        "checked as a spec file is (unknown names, types, finite numbers, integer n, prism fields only with "
        "model: prism). Raises tendyn.Error naming `name` and the field.");
  m.def("sweep_spec_from_string", &ts::sweep_spec_from_string, py::arg("text"), py::arg("name") = "<string>",
        "A spec from YAML or JSON text (as `tendyn sweep --spec`); errors name name:line:col.");
  m.def("load_sweep_spec", &ts::load_sweep_spec, py::arg("path"), "A spec from a YAML or JSON file.");
  m.def(
      "grid_points",
      [](const ts::SweepSpec& s) {
        py::list out;
        for (const auto& p : ts::grid_points(s)) out.append(point_to_py(p));
        return out;
      },
      py::arg("spec"), "The spec's grid points (dicts), first grid name slowest.");
  m.def(
      "run_sweep_point",
      [](const ts::SweepSpec& s, py::handle point) {
        const ts::SweepPoint p = point_from_dict(point, s.name);
        ts::SweepMetrics metrics;
        {
          py::gil_scoped_release release;
          metrics = ts::run_sweep_point(s, p);
        }
        return metrics_to_py(metrics);
      },
      py::arg("spec"), py::arg("point"),
      "Simulates one point (a dict of prism / simulation fields) and returns the 13 metrics (a dict; None: never). "
      "Runs with the GIL released.");
  m.def(
      "run_sweep",
      [](const ts::SweepSpec& s, const std::string& out, int threads) {
        ts::SweepRunOptions o;
        o.out = out;
        o.threads = threads;
        ts::SweepRunReport r;
        {
          py::gil_scoped_release release;
          r = ts::run_sweep(s, o);
        }
        py::dict d;
        d["npoint"] = r.npoint;
        d["nresumed"] = r.nresumed;
        d["nrun"] = r.nrun;
        d["out"] = r.out;
        d["threads"] = r.threads;
        return d;
      },
      py::arg("spec"), py::arg("out") = "", py::arg("threads") = 0,
      "Runs the grid points missing from the results file (`out`, default spec.out) on threads, as `tendyn sweep --spec`: "
      "the same file, byte for byte. Returns {npoint, nresumed, nrun, out, threads}.");
}

}  // namespace tendyn::python::tensegrity_bind
