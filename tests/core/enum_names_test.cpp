// The enum name facility (include/tendyn/core/enum_names.hpp) and every table that uses it.
#include <tendyn/core/enum_names.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/builders.hpp>
#include <tendyn/tensegrity/identify.hpp>
#include <tendyn/tensegrity/integrate.hpp>
#include <tendyn/tensegrity/lagrange.hpp>
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/model.hpp>
#include <tendyn/tensegrity/planner.hpp>
#ifdef TENDYN_WITH_CDPR
#include <tendyn/cdpr/control.hpp>
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/identify.hpp>
#include <tendyn/cdpr/study.hpp>
#include <tendyn/cdpr/tension.hpp>
#include <tendyn/cdpr/workspace.hpp>
#endif
#ifdef TENDYN_WITH_TREE
#include <tendyn/tree/identify.hpp>
#include <tendyn/tree/model.hpp>
#endif

#include "support/error_of.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tendyn {
namespace {

using test::error_of;

// The same name in upper case with '-' and '_' swapped: the one rule of reading says it is the same name.
std::string respelled(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
    else if (c == '-')
      c = '_';
    else if (c == '_')
      c = '-';
  }
  return s;
}

// Every name and alias of E reads back as its value, also respelled; the first name of a value is
// what enum_to_string gives; no two values share a name under the reading rule (which would make
// one unreachable); `count` distinct values, numbered 0 .. count-1 (the table misses none).
template <class E>
void expect_table_round_trips(int count) {
  constexpr auto table = enum_names(E{});
  SCOPED_TRACE(table.what);
  bool seen[64] = {};
  for (std::size_t i = 0; i < table.names.size(); ++i) {
    const auto& n = table.names[i];
    EXPECT_EQ(enum_from_string<E>(n.name), n.value) << n.name;
    EXPECT_EQ(enum_from_string<E>(respelled(n.name)), n.value) << respelled(n.name);
    EXPECT_EQ(enum_from_string<E>(enum_to_string(n.value)), n.value) << n.name;
    const auto k = static_cast<int>(n.value);
    ASSERT_TRUE(k >= 0 && k < count) << n.name << " has value " << k;
    if (!seen[k]) {
      EXPECT_STREQ(enum_to_string(n.value), n.name) << "the first entry of a value is its name";
    }
    seen[k] = true;
    for (std::size_t j = 0; j < i; ++j) {
      if (table.names[j].value != n.value) {
        EXPECT_FALSE(enum_name_matches(n.name, table.names[j].name)) << n.name;
      }
    }
  }
  for (int k = 0; k < count; ++k) EXPECT_TRUE(seen[k]) << "value " << k << " has no name";
  EXPECT_NE(
      error_of([] { (void)enum_from_string<E>("no-such-name"); }).find(std::string("unknown ") + table.what + " 'no-such-name' (valid: "),
      std::string::npos);
}

TEST(EnumNames, EveryTableRoundTripsAndCoversItsEnum) {
  namespace ts = tensegrity;
  expect_table_round_trips<ts::DampingLaw>(2);
  expect_table_round_trips<ts::CableForceSign>(2);
  expect_table_round_trips<ts::Winch::Control>(3);
  expect_table_round_trips<ts::Ground::Type>(3);
  expect_table_round_trips<ts::Ground::FrictionLaw>(2);
  expect_table_round_trips<ts::MjcfIntegrator>(2);
  expect_table_round_trips<ts::PrismLayout>(2);
  expect_table_round_trips<ts::ParameterKind>(14);
  expect_table_round_trips<ts::RobustLoss>(3);
  expect_table_round_trips<ts::FitVerdict>(5);
  expect_table_round_trips<ts::Integrator>(3);
  expect_table_round_trips<ts::QuaternionStabilisation>(3);
  expect_table_round_trips<ts::Planner>(4);
  expect_table_round_trips<ts::IncrementShape>(2);
#ifdef TENDYN_WITH_CDPR
  expect_table_round_trips<cdpr::WrenchRow>(6);
  expect_table_round_trips<cdpr::Motion>(2);
  expect_table_round_trips<cdpr::StiffnessFit>(2);
  expect_table_round_trips<cdpr::WorkspaceKind>(3);
  expect_table_round_trips<cdpr::PoseClass>(4);
  expect_table_round_trips<cdpr::WrenchMode>(2);
  expect_table_round_trips<cdpr::Method>(7);
  expect_table_round_trips<cdpr::Status>(6);
  expect_table_round_trips<cdpr::LowerProfile>(2);
#endif
#ifdef TENDYN_WITH_TREE
  expect_table_round_trips<tree::JointType>(4);
  expect_table_round_trips<tree::BaseMode>(3);
  expect_table_round_trips<tree::Weighting>(2);
#endif
}

// The named functions kept for callers and the Python bindings are the table's: one rule for all.
TEST(EnumNames, NamedFunctionsReadAnyCaseAndEitherSeparator) {
  namespace ts = tensegrity;
  EXPECT_EQ(ts::damping_law_from_string("Relative-Velocity"), ts::DampingLaw::kRelativeVelocity);
  EXPECT_EQ(ts::mjcf_integrator_from_string("rk4"), ts::MjcfIntegrator::kRK4);
  EXPECT_STREQ(ts::to_string(ts::MjcfIntegrator::kRK4), "RK4");
  EXPECT_EQ(ts::integrator_from_string("Dormand_Prince"), ts::Integrator::kDormandPrince45);
  EXPECT_EQ(ts::integrator_from_string("symplectic"), ts::Integrator::kLieVerlet);
  EXPECT_STREQ(ts::to_string(ts::Integrator::kLieVerlet), "lie-verlet");
  EXPECT_EQ(ts::increment_shape_from_string("Step"), ts::IncrementShape::kStep);
  EXPECT_STREQ(ts::to_string(ts::FitVerdict::kLocalMinimum), "local minimum suspected");
#ifdef TENDYN_WITH_CDPR
  EXPECT_EQ(cdpr::method_from_string("Lawson_Hanson"), cdpr::Method::kLawsonHanson);
  EXPECT_EQ(cdpr::method_from_string("LSQNONNEG"), cdpr::Method::kLawsonHanson);
  EXPECT_EQ(cdpr::method_from_string("barycenter"), cdpr::Method::kCentroid);
  EXPECT_EQ(cdpr::wrench_row_from_string("MZ"), cdpr::WrenchRow::kMz);
  EXPECT_EQ(cdpr::status_from_string("near-singular"), cdpr::Status::kNearSingular);
  EXPECT_EQ(cdpr::stiffness_fit_from_string("Stiffness_Rest_Length"), cdpr::StiffnessFit::kStiffnessRestLength);
#endif
#ifdef TENDYN_WITH_TREE
  EXPECT_EQ(tree::joint_type_from_string("Continuous"), tree::JointType::kRevolute);
  EXPECT_EQ(tree::weighting_from_string("Joint"), tree::Weighting::kJoint);
#endif
}

TEST(EnumNames, MatchingFoldsCaseAndSeparatorOnly) {
  EXPECT_TRUE(enum_name_matches("As_Written", "as-written"));
  EXPECT_TRUE(enum_name_matches("", ""));
  EXPECT_FALSE(enum_name_matches("aswritten", "as-written"));
  EXPECT_FALSE(enum_name_matches("as written", "as-written"));
  EXPECT_FALSE(enum_name_matches("axial ", "axial"));
  EXPECT_FALSE(enum_name_matches("axia", "axial"));
  static_assert(enum_name_matches("RK4", "rk4"));
  static_assert(enum_to_string(tensegrity::Integrator::kDormandPrince45)[0] == 'd');
}

// One error text: the place (when given), the kind, the bad value, the accepted names with their aliases.
TEST(EnumNames, UnknownNameErrorNamesPlaceValueAndAcceptedNames) {
  namespace ts = tensegrity;
  EXPECT_EQ(error_of([] { (void)enum_from_string<ts::DampingLaw>("sideways", "m.yaml:3:14"); }),
            "m.yaml:3:14: unknown damping law 'sideways' (valid: axial, relative_velocity)");
  EXPECT_EQ(error_of([] { (void)ts::integrator_from_string("euler"); }),
            "unknown integrator 'euler' (valid: rk4, dopri5 (also dormand-prince), lie-verlet (also symplectic))");
  EXPECT_EQ(error_of([] { (void)ts::mjcf_integrator_from_string("implicit"); }), "unknown MJCF integrator 'implicit' (valid: RK4, Euler)");
  EXPECT_EQ(error_of([] { (void)enum_from_string<ts::Planner>("", "--planner"); }),
            "--planner: unknown planner '' (valid: exhaustive, coordinate, lookahead, screened)");
#ifdef TENDYN_WITH_CDPR
  EXPECT_EQ(error_of([] { (void)cdpr::method_from_string("simplex"); }),
            "unknown tension method 'simplex' (valid: exhaustive, lawson-hanson (also nnls, lsqnonneg), exact, closed-form, "
            "improved-closed-form, centred (also centered), centroid (also barycentre, barycenter))");
  EXPECT_EQ(error_of([] { (void)cdpr::workspace_kind_from_string("wide"); }),
            "unknown workspace kind 'wide' (valid: feasible, static, closure)");
#endif
#ifdef TENDYN_WITH_TREE
  EXPECT_EQ(error_of([] { (void)tree::joint_type_from_string("hinge"); }),
            "unknown joint type 'hinge' (valid: fixed, revolute (also continuous), prismatic, free (also floating))");
#endif
}

}  // namespace
}  // namespace tendyn
