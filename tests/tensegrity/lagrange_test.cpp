// (placeholder) tests of the Lagrange formulation.
#include <tendyn/tensegrity/lagrange.hpp>
#include <gtest/gtest.h>
