#!/usr/bin/env bash
# Edit-to-verdict benchmark: a one-line edit of a solved kata, then its verdict — through
# `katas run` and through watch mode (save to verdict on screen, debounce included) — next to
# the builds it cannot avoid and to rustlings' `run` of a solved exercise, all measured in the
# same run, interleaved round by round so that the machine's load hits every figure alike.
#
#   checker/bench/edit-to-verdict.sh [ROUNDS]          (default 11; warm build cache)
#
# KATAS_BENCH_KATA  the kata (default conditional-stock); its reference solution is the code
# KATAS_BENCH_REPO  a repository to measure in place (default: a copy of this repository's
#                   committed tree in a temp dir, with its own target dir)
# RUSTLINGS         the rustlings binary (default: `rustlings` on PATH; `cargo install
#                   rustlings` installs it); without it that column is skipped
#
# Watch mode is driven in tmux (it needs a terminal) with KATAS_TRACE set, so that it logs the
# moment each verdict is drawn; without tmux that column is skipped.
#
# Costs about 2 minutes warm for 11 rounds; the first run builds the copy's target dir
# (several minutes on 2 cores) and rustlings' exercises.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
rounds="${1:-11}"
kata="${KATAS_BENCH_KATA:-conditional-stock}"

if [[ -n "${KATAS_BENCH_REPO:-}" ]]; then
  repo="$KATAS_BENCH_REPO"
else
  repo="${TMPDIR:-/tmp}/katas-bench-repo"
  rm -rf "$repo"; mkdir -p "$repo"
  git -C "$here" archive HEAD | tar -x -C "$repo"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target/bench-edit-to-verdict}"
cd "$repo"
cargo build --quiet -p katas
katas="$CARGO_TARGET_DIR/debug/katas"
lib="exercises/$kata/src/lib.rs"
orig="$(mktemp)"; cp "$lib" "$orig"
trap 'cp "$orig" "$lib"; tmux kill-session -t katas-bench 2>/dev/null || true' EXIT
solved="$(mktemp)"; cp "checker/katas/$kata/solutions/reference.rs" "$solved"

edit() { # a one-line edit of the solved kata: a different constant appended
  cp "$solved" "$lib"; echo "pub const BENCH_EDIT: u32 = $1;" >> "$lib"
}
now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m/1e9}'; }

# rustlings, solved hashmaps2, in its own folder.
rl="${RUSTLINGS:-$(command -v rustlings || true)}"
if [[ -n "$rl" ]]; then
  rldir="${TMPDIR:-/tmp}/katas-bench-rustlings"
  if [[ ! -d "$rldir/rustlings" ]]; then
    mkdir -p "$rldir"; (cd "$rldir" && yes | "$rl" init >/dev/null 2>&1)
  fi
  rlex="$rldir/rustlings/exercises/11_hashmaps/hashmaps2.rs"
  cp "$rldir/rustlings/solutions/11_hashmaps/hashmaps2.rs" "$rlex"
  rlsolved="$(mktemp)"; cp "$rlex" "$rlsolved"
  rledit() { cp "$rlsolved" "$rlex"; echo "// bench edit $1" >> "$rlex"; }
  rledit 0; (cd "$rldir/rustlings" && "$rl" run hashmaps2 >/dev/null 2>&1) || true
fi

edit 0; "$katas" run "$kata" >/dev/null || true   # warm every build unit
cargo build --quiet -p "run-$kata"
run_t=(); cargo_t=(); kata_t=(); glue_t=(); rl_t=(); watch_t=()
for i in $(seq 1 "$rounds"); do
  edit "$((i * 5 + 1))"; t0=$(now); "$katas" run "$kata" >/dev/null || true; t1=$(now)
  run_t+=($((t1 - t0)))
  # The same check with the compiler replay off: every build through cargo.
  edit "$((i * 5 + 1))0"; t0=$(now); KATAS_NO_REPLAY=1 "$katas" run "$kata" >/dev/null || true; t1=$(now)
  cargo_t+=($((t1 - t0)))
  edit "$((i * 5 + 2))"; t0=$(now); cargo build --quiet -p "$kata"; t1=$(now)
  kata_t+=($((t1 - t0)))
  edit "$((i * 5 + 3))"; t0=$(now); cargo build --quiet -p "run-$kata"; t1=$(now)
  glue_t+=($((t1 - t0)))
  if [[ -n "$rl" ]]; then
    rledit "$i"; t0=$(now); (cd "$rldir/rustlings" && "$rl" run hashmaps2 >/dev/null 2>&1) || true; t1=$(now)
    rl_t+=($((t1 - t0)))
  fi
done

# Watch mode in tmux, tracing each verdict it draws: a phase of its own after the others (a
# watcher running during them would re-check on their edits and load the machine).
trace="$(mktemp)"
watching=""
if command -v tmux >/dev/null; then
  tmux kill-session -t katas-bench 2>/dev/null || true
  edit 0
  echo "{\"current\": \"$kata\"}" > .katas-state.json      # watch mode opens at the kata
  tmux new-session -d -s katas-bench -x 120 -y 40 \
    "cd '$repo' && CARGO_TARGET_DIR='$CARGO_TARGET_DIR' KATAS_TRACE='$trace' '$katas'"
  for _ in $(seq 1 600); do grep -q '^verdict' "$trace" && break; sleep 0.1; done
  grep -q '^verdict' "$trace" && watching=yes
fi
verdicts() { grep -c '^verdict' "$trace" || true; }   # (the trace also logs builds)

idle() { # until no verdict has come for 1.5 s
  local n; n=$(verdicts)
  while true; do sleep 1.5; [[ $(verdicts) -eq $n ]] && return; n=$(verdicts); done
}
if [[ -n "$watching" ]]; then
  for i in $(seq 1 "$rounds"); do
    idle; before=$(verdicts)
    t0=$(now); edit "$((i * 5 + 4))"
    for _ in $(seq 1 3000); do [[ $(verdicts) -gt $before ]] && break; sleep 0.005; done
    t1=$(grep '^verdict' "$trace" | tail -n 1 | awk '{print $2}')
    watch_t+=($((t1 - t0)))
  done
fi

k=$(printf '%s\n' "${kata_t[@]}" | median)
echo "edit-to-verdict on '$kata' ($rounds rounds, warm cache, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '  katas run (build + hidden tests + verdict)   median %ss\n' "$(printf '%s\n' "${run_t[@]}" | median)"
printf '  katas run, every build through cargo         median %ss\n' "$(printf '%s\n' "${cargo_t[@]}" | median)"
[[ -n "$watching" ]] && printf '  watch mode: save to verdict on screen        median %ss (%s of %s builds replayed)\n' \
  "$(printf '%s\n' "${watch_t[@]}" | median)" "$(grep -c '^build .* replayed' "$trace" || true)" "$(grep -c '^build' "$trace" || true)"
printf '  cargo build, kata crate only                 median %ss\n' "$k"
printf '  cargo build, kata + glue test binary         median %ss\n' "$(printf '%s\n' "${glue_t[@]}" | median)"
[[ -n "$rl" ]] && printf '  rustlings run hashmaps2 (solved, 1-line edit) median %ss\n' "$(printf '%s\n' "${rl_t[@]}" | median)"
r=$(printf '%s\n' "${run_t[@]}" | median)
awk -v r="$r" -v k="$k" 'BEGIN { printf "  katas run / kata-only build: %.2fx (target <= 2x)\n", r / k }'
if [[ -n "$rl" ]]; then
  l=$(printf '%s\n' "${rl_t[@]}" | median)
  awk -v r="$r" -v l="$l" 'BEGIN { printf "  katas run / rustlings run:   %.2fx (target <= 0.5x)\n", r / l }'
fi
