// (placeholder) Lagrange formulation, document 001 chapter 2.
#include <tendyn/tensegrity/lagrange.hpp>
