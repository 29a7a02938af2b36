#!/usr/bin/env bash
# Reports how long a user file that includes <ember/ember.h> and calls matmul takes to
# compile at -O2, and how long the linked program takes to start and run.
# Fails only far above the 1.5 s target, so a loaded machine does not make it flaky.
# Use: measure.sh CXX INCLUDE_DIR FMT_INCLUDE LIB_DIR WORK_DIR
set -euo pipefail
cxx=$1 inc=$2 fmt_inc=$3 libdir=$4 work=$5
mkdir -p "$work"
src=$(dirname "$0")/user.cpp
best=999
for i in 1 2 3; do
  t0=$(date +%s.%N)
  "$cxx" -O2 -std=c++17 -I"$inc" ${fmt_inc:+-I"$fmt_inc"} -c "$src" -o "$work/user.o"
  t1=$(date +%s.%N)
  best=$(awk -v a="$t0" -v b="$t1" -v m="$best" 'BEGIN { d = b - a; print (d < m) ? d : m }')
done
"$cxx" "$work/user.o" -L"$libdir" -Wl,-rpath,"$libdir" -lember -lfmt -o "$work/user"
t0=$(date +%s.%N)
"$work/user"
t1=$(date +%s.%N)
run_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) * 1000 }')
printf 'compile of a user file calling matmul at -O2: %.2f s (target < 1.5 s)\n' "$best"
printf 'start + run of the linked program: %.1f ms\n' "$run_ms"
awk -v b="$best" 'BEGIN { exit (b < 5.0) ? 0 : 1 }'
