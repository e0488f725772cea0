# Project-wide warning flags, applied per target through warpsim_set_warnings().
function(warpsim_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(WARPSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
