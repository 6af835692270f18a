// The message of the tendyn::Error a callable throws, or "" when it throws none.
#pragma once
#include <tendyn/core/error.hpp>

#include <functional>
#include <string>

namespace tendyn::test {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace tendyn::test
