#!/usr/bin/env bash
# First-build benchmark: what a fresh clone compiles before its first verdict, from an empty
# target dir with the crates already downloaded — the checker (watch mode's screen comes up when
# it is built), then the first kata's check (engine, test kit, the kata's crates, the glue binary).
#
#   checker/bench/first-build.sh [ROUNDS] [BASE_REV]     (default 1 round, no baseline)
#
# With BASE_REV, each round builds that revision's tree too, alternating with HEAD's, so the
# machine's load hits both alike; the medians are printed side by side.
#
# Costs one cold build per tree per round: about a minute each on a quiet 2-core machine,
# several minutes under load.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
rounds="${1:-1}"
base="${2:-}"
work="${TMPDIR:-/tmp}/katas-first-build"
rm -rf "$work"; mkdir -p "$work"

tree() { # <rev> <dir>: that revision's committed files
  mkdir -p "$2"; git -C "$here" archive "$1" | tar -x -C "$2"
}
tree HEAD "$work/head"
[[ -n "$base" ]] && tree "$base" "$work/base"
(cd "$work/head" && cargo fetch --quiet)
[[ -n "$base" ]] && (cd "$work/base" && cargo fetch --quiet)

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1e9}'; }

declare -A checker_t kata_t
one() { # <name>: a cold build of that tree; appends its two times
  local dir="$work/$1" target="$work/target-$1"
  rm -rf "$target"
  local t0 t1 t2
  t0=$(now)
  (cd "$dir" && CARGO_TARGET_DIR="$target" cargo build --quiet -p katas)
  t1=$(now)
  (cd "$dir" && CARGO_TARGET_DIR="$target" cargo build --quiet --bins \
    --manifest-path checker/katas/first-steps/run/Cargo.toml)
  t2=$(now)
  checker_t[$1]+="$((t1 - t0)) "; kata_t[$1]+="$((t2 - t1)) "
}
for _ in $(seq 1 "$rounds"); do
  [[ -n "$base" ]] && one base
  one head
done

echo "first build ($rounds round(s), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
for name in base head; do
  [[ -z "${checker_t[$name]:-}" ]] && continue
  c=$(printf '%s\n' ${checker_t[$name]} | median)
  k=$(printf '%s\n' ${kata_t[$name]} | median)
  label=$name; [[ $name == base ]] && label="base ($base)"
  awk -v l="$label" -v c="$c" -v k="$k" \
    'BEGIN { printf "  %-24s checker %6.1f s, then first check %6.1f s: %6.1f s to the first verdict'"'"'s build\n", l, c, k, c + k }'
done
rm -rf "$work"
