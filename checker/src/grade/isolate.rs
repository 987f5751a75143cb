//! Isolation of a submission's test run: what the grader can apply on this machine, found by
//! a probe at start-up and reported with the grades.
//!
//! ```text
//!  [setpriv --reuid 65534 …]           as root: run as `nobody`, so the process limit binds
//!  unshare --user --map-root-user       a user namespace (no privileges needed) with
//!          --net                        no network (only a down loopback)
//!          --mount                      its own mounts: everything read-only but <scratch>/tmp,
//!                                       and no programs to run (/bin, /usr/bin… hidden)
//!          --pid --fork --kill-child    its own processes: all of them die with the run
//!  sh -c SANDBOX_SCRIPT                 ulimit: address space, CPU seconds, file size,
//!                                       processes, open files; then run the test binary
//! ```
//!
//! Design decision: the sandbox is built from util-linux's `unshare` and `setpriv` and the
//! shell's `ulimit`, not from `libc` calls in a `pre_exec` hook. The workspace forbids
//! `unsafe` (a `pre_exec` hook is `unsafe`), the tools exist on every mainstream Linux, and
//! where one is missing (macOS, a container without user namespaces) the probe says so and
//! grading goes on with what is left: the runner's own timeout, output cap and process-group
//! kill always apply, and the report lists what was and was not applied.
//!
//! Cgroups would give a cleaner memory and process ceiling, but they need a delegated cgroup
//! tree that neither a laptop nor a CI runner reliably offers; rlimits are per process, which
//! is enough for a test binary that runs one kata.

use std::ffi::OsString;
use std::path::Path;
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
    #[serde(skip)]
    prefix: Vec<OsString>,
    #[serde(skip)]
    sandboxed: bool,
}

/// The shell script that sets up the sandbox inside the namespaces. `$1` is the scratch
/// folder (its `tmp/` stays writable), `$2..$6` the limits, the rest the command.
const SANDBOX_SCRIPT: &str = r#"
scratch="$1"; mem="$2"; cpu="$3"; fsize="$4"; nproc="$5"; nofile="$6"; ns="$7"; shift 7
if [ "$ns" = yes ]; then
  for m in $(awk '{print $5}' /proc/self/mountinfo 2>/dev/null); do
    mount -o remount,bind,ro "$m" 2>/dev/null
  done
  mount --bind "$scratch/tmp" "$scratch/tmp" 2>/dev/null &&
    mount -o remount,bind,rw "$scratch/tmp" 2>/dev/null
  for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
    if [ -d "$d" ] && [ ! -L "$d" ]; then mount -t tmpfs -o size=4k,ro katas-empty "$d" 2>/dev/null; fi
  done
fi
ulimit -v "$mem" 2>/dev/null; ulimit -t "$cpu" 2>/dev/null; ulimit -f "$fsize" 2>/dev/null
ulimit -n "$nofile" 2>/dev/null
ulimit -u "$nproc" 2>/dev/null || ulimit -p "$nproc" 2>/dev/null
if [ "$1" = --katas-probe ]; then
  echo "pid=$$"
  echo "mem=$(ulimit -v)"
  echo "cpu=$(ulimit -t)"
  echo "fsize=$(ulimit -f)"
  echo "nofile=$(ulimit -n)"
  echo "nproc=$(ulimit -u 2>/dev/null || ulimit -p 2>/dev/null)"
  n=0; while read -r line; do case "$line" in *:*) n=$((n+1));; esac; done < /proc/net/dev
  echo "netdevs=$n"
  if ( : > "$scratch/probe-outside" ) 2>/dev/null; then echo "outside=rw"; else echo "outside=ro"; fi
  if ( : > "$scratch/tmp/probe-inside" ) 2>/dev/null; then echo "inside=rw"; else echo "inside=ro"; fi
  set -- /usr/bin/*
  if [ "$1" = "/usr/bin/*" ]; then echo "bins=hidden"; else echo "bins=visible"; fi
  exit 0
fi
# Not `exec`: inside the pid namespace the shell is pid 1, and pid 1 ignores the signals it
# sends itself, so an abort() in the test would not end it. As pid 2 it dies normally; the
# shell passes the status on (128 + signal, which the runner reads back as the signal).
"$@"
exit $?
"#;

impl Isolation {
    /// Finds out what can be applied, by running the sandbox on a probe in `work` (a folder
    /// the grader owns). `allow` false: no sandbox at all (`--no-sandbox`).
    pub fn probe(work: &Path, limits: &Limits, allow: bool) -> Isolation {
        let mut always = vec![
            layer(
                "timeout",
                true,
                "per kata; the test process group is killed when it hits",
            ),
            layer(
                "build timeout",
                true,
                "cargo and its compilers are killed when a build hangs",
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
                "include!/include_str!/include_bytes!/#[path] outside src/ and \
                 std::process::Command are rejected before building",
            ),
        ];
        if !allow {
            always.extend(
                [
                    "no network",
                    "read-only filesystem",
                    "own process namespace",
                    "no programs to run",
                    "memory limit",
                    "CPU limit",
                    "process limit",
                ]
                .into_iter()
                .map(|n| layer(n, false, "--no-sandbox")),
            );
            return Isolation {
                layers: always,
                prefix: Vec::new(),
                sandboxed: false,
            };
        }
        let probe_dir = work.join("probe");
        let _ = std::fs::remove_dir_all(&probe_dir);
        let _ = std::fs::create_dir_all(probe_dir.join("tmp"));
        make_world_writable(&probe_dir.join("tmp"));

        let root = is_root();
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
        if root {
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
        candidates.push((Vec::new(), false, "limits only"));

        for (prefix, ns, how) in candidates {
            let Some(facts) = run_probe(&prefix, ns, &probe_dir, limits) else {
                continue;
            };
            let get = |k: &str| facts.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
            let mut layers = always.clone();
            let in_ns = ns && get("pid") == Some("1");
            let net = in_ns && get("netdevs").is_some_and(|n| n.trim() == "1");
            layers.push(layer(
                "no network",
                net,
                if net {
                    "own network namespace (unshare --net): only a down loopback"
                } else {
                    "user and network namespaces unavailable (unshare)"
                },
            ));
            let ro = in_ns && get("outside") == Some("ro") && get("inside") == Some("rw");
            layers.push(layer(
                "read-only filesystem",
                ro,
                if ro {
                    "own mount namespace: everything read-only except the run's scratch tmp/"
                } else {
                    "no mount namespace: the test can write wherever the grader can"
                },
            ));
            layers.push(layer(
                "own process namespace",
                in_ns,
                if in_ns {
                    "unshare --pid --kill-child: every process it started dies with the run"
                } else {
                    "no pid namespace: only the process group is killed"
                },
            ));
            let bins = in_ns && get("bins") == Some("hidden");
            layers.push(layer(
                "no programs to run",
                bins,
                if bins {
                    "/bin, /usr/bin, /sbin… are empty inside the sandbox"
                } else {
                    "system programs stay visible"
                },
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
            let nproc_binds = set("nproc") && (!root || how == "as nobody");
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
                prefix,
                sandboxed: true,
            };
        }
        let _ = std::fs::remove_dir_all(&probe_dir);
        always.push(layer(
            "sandbox",
            false,
            "no POSIX shell: only the runner's timeout, output cap and group kill apply",
        ));
        Isolation {
            layers: always,
            prefix: Vec::new(),
            sandboxed: false,
        }
    }

    /// The command prefix for a run in `scratch` (whose `tmp/` must exist); empty when no
    /// sandbox applies.
    pub fn wrapper(&self, scratch: &Path, limits: &Limits) -> Vec<OsString> {
        if !self.sandboxed {
            return Vec::new();
        }
        let ns = !self.prefix.is_empty();
        let mut v = self.prefix.clone();
        v.extend(script_args(scratch, limits, ns));
        v
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
        if off.is_empty() {
            format!("isolation: {}", on.join(", "))
        } else {
            format!(
                "isolation: {}; NOT applied: {}",
                on.join(", "),
                off.join(", ")
            )
        }
    }
}

fn layer(name: &str, applied: bool, detail: &str) -> Layer {
    Layer {
        name: name.into(),
        applied,
        detail: detail.into(),
    }
}

fn script_args(scratch: &Path, l: &Limits, ns: bool) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec!["sh".into(), "-c".into(), SANDBOX_SCRIPT.into()];
    v.push("katas-sandbox".into());
    v.push(scratch.as_os_str().to_owned());
    v.push((l.memory_mib * 1024).to_string().into());
    v.push(l.cpu_secs.to_string().into());
    // ulimit -f counts 512-byte blocks in dash and POSIX-mode shells; 1024 in bash. Either
    // way the limit is of the right order.
    v.push((l.file_mib * 2048).to_string().into());
    v.push(l.processes.to_string().into());
    v.push(l.open_files.to_string().into());
    v.push(if ns { "yes" } else { "no" }.into());
    v
}

fn run_probe(
    prefix: &[OsString],
    ns: bool,
    dir: &Path,
    limits: &Limits,
) -> Option<Vec<(String, String)>> {
    let mut args: Vec<OsString> = prefix.to_vec();
    args.extend(script_args(dir, limits, ns));
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
    let facts: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    // A namespace candidate that did not get its own pid 1 did not work.
    if ns && !facts.iter().any(|(k, v)| k == "pid" && v == "1") {
        return None;
    }
    // As nobody, the scratch's tmp must have been writable; otherwise the folders are not
    // reachable for that user (a repository under /root) and the next candidate is tried.
    if ns && !facts.iter().any(|(k, v)| k == "inside" && v == "rw") {
        return None;
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
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o1777));
}

/// Address space of a test run, MiB. Threads reserve stacks and malloc arenas, so this is
/// well above what a kata really uses.
pub const DEFAULT_MEMORY_MIB: u64 = 4096;
/// Largest file a test run may write, MiB.
pub const DEFAULT_FILE_MIB: u64 = 16;
/// Processes plus threads of one test run (kata tests race a few dozen threads).
pub const DEFAULT_PROCESSES: u64 = 512;
/// Open files of one test run.
pub const DEFAULT_OPEN_FILES: u64 = 256;
