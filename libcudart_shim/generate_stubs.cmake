# Generates, for one CUDA major, the shim's fallback definitions and its
# linker version script from the export list of the real libcudart
# (exports/cudartNN.txt).
#
#   cmake -DEXPORTS=exports/cudart13.txt -DSONAME=libcudart.so.13
#         -DSTUBS=stubs13.cpp -DMAP=cudart13.map -P generate_stubs.cmake
#
# Every exported name gets a weak definition that reports the call and
# returns cudaErrorNotSupported; the entry points warpsim implements are
# strong definitions in the api_*.cpp objects of the same library and win at
# link time. So the library exports exactly the real library's names, each
# with the soname as its version node, and a program never fails with a
# missing symbol.
file(STRINGS "${EXPORTS}" names REGEX "^[A-Za-z_][A-Za-z0-9_]*$")
list(LENGTH names count)
if(count EQUAL 0)
  message(FATAL_ERROR "no names in ${EXPORTS}")
endif()

set(stubs "// Generated from ${EXPORTS} by libcudart_shim/generate_stubs.cmake: do not edit.\n")
string(APPEND stubs "#include \"libcudart_shim/api.h\"\n\nextern \"C\" {\n")
set(map "${SONAME} {\n  global:\n")
foreach(name IN LISTS names)
  string(APPEND stubs "__attribute__((weak)) int ${name}() { return warpsim::cudart::api::unsupported(\"${name}\"); }\n")
  string(APPEND map "    ${name};\n")
endforeach()
string(APPEND stubs "}  // extern \"C\"\n")
string(APPEND map "  local: *;\n};\n")

# Only rewrite when the content changes, so rebuilds stay incremental.
foreach(pair "STUBS;stubs" "MAP;map")
  list(GET pair 0 var)
  list(GET pair 1 content)
  set(old "")
  if(EXISTS "${${var}}")
    file(READ "${${var}}" old)
  endif()
  if(NOT old STREQUAL "${${content}}")
    file(WRITE "${${var}}" "${${content}}")
  endif()
endforeach()
