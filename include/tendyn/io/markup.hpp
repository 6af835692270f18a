// Escaping text for XML and HTML outputs (MJCF export, viewer pages).
#pragma once
#include <string>
#include <string_view>

namespace tendyn::io {

/// `text` with & < > " replaced by their entities: safe inside XML/HTML text and double-quoted
/// attribute values. O(n).
std::string escape_markup(std::string_view text);

}  // namespace tendyn::io
