# Test sources of the tensegrity module (paths relative to tests/).
list(APPEND TENDYN_TESTS_tensegrity
  tensegrity/dynamics_test.cpp
  tensegrity/dynamics_kernel_test.cpp
  tensegrity/body_geometry_test.cpp
  tensegrity/mass_parts_test.cpp
  tensegrity/winch_test.cpp
  tensegrity/integrate_test.cpp
  tensegrity/builders_test.cpp
  tensegrity/model_io_test.cpp
  tensegrity/psi_study_test.cpp
  tensegrity/sweep_test.cpp
  tensegrity/lagrange_test.cpp
  tensegrity/contact_test.cpp
  tensegrity/model_test.cpp
  tensegrity/planner_test.cpp
  tensegrity/output_estimate_test.cpp
  tensegrity/output_test.cpp
  tensegrity/plan_study_test.cpp
  tensegrity/form_finding_test.cpp
  tensegrity/mjcf_test.cpp
  tensegrity/mjcf_import_test.cpp
  tensegrity/mjcf_reference_motion_test.cpp
  tensegrity/simulate_test.cpp
  tensegrity/batch_test.cpp
  tensegrity/identify_test.cpp
  tensegrity/derivatives_test.cpp
)
