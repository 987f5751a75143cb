//! Isolation of a submission's test run: what the grader can apply on this machine, found by
//! a probe at start-up and reported with the grades.
//!
//! ```text
//!  [setpriv --reuid 65534 …]           as root: run as `nobody`, so the process limit binds
//!  unshare --user --map-root-user       a user namespace (no privileges needed) with
//!          --net                        no network (only a down loopback)
//!          --pid --fork --kill-child    its own processes: all of them die with the run
//!          --mount                      its own mounts, on which SANDBOX_SCRIPT lays out a root:
//!
//!    <work>/sandbox-root/  (bound read-only)   what the test sees as `/`:
//!      lib…/, lib64/       copies of the libraries the test binary links (ldd)
//!      run/test            the test binary (bound read-only)
//!      tmp/                a tmpfs of --disk MiB, noexec, gone with the namespace
//!      dev/{null,zero,urandom}
//!      proc/               the real /proc until the test kit waits for its token; then a
//!                          stand-in holding only self/exe -> /run/test
//!//!    fd 3 -> <scratch>/.katas-results   the result channel (a named pipe the runner reads)
//!
//!  env -i …  chroot <root>  setpriv --bounding-set=-all --no-new-privs  /run/test
//!                           (no capabilities, so no chroot escape or mounts; a clean
//!                           environment; ulimit: address space, CPU, file size, processes)
//! ```
//!
//! Not in that root: the instructor's tree (hidden tests, reference solutions), the other
//! learners' staged sources, the grader's files and environment, and every program but the
//! test binary itself (a kata's harness may re-run it, as stream-read-model's does).
//!
//! `/proc` is masked *after* set-up, not before: the standard library reads
//! `/proc/self/maps` at start-up to place the main thread's stack guard, which is what turns a
//! stack overflow into a message rather than a bare SIGSEGV. The script holds back the run's
//! token (the runner writes it to the script's stdin) until the test process sits in its first
//! `read` of stdin, then mounts the stand-in over `/proc` and only then passes the token on. By
//! the time learner code can run, `/proc/self/mem` (where it could find the token) and
//! `/proc/self/environ` are gone.
//!
//! Results are judged on a channel the code under test cannot reach. The runner makes a named
//! pipe in the run's scratch folder (outside the sandbox root) and reads events only from it;
//! the script opens it as the test's descriptor 3 and sets `KATAS_RESULTS_FD=3`. The test kit
//! reopens it as `/proc/self/fd/3` before it waits for its token, so before `/proc` is masked;
//! learner code, which runs later, finds no path to it (no `/proc`, no `/dev/fd` in the root)
//! and cannot write a descriptor by number (`from_raw_fd` is `unsafe`, which the kata crate may
//! not use). Its stdout and stderr are output, whatever they hold. Layered on top, each event
//! still carries the run's token, which is all that is left without namespaces.
//!
//! What each layer stops, and what still gets through:
//!
//! | layer | stops | remains |
//! | --- | --- | --- |
//! | result channel | printing a whole event stream, stamped or not | a `File` forged from fd 3 through a compiler soundness hole |
//! | token on stdin | printing events without namespaces | reading it from memory through such a hole |
//! | `/proc` masked | reading the token or environment from `/proc/self` | — |
//! | `forbid(unsafe_code)` | raw memory access, `from_raw_fd` | safe-code soundness holes of rustc |
//! | the Build-it guard (engine `seams::guard`) | a piece that asks the engine's own | copying the engine's source |
//!
//! The step that would close the rest is to judge in another process: the hidden tests would
//! call the learner's functions across a pipe in a process holding nothing but the learner's
//! code, so no memory of the judge is reachable from it. That needs every kata's calls to
//! cross a process boundary (closures, engine worlds and callbacks included), which the
//! katas' shape does not allow today.
//!
//! Design decision: the sandbox is built from util-linux's `unshare`, `setpriv`, `mount` and
//! coreutils' `chroot`, `env`, and the shell's `ulimit`, not from `libc` calls in a `pre_exec`
//! hook. The workspace forbids `unsafe` (a `pre_exec` hook is `unsafe`), the tools exist on
//! every mainstream Linux, and where one is missing the probe says so. Without a pid and a
//! mount namespace the grader refuses to grade unless the instructor accepts the weaker
//! isolation (`--accept-weak-isolation`); then the runner's timeout, output cap and
//! process-group kill, the rlimits and a cleared environment still apply, and the report lists
//! what was not applied.
//!
//! Cgroups would give a cleaner memory and process ceiling, but they need a delegated cgroup
//! tree that neither a laptop nor a CI runner reliably offers; rlimits are per process, which
//! is enough for a test binary that runs one kata.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Serialize;

/// Limits a submission's test process runs under.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Address space, MiB.
    pub memory_mib: u64,
    /// CPU seconds (all threads together).
    pub cpu_secs: u64,
    /// Largest file it may write, MiB.
    pub file_mib: u64,
    /// Processes and threads.
    pub processes: u64,
    /// Open files.
    pub open_files: u64,
    /// Size of its scratch tmpfs, MiB.
    pub disk_mib: u64,
}

impl Limits {
    /// The defaults for a kata with this wall-clock timeout.
    pub fn for_timeout(timeout: Duration) -> Limits {
        Limits {
            memory_mib: DEFAULT_MEMORY_MIB,
            // Two cores can burn two CPU seconds per wall second; the wall timeout is what
            // normally ends a loop, this catches a process that escapes it.
            cpu_secs: timeout.as_secs() * 2 + 5,
            file_mib: DEFAULT_FILE_MIB,
            processes: DEFAULT_PROCESSES,
            open_files: DEFAULT_OPEN_FILES,
            disk_mib: DEFAULT_DISK_MIB,
        }
    }
}

/// One isolation measure and whether it is in force.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Layer {
    /// What it is ("no network", "memory limit" …).
    pub name: String,
    /// Whether the grader applies it.
    pub applied: bool,
    /// How, or why not.
    pub detail: String,
}

/// What the grader could apply on this machine, and the command prefix that applies it.
#[derive(Debug, Clone, Serialize)]
pub struct Isolation {
    /// Every measure, applied or not.
    pub layers: Vec<Layer>,
    /// Whether the instructor accepted grading without a pid and mount namespace.
    pub weak_accepted: bool,
    #[serde(skip)]
    prefix: Vec<OsString>,
    #[serde(skip)]
    sandboxed: bool,
    #[serde(skip)]
    namespaces: bool,
    #[serde(skip)]
    root: PathBuf,
}

/// The result channel's named pipe, in a run's scratch `tmp/` (see [`Isolation::results_fifo`]).
const RESULTS_FIFO: &str = ".katas-results";

/// Environment variables a test run keeps (the test kit's; everything else is cleared).
const KEEP_ENV: &str = "KATAS_TOKEN_ON_STDIN KATAS_SEED KATAS_TEST RUST_BACKTRACE";

/// The shell script that sets up the sandbox. `$1` is the sandbox root, `$2` the run's
/// scratch folder on the host (its `tmp/`, for the stdin relay or, without namespaces, as the
/// test's TMPDIR), `$3..$9` the limits and whether namespaces are in force, `$10` the number
/// of the `read` system call, `$11` the variables to keep, `$12` the result channel's name in
/// `$2` (the runner makes that pipe); the runner appends the test binary.
const SANDBOX_SCRIPT: &str = r#"
root="$1"; scratch="$2"; mem="$3"; cpu="$4"; fsize="$5"; nproc="$6"; nofile="$7"; ns="$8"
disk="$9"; shift 9; readnr="$1"; keep="$2"; results="$3"; shift 3
die() { echo "katas-sandbox: $*" >&2; exit 125; }
limits() {
  ulimit -v "$mem" 2>/dev/null; ulimit -t "$cpu" 2>/dev/null; ulimit -f "$fsize" 2>/dev/null
  ulimit -n "$nofile" 2>/dev/null
  ulimit -u "$nproc" 2>/dev/null || ulimit -p "$nproc" 2>/dev/null
}
for a; do exe="$a"; done
probe=
if [ "$exe" = --katas-probe ]; then
  probe=yes; exe="$(command -v setpriv)" || die "no setpriv"
  echo "pid=$$"
  n=0; while read -r line; do case "$line" in *:*) n=$((n+1));; esac; done < /proc/net/dev
  echo "netdevs=$n"
  ( limits; echo "mem=$(ulimit -v)"; echo "cpu=$(ulimit -t)"; echo "fsize=$(ulimit -f)"
    echo "nofile=$(ulimit -n)"; echo "nproc=$(ulimit -u 2>/dev/null || ulimit -p 2>/dev/null)" )
fi
token=; want=${KATAS_TOKEN_ON_STDIN:+yes}
if [ -n "$want" ]; then IFS= read -r token || token=; fi
set --
for n in $keep; do
  eval "isset=\${$n+y}"
  if [ "$isset" = y ]; then eval "v=\$$n"; set -- "$@" "$n=$v"; fi
done
if [ "$ns" != yes ]; then
  limits
  if [ -n "$probe" ]; then
    env -i "$@" "$exe" --dump
  elif [ -n "$want" ]; then
    printf '%s\n' "$token" | env -i TMPDIR="$scratch" HOME="$scratch" "$@" "$exe"
  else
    env -i TMPDIR="$scratch" HOME="$scratch" "$@" "$exe" </dev/null
  fi
  exit $?
fi
chroot_bin="$(command -v chroot)" || die "no chroot program"
mount --bind "$root" "$root" && mount -o remount,bind,ro "$root" || die "cannot lay out the root"
mount -t tmpfs -o "size=${disk}m,mode=1777,nosuid,nodev,noexec" katas-tmp "$root/tmp" ||
  die "cannot mount the scratch tmpfs"
mount -t proc -o nosuid,nodev,noexec proc "$root/proc" || die "cannot mount proc"
for d in null zero urandom; do mount --bind "/dev/$d" "$root/dev/$d" || die "cannot bind /dev/$d"; done
mount --bind "$exe" "$root/run/test" && mount -o remount,bind,ro "$root/run/test" ||
  die "cannot bind the test binary"
fifo="$scratch/.katas-stdin"
rm -f "$fifo"; mkfifo -m 600 "$fifo" && exec 5<>"$fifo" || die "cannot make the stdin relay"
set -- env -i TMPDIR=/tmp HOME=/tmp KATAS_RESULTS_FD=3 "$@" "$chroot_bin" "$root" \
  /.katas/setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- /run/test
if [ -n "$probe" ]; then
  set -- "$@" --dump
  ( limits; exec 5>&-; exec "$@" ) <"$fifo" &
else
  # The result channel: the runner's named pipe becomes the test's fd 3, which only the
  # test kit opens (through /proc, before it is masked).
  ( limits; exec 5>&-; exec "$@" 3>"$scratch/$results" ) <"$fifo" &
fi
pid=$!
if [ -n "$want" ]; then
  # Until the test kit waits for its token: read(0, …) in /proc/<pid>/syscall.
  n=0
  while [ $n -lt 2500 ]; do
    s=; a=
    read -r s a _ 2>/dev/null </proc/$pid/syscall || break
    [ "$s" = "$readnr" ] && [ "$a" = 0x0 ] && break
    n=$((n+1)); sleep 0.002
  done
fi
mount --bind "$root/.katas/proc" "$root/proc" && mount -o remount,bind,ro "$root/proc" ||
  die "cannot mask /proc"
mount -t tmpfs -o size=4k,ro katas-none "$root/.katas" || die "cannot hide the sandbox tools"
[ -n "$probe" ] && echo "masked=yes"
[ -n "$want" ] && printf '%s\n' "$token" >&5
exec 5>&-
wait $pid
st=$?
rm -f "$fifo"
exit $st
"#;

impl Isolation {
    /// Finds out what can be applied, by running the sandbox on a probe in `work` (a folder
    /// the grader owns). `allow` false: no sandbox at all (`--no-sandbox`).
    pub fn probe(work: &Path, limits: &Limits, allow: bool) -> Isolation {
        let always = vec![
            layer(
                "timeout",
                true,
                "per kata; the test process group is killed when it hits",
            ),
            layer(
                "build limits",
                true,
                &format!(
                    "cargo and its compilers: {} s, {BUILD_MEMORY_MIB} MiB address space, \
                     files up to {BUILD_FILE_MIB} MiB, {} MiB of compiler output",
                    super::BUILD_TIMEOUT.as_secs(),
                    BUILD_OUTPUT_BYTES >> 20
                ),
            ),
            layer(
                "output cap",
                true,
                "output beyond the cap is dropped and the kata scores zero",
            ),
            layer(
                "own scratch folder",
                true,
                "only exercises/<kata>/src/** is taken from a submission; Cargo files, \
                 build scripts and tests come from the instructor's tree",
            ),
            layer(
                "unsafe code forbidden",
                true,
                "the kata crate is compiled with `forbid(unsafe_code)` and `build = false`",
            ),
            layer(
                "source scan",
                true,
                "include!/include_str!/include_bytes!/#[path] reading outside src/ (rustc's \
                 dep-info) and `std::process::Command` spelled in the sources are rejected",
            ),
        ];
        let sandbox_layers = [
            "no network",
            "own root",
            "/proc masked",
            "result channel",
            "clean environment",
            "scratch disk cap",
            "own process namespace",
            "no capabilities",
            "no programs to run",
            "memory limit",
            "CPU limit",
            "process limit",
            "file size limit",
        ];
        if !allow {
            let mut layers = always;
            layers.extend(
                sandbox_layers
                    .into_iter()
                    .map(|n| layer(n, false, "--no-sandbox")),
            );
            return Isolation {
                layers,
                weak_accepted: false,
                prefix: Vec::new(),
                sandboxed: false,
                namespaces: false,
                root: PathBuf::new(),
            };
        }
        let probe_dir = work.join("probe");
        let _ = std::fs::remove_dir_all(&probe_dir);
        let _ = std::fs::create_dir_all(probe_dir.join("tmp"));
        make_world_writable(&probe_dir.join("tmp"));
        let root = work.join("sandbox-root");
        let root_ok = build_root(&root).is_ok();

        let as_root = is_root();
        let mut candidates: Vec<(Vec<OsString>, bool, &str)> = Vec::new();
        let unshare: Vec<OsString> = [
            "unshare",
            "--user",
            "--map-root-user",
            "--net",
            "--mount",
            "--pid",
            "--fork",
            "--kill-child",
            "--mount-proc",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        if root_ok {
            if as_root {
                let mut v: Vec<OsString> = [
                    "setpriv",
                    "--reuid=65534",
                    "--regid=65534",
                    "--clear-groups",
                    "--",
                ]
                .iter()
                .map(OsString::from)
                .collect();
                v.extend(unshare.iter().cloned());
                candidates.push((v, true, "as nobody"));
            }
            candidates.push((unshare, true, "as the grader's user"));
        }
        candidates.push((Vec::new(), false, "limits only"));

        for (prefix, ns, how) in candidates {
            let Some(facts) = run_probe(&prefix, ns, &root, &probe_dir, limits) else {
                continue;
            };
            let get = |k: &str| facts.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
            let mut layers = always.clone();
            let in_ns = ns && get("pid") == Some("1") && get("masked") == Some("yes");
            let net = in_ns && get("netdevs").is_some_and(|n| n.trim() == "1");
            let on = |name: &str, yes: bool, how_yes: &str, how_no: &str| {
                layer(name, yes, if yes { how_yes } else { how_no })
            };
            layers.push(on(
                "no network",
                net,
                "own network namespace (unshare --net): only a down loopback",
                "no network namespace (unshare)",
            ));
            layers.push(on(
                "own root",
                in_ns,
                "the test sees only its binary, the libraries it links, /dev/{null,zero,\
                 urandom} and its own /tmp, all read-only but /tmp: not the instructor's \
                 tree, not other learners' sources, not the grader's files",
                "no mount namespace: the test can read (and write) whatever the grader can",
            ));
            layers.push(on(
                "/proc masked",
                in_ns,
                "after start-up only /proc/self/exe is left: no /proc/self/mem, environ, \
                 maps or other processes",
                "the test can read its own memory through /proc/self/mem",
            ));
            layers.push(on(
                "result channel",
                in_ns,
                "the test kit reports on a descriptor the code under test cannot write (no \
                 `unsafe`, no /proc/self/fd); its stdout and stderr are only output",
                "results share stdout with the code under test; only the run's token tells \
                 them apart",
            ));
            layers.push(layer(
                "clean environment",
                true,
                "the test's environment is cleared but for the test kit's variables, TMPDIR \
                 and HOME",
            ));
            layers.push(on(
                "scratch disk cap",
                in_ns,
                &format!(
                    "/tmp is a {} MiB tmpfs, gone when the run ends",
                    limits.disk_mib
                ),
                "TMPDIR is a folder of the scratch workspace, wiped after the run but \
                 not capped beyond the file size limit",
            ));
            layers.push(on(
                "own process namespace",
                in_ns,
                "unshare --pid --kill-child: every process it started dies with the run",
                "no pid namespace: only the process group is killed, and a process that \
                 left it can outlive the run",
            ));
            layers.push(on(
                "no capabilities",
                in_ns,
                "setpriv --bounding-set=-all --no-new-privs: no chroot, mount or ownership \
                 changes inside its namespaces",
                "no user namespace",
            ));
            layers.push(on(
                "no programs to run",
                in_ns,
                "the only program in its root is the test binary itself (a kata's harness \
                 may re-run it); /tmp is noexec",
                "system programs stay visible",
            ));
            let set = |k: &str| get(k).is_some_and(|v| v != "unlimited" && !v.is_empty());
            layers.push(layer(
                "memory limit",
                set("mem"),
                &format!("address space {} MiB (ulimit -v)", limits.memory_mib),
            ));
            layers.push(layer(
                "CPU limit",
                set("cpu"),
                &format!("{} CPU seconds (ulimit -t)", limits.cpu_secs),
            ));
            let nproc_binds = set("nproc") && (!as_root || how == "as nobody");
            layers.push(layer(
                "process limit",
                nproc_binds,
                &if nproc_binds {
                    format!(
                        "{} processes and threads (ulimit -u), {how}",
                        limits.processes
                    )
                } else {
                    "not enforced (root is exempt from RLIMIT_NPROC)".to_string()
                },
            ));
            layers.push(layer(
                "file size limit",
                set("fsize"),
                &format!("files up to {} MiB (ulimit -f)", limits.file_mib),
            ));
            let _ = std::fs::remove_dir_all(&probe_dir);
            return Isolation {
                layers,
                weak_accepted: false,
                prefix,
                sandboxed: true,
                namespaces: in_ns,
                root: root.clone(),
            };
        }
        let _ = std::fs::remove_dir_all(&probe_dir);
        let mut layers = always;
        layers.push(layer(
            "sandbox",
            false,
            "no POSIX shell: only the runner's timeout, output cap and group kill apply",
        ));
        Isolation {
            layers,
            weak_accepted: false,
            prefix: Vec::new(),
            sandboxed: false,
            namespaces: false,
            root,
        }
    }

    /// Whether each run gets its own pid and mount namespace (and so its own root).
    pub fn pid_namespace(&self) -> bool {
        self.namespaces
    }

    /// Records that the instructor accepted the weaker isolation (`--accept-weak-isolation`).
    pub fn accept_weak(&mut self) {
        self.weak_accepted = true;
    }

    /// The command prefix for a run whose scratch `tmp/` is `scratch_tmp` (it must exist);
    /// empty when no sandbox applies.
    pub fn wrapper(&self, scratch_tmp: &Path, limits: &Limits) -> Vec<OsString> {
        if !self.sandboxed {
            return Vec::new();
        }
        let mut v = self.prefix.clone();
        v.extend(script_args(
            &self.root,
            scratch_tmp,
            limits,
            self.namespaces,
        ));
        v
    }

    /// The result channel of a run whose scratch `tmp/` is `scratch_tmp`, when the sandbox
    /// gives one (with namespaces: the test's own root has no path to it).
    pub fn results_fifo(&self, scratch_tmp: &Path) -> Option<PathBuf> {
        self.namespaces.then(|| scratch_tmp.join(RESULTS_FIFO))
    }

    /// Makes sure the sandbox root holds every library `exe` links (copies those missing).
    pub fn provide_libraries(&self, exe: &Path) -> anyhow::Result<()> {
        if !self.namespaces {
            return Ok(());
        }
        for lib in linked_libraries(exe) {
            copy_into_root(&self.root, &lib)?;
        }
        Ok(())
    }

    /// One line per measure, for the table output.
    pub fn summary(&self) -> String {
        let on: Vec<&str> = self
            .layers
            .iter()
            .filter(|l| l.applied)
            .map(|l| l.name.as_str())
            .collect();
        let off: Vec<&str> = self
            .layers
            .iter()
            .filter(|l| !l.applied)
            .map(|l| l.name.as_str())
            .collect();
        let weak = if self.weak_accepted {
            " (weaker isolation accepted with --accept-weak-isolation)"
        } else {
            ""
        };
        if off.is_empty() {
            format!("isolation: {}", on.join(", "))
        } else {
            format!(
                "isolation: {}; NOT applied: {}{weak}",
                on.join(", "),
                off.join(", ")
            )
        }
    }
}

/// The command prefix of a build: cargo under the build limits, its output capped.
pub fn build_wrapper() -> Vec<OsString> {
    let script = format!(
        "ulimit -v {} 2>/dev/null; ulimit -f {} 2>/dev/null; \"$@\" | head -c {BUILD_OUTPUT_BYTES}",
        BUILD_MEMORY_MIB * 1024,
        BUILD_FILE_MIB * 2048
    );
    ["sh", "-c", script.as_str(), "katas-build"]
        .iter()
        .map(OsString::from)
        .collect()
}

fn layer(name: &str, applied: bool, detail: &str) -> Layer {
    Layer {
        name: name.into(),
        applied,
        detail: detail.into(),
    }
}

fn script_args(root: &Path, scratch: &Path, l: &Limits, ns: bool) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec!["sh".into(), "-c".into(), SANDBOX_SCRIPT.into()];
    v.push("katas-sandbox".into());
    v.push(root.as_os_str().to_owned());
    v.push(scratch.as_os_str().to_owned());
    v.push((l.memory_mib * 1024).to_string().into());
    v.push(l.cpu_secs.to_string().into());
    // ulimit -f counts 512-byte blocks in dash and POSIX-mode shells; 1024 in bash. Either
    // way the limit is of the right order.
    v.push((l.file_mib * 2048).to_string().into());
    v.push(l.processes.to_string().into());
    v.push(l.open_files.to_string().into());
    v.push(if ns { "yes" } else { "no" }.into());
    v.push(l.disk_mib.to_string().into());
    v.push(read_syscall().into());
    v.push(KEEP_ENV.into());
    v.push(RESULTS_FIFO.into());
    v
}

/// The number of the `read` system call on this architecture (as /proc/<pid>/syscall shows
/// it); unknown architectures get one that never matches, so the script waits its full
/// bound before masking /proc.
fn read_syscall() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "0",
        "aarch64" | "riscv64" | "loongarch64" => "63",
        "x86" => "3",
        "arm" => "3",
        _ => "-1",
    }
}

/// Lays out the sandbox root: the folders the script mounts on, the stand-in /proc, setpriv
/// and the libraries it and the grader link (a test binary links the same few; others are
/// added per binary by [`Isolation::provide_libraries`]).
fn build_root(root: &Path) -> anyhow::Result<()> {
    let _ = std::fs::remove_dir_all(root);
    for d in ["tmp", "proc", "dev", "run", ".katas/proc/self"] {
        std::fs::create_dir_all(root.join(d))?;
    }
    for f in ["dev/null", "dev/zero", "dev/urandom", "run/test"] {
        std::fs::write(root.join(f), "")?;
    }
    symlink("/run/test", &root.join(".katas/proc/self/exe"))?;
    let setpriv = which("setpriv").ok_or_else(|| anyhow::anyhow!("no setpriv"))?;
    std::fs::copy(&setpriv, root.join(".katas/setpriv"))?;
    let mut libs = linked_libraries(&setpriv);
    if let Ok(me) = std::env::current_exe() {
        libs.extend(linked_libraries(&me));
    }
    if libs.is_empty() {
        anyhow::bail!("ldd found no libraries");
    }
    for lib in libs {
        copy_into_root(root, &lib)?;
    }
    // Readable and traversable by `nobody`, writable by no one inside (it is bound read-only).
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = std::fs::symlink_metadata(&p)?;
        if meta.is_symlink() {
            continue;
        }
        set_mode(&p, 0o755)?;
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&p)?.filter_map(|e| e.ok().map(|e| e.path())));
        }
    }
    Ok(())
}

/// Copies `lib` (an absolute path, as the loader will look for it) into `root` at the same
/// path, unless it is there.
fn copy_into_root(root: &Path, lib: &Path) -> anyhow::Result<()> {
    let rel = lib.strip_prefix("/").unwrap_or(lib);
    let dest = root.join(rel);
    if dest.exists() {
        return Ok(());
    }
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
        let _ = set_mode(parent, 0o755);
    }
    std::fs::copy(lib, &dest)?;
    set_mode(&dest, 0o755)?;
    Ok(())
}

/// The shared libraries (and the loader) `exe` links, from `ldd`.
fn linked_libraries(exe: &Path) -> Vec<PathBuf> {
    let Ok(out) = Command::new("ldd").arg(exe).stderr(Stdio::null()).output() else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let path = match l.split_once("=>") {
                Some((_, rest)) => rest.trim(),
                None => l,
            };
            let path = path.split(" (").next()?.trim();
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect()
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(["/usr/bin".into(), "/bin".into()])
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

fn run_probe(
    prefix: &[OsString],
    ns: bool,
    root: &Path,
    dir: &Path,
    limits: &Limits,
) -> Option<Vec<(String, String)>> {
    let mut args: Vec<OsString> = prefix.to_vec();
    args.extend(script_args(root, &dir.join("tmp"), limits, ns));
    args.push("--katas-probe".into());
    let (program, rest) = args.split_first()?;
    let out = Command::new(program)
        .args(rest)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut facts: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    if ns {
        // A namespace candidate that did not get its own pid 1, could not mask /proc, or
        // whose setpriv kept capabilities, did not work.
        let has = |k: &str, v: &str| facts.iter().any(|(a, b)| a == k && b == v);
        let no_caps = text
            .lines()
            .any(|l| l.starts_with("Capability bounding set:") && l.contains("[none]"));
        if !has("pid", "1") || !has("masked", "yes") || !no_caps {
            return None;
        }
    } else {
        facts.retain(|(k, _)| k != "pid");
    }
    Some(facts)
}

/// Whether the grader runs as root (RLIMIT_NPROC does not bind root).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// `chmod 1777`: the sandboxed run may be another user (`nobody`).
pub fn make_world_writable(dir: &Path) {
    let _ = set_mode(dir, 0o1777);
}

/// `chmod`. Unix modes mean nothing elsewhere, and the grader refuses to start there
/// ([`NOT_UNIX`]), so off Unix this does nothing: it exists so the checker compiles on
/// Windows, where learners run everything but `katas grade`.
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// A symbolic link; off Unix an error ([`NOT_UNIX`]), for the reason [`set_mode`] gives.
fn symlink(target: &str, link: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(not(unix))]
    {
        let _ = (target, link);
        Err(std::io::Error::other(NOT_UNIX))
    }
}

/// Why `katas grade` stops on a system that is not Unix. Design decision: the grader's
/// sandbox (user, pid, mount and network namespaces, `chroot`, rlimits) is made of Linux
/// tools, and a grader without it would run untrusted submissions with the instructor's
/// rights; a weaker Windows sandbox (job objects) is not worth its code while instructors
/// grade on Linux CI runners. A learner's own commands (`run`, watch mode, `pack`) do not
/// need it and work everywhere.
pub const NOT_UNIX: &str = "katas grade runs on Linux (or another Unix): its sandbox is built \
    from Linux tools (unshare, setpriv, chroot, ulimit). Grade on a Linux machine, in WSL or on \
    a CI runner; every learner command (watch mode, run, hint, pack) works on this system.";

/// Address space of a test run, MiB. Threads reserve stacks and malloc arenas, so this is
/// well above what a kata really uses.
pub const DEFAULT_MEMORY_MIB: u64 = 4096;
/// Largest file a test run may write, MiB.
pub const DEFAULT_FILE_MIB: u64 = 16;
/// Processes plus threads of one test run (kata tests race a few dozen threads).
pub const DEFAULT_PROCESSES: u64 = 512;
/// Open files of one test run.
pub const DEFAULT_OPEN_FILES: u64 = 256;
/// Size of a test run's scratch tmpfs, MiB (kata tests write nothing; this is room to spare).
pub const DEFAULT_DISK_MIB: u64 = 64;
/// Address space of cargo and each compiler it starts, MiB: compiling the engine needs about
/// 1.5 GiB of address space; `include_bytes!("/dev/zero")` would need all there is.
pub const BUILD_MEMORY_MIB: u64 = 6144;
/// Largest file a build may write, MiB (the test binary with debug info is ~100 MiB).
pub const BUILD_FILE_MIB: u64 = 1024;
/// Compiler output (cargo's JSON messages) kept from one build: a `compile_error!` with a
/// megabyte message, or ten thousand of them, stops here.
pub const BUILD_OUTPUT_BYTES: u64 = 4 << 20;
