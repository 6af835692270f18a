// Names of enum values: one constexpr table per enum, one pair of generic functions.
//
// An enum E gets its names by a constexpr function `enum_names(E)` in E's namespace (found by
// argument-dependent lookup), returning an EnumNames<E, N>:
//
//   enum class DampingLaw { kAxial, kRelativeVelocity };
//   constexpr EnumNames<DampingLaw, 2> enum_names(DampingLaw) {
//     return {"damping law", {{{DampingLaw::kAxial, "axial"}, {DampingLaw::kRelativeVelocity, "relative_velocity"}}}};
//   }
//
// The first entry of a value is its name (what to_string gives and writers write); later entries
// of the same value are aliases that are read as well. Matching ignores ASCII case and treats '-'
// and '_' alike, for every enum: "Lawson_Hanson" reads as "lawson-hanson", "Axial" as "axial".
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace tendyn {

/// One name of an enum value (a string literal).
template <class E>
struct EnumName {
  E value;
  const char* name;
};

/// The names of enum E: `what` is the kind in words ("damping law"), used in the error text.
template <class E, std::size_t N>
struct EnumNames {
  const char* what;
  std::array<EnumName<E>, N> names;
};

/// True when `text` spells `name`: equal ignoring ASCII case, with '-' and '_' alike.
constexpr bool enum_name_matches(std::string_view text, std::string_view name) noexcept {
  if (text.size() != name.size()) return false;
  const auto fold = [](char c) {
    if (c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
    return c == '_' ? '-' : c;
  };
  for (std::size_t i = 0; i < text.size(); ++i)
    if (fold(text[i]) != fold(name[i])) return false;
  return true;
}

namespace detail {
/// Throws tendyn::Error "<where>: unknown <what> '<text>' (valid: <valid>)" ("<where>: " only when
/// where is not empty).
[[noreturn]] void throw_unknown_enum_name(std::string_view where, std::string_view what, std::string_view text, const std::string& valid);
}  // namespace detail

/// The accepted names of a table in words: "fixed, revolute (also continuous), prismatic".
template <class E, std::size_t N>
std::string enum_valid_names(const EnumNames<E, N>& table) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    bool alias = false;
    for (std::size_t j = 0; j < i; ++j) alias = alias || table.names[j].value == table.names[i].value;
    if (alias) continue;
    if (!out.empty()) out += ", ";
    out += table.names[i].name;
    bool first_alias = true;
    for (std::size_t j = i + 1; j < N; ++j) {
      if (table.names[j].value != table.names[i].value) continue;
      out += first_alias ? " (also " : ", ";
      out += table.names[j].name;
      first_alias = false;
    }
    if (!first_alias) out += ")";
  }
  return out;
}

/// The name of `value` (its first entry in enum_names(E)); "?" for a value the table lacks.
template <class E>
constexpr const char* enum_to_string(E value) noexcept {
  for (const auto& n : enum_names(E{}).names)
    if (n.value == value) return n.name;
  return "?";
}

/// The value named `text` (any name or alias of enum_names(E), matched by enum_name_matches).
/// Throws tendyn::Error "<where>: unknown <what> '<text>' (valid: <names>)"; `where` names the
/// place (an option, file:line:col) and is left out when empty.
template <class E>
E enum_from_string(std::string_view text, std::string_view where = {}) {
  constexpr auto table = enum_names(E{});
  for (const auto& n : table.names)
    if (enum_name_matches(text, n.name)) return n.value;
  detail::throw_unknown_enum_name(where, table.what, text, enum_valid_names(table));
}

}  // namespace tendyn
