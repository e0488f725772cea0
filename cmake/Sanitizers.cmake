# ASan + UBSan for the `asan` preset. Applied globally so that every library,
# test and tool in the build shares one sanitizer runtime.
if(WARPSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
