#!/usr/bin/env bash
# Note [CPU capability]: only code in the capability namespaces (cpu_avx2, cpu_avx512) may
# use VEX/EVEX instructions (mnemonics starting with "v"). A shared inline function or
# template instantiated in a wide kernel build and kept by the linker would run AVX code
# on every CPU; this lists such functions and fails.
set -euo pipefail
lib="$1"
objdump -d --no-show-raw-insn -C "$lib" | awk '
  /^[0-9a-f]+ <.*>:$/ { fn = $0; next }
  /^ +[0-9a-f]+:\t/ {
    split($0, parts, "\t")
    if (parts[2] ~ /^v/ && fn !~ /cpu_avx(2|512)/) bad[fn]++
  }
  END {
    n = 0
    for (f in bad) { print "wide instructions outside the capability namespaces: " f " (" bad[f] ")"; n++ }
    if (n == 0) print "ok: no VEX/EVEX instruction outside cpu_avx2:: and cpu_avx512::"
    exit n > 0
  }'
