#!/usr/bin/env bash
# Edit-to-verdict benchmark (issue 5): a one-line edit of a kata, then `katas run`, repeated;
# prints the median next to the median of a bare incremental `cargo build` of the same kata
# crate (and of its hidden-test crate, which `katas run` builds), measured in the same run.
#
#   checker/bench/edit-to-verdict.sh [ROUNDS]      (default 21; warm build cache)
#
# Runs on the checker's fixture curriculum (checker/tests/fixtures/mini, copied to a temp dir)
# until the real katas land; KATAS_BENCH_REPO=<repo> KATAS_BENCH_KATA=<kata> points it at a
# real repository instead (it edits a copy of that kata's src/lib.rs and restores it).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
rounds="${1:-21}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}"
cargo build --quiet -p katas --manifest-path "$here/Cargo.toml"
katas="$CARGO_TARGET_DIR/debug/katas"

if [[ -n "${KATAS_BENCH_REPO:-}" ]]; then
  repo="$KATAS_BENCH_REPO"; kata="${KATAS_BENCH_KATA:?set KATAS_BENCH_KATA}"
else
  repo="$(mktemp -d)/mini"; kata=shard-key
  cp -r "$here/checker/tests/fixtures/mini" "$repo"
  rm -rf "$repo/target" "$repo/Cargo.lock" "$repo"/.katas-state.json*
  sed -i "s#../../../testkit#$here/checker/testkit#" "$repo/Cargo.toml"
  cp "$here/Cargo.lock" "$repo/Cargo.lock"
  cp "$repo/checker/solutions/$kata/reference.rs" "$repo/exercises/$kata/src/lib.rs"
fi
lib="$repo/exercises/$kata/src/lib.rs"
orig="$(mktemp)"; cp "$lib" "$orig"
trap 'cp "$orig" "$lib"' EXIT
export CARGO_TARGET_DIR="$CARGO_TARGET_DIR/bench-edit-to-verdict"

edit() { # a one-line edit: a different constant in a line appended to the file
  cp "$orig" "$lib"; echo "pub const BENCH_EDIT: u32 = $1;" >> "$lib"
}
now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m/1e9}'; }

cd "$repo"
edit 0; "$katas" run "$kata" >/dev/null || true   # warm the cache
run_t=(); kata_t=(); hidden_t=()
for i in $(seq 1 "$rounds"); do
  edit "$((i * 3 + 1))"; t0=$(now); "$katas" run "$kata" >/dev/null || true; t1=$(now)
  run_t+=($((t1 - t0)))
  edit "$((i * 3 + 2))"; t0=$(now)
  cargo build --quiet --manifest-path "exercises/$kata/Cargo.toml"; t1=$(now)
  kata_t+=($((t1 - t0)))
  edit "$((i * 3 + 3))"; t0=$(now)
  cargo build --quiet --bins --manifest-path "checker/hidden/$kata/Cargo.toml"; t1=$(now)
  hidden_t+=($((t1 - t0)))
done
echo "edit-to-verdict on '$kata' ($rounds rounds, warm cache, $(nproc) cores)"
printf '  katas run (build + hidden tests + verdict)   median %ss\n' "$(printf '%s\n' "${run_t[@]}" | median)"
printf '  cargo build, kata crate only                 median %ss\n' "$(printf '%s\n' "${kata_t[@]}" | median)"
printf '  cargo build, kata + hidden-test binary       median %ss\n' "$(printf '%s\n' "${hidden_t[@]}" | median)"
