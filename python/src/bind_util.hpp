// Helpers shared by the binding files (python/src/<module>/expose_*.cpp): keyword
// constructors and field reprs for plain structs, Python reprs of numbers, by-value vector members,
// writable NumPy views of C++ arrays, and shape-checked assignment into them.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Core>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tendyn::python {

namespace py = pybind11;

/// Names of the settable fields (read-write properties) of a bound class, in definition order.
inline std::vector<std::string> settable_fields(py::handle type) {
  std::vector<std::string> names;
  const py::handle property = reinterpret_cast<PyObject*>(&PyProperty_Type);
  for (const auto item : py::dict(type.attr("__dict__"))) {
    const std::string name = py::str(item.first);
    if (name.empty() || name[0] == '_') continue;
    if (!py::isinstance(item.second, property) || item.second.attr("fset").is_none()) continue;
    names.push_back(name);
  }
  return names;
}

/// Python's repr of a float ("0.5", "1e-06", "inf"): the number format of every __repr__.
inline std::string float_repr(double v) { return py::repr(py::float_(v)).cast<std::string>(); }

/// "True" / "False".
inline const char* bool_repr(bool b) { return b ? "True" : "False"; }

/// The Python type name of x ("list", "str"), for error messages.
inline std::string type_name(py::handle x) { return py::str(py::type::handle_of(x).attr("__name__")).cast<std::string>(); }

/// Getter and setter of a vector member by value, for def_property. (def_readwrite would hand out
/// references into the vector's elements, which dangle once a new list is assigned.)
template <class C, class V>
auto copy_of(V C::*member) {
  return [member](const C& c) { return V(c.*member); };
}
template <class C, class V>
auto assign_to(V C::*member) {
  return [member](C& c, V v) { c.*member = std::move(v); };
}

inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// repr of a field value: enums as Type.kName, everything else by repr().
inline std::string value_repr(py::handle v) {
  if (py::hasattr(py::type::handle_of(v), "__members__")) return py::str(v);
  return py::repr(v);
}

/// repr of each settable field, by name.
inline std::map<std::string, std::string> field_reprs(py::handle obj) {
  std::map<std::string, std::string> out;
  for (const auto& name : settable_fields(py::type::handle_of(obj))) out[name] = value_repr(obj.attr(name.c_str()));
  return out;
}

/// "Name(field=value, ...)" over the settable fields whose value differs from `defaults` (all of
/// them when defaults is null), in definition order: short, and evaluable as a keyword constructor.
inline std::string fields_repr(py::handle self, const std::map<std::string, std::string>* defaults = nullptr) {
  const py::handle type = py::type::handle_of(self);
  std::string s = type.attr("__name__").cast<std::string>() + "(";
  bool first = true;
  for (const auto& name : settable_fields(type)) {
    const std::string v = value_repr(self.attr(name.c_str()));
    if (defaults) {
      const auto it = defaults->find(name);
      if (it != defaults->end() && it->second == v) continue;
    }
    s += (first ? "" : ", ") + name + "=" + v;
    first = false;
  }
  return s + ")";
}

/// Keyword constructor T(**fields) (call last, after the fields are bound): a default T, then each
/// keyword assigned to the field of that name, through the field's own setter (conversions, shape
/// checks). An unknown or read-only name raises TypeError listing the fields.
/// Also binds __repr__ (the fields that differ from a default T) unless `with_repr` is false.
template <class T, class... Options>
void def_kw_init(py::class_<T, Options...>& cls, bool with_repr = true) {
  const py::handle type = cls;  // the class object lives as long as the module
  const std::string cls_name = type.attr("__name__").cast<std::string>();
  const std::vector<std::string> fields = settable_fields(type);
  cls.def(py::init([type, cls_name, fields](const py::kwargs& kw) {
            py::object obj = py::cast(T{});  // a Python instance holding a default T
            for (const auto item : kw) {
              const std::string name = py::str(item.first);
              bool known = false;
              for (const auto& f : fields) known = known || f == name;
              if (!known)
                throw py::type_error(cls_name + "() got an unexpected keyword argument '" + name + "' (fields: " + join(fields) + ")");
              py::setattr(obj, item.first, item.second);
            }
            return obj.cast<T>();
          }),
          ("Keyword constructor: " + cls_name + "(**fields), defaults for the fields not given. Fields: " + join(fields) +
           ". An unknown name raises TypeError.")
              .c_str());
  if (with_repr)
    cls.def("__repr__", [](py::handle self) {
      static const std::map<std::string, std::string> defaults = field_reprs(py::cast(T{}));  // under the GIL
      return fields_repr(self, &defaults);
    });
}

/// Writable 1-D NumPy view of `v`; `owner` (the Python object holding v) is kept alive by the view.
inline py::array_t<double> vector_view(Eigen::VectorXd& v, py::handle owner) {
  return py::array_t<double>({static_cast<py::ssize_t>(v.size())}, {static_cast<py::ssize_t>(sizeof(double))}, v.data(), owner);
}

/// Writable (n x 3) NumPy view of a vector of 3-vectors (contiguous, 3 doubles each).
inline py::array_t<double> rows3_view(std::vector<Eigen::Vector3d>& v, py::handle owner) {
  static_assert(sizeof(Eigen::Vector3d) == 3 * sizeof(double));
  const auto d = static_cast<py::ssize_t>(sizeof(double));
  return py::array_t<double>({static_cast<py::ssize_t>(v.size()), py::ssize_t{3}}, {3 * d, d}, v.empty() ? nullptr : v[0].data(), owner);
}

inline std::string shape_str(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

/// Size a per-rod vector (`stride` entries per rod) must be assigned: its current size, or, while
/// it is empty, the array's length when that is a multiple of stride. ValueError naming `what`
/// ("expected a 1-D array of <stride> * nrod entries") otherwise.
inline Eigen::Index per_rod_size(const py::array& src, Eigen::Index current, Eigen::Index stride, const std::string& what) {
  const auto n = src.ndim() == 1 ? static_cast<Eigen::Index>(src.shape(0)) : -1;
  const Eigen::Index expected = current > 0 ? current : (n >= 0 && n % stride == 0 ? n : -1);
  if (expected < 0)
    throw py::value_error(what + ": expected a 1-D array of " + std::to_string(stride) + " * nrod entries, got shape " + shape_str(src));
  return expected;
}

/// Copies a 1-D array of exactly `expected` entries into dst; ValueError naming `what`, the
/// expected and the given size otherwise. Size-preserving: views of dst stay valid.
inline void assign_vector(Eigen::VectorXd& dst, const py::array_t<double, py::array::forcecast>& src, const std::string& what,
                          Eigen::Index expected, const std::string& meaning = "") {
  if (src.ndim() != 1 || src.shape(0) != expected)
    throw py::value_error(what + ": expected shape (" + std::to_string(expected) + ",)" + (meaning.empty() ? "" : " (" + meaning + ")") +
                          ", got " + shape_str(src));
  const auto a = src.unchecked<1>();
  dst.resize(expected);
  for (py::ssize_t i = 0; i < a.shape(0); ++i) dst[i] = a(i);
}

/// Copies an (n x 3) array into a vector of n 3-vectors (n = its current size); ValueError otherwise.
inline void assign_rows3(std::vector<Eigen::Vector3d>& dst, const py::array_t<double, py::array::forcecast>& src, const std::string& what,
                         const std::string& meaning = "") {
  const auto n = static_cast<py::ssize_t>(dst.size());
  if (src.ndim() != 2 || src.shape(0) != n || src.shape(1) != 3)
    throw py::value_error(what + ": expected shape (" + std::to_string(n) + ", 3)" + (meaning.empty() ? "" : " (" + meaning + ")") +
                          ", got " + shape_str(src));
  const auto a = src.unchecked<2>();
  for (py::ssize_t i = 0; i < n; ++i) dst[static_cast<std::size_t>(i)] = Eigen::Vector3d(a(i, 0), a(i, 1), a(i, 2));
}

}  // namespace tendyn::python
