# Installs the build into a scratch prefix, then configures, builds and runs
# test/install as an outside project that finds ember with find_package.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/install -B ${WORK_DIR}/build -G ${GENERATOR}
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the outside project failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the outside project failed")
endif()
execute_process(COMMAND ${WORK_DIR}/build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "consumer printed:\n${out}")
if(rc OR NOT out MATCHES " 3  3\n 3  3\n\\[ CPUFloatType{2,2} \\]")
  message(FATAL_ERROR "the outside project did not compute matmul(ones({2,3}), ones({3,2})) == 3s")
endif()
execute_process(COMMAND ${WORK_DIR}/build/torch_consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "torch_consumer printed:\n${out}")
# libtorch's first rand after manual_seed(0) is 0.4963 (ember's CPU generator is libtorch's).
if(rc OR NOT out MATCHES "\\[ CPUFloatType{2,2} \\]\nirange 6 none 0 first 0.4962")
  message(FATAL_ERROR "the drop-in program (torch/torch.h through ember::torch) did not print what libtorch prints")
endif()
# A target that links ember::torch and libtorch is refused at configure time.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/install -B ${WORK_DIR}/build_both -G ${GENERATOR}
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DEMBER_TEST_LINK_LIBTORCH_TOO=ON
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc OR NOT err MATCHES "target 'torch_consumer' links both ember::torch")
  message(FATAL_ERROR "linking ember::torch and libtorch together was not refused:\n${err}")
endif()
