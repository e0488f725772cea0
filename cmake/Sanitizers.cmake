# ASan + UBSan for the `asan` preset. Applied globally so that every library,
# test and tool in the build shares one sanitizer runtime.
if(WARPSIM_SANITIZE)
  # With the fuzz preset, the fuzzer runtime comes from -fsanitize=fuzzer on the target;
  # every library is instrumented for coverage with fuzzer-no-link.
  if(WARPSIM_FUZZ)
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
