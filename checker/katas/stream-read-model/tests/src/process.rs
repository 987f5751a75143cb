//! Fresh processes: each test in its own, and a new instance of the function in another.
//!
//! A learner's handler may keep state in globals (a `static` set of applied event ids, a
//! `thread_local!` cache). Two things follow. Tests that share a process share that state, and
//! the engine's event ids are the same in every world (each stream starts at the same
//! sequence number), so a handler that remembers ids in memory would skip the records of the
//! second test as "already applied" — failing for a reason that is not its own. So every test
//! runs in a process of its own: this binary again, with `--test NAME` (and the seed), whose
//! verdict the parent relays. And the one thing such a handler really gets wrong — a Lambda
//! instance that starts after another has no memory of it — is shown by running the new
//! instance in a process of its own too (`a_new_instance_starts_empty`).
//!
//! Both children answer with lines carrying a token the parent sent on their stdin, so a line
//! the learner's code prints cannot pass for a verdict; every other line is passed through.
//! A child whose parent is gone (the checker killed it at its timeout) sees its stdin close
//! and exits, so an endless loop in the learner's code does not outlive the run.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

use katas_testkit::{fail, Failure, SEED_ENV, TEST_ENV};
use serde_json::Value;

/// Set in the process a test runs in.
pub const ISOLATED_ENV: &str = "KATAS_SRM_OWN_PROCESS";
/// Set in the process of a new instance of the function.
pub const INSTANCE_ENV: &str = "KATAS_SRM_NEW_INSTANCE";
/// The test kit reads its event token from stdin when this is set.
const TOKEN_ENV: &str = "KATAS_TOKEN_ON_STDIN";

fn token() -> String {
    format!("{:016x}", RandomState::new().hash_one(std::process::id()))
}

fn this_binary() -> Command {
    let exe = std::env::current_exe()
        .unwrap_or_else(|e| fail(format!("test setup: cannot find the test binary: {e}")));
    let mut command = Command::new(exe);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .env_remove(TEST_ENV)
        .env_remove(SEED_ENV)
        .env_remove(ISOLATED_ENV)
        .env_remove(INSTANCE_ENV);
    command
}

/// Exits when stdin closes: the parent is gone.
fn exit_with_parent() {
    std::thread::spawn(|| {
        let mut rest = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut rest);
        std::process::exit(3);
    });
}

/// Runs `body` in a process of its own: there if this is it, else by starting one.
pub fn isolated(name: &str, seed: Option<u64>, body: impl FnOnce()) {
    if std::env::var_os(ISOLATED_ENV).is_some() {
        exit_with_parent();
        return body();
    }
    let token = token();
    let mut command = this_binary();
    command
        .args(["--test", name])
        .env(ISOLATED_ENV, "1")
        .env(TOKEN_ENV, "1");
    if let Some(seed) = seed {
        command.env(SEED_ENV, seed.to_string());
    }
    let (status, lines) = converse(command, &token, "");
    let result = lines
        .into_iter()
        .find(|v| v.get("event").and_then(Value::as_str) == Some("result"));
    let Some(result) = result else {
        fail(format!(
            "the test's process ended without a verdict ({status}): your code crashed it — a \
             stack overflow, an abort, or std::process::exit"
        ));
    };
    if result.get("passed").and_then(Value::as_bool) == Some(true) {
        return;
    }
    let text = |k: &str| result.get(k).and_then(Value::as_str).map(str::to_string);
    let mut message = text("message").unwrap_or_default();
    if let (true, Some(at)) = (message.starts_with("your code panicked"), text("location")) {
        message.push_str(&format!("\n  at {at}"));
    }
    Failure {
        message,
        expected: text("expected"),
        actual: text("actual"),
    }
    .raise()
}

/// Starts `command`, sends it `token` and `input` on stdin (kept open until it ends), passes
/// its other output through and returns its exit status and the JSON lines carrying `token`.
fn converse(mut command: Command, token: &str, input: &str) -> (String, Vec<Value>) {
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| fail(format!("test setup: cannot start a process: {e}")));
    let mut stdin = child.stdin.take();
    if let Some(pipe) = stdin.as_mut() {
        let _ = writeln!(pipe, "{token}");
        if !input.is_empty() {
            let _ = writeln!(pipe, "{input}");
        }
        let _ = pipe.flush();
    }
    let mut answers = Vec::new();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            match serde_json::from_str::<Value>(&line) {
                Ok(v) if v.get("token").and_then(Value::as_str) == Some(token) => answers.push(v),
                _ => println!("{line}"),
            }
        }
    }
    drop(stdin);
    let status = child
        .wait()
        .map(|s| s.to_string())
        .unwrap_or_else(|e| e.to_string());
    (status, answers)
}

/// Runs a new instance of the function in a process of its own (this binary with
/// [`INSTANCE_ENV`], served by [`serve_new_instance`]) and returns its answer.
pub fn new_instance(input: &Value) -> Value {
    let token = token();
    let mut command = this_binary();
    command.env(INSTANCE_ENV, "1");
    let (status, mut answers) = converse(command, &token, &input.to_string());
    match answers.pop() {
        Some(answer) => answer,
        None => fail(format!(
            "the new instance's process ended without an answer ({status}): your code crashed \
             it — a stack overflow, an abort, or std::process::exit"
        )),
    }
}

/// The new instance's side: reads the token and the input, answers with `serve(input)`.
pub fn serve_new_instance(serve: impl FnOnce(Value) -> Value) -> ! {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines().map_while(Result::ok);
    let token = lines.next().unwrap_or_default();
    let input = lines
        .next()
        .and_then(|l| serde_json::from_str(&l).ok())
        .unwrap_or(Value::Null);
    drop(lines);
    exit_with_parent();
    let mut answer = serve(input);
    if let Some(map) = answer.as_object_mut() {
        map.insert("token".into(), Value::String(token));
    }
    println!("{answer}");
    std::process::exit(0)
}
