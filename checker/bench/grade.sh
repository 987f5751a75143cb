#!/usr/bin/env bash
# Grading benchmark (issue 8): makes 30 submissions of every kata of the curriculum — a third
# correct (the reference or an alternative), a third partial (a known-wrong solution), a
# third broken (does not compile) — grades them with `katas grade --jobs N` on a warm cache
# and prints the wall time per submission-kata (target: at most 1 s on a 2-core machine).
#
#   checker/bench/grade.sh [LEARNERS] [JOBS]     (defaults 30 and the number of CPUs)
#
# The warm-up grades one submission first so every job slot has the engine, the test kit and
# the registry crates built; the timed run then builds only each submission's kata crate and
# hidden-test binary, as an instructor's second grading run of the term would.
#
# Baseline, measured in the same run after the grading: a bare incremental `cargo build` of
# each kata crate and its test binary (`run-<kata>`) after a one-line edit, in a copy of the
# committed tree with a warm target dir of its own — what any check has to build, without the
# sandbox, the scratch workspace or the test run. The target: grading at most 1.5x that.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
learners="${1:-30}"
jobs="${2:-$(nproc 2>/dev/null || echo 2)}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}"
cargo build --quiet -p katas --manifest-path "$here/Cargo.toml"
katas="$CARGO_TARGET_DIR/debug/katas"
work="$CARGO_TARGET_DIR/bench-grade"
subs="$work/submissions"
rm -rf "$subs"; mkdir -p "$subs"

# Kata names and their solution files, from the manifest (via the JSON of one dry grade is
# overkill; a small parse of the curriculum's list and each kata.toml is enough here).
mapfile -t names < <(sed -n '/^katas = \[/,/^\]/p' "$here/checker/curriculum.toml" | grep -oE '"[^"]+"' | tr -d '"')
if [[ ${#names[@]} -eq 0 ]]; then echo "the curriculum has no katas"; exit 1; fi
wrong_of() { # first known-wrong solution of kata $1, relative to the repository
  local p
  p="$(awk '/^\[\[wrong\]\]/{w=1} w && /^path = /{p=$3; gsub(/"/,"",p); print p; exit}' "$here/checker/katas/$1/kata.toml")"
  [[ -n "$p" ]] && echo "checker/katas/$1/$p"
}
for i in $(seq -w 1 "$learners"); do
  for k in "${names[@]}"; do
    dest="$subs/learner-$i/exercises/$k/src"; mkdir -p "$dest"
    ref="$here/checker/katas/$k/solutions/reference.rs"
    case $(( 10#$i % 3 )) in
      1) cp "$ref" "$dest/lib.rs" ;;                                        # correct
      2) w="$(wrong_of "$k")"; cp "$here/${w:-checker/katas/$k/solutions/reference.rs}" "$dest/lib.rs" ;;  # partial
      0) { cat "$ref"; echo "pub fn broken( -> u32 { }"; } > "$dest/lib.rs" ;;  # broken
    esac
  done
done

cd "$here"
echo "warm-up: one submission, ${#names[@]} katas, $jobs job slots"
"$katas" grade "$subs/learner-01" --jobs "$jobs" --work-dir "$work/grade" --format json >/dev/null 2>&1
echo "grading $learners submissions × ${#names[@]} katas with --jobs $jobs"
start=$(date +%s%N)
"$katas" grade "$subs" --jobs "$jobs" --work-dir "$work/grade" --format json --out "$work/grades.json" 2>/dev/null
end=$(date +%s%N)
python3 - "$work/grades.json" "$start" "$end" <<'PY' 2>/dev/null || awk -v s="$start" -v e="$end" -v n="$learners" -v k="${#names[@]}" 'BEGIN { printf "%.2f s per submission-kata\n", (e-s)/1e9/(n*k) }'
import json, sys
g = json.load(open(sys.argv[1]))
secs = (int(sys.argv[3]) - int(sys.argv[2])) / 1e9
n = g["submission_katas"]
by = {}
for l in g["learners"]:
    for k in l["katas"]:
        by[k["status"]] = by.get(k["status"], 0) + 1
print(f"{len(g['learners'])} submissions x {len(g['katas'])} katas = {n} submission-katas in {secs:.1f} s")
print(f"statuses: {by}")
print(f"{secs / n:.2f} s per submission-kata (target <= 1 s)")
PY

# The bare-build baseline (see the top): median of 3 edits per kata, mean over the katas.
bare="$work/bare"
rm -rf "$bare"; mkdir -p "$bare"
if git -C "$here" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$here" archive HEAD | tar -x -C "$bare"
else
  tar -C "$here" --exclude=./target -c . | tar -x -C "$bare"
fi
export CARGO_TARGET_DIR="$work/bare-target"
(cd "$bare" && cargo build --quiet --workspace)
sum=0
for k in "${names[@]}"; do
  lib="$bare/exercises/$k/src/lib.rs"
  cp "$here/checker/katas/$k/solutions/reference.rs" "$lib"
  ts=()
  for i in 1 2 3 4; do
    echo "pub const BENCH_EDIT_$i: u32 = $i;" >> "$lib"
    t0=$(date +%s%N); (cd "$bare" && cargo build --quiet -p "run-$k"); t1=$(date +%s%N)
    [[ $i -gt 1 ]] && ts+=($((t1 - t0)))          # the first edit only warms this kata
  done
  m=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p)
  sum=$((sum + m))
done
python3 - "$work/grades.json" "$start" "$end" "$sum" "${#names[@]}" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
per = (int(sys.argv[3]) - int(sys.argv[2])) / 1e9 / g["submission_katas"]
bare = int(sys.argv[4]) / 1e9 / int(sys.argv[5])
print(f"bare cargo build of kata + test binary: {bare:.2f} s per kata (mean, same run)")
print(f"grading / bare build: {per / bare:.2f}x (target <= 1.5x); load {sys.argv[6]}")
PY
