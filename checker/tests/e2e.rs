//! End to end: the real `katas` binary on a copy of the fixture curriculum, as a learner uses
//! it — fail, read the verdict, edit, pass — plus the commands around it.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn katas(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_katas"))
        .args(args)
        .current_dir(root)
        // A target dir per fixture copy: tests run in parallel, and a binary built for one
        // copy must never be run for another (the fixture copies share crate names).
        .env(
            "CARGO_TARGET_DIR",
            common::fixture_target()
                .join("e2e")
                .join(root.file_name().unwrap_or_default()),
        )
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn fail_edit_pass_and_the_commands_around_it() {
    let root = common::fresh_fixture("e2e");

    // The untouched starter fails; the exit code says so; the screen gives the task and
    // where to start, not a failure report.
    let o = katas(&root, &["run"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("3 of 3 hidden tests fail"), "{t}");
    assert!(
        t.contains("your task is in exercises/shard-key/README.md"),
        "{t}"
    );
    assert!(t.contains("the first test, formats_one_key, says:"), "{t}");

    // The solution is locked before a pass.
    let o = katas(&root, &["solution", "shard-key"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("unlocks once the kata passes"));

    // Hints come one level at a time and stay.
    assert!(text(&katas(&root, &["hint"])).contains("hint 1/3"));
    let t = text(&katas(&root, &["hint"]));
    assert!(t.contains("hint 1/3") && t.contains("hint 2/3"), "{t}");

    // A half-right edit: the failing test and its diff; its own hint only when asked.
    let lib = root.join("exercises/shard-key/src/lib.rs");
    let wrong = root.join("checker/katas/shard-key/solutions/wrong-off-by-one.rs");
    std::fs::copy(&wrong, &lib).unwrap();
    let o = katas(&root, &["run", "shard-key"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("failing test: lists_every_shard"), "{t}");
    assert!(t.contains("- expected   + your code"), "{t}");
    assert!(!t.contains("Reads must visit every shard"), "{t}");
    assert!(t.contains("`cargo katas hint shard-key`"), "{t}");
    let t = text(&katas(&root, &["hint"]));
    assert!(
        t.contains("hint for lists_every_shard: Reads must visit every shard"),
        "{t}"
    );
    let t = text(&katas(&root, &["run", "shard-key"]));
    assert!(
        t.contains("hint for this test: Reads must visit every shard"),
        "{t}"
    );

    // The fix passes, exit code 0, and progress is kept.
    let reference = root.join("checker/katas/shard-key/solutions/reference.rs");
    std::fs::copy(&reference, &lib).unwrap();
    let o = katas(&root, &["run"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("all 3 hidden tests pass (4/4 points)"));
    let t = text(&katas(&root, &["list"]));
    assert!(t.contains("1/2 katas passed"), "{t}");
    assert!(
        t.lines()
            .any(|l| l.starts_with("✓ passed") && l.contains("shard-key")),
        "{t}"
    );

    // Now the solution shows; --json gives the structured result.
    assert!(text(&katas(&root, &["solution", "shard-key"])).contains("(0..n).map"));
    let o = katas(&root, &["run", "shard-key", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"]["kind"], "passed");
    assert_eq!(v["tests"][1]["name"], "lists_every_shard");
    assert_eq!(v["tests"][1]["points"], 2);

    // Reset restores the starter, which fails again.
    assert_eq!(katas(&root, &["reset", "shard-key"]).status.code(), Some(0));
    assert!(std::fs::read_to_string(&lib).unwrap().contains("// TODO"));
    assert_eq!(katas(&root, &["run", "shard-key"]).status.code(), Some(1));

    // Verify checks everything and summarises.
    let o = katas(&root, &["verify"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("0 of 2 katas pass"), "{}", text(&o));

    // Helpful errors.
    let t = text(&katas(&root, &["run", "shard-kye"]));
    assert!(t.contains("did you mean `shard-key`"), "{t}");
    let outside = std::env::temp_dir();
    let t = text(&katas(&outside, &["list"]));
    assert!(t.contains("not a DynamoDB Katas repository"), "{t}");
}

#[test]
fn a_corrupt_state_file_is_rebuilt_with_a_warning() {
    let root = common::fresh_fixture("e2e-state");
    std::fs::write(root.join(".katas-state.json"), "{{{ nope").unwrap();
    let o = katas(&root, &["list"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("warning:") && t.contains("corrupt"), "{t}");
    assert!(t.contains("← current"), "{t}");
}

/// A check at home says at once which of the learner's changes grading will not see.
#[test]
fn changes_grading_will_not_see_are_named() {
    let root = common::fresh_fixture("e2e-unseen");
    let git = |args: &[&str]| {
        let o = std::process::Command::new("git")
            .current_dir(&root)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .output()
            .expect("git runs");
        assert!(o.status.success(), "git {args:?}: {}", text(&o));
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "fixture"]);
    let reference = root.join("checker/katas/shard-key/solutions/reference.rs");
    std::fs::copy(&reference, root.join("exercises/shard-key/src/lib.rs")).unwrap();
    let t = text(&katas(&root, &["run", "shard-key"]));
    assert!(!t.contains("grading builds only"), "only src/ changed: {t}");

    let manifest = root.join("exercises/shard-key/Cargo.toml");
    let mut text_ = std::fs::read_to_string(&manifest).unwrap();
    text_.push_str("# a learner's edit\n");
    std::fs::write(&manifest, text_).unwrap();
    std::fs::write(root.join("exercises/shard-key/build.rs"), "fn main() {}\n").unwrap();
    let given = root.join("checker/katas/shard-key/given/src/lib.rs");
    std::fs::write(&given, "pub const BASE: &str = \"X\";\n").unwrap();
    let t = text(&katas(&root, &["run", "shard-key"]));
    assert!(t.contains("grading builds only your src/"), "{t}");
    assert!(
        t.contains("exercises/shard-key/Cargo.toml (modified)"),
        "{t}"
    );
    assert!(t.contains("exercises/shard-key/build.rs (added)"), "{t}");
    assert!(
        t.contains("checker/katas/shard-key/given/src/lib.rs (modified)"),
        "{t}"
    );
}

/// In a kata's folder, `run` and `hint` mean that kata, not the current one; `--help` speaks
/// of `cargo katas`, as the learner types it; a missing `src/lib.rs` says how to get it back.
#[test]
fn the_kata_folder_you_stand_in_is_the_kata_and_a_missing_file_says_how_to_restore() {
    let root = common::fresh_fixture("e2e-here");
    let here = root.join("exercises/sum-shards");
    let o = katas(&here, &["run"]);
    let t = text(&o);
    assert!(
        t.starts_with("sum-shards"),
        "checked the folder's kata: {t}"
    );
    let t = text(&katas(&here, &["hint"]));
    assert!(
        !t.contains("(o)"),
        "no watch-mode key outside watch mode: {t}"
    );
    // The current kata (the first) is still the default at the root.
    assert!(text(&katas(&root, &["run"])).starts_with("shard-key"));

    let help = text(&katas(&root, &["--help"]));
    assert!(help.contains("Usage: cargo katas"), "{help}");

    std::fs::remove_file(here.join("src/lib.rs")).unwrap();
    let o = katas(&here, &["run"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("exercises/sum-shards/src/lib.rs is missing"),
        "{t}"
    );
    assert!(t.contains("cargo katas reset sum-shards"), "{t}");
    let o = katas(&root, &["reset", "sum-shards"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(here.join("src/lib.rs").is_file());
}

/// `katas quiz` with `input` on stdin.
fn quiz(root: &Path, args: &[&str], input: &str) -> String {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_katas"))
        .arg("quiz")
        .args(args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    text(&child.wait_with_output().unwrap())
}

fn state(root: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(root.join(".katas-state.json")).unwrap()).unwrap()
}

/// Quitting a quiz part way keeps it as a stopped attempt, not a score; the next `quiz` takes
/// it up at the next question, in the same order (same seed); `--restart` starts over.
#[test]
fn a_stopped_quiz_is_kept_as_partial_and_taken_up_where_it_stopped() {
    let root = common::fresh_fixture("e2e-quiz");
    std::fs::create_dir_all(root.join("lessons/quizzes")).unwrap();
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lessons/quizzes/01-foundations.json");
    std::fs::copy(&real, root.join("lessons/quizzes/01-foundations.json")).unwrap();
    let count = serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&real).unwrap())
        .unwrap()["questions"]
        .as_array()
        .unwrap()
        .len();

    let t = quiz(&root, &["1"], "1\n1\n1\nquit\n");
    let s = state(&root);
    assert!(
        s["quizzes"].get("01-foundations").is_none(),
        "no score from a part: {s}\n{t}"
    );
    let attempt = &s["quiz_attempts"]["01-foundations"];
    let answered = attempt["answered"].as_u64().unwrap();
    assert!(answered >= 2, "{attempt}\n{t}");
    assert_eq!(attempt["of"].as_u64(), Some(count as u64));
    let seed = attempt["seed"].as_u64().unwrap();
    assert!(t.contains(&format!("(seed {seed})")), "{t}");
    assert!(
        t.contains(&format!("takes it up at question {}", answered + 1)),
        "{t}"
    );

    let t = quiz(&root, &["1"], "quit\n");
    assert!(
        t.contains(&format!(
            "Taking up your stopped attempt at question {}",
            answered + 1
        )),
        "{t}"
    );
    assert!(t.contains(&format!("(seed {seed})")), "the same order: {t}");
    assert!(
        t.contains(&format!("Question {} of {count}", answered + 1)),
        "{t}"
    );
    assert!(!t.contains(&format!("Question 1 of {count}")), "{t}");
    assert_eq!(
        state(&root)["quiz_attempts"]["01-foundations"]["answered"].as_u64(),
        Some(answered)
    );

    let t = quiz(&root, &["1", "--restart"], "quit\n");
    assert!(t.contains(&format!("Question 1 of {count}")), "{t}");
}

/// The screen of a terminal `cols` × `rows`, from what a program wrote to it: the subset of
/// escapes watch mode uses (cursor moves, clears, colours, screen switches), enough to read
/// the screen as a person would.
struct Screen {
    cells: Vec<Vec<char>>,
    row: usize,
    col: usize,
}

impl Screen {
    fn new(cols: usize, rows: usize) -> Screen {
        Screen {
            cells: vec![vec![' '; cols]; rows],
            row: 0,
            col: 0,
        }
    }

    fn feed(&mut self, text: &str) {
        let mut chars = text.chars().peekable();
        let (rows, cols) = (self.cells.len(), self.cells[0].len());
        while let Some(c) = chars.next() {
            match c {
                '\u{1b}' => match chars.next() {
                    Some('[') => {
                        let mut params = String::new();
                        let mut end = ' ';
                        for c in chars.by_ref() {
                            if ('\u{40}'..='\u{7e}').contains(&c) {
                                end = c;
                                break;
                            }
                            params.push(c);
                        }
                        let nums: Vec<usize> = params
                            .trim_start_matches('?')
                            .split(';')
                            .map(|n| n.parse().unwrap_or(0))
                            .collect();
                        match end {
                            'H' => {
                                self.row = nums.first().copied().unwrap_or(1).max(1) - 1;
                                self.col = nums.get(1).copied().unwrap_or(1).max(1) - 1;
                            }
                            'K' => {
                                self.cells[self.row.min(rows - 1)][self.col.min(cols)..].fill(' ')
                            }
                            'J' => {
                                for r in self.row + 1..rows {
                                    self.cells[r].fill(' ');
                                }
                                self.cells[self.row.min(rows - 1)][self.col.min(cols)..].fill(' ');
                            }
                            _ => {} // colours, cursor shown/hidden, screen switches
                        }
                    }
                    Some(']') => {
                        while let Some(c) = chars.next() {
                            if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some())
                            {
                                break;
                            }
                        }
                    }
                    _ => {}
                },
                '\r' => self.col = 0,
                '\n' => self.row = (self.row + 1).min(rows - 1),
                c => {
                    assert!(
                        self.col < cols,
                        "a line ran past column {cols} at row {}: {:?}",
                        self.row,
                        self.text()
                    );
                    self.cells[self.row.min(rows - 1)][self.col] = c;
                    self.col += 1;
                }
            }
        }
    }

    fn text(&self) -> Vec<String> {
        self.cells
            .iter()
            .map(|r| r.iter().collect::<String>().trim_end().to_string())
            .collect()
    }
}

/// Watch mode in a real pseudo-terminal of 60 × 20 (util-linux `script` makes it): the real
/// binary checks the starter, and the screen keeps its header, verdict line and key bar
/// within 20 rows of 60 columns; `j` scrolls; `q` quits.
#[test]
fn watch_mode_in_a_small_terminal_fits_and_scrolls() {
    use std::io::{Read as _, Write as _};
    use std::sync::{Arc, Mutex};
    let root = common::fresh_fixture("e2e-pty");
    let katas = env!("CARGO_BIN_EXE_katas");
    let mut child = Command::new("script")
        .args([
            "-qfec",
            &format!("stty cols 60 rows 20; exec '{katas}'"),
            "/dev/null",
        ])
        .current_dir(&root)
        .env(
            "CARGO_TARGET_DIR",
            common::fixture_target().join("e2e").join("e2e-pty"),
        )
        .env("TERM", "xterm")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("util-linux `script` makes the pseudo-terminal (apt-get install bsdutils)");
    let raw = Arc::new(Mutex::new(String::new()));
    let mut stdout = child.stdout.take().unwrap();
    let sink = Arc::clone(&raw);
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    let screen_now = || {
        let mut s = Screen::new(60, 20);
        s.feed(&raw.lock().unwrap());
        s.text()
    };
    let wait_for = |what: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
        loop {
            let s = screen_now();
            if s.iter().any(|l| l.contains(what)) {
                return s;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no {what:?} on {s:#?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    let screen = wait_for("hidden tests fail");
    assert!(screen[0].starts_with("DynamoDB Katas  ["), "{screen:#?}");
    assert!(
        screen.iter().any(|l| l.contains("1. shard-key")),
        "{screen:#?}"
    );
    assert!(screen[19].contains("q quit"), "{screen:#?}");
    assert!(screen.iter().all(|l| l.chars().count() <= 60));
    let more = screen
        .iter()
        .find(|l| l.starts_with("lines 1–"))
        .cloned()
        .expect("the starter's verdict is taller than 20 rows");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"j").unwrap();
    stdin.flush().unwrap();
    let scrolled = wait_for("lines 2–");
    assert_eq!(scrolled[0], screen[0], "the header stays: {scrolled:#?}");
    assert!(scrolled[19].contains("q quit"), "{more} → {scrolled:#?}");
    stdin.write_all(b"q").unwrap();
    stdin.flush().unwrap();
    let status = child.wait().unwrap();
    let _ = reader.join();
    assert!(status.success(), "{status:?}");
}
