// The error of an unknown enum name (include/tendyn/core/enum_names.hpp).
#include <tendyn/core/enum_names.hpp>
#include <tendyn/core/error.hpp>

namespace tendyn::detail {

void throw_unknown_enum_name(std::string_view where, std::string_view what, std::string_view text, const std::string& valid) {
  std::string msg;
  if (!where.empty()) msg.append(where).append(": ");
  msg.append("unknown ").append(what).append(" '").append(text).append("' (valid: ").append(valid).append(")");
  throw Error(msg);
}

}  // namespace tendyn::detail
