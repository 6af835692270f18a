#pragma once
#include <string_view>
namespace tendyn {
inline constexpr std::string_view kVersion = "0.1.0";
}
