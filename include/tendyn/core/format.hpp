// Numbers in text: the one formatter of messages (and of the CSV writers' numbers).
#pragma once
#include <Eigen/Core>

#include <string>

namespace tendyn {

/// Appends v as printf "%.<digits>g" to out; -0 is written as 0. Allocation-free when out has
/// capacity. digits: significant digits (1..17; 17 round-trips every double).
void append_number(std::string& out, double v, int digits = 12);
/// v as "%.<digits>g", -0 written as 0: format_number(0.1, 6) == "0.1", format_number(1e300) ==
/// "1e+300" (std::to_string would write 301 digits), NaN as "nan", infinity as "inf".
/// Messages use 6 digits unless a value needs more to be told apart.
[[nodiscard]] std::string format_number(double v, int digits = 12);
/// A point or vector as "(x, y, z)", each coordinate by format_number(., digits).
[[nodiscard]] std::string format_point(const Eigen::Vector3d& p, int digits = 6);

}  // namespace tendyn
