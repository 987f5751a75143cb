//! The harness every hidden kata test runs under.
//!
//! A kata's hidden tests live in `checker/hidden/<kata>/`, a binary crate (`harness = false`
//! is not even needed: it is a plain `main`) that links the learner's crate and calls [`run`]
//! with a list of named tests:
//!
//! ```no_run
//! use katas_testkit::{check_eq, run, seeded, test, Rng};
//!
//! fn main() {
//!     run(vec![
//!         test("adds_one", || check_eq(2, 1 + 1, "1 + 1")),
//!         seeded("random_inputs", |seed| {
//!             let mut rng = Rng::new(seed);
//!             let x = rng.below(100);
//!             check_eq(x + 1, 1 + x, "addition commutes");
//!         }),
//!     ]);
//! }
//! ```
//!
//! # Why not `#[test]`
//!
//! libtest prints human text, runs tests on a thread pool and cannot tell the checker *which*
//! values differed. The checker wants structure: per test a verdict, a message in DynamoDB
//! terms, and, where values are compared, the expected and actual values as text it can diff.
//! It also wants a crash (a stack overflow aborts the whole process) to be blamed on the test
//! that was running. So this harness runs tests one at a time on the main thread, each inside
//! `catch_unwind`, and prints one JSON object per line on stdout:
//!
//! ```text
//! {"event":"plan","tests":["adds_one","random_inputs"]}
//! {"event":"start","test":"adds_one","seed":null}
//! {"event":"result","test":"adds_one","passed":true,"message":null,"expected":null,"actual":null,"seed":null,"location":null}
//! {"event":"start","test":"random_inputs","seed":1234}
//! {"event":"result","test":"random_inputs","passed":false,"message":"addition commutes","expected":"5","actual":"6","seed":1234,"location":"checker/hidden/x/src/main.rs:9:13"}
//! {"event":"end","passed":1,"failed":1}
//! ```
//!
//! Lines that are not events (the learner's `println!`) are left alone; the checker attributes
//! them to the test that was running. A `start` without its `result` means the process died in
//! that test; no `end` means it never finished.
//!
//! # Failures
//!
//! [`fail`], [`check`], [`check_eq`] and friends unwind with a [`Failure`] payload; any other
//! panic (an `unwrap`, a `todo!()`, an overflow in the learner's code) becomes a failure whose
//! message is the panic message and whose location is where it panicked.
//!
//! # Seeds
//!
//! A [`seeded`] test runs its scenario [`SEEDS_PER_TEST`] times, each with its own seed: by
//! default fixed ones derived from the test's name, so a verdict never flickers between runs,
//! and more than one, so a bug that only one seed's workload shows does not slip through. The
//! first seed that fails is the one reported (each run announces itself with a `start` event,
//! so a crash is blamed on the right seed too); `KATAS_SEED=<n>` runs that one seed alone, so
//! the seed printed with a failure replays it exactly (`katas run <kata> --seed <n>`).
//!
//! # The failing run's picture
//!
//! With the `engine` feature, and when the checker names a file in `KATAS_VIEW_FILE`, the
//! first failing test's world is saved there as a snapshot for `cargo katas view` (the `view` module).
//!
//! # Arguments
//!
//! `--list` prints the plan and exits; `--test NAME` (repeatable) runs only those tests.
//! `KATAS_TEST=a,b` does the same from the environment.

use std::any::Any;
use std::cell::RefCell;
use std::fmt::Debug;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

use serde_json::{json, Value};

pub mod learner;
mod rng;
pub use rng::Rng;

#[cfg(feature = "engine")]
pub mod items;
#[cfg(feature = "engine")]
pub mod view;

/// Environment variable that replaces the seed of every seeded test.
pub const SEED_ENV: &str = "KATAS_SEED";
/// Environment variable naming the tests to run (comma-separated).
pub const TEST_ENV: &str = "KATAS_TEST";

/// A structured test failure: what went wrong and, when values were compared, both values
/// rendered as text (one item or attribute per line, so a line diff reads well).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Failure {
    /// What the learner should read first, in DynamoDB terms.
    pub message: String,
    /// The value the test expected, rendered as text.
    pub expected: Option<String>,
    /// The value the learner's code produced, rendered as text.
    pub actual: Option<String>,
}

impl Failure {
    /// A failure with only a message.
    pub fn new(message: impl Into<String>) -> Self {
        Failure {
            message: wrap(&message.into()),
            ..Failure::default()
        }
    }

    /// A failure that compares two rendered values.
    pub fn compare(message: impl Into<String>, expected: String, actual: String) -> Self {
        Failure {
            message: wrap(&message.into()),
            expected: Some(expected),
            actual: Some(actual),
        }
    }

    /// Ends the current test with this failure.
    #[track_caller]
    pub fn raise(self) -> ! {
        panic::panic_any(self)
    }
}

/// Columns failure messages are wrapped at (the checker shows them as they are).
pub const WRAP_WIDTH: usize = 100;

/// Text for the terminal: every prose line longer than [`WRAP_WIDTH`] columns is broken at
/// spaces. Lines that start with a space (item lists, differences, pictures) are left as
/// they are. Failure messages are wrapped with it.
pub fn wrap(text: &str) -> String {
    let mut out = String::new();
    for line in text.split('\n') {
        if line.starts_with(' ') || line.chars().count() <= WRAP_WIDTH {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut column = 0;
        for word in line.split(' ') {
            let len = word.chars().count();
            if column > 0 && column + 1 + len > WRAP_WIDTH {
                out.push('\n');
                column = 0;
            } else if column > 0 {
                out.push(' ');
                column += 1;
            }
            out.push_str(word);
            column += len;
        }
        out.push('\n');
    }
    out.pop();
    out
}

/// `12345` → `"12,345"`: figures in messages read like the lessons' figures.
pub fn thousands(n: impl Into<i128>) -> String {
    let n = n.into();
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// Ends the current test with a message.
#[track_caller]
pub fn fail(message: impl Into<String>) -> ! {
    Failure::new(message).raise()
}

/// Fails the test with `message` unless `condition` holds.
#[track_caller]
pub fn check(condition: bool, message: impl Into<String>) {
    if !condition {
        fail(message)
    }
}

/// Fails the test unless `expected == actual`; both are rendered with `{:#?}` (one field per
/// line) so the checker can show a line diff.
#[track_caller]
pub fn check_eq<T: PartialEq + Debug>(expected: T, actual: T, message: impl Into<String>) {
    if expected != actual {
        Failure::compare(message, format!("{expected:#?}"), format!("{actual:#?}")).raise()
    }
}

/// Like [`check_eq`] for values already rendered as text (compared as text).
#[track_caller]
pub fn check_eq_text(expected: &str, actual: &str, message: impl Into<String>) {
    if expected != actual {
        Failure::compare(message, expected.to_string(), actual.to_string()).raise()
    }
}

/// Like [`check_eq`] for JSON values; rendered pretty, keys sorted.
#[track_caller]
pub fn check_eq_json(expected: &Value, actual: &Value, message: impl Into<String>) {
    if expected != actual {
        let render = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
        Failure::compare(message, render(expected), render(actual)).raise()
    }
}

type Body = Box<dyn Fn(Option<u64>)>;

/// One named hidden test.
pub struct Test {
    name: String,
    seeded: bool,
    body: Body,
}

impl Debug for Test {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Test")
            .field("name", &self.name)
            .field("seeded", &self.seeded)
            .finish()
    }
}

/// A test that needs no randomness. Its name is what the manifest's points and hints refer to.
pub fn test(name: &str, body: impl Fn() + 'static) -> Test {
    Test {
        name: name.to_string(),
        seeded: false,
        body: Box::new(move |_| body()),
    }
}

/// A randomized test: `body` gets the seed (see the module docs for where it comes from).
pub fn seeded(name: &str, body: impl Fn(u64) + 'static) -> Test {
    Test {
        name: name.to_string(),
        seeded: true,
        body: Box::new(move |seed| body(seed.unwrap_or_default())),
    }
}

/// How many seeds a [`seeded`] test runs when no seed is given.
pub const SEEDS_PER_TEST: usize = 3;

/// The default seed of a test: FNV-1a of its name, so it is stable across runs and machines.
pub fn default_seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The seeds a [`seeded`] test runs by default: [`default_seed`] first, then the next ones of
/// a generator seeded with it.
pub fn default_seeds(name: &str) -> Vec<u64> {
    let first = default_seed(name);
    let mut rng = Rng::new(first);
    let mut seeds = vec![first];
    seeds.extend((1..SEEDS_PER_TEST).map(|_| rng.next_u64()));
    seeds
}

fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

thread_local! {
    /// Where the last panic on the test thread happened (set by the panic hook).
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

static OUT: Mutex<()> = Mutex::new(());

/// The run's token, read from stdin when the checker says it sent one (`KATAS_TOKEN_ON_STDIN`).
/// Every event carries it, so the checker can tell the test kit's events from lines the code
/// under test prints to imitate them.
static TOKEN: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

fn token() -> Option<&'static str> {
    TOKEN
        .get_or_init(|| {
            // The channel is opened first: the grader's sandbox masks /proc once this
            // process waits for its token.
            let _ = channel();
            std::env::var_os("KATAS_TOKEN_ON_STDIN")?;
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).ok()?;
            Some(line.trim().to_string())
        })
        .as_deref()
}

/// Tells the test kit to write its events to this descriptor rather than stdout.
const RESULTS_FD_ENV: &str = "KATAS_RESULTS_FD";

/// The result channel, when the grader's sandbox gives one (`KATAS_RESULTS_FD`): a
/// descriptor only this kit holds an open file of. Safe Rust cannot write to a descriptor by
/// its number (`from_raw_fd` is `unsafe`, which the kata crate may not use), and the only
/// path to it, `/proc/self/fd/N`, is masked before any code under test runs; so what the
/// code under test prints, on stdout or stderr, can never be taken for a result. Without
/// the variable (a learner's own runs) events go to stdout.
static CHANNEL: std::sync::OnceLock<Option<std::fs::File>> = std::sync::OnceLock::new();

fn channel() -> Option<&'static std::fs::File> {
    CHANNEL
        .get_or_init(|| {
            let fd = std::env::var(RESULTS_FD_ENV).ok()?;
            let path = format!("/proc/self/fd/{}", fd.trim());
            match std::fs::OpenOptions::new().write(true).open(&path) {
                Ok(f) => Some(f),
                Err(e) => {
                    // The grader reads results only there: without it, no run can pass.
                    eprintln!("katas-testkit: cannot open the result channel {path}: {e}");
                    std::process::exit(125);
                }
            }
        })
        .as_ref()
}

fn emit(mut event: Value) {
    if let (Some(token), Some(map)) = (token(), event.as_object_mut()) {
        map.insert("token".to_string(), Value::String(token.to_string()));
    }
    let _guard = OUT.lock().unwrap_or_else(|e| e.into_inner());
    // A closed channel or stdout means the checker is gone; nothing useful is left to do.
    if let Some(mut channel) = channel() {
        // One write per event: the line arrives whole.
        let _ = channel.write_all(format!("{event}\n").as_bytes());
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{event}");
    let _ = out.flush();
}

/// Longest text of one field of a result event, bytes. The checker reads events as lines of
/// at most 64 KiB; three fields of this size keep a result whole, so a 200,000-character
/// panic message is still reported as the test's failure (cut), not lost as output.
pub const EVENT_FIELD_MAX: usize = 16 * 1024;

fn cut(mut text: String) -> String {
    if text.len() > EVENT_FIELD_MAX {
        let mut end = EVENT_FIELD_MAX;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str(" … (cut)");
    }
    text
}

fn panic_text(payload: &(dyn Any + Send)) -> Failure {
    if let Some(f) = payload.downcast_ref::<Failure>() {
        return f.clone();
    }
    let text = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "the test panicked with a non-text payload".to_string()
    };
    Failure::new(format!("your code panicked: {text}"))
}

/// Runs the tests selected by the command line and environment, prints the event stream and
/// exits: 0 when every selected test passed, 1 otherwise.
pub fn run(tests: Vec<Test>) -> ! {
    // Read the token before any of the code under test runs.
    let _ = token();
    #[cfg(feature = "engine")]
    view::install();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
        emit(json!({"event": "plan", "tests": names}));
        std::process::exit(0);
    }
    let mut only: Vec<String> = args
        .windows(2)
        .filter(|w| w[0] == "--test")
        .map(|w| w[1].clone())
        .collect();
    if let Ok(list) = std::env::var(TEST_ENV) {
        only.extend(
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from),
        );
    }
    let seed_override = std::env::var(SEED_ENV).ok().and_then(|s| parse_seed(&s));
    let selected: Vec<&Test> = tests
        .iter()
        .filter(|t| only.is_empty() || only.contains(&t.name))
        .collect();
    let names: Vec<&str> = selected.iter().map(|t| t.name.as_str()).collect();
    emit(json!({"event": "plan", "tests": names}));

    // Panics on the test thread are reported as results; panics on threads the learner's code
    // spawned keep the default report on stderr (the checker shows it with the test's output).
    let test_thread = std::thread::current().id();
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == test_thread {
            let at = info.location().map(|l| l.to_string());
            PANIC_LOCATION.with(|p| *p.borrow_mut() = at);
        } else {
            default_hook(info);
        }
    }));

    let (mut passed, mut failed) = (0u32, 0u32);
    for t in selected {
        let seeds: Vec<Option<u64>> = match (t.seeded, seed_override) {
            (false, _) => vec![None],
            (true, Some(seed)) => vec![Some(seed)],
            (true, None) => default_seeds(&t.name).into_iter().map(Some).collect(),
        };
        // Its time, all its seeds together (what a grading report's per-test time shows).
        let started = std::time::Instant::now();
        let mut ok = true;
        let mut failure = Failure::default();
        let mut location = None;
        let mut seed = None;
        for s in seeds {
            seed = s;
            emit(json!({"event": "start", "test": t.name, "seed": seed}));
            PANIC_LOCATION.with(|p| p.borrow_mut().take());
            #[cfg(feature = "engine")]
            view::forget();
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| (t.body)(seed))) {
                ok = false;
                failure = panic_text(payload.as_ref());
                location = PANIC_LOCATION.with(|p| p.borrow_mut().take());
                #[cfg(feature = "engine")]
                view::save(&t.name, seed, &failure);
                break;
            }
        }
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
        emit(json!({
            "event": "result",
            "test": t.name,
            "passed": ok,
            "message": (!ok).then(|| cut(failure.message)),
            "expected": failure.expected.map(cut),
            "actual": failure.actual.map(cut),
            "seed": seed,
            "location": location,
            "millis": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        }));
    }
    emit(json!({"event": "end", "passed": passed, "failed": failed}));
    std::process::exit(if failed == 0 { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_stable_and_parse() {
        assert_eq!(default_seed("a"), default_seed("a"));
        assert_ne!(default_seed("a"), default_seed("b"));
        assert_eq!(parse_seed("0x10"), Some(16));
        assert_eq!(parse_seed(" 42 "), Some(42));
        assert_eq!(parse_seed("x"), None);
        let seeds = default_seeds("a");
        assert_eq!(seeds.len(), SEEDS_PER_TEST);
        assert_eq!(seeds[0], default_seed("a"));
        assert_eq!(seeds, default_seeds("a"));
        assert!(seeds[1] != seeds[0] && seeds[2] != seeds[1]);
    }

    #[test]
    fn long_texts_are_cut_to_fit_an_event_line() {
        let long = "é".repeat(EVENT_FIELD_MAX);
        let c = cut(long);
        assert!(c.len() <= EVENT_FIELD_MAX + " … (cut)".len(), "{}", c.len());
        assert!(c.ends_with("(cut)"));
        assert_eq!(cut("short".into()), "short");
    }

    #[test]
    fn failures_carry_both_values() {
        let err =
            panic::catch_unwind(|| check_eq(vec![1, 2], vec![1, 3], "lists differ")).unwrap_err();
        let f = panic_text(err.as_ref());
        assert_eq!(f.message, "lists differ");
        assert!(f.expected.unwrap().contains("2"));
        assert!(f.actual.unwrap().contains("3"));
        let err = panic::catch_unwind(|| -> u32 { panic!("boom") }).unwrap_err();
        assert_eq!(panic_text(err.as_ref()).message, "your code panicked: boom");
    }
}
