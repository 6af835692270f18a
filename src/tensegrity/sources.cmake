# Sources of the tensegrity module (paths relative to src/).
list(APPEND TENDYN_SOURCES
  tensegrity/model.cpp
  tensegrity/dynamics.cpp
  tensegrity/integrate.cpp
  tensegrity/simulate.cpp
  tensegrity/batch.cpp
  tensegrity/builders.cpp
  tensegrity/model_io.cpp
  tensegrity/output.cpp
  tensegrity/mjcf.cpp
  tensegrity/mjcf_import.cpp
  tensegrity/mass_parts.cpp
  tensegrity/psi_study.cpp
  tensegrity/sweep.cpp
  tensegrity/lagrange.cpp
  tensegrity/contact.cpp
  tensegrity/planner.cpp
  tensegrity/output_estimate.cpp
  tensegrity/plan_study.cpp
  tensegrity/form_finding.cpp
)
# Identification and derivatives: the ceres::Jet code (TENDYN_WITH_IDENTIFY, root CMakeLists.txt).
if(TENDYN_WITH_IDENTIFY)
  list(APPEND TENDYN_SOURCES
    tensegrity/identify.cpp
    tensegrity/identify_layout.cpp
    tensegrity/identify_motion.cpp
    tensegrity/identify_prediction.cpp
    tensegrity/identify_cost.cpp
    tensegrity/identify_solve.cpp
    tensegrity/identify_general.cpp
    tensegrity/derivatives.cpp
  )
endif()

# Sanitizer build: the dual-number (ceres::Jet) translation units run under AddressSanitizer but
# not UndefinedBehaviorSanitizer. GCC 12 instruments their inlined Jet arithmetic at -O1 so slowly
# that identify_cost.cpp (then in identify.cpp) alone took 375 s of CPU (26 s with -fsanitize=address
# only, 17 s at -O0),
# a quarter of the whole sanitizer build and its critical path in CI. Their arithmetic is
# law.hpp's templates, which run under UBSan in double in the kernel (dynamics.cpp, contact.cpp).
if(TENDYN_SANITIZE MATCHES "undefined")
  set_source_files_properties(tensegrity/identify_cost.cpp tensegrity/derivatives.cpp PROPERTIES COMPILE_OPTIONS "-fno-sanitize=undefined")
endif()
