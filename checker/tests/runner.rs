//! The runner on the fixture curriculum: verdicts for correct, wrong, looping, overflowing,
//! noisy, exiting and non-compiling code, each checked in a scratch workspace (the way
//! `katas dev check` and `katas grade` will use it).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use katas::manifest::Manifest;
use katas::runner::{self, scratch, CheckOptions, CheckResult, TestStatus, Verdict};

fn check_solution(tag: &str, kata: &str, solution: &str, opts: CheckOptions) -> CheckResult {
    let root = common::fresh_fixture(tag);
    let manifest = Manifest::load(&root).unwrap();
    let k = manifest.kata(kata).unwrap();
    let source = root
        .join("checker/katas")
        .join(kata)
        .join("solutions")
        .join(solution);
    check_source(&root, k, &source, opts)
}

fn check_source(
    root: &Path,
    k: &katas::manifest::Kata,
    source: &Path,
    opts: CheckOptions,
) -> CheckResult {
    let dir: PathBuf = root.join("scratch");
    let ws = scratch::prepare(root, k, source, None, &dir).unwrap();
    let opts = CheckOptions {
        target_dir: Some(common::fixture_target()),
        ..opts
    };
    runner::check(&ws, k, &opts, &mut |_| {}).unwrap()
}

fn test<'a>(r: &'a CheckResult, name: &str) -> &'a runner::TestResult {
    r.tests
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no test {name} in {r:#?}"))
}

#[test]
fn reference_passes_with_full_points() {
    let r = check_solution("ref", "shard-key", "reference.rs", CheckOptions::default());
    assert_eq!(r.verdict, Verdict::Passed, "{r:#?}");
    assert_eq!(r.score(), (4, 4));
    assert_eq!(r.tests.len(), 3);
}

#[test]
fn known_wrong_fails_on_the_named_test_with_both_values() {
    let r = check_solution(
        "wrong",
        "shard-key",
        "wrong-off-by-one.rs",
        CheckOptions::default(),
    );
    assert_eq!(r.verdict, Verdict::Failed);
    let t = test(&r, "lists_every_shard");
    assert_eq!(t.status, TestStatus::Failed);
    assert!(t.expected.as_deref().unwrap().contains("likes#3"));
    assert!(!t.actual.as_deref().unwrap().contains("likes#3"));
    assert_eq!(test(&r, "formats_one_key").status, TestStatus::Passed);
    assert_eq!(r.score(), (1, 4));
}

#[test]
fn infinite_loop_times_out_in_its_test() {
    let opts = CheckOptions {
        timeout: Some(Duration::from_secs(2)),
        ..CheckOptions::default()
    };
    let r = check_solution("loop", "shard-key", "wrong-loop.rs", opts);
    assert_eq!(
        r.verdict,
        Verdict::TimedOut {
            secs: 2,
            test: Some("lists_every_shard".into())
        }
    );
    assert_eq!(test(&r, "lists_every_shard").status, TestStatus::TimedOut);
    assert_eq!(test(&r, "random_bases").status, TestStatus::NotRun);
    assert_eq!(test(&r, "formats_one_key").status, TestStatus::Passed);
}

#[test]
fn stack_overflow_is_named() {
    let r = check_solution(
        "overflow",
        "shard-key",
        "wrong-overflow.rs",
        CheckOptions::default(),
    );
    assert_eq!(
        r.verdict,
        Verdict::StackOverflow {
            test: Some("lists_every_shard".into())
        }
    );
}

#[test]
fn process_exit_is_a_crash_of_the_running_test() {
    let r = check_solution(
        "exit",
        "shard-key",
        "wrong-exit.rs",
        CheckOptions::default(),
    );
    match &r.verdict {
        Verdict::Crashed { test, detail } => {
            assert_eq!(test.as_deref(), Some("lists_every_shard"));
            assert!(detail.contains("exited with code 0"), "{detail}");
        }
        other => panic!("expected a crash, got {other:?}"),
    }
}

#[test]
fn huge_output_is_cut_with_a_note() {
    let opts = CheckOptions {
        output_cap: 10_000,
        ..CheckOptions::default()
    };
    let r = check_solution("noisy", "shard-key", "wrong-noisy.rs", opts);
    assert_eq!(
        r.verdict,
        Verdict::Passed,
        "a correct but noisy solution still passes"
    );
    assert!(r.output_truncated);
    let kept: usize = r.output.len() + r.tests.iter().map(|t| t.output.len()).sum::<usize>();
    assert!(kept < 12_000, "kept {kept} bytes");
    assert!(r.output.contains("output cut"));
}

#[test]
fn compile_errors_point_at_the_learners_file_first() {
    let root = common::fresh_fixture("compile");
    let manifest = Manifest::load(&root).unwrap();
    let k = manifest.kata("shard-key").unwrap();
    let bad = root.join("bad.rs");
    std::fs::write(
        &bad,
        "pub fn shard_key(base: &str, shard: u32) -> String {\n    base + shard\n}\n",
    )
    .unwrap();
    let r = check_source(&root, k, &bad, CheckOptions::default());
    let Verdict::CompileError { errors } = &r.verdict else {
        panic!("expected a compile error, got {:?}", r.verdict)
    };
    assert!(errors[0].in_kata, "{errors:#?}");
    assert_eq!(
        errors[0].file.as_deref(),
        Some("exercises/shard-key/src/lib.rs")
    );
    assert_eq!(errors[0].line, Some(2));
    assert!(r.tests.is_empty());
}

#[test]
fn a_seed_replays_the_randomized_test() {
    let opts = CheckOptions {
        seed: Some(42),
        only_tests: vec!["random_bases".into()],
        ..CheckOptions::default()
    };
    let r = check_solution("seed", "shard-key", "wrong-off-by-one.rs", opts);
    assert_eq!(r.tests.len(), 1);
    let t = test(&r, "random_bases");
    assert_eq!(t.seed, Some(42));
    assert_eq!(t.status, TestStatus::Failed);
    let again = check_solution(
        "seed2",
        "shard-key",
        "wrong-off-by-one.rs",
        CheckOptions {
            seed: Some(42),
            only_tests: vec!["random_bases".into()],
            ..CheckOptions::default()
        },
    );
    assert_eq!(again.tests[0].message, t.message, "same seed, same failure");
}

/// Two checkouts with one target directory (a global `CARGO_TARGET_DIR` or `build.target-dir`,
/// here the second): cargo hashes a workspace's path packages relative to the workspace, so
/// both checkouts' kata crates map to the same artifact, and a source older than the other
/// checkout's build looks fresh. Each verdict must still come from its own checkout's source.
#[test]
fn two_checkouts_sharing_a_target_dir_are_each_judged_by_their_own_source() {
    // Where `CARGO_TARGET_DIR` is set (as in some CI and development setups), it outranks a
    // config file's `target-dir`, and it is the shared directory: both checkouts build in it.
    let from_env = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty());
    let shared = match &from_env {
        Some(dir) => PathBuf::from(dir),
        None => std::env::temp_dir().join(format!("katas-shared-target-{}", std::process::id())),
    };
    if from_env.is_none() {
        let _ = std::fs::remove_dir_all(&shared);
    }
    let starter = common::fresh_fixture("shared-a");
    let solved = common::fresh_fixture("shared-b");
    for root in [&starter, &solved] {
        if from_env.is_some() {
            continue;
        }
        std::fs::create_dir_all(root.join(".cargo")).unwrap();
        std::fs::write(
            root.join(".cargo/config.toml"),
            format!("[build]\ntarget-dir = {:?}\n", shared.to_string_lossy()),
        )
        .unwrap();
    }
    // The solved checkout's source is written first, so it is older than the other's build.
    std::fs::copy(
        solved.join("checker/katas/shard-key/solutions/reference.rs"),
        solved.join("exercises/shard-key/src/lib.rs"),
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let check_at = |root: &Path| {
        let manifest = Manifest::load(root).unwrap();
        let k = manifest.kata("shard-key").unwrap();
        runner::check(root, k, &CheckOptions::default(), &mut |_| {}).unwrap()
    };
    let first = check_at(&starter);
    assert_eq!(
        first.verdict,
        Verdict::Failed,
        "the starter fails: {first:#?}"
    );
    let second = check_at(&solved);
    assert_eq!(
        second.verdict,
        Verdict::Passed,
        "judged with the other checkout's build: {second:#?}"
    );
    let again = check_at(&starter);
    assert_eq!(again.verdict, Verdict::Failed, "{again:#?}");
    let per_checkout: Vec<_> = std::fs::read_dir(shared.join("katas-checkouts"))
        .expect("checks build inside the learner's target dir")
        .collect();
    match from_env {
        // A shared directory of the environment may hold other checkouts' folders too.
        Some(_) => assert!(per_checkout.len() >= 2, "one folder per checkout"),
        None => assert_eq!(per_checkout.len(), 2, "one folder per checkout"),
    }
}

/// The learner's checks replay the compiler after a save that touched only their sources, and
/// go through cargo for anything else; either way the verdict is the new code's.
#[test]
fn a_save_replays_the_compiler_and_anything_else_goes_through_cargo() {
    let root = common::fresh_fixture("replay");
    let manifest = Manifest::load(&root).unwrap();
    let k = manifest.kata("shard-key").unwrap();
    let opts = CheckOptions {
        target_dir: Some(common::fixture_target()),
        replay: true,
        ..CheckOptions::default()
    };
    let lib = root.join("exercises/shard-key/src/lib.rs");
    let solutions = root.join("checker/katas/shard-key/solutions");
    let check = || runner::check(&root, k, &opts, &mut |_| {}).unwrap();
    let put = |solution: &str, extra: &str| {
        let text = std::fs::read_to_string(solutions.join(solution)).unwrap();
        std::fs::write(&lib, format!("{text}\n{extra}\n")).unwrap();
    };

    put("reference.rs", "");
    let first = check();
    assert_eq!(first.verdict, Verdict::Passed, "{first:#?}");
    assert!(!first.replayed, "no recipe yet: cargo builds");

    put("wrong-off-by-one.rs", "");
    let wrong = check();
    assert!(wrong.replayed, "only the learner's source changed");
    assert_eq!(
        wrong.verdict,
        Verdict::Failed,
        "the replayed binary runs the new code"
    );
    assert_eq!(wrong.score(), (1, 4));

    put("reference.rs", "fn broken() -> u32 { \"not a number\" }");
    let broken = check();
    assert!(broken.replayed);
    match &broken.verdict {
        Verdict::CompileError { errors } => {
            assert!(errors[0].in_kata, "{errors:#?}");
            assert!(
                errors[0].message.contains("mismatched types"),
                "{errors:#?}"
            );
        }
        other => panic!("expected a compile error, got {other:?}"),
    }

    // A change outside the learner's sources (here the hidden tests' manifest folder) is
    // cargo's to judge, and the next save replays again.
    put("reference.rs", "");
    let hidden = root.join("checker/katas/shard-key/tests/src/lib.rs");
    let text = std::fs::read_to_string(&hidden).unwrap();
    std::fs::write(&hidden, format!("{text}\n// an instructor's edit\n")).unwrap();
    let after_hidden = check();
    assert!(!after_hidden.replayed, "hidden tests changed: cargo builds");
    assert_eq!(after_hidden.verdict, Verdict::Passed, "{after_hidden:#?}");
    put("reference.rs", "pub const SAVED_AGAIN: u32 = 1;");
    let again = check();
    assert!(again.replayed);
    assert_eq!(again.verdict, Verdict::Passed, "{again:#?}");
}
