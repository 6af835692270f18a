// The contract every reader fuzz target checks (fuzz/*_fuzz.cpp): the reader either returns a
// valid object or throws tendyn::Error. Any other exception type is a finding: it is printed and
// the process aborts (libFuzzer then saves the input; the standalone driver writes it to
// ./fuzz-standalone-crash.bin). Crashes, sanitizer reports and hangs are findings by themselves.
#pragma once
#include <tendyn/core/error.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

namespace tendyn::fuzz {

[[noreturn]] inline void finding(const char* target, const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: unexpected %s: %s\n", target, what, detail.c_str());
  std::abort();
}

/// Runs `body(text)` on the input; tendyn::Error is the expected way to refuse it.
template <class Body>
int run_contract(const char* target, const std::uint8_t* data, std::size_t size, Body&& body) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    body(text);
  } catch (const tendyn::Error&) {
    // expected: bad input, refused with a message
  } catch (const std::exception& e) {
    finding(target, typeid(e).name(), e.what());
  } catch (...) {
    finding(target, "non-std exception", "");
  }
  return 0;
}

}  // namespace tendyn::fuzz
