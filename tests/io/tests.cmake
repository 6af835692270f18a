# Test sources of the io module (paths relative to tests/).
list(APPEND TENDYN_TESTS_io
  io/atomic_file_test.cpp
  io/result_set_test.cpp
  io/csv_test.cpp
  io/markup_test.cpp
  io/yaml_util_test.cpp
  io/xml_lite_test.cpp
)
