// Numbers in text (include/tendyn/core/format.hpp).
#include <tendyn/core/format.hpp>

#include <cstdio>

namespace tendyn {

void append_number(std::string& out, double v, int digits) {
  char buf[40];
  const int n = std::snprintf(buf, sizeof buf, "%.*g", digits, v + 0.0);  // + 0.0: -0 is written as 0
  out.append(buf, static_cast<std::size_t>(n));
}

std::string format_number(double v, int digits) {
  std::string s;
  append_number(s, v, digits);
  return s;
}

std::string format_point(const Eigen::Vector3d& p, int digits) {
  std::string s = "(";
  append_number(s, p.x(), digits);
  s += ", ";
  append_number(s, p.y(), digits);
  s += ", ";
  append_number(s, p.z(), digits);
  return s + ")";
}

}  // namespace tendyn
