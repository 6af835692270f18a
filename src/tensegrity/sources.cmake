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
  tensegrity/identify.cpp
)
