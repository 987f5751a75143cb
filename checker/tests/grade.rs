//! `katas grade` and `katas pack` end to end, on the fixture curriculum: the hostile class in
//! tests/fixtures/hostile (see its README), archives, formats and a private test set.
//!
//! Unix only, as the grader is (`grade::isolate::NOT_UNIX`): elsewhere `katas grade` stops at
//! once with that message. (The `katas pack` tests here go with them: pack itself is portable.)
#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

use serde_json::Value;

fn katas(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_katas"))
        .args(args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        // The grader's environment must not reach a test run (reads-environment looks).
        .env("KATAS_HOSTILE_CANARY", "grader-secret")
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

/// One work dir (job slots and their target dirs) for every test here, so a cold CI run
/// builds the test kit twice rather than twice per test; [`serial`] keeps the tests from
/// sharing a slot at the same time.
fn work(_tag: &str) -> String {
    common::fixture_target()
        .join("grade-work")
        .to_string_lossy()
        .into_owned()
}

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn grade_json(root: &Path, tag: &str, extra: &[&str]) -> Value {
    let w = work(tag);
    let mut args = vec!["grade", "--format", "json", "--work-dir", &w];
    args.extend_from_slice(extra);
    let o = katas(root, &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)))
}

fn learner<'a>(g: &'a Value, name: &str) -> &'a Value {
    g["learners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["learner"] == name)
        .unwrap_or_else(|| panic!("no learner {name}"))
}

fn kata<'a>(l: &'a Value, name: &str) -> &'a Value {
    l["katas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kata"] == name)
        .unwrap()
}

fn applied(g: &Value, layer: &str) -> bool {
    g["isolation"]["layers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["name"] == layer && l["applied"] == true)
}

fn hostile() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile")
}

const MARKERS: [&str; 5] = [
    "/tmp/katas-hostile-spawns",
    "/tmp/katas-hostile-spawns-sneakily",
    "/tmp/katas-hostile-writes-outside",
    "/tmp/katas-hostile-build-script",
    "/tmp/katas-hostile-outlives-run",
];

#[test]
fn hostile_submissions_score_zero_with_a_reason_and_harm_nobody() {
    let _serial = serial();
    for m in MARKERS {
        let _ = std::fs::remove_file(m);
    }
    let root = common::fresh_fixture("grade-hostile");
    let hidden_main = root.join("checker/katas/shard-key/tests/src/lib.rs");
    let hidden_before = std::fs::read(&hidden_main).unwrap();
    let class = hostile();
    let g = grade_json(
        &root,
        "hostile",
        &[
            class.to_str().unwrap(),
            "--kata",
            "shard-key",
            "--timeout",
            "3",
            "--output-cap",
            "64",
            "--jobs",
            "2",
        ],
    );
    let sandboxed = applied(&g, "own root") && applied(&g, "no programs to run");
    let expect = |who: &str, score: u64, status: &str, reason: &str| {
        let k = kata(learner(&g, who), "shard-key");
        assert_eq!(k["score"], score, "{who}: {k:#}");
        assert_eq!(k["status"], status, "{who}: {k:#}");
        let r = k["reason"].as_str().unwrap_or("");
        assert!(r.contains(reason), "{who}: reason {r:?} lacks {reason:?}");
    };
    // The honest ones keep their scores whatever ran next to them.
    expect("correct", 4, "passed", "");
    expect("partial", 1, "failed", "");
    assert_eq!(learner(&g, "correct")["max_score"], 4);
    // Broken or hostile: zero, with a reason a learner can act on.
    expect(
        "compile-error",
        0,
        "compile_error",
        "cannot add `u32` to `&str`",
    );
    expect("unsafe-code", 0, "compile_error", "forbid");
    expect("infinite-loop", 0, "timed_out", "lists_every_shard");
    expect("stack-overflow", 0, "stack_overflow", "lists_every_shard");
    expect("exits", 0, "crashed", "exited with code 0");
    expect("huge-output", 0, "output_flood", "64 KiB");
    expect("spawns", 0, "rejected", "std::process::Command");
    expect(
        "includes-hidden",
        0,
        "rejected",
        "checker/katas/shard-key/run/src/main.rs",
    );
    expect(
        "includes-by-macro",
        0,
        "rejected",
        "outside exercises/shard-key/src",
    );
    // Fake result lines lack the run's secret token: they count as output, and the real
    // tests judge the code (here: it lists no shard).
    let forged = kata(learner(&g, "forges-results"), "shard-key");
    assert_eq!(forged["status"], "failed", "{forged:#}");
    assert!(forged["score"].as_u64().unwrap() < 4, "{forged:#}");
    // A complete fake stream followed by exit(0): still no results, so the kata crashed.
    expect("forges-whole-stream", 0, "crashed", "exited with code 0");
    // Shipped build.rs / Cargo.toml / src/build.rs: none of it is used.
    expect("build-script", 4, "passed", "");
    if applied(&g, "memory limit") {
        expect("memory-hog", 0, "crashed", "out of memory");
    }
    if sandboxed {
        // Spelled past the scan; the sandbox has no programs to start, and it ignores the
        // error: full marks, and nothing ran.
        expect("spawns-sneakily", 4, "passed", "");
        let w = kata(learner(&g, "writes-outside"), "shard-key");
        assert_eq!(w["score"], 0, "{w:#}");
        for t in w["tests"].as_array().unwrap() {
            let m = t["message"].as_str().unwrap_or("");
            // /tmp is its own tmpfs; the hidden tests are not in its root at all.
            assert!(m.contains("No such file or"), "{m}");
        }
        for m in MARKERS {
            assert!(!Path::new(m).exists(), "{m} was written");
        }
        let pwned = Command::new("find")
            .args([&work("hostile"), "-name", "katas-hostile-pwned"])
            .output()
            .unwrap();
        assert!(pwned.stdout.is_empty(), "the target dir was written to");
    } else {
        eprintln!("no OS sandbox here: {:#}", g["isolation"]);
    }
    assert!(!Path::new("/tmp/katas-hostile-build-script").exists());
    assert_eq!(std::fs::read(&hidden_main).unwrap(), hidden_before);

    // Damaged archives give their learner `error`; the class goes on.
    expect("damaged", 0, "error", "the archive is damaged");
    expect("truncated", 0, "error", "damaged");
    // Escape codes in a compile_error! and in a packed name are removed everywhere.
    expect("escape-codes", 0, "compile_error", "correct  4/4");
    let report = g.to_string();
    assert!(
        !report.contains("\\u001b"),
        "an escape code reached the report"
    );
    assert_eq!(learner(&g, "escape-name")["name"], "Evecorrect 4/4");
    expect("escape-name", 4, "passed", "");
    // The build's address-space limit stops rustc reading /dev/zero, and building a 16 GiB
    // static.
    expect("huge-build", 0, "compile_error", "out of memory");
    let big = kata(learner(&g, "huge-static"), "shard-key");
    assert_eq!(big["score"], 0, "{big:#}");
    assert!(
        big["status"] == "compile_error" || big["status"] == "build_failed",
        "{big:#}"
    );
    // A 200,000-character panic message is capped, in every test of it.
    expect("long-panic", 0, "failed", "");
    for t in kata(learner(&g, "long-panic"), "shard-key")["tests"]
        .as_array()
        .unwrap()
    {
        let m = t["message"].as_str().unwrap_or("");
        assert!(m.contains("KATAS-HOSTILE-LONG"), "{t}");
        // 2,000 characters kept, then the note of how many were cut.
        assert!(m.contains("more characters cut"), "{t}");
        assert!(
            m.chars().count() <= 2_040,
            "{} characters",
            m.chars().count()
        );
    }
    // What a run can see: not its own memory, not the instructor's tree, not other
    // learners, not the grader's environment.
    let leaks = [
        "LEAKED-BUILD-ENV",
        "LEAKED-INSTRUCTOR-TREE",
        "LEAKED-STAGED",
        "LEAKED-ENV",
        "grader-secret",
    ];
    for leak in leaks {
        assert!(!report.contains(leak), "{leak} in the report");
    }
    assert!(
        sandboxed,
        "these machines have user namespaces: {:#}",
        g["isolation"]
    );
    // No /proc/self/mem, no token: its own answers are judged (one test counts keys only).
    expect("reads-own-memory", 1, "failed", "");
    expect("reads-instructor-tree", 4, "passed", "");
    // The result channel is a descriptor no path of its root reaches: its forged streams
    // (on every path it tried, and on stdout) are output, its own answers are judged.
    assert!(applied(&g, "result channel"), "{:#}", g["isolation"]);
    expect("writes-result-channel", 1, "failed", "");
    assert!(
        !report.contains("KATAS-HOSTILE-CHANNEL-OPENED"),
        "a path to the result channel opened"
    );
    expect("reads-other-learners", 4, "passed", "");
    expect("reads-environment", 4, "passed", "");
    // option_env! at compile time, where the grader's environment is: refused from dep-info.
    expect(
        "reads-build-environment",
        0,
        "rejected",
        "its compilation read the environment variable",
    );
    // 1 GiB into TMPDIR: capped by the tmpfs, gone with the run, full marks for the answer.
    expect("fills-disk", 4, "passed", "");
    let fill = Command::new("find")
        .args([&work("hostile"), "/tmp", "-name", "katas-hostile-fill-*"])
        .output()
        .unwrap();
    assert!(
        fill.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&fill.stdout)
    );
    // Its copy of itself died with the run's pid namespace.
    expect("outlives-run", 4, "passed", "");
    std::thread::sleep(std::time::Duration::from_secs(5));
    assert!(!Path::new("/tmp/katas-hostile-outlives-run").exists());
    assert_eq!(g["learners"].as_array().unwrap().len(), 32);
}

#[test]
fn without_a_pid_namespace_grading_needs_an_explicit_flag() {
    let _serial = serial();
    let root = common::fresh_fixture("grade-weak");
    let w = work("weak");
    let correct = hostile().join("correct");
    let args = [
        "grade",
        correct.to_str().unwrap(),
        "--kata",
        "shard-key",
        "--work-dir",
        &w,
    ];
    let mut refused = args.to_vec();
    refused.push("--no-sandbox");
    let o = katas(&root, &refused);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--accept-weak-isolation"), "{}", text(&o));
    let mut accepted = refused.clone();
    accepted.extend(["--accept-weak-isolation", "--format", "json"]);
    let o = katas(&root, &accepted);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let g: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(g["isolation"]["weak_accepted"], true);
    assert_eq!(kata(learner(&g, "correct"), "shard-key")["score"], 4);
}

#[test]
fn names_are_unique_and_a_mixed_folder_is_a_class() {
    let _serial = serial();
    let root = common::fresh_fixture("grade-names");
    let class = root.join("class");
    let correct = hostile().join("correct");
    katas::runner::scratch::copy_dir(&correct, &class.join("alice"), &|_| true).unwrap();
    // Two tars named alice: one as alice.tar, one that is already alice-2.
    for name in ["alice.tar", "alice-2.tar"] {
        std::fs::copy(hostile().join("escape-name.tar"), class.join(name)).unwrap();
    }
    std::fs::write(class.join("notes.txt"), "not a submission").unwrap();
    // A tar of 5,000 files: 2,000 are taken, the rest collapse into one note.
    let big = class.join("big.tar");
    let mut b = tar::Builder::new(std::fs::File::create(&big).unwrap());
    let src = std::fs::read(correct.join("exercises/shard-key/src/lib.rs")).unwrap();
    raw_entry(
        &mut b,
        "exercises/shard-key/src/lib.rs",
        tar::EntryType::Regular,
        "",
        &src,
    );
    for i in 0..5_000 {
        let name = format!("exercises/shard-key/src/f{i}.txt");
        raw_entry(&mut b, &name, tar::EntryType::Regular, "", b"");
    }
    b.finish().unwrap();
    drop(b);
    let g = grade_json(
        &root,
        "names",
        &[class.to_str().unwrap(), "--kata", "shard-key"],
    );
    let mut names: Vec<&str> = g["learners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["learner"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["alice", "alice-2", "alice-3", "big"]);
    let skipped = g["skipped"].to_string();
    assert!(
        skipped.contains("notes.txt") && skipped.contains("not a .tar"),
        "{skipped}"
    );
    let notes = learner(&g, "big")["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .starts_with("3,001 files skipped"),
        "{notes:?}"
    );
    assert_eq!(kata(learner(&g, "big"), "shard-key")["score"], 4);
}

#[test]
fn a_packed_archive_is_graded_with_the_learners_name() {
    let _serial = serial();
    let root = common::fresh_fixture("grade-pack");
    std::fs::copy(
        root.join("checker/katas/shard-key/solutions/reference.rs"),
        root.join("exercises/shard-key/src/lib.rs"),
    )
    .unwrap();
    let o = katas(&root, &["pack", "--name", "Ada Lovelace"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("ada-lovelace.tar"), "{}", text(&o));
    let archive = root.join("ada-lovelace.tar");
    assert!(archive.is_file());

    let w = work("pack");
    let o = katas(
        &root,
        &[
            "grade",
            archive.to_str().unwrap(),
            "--format",
            "csv",
            "--work-dir",
            &w,
        ],
    );
    let csv = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "learner,name,shard-key,sum-shards,total,max_score"
    );
    // shard-key solved; sum-shards still the starter (one of its two tests passes by luck).
    assert_eq!(lines[1], "ada-lovelace,Ada Lovelace,4,1,5,6");
}

/// A tar entry with a raw name (the `tar` crate's builder refuses `..`, an attacker's does not).
fn raw_entry(
    b: &mut tar::Builder<std::fs::File>,
    name: &str,
    kind: tar::EntryType,
    link: &str,
    data: &[u8],
) {
    let mut h = tar::Header::new_old();
    h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    h.set_entry_type(kind);
    if !link.is_empty() {
        h.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
    }
    h.set_size(data.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    b.append(&h, data).unwrap();
}

#[test]
fn a_hostile_archive_cannot_escape_or_smuggle_links() {
    let _serial = serial();
    let root = common::fresh_fixture("grade-tar");
    let dir = root.join("class");
    std::fs::create_dir_all(&dir).unwrap();
    let archive = dir.join("mallory.tar");
    let mut b = tar::Builder::new(std::fs::File::create(&archive).unwrap());
    let reference =
        std::fs::read(root.join("checker/katas/shard-key/solutions/reference.rs")).unwrap();
    let file = tar::EntryType::Regular;
    raw_entry(
        &mut b,
        "exercises/shard-key/src/lib.rs",
        file,
        "",
        &reference,
    );
    raw_entry(
        &mut b,
        "exercises/shard-key/src/../../../../escaped.txt",
        file,
        "",
        b"out",
    );
    raw_entry(&mut b, "/tmp/katas-absolute.txt", file, "", b"out");
    raw_entry(
        &mut b,
        "exercises/shard-key/src/secret.rs",
        tar::EntryType::Symlink,
        "/etc/passwd",
        b"",
    );
    raw_entry(
        &mut b,
        "exercises/shard-key/Cargo.toml",
        file,
        "",
        b"[package]",
    );
    b.finish().unwrap();
    drop(b);

    let g = grade_json(
        &root,
        "tar",
        &[dir.to_str().unwrap(), "--kata", "shard-key"],
    );
    let l = learner(&g, "mallory");
    assert_eq!(kata(l, "shard-key")["score"], 4, "{l:#}");
    let notes = l["notes"].to_string();
    assert!(notes.contains("escaped.txt"), "{notes}");
    assert!(notes.contains("secret.rs"), "{notes}");
    assert!(!Path::new("/tmp/katas-absolute.txt").exists());
    let found = Command::new("find")
        .args([
            work("tar").as_str(),
            root.to_str().unwrap(),
            "-name",
            "escaped.txt",
        ])
        .output()
        .unwrap();
    assert!(
        found.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&found.stdout)
    );
}

#[test]
fn junit_and_gradescope_carry_every_test() {
    let _serial = serial();
    let root = common::fresh_fixture("grade-formats");
    let class = hostile();
    let correct = class.join("correct");
    let partial = class.join("partial");
    let w = work("formats");
    let run = |args: &[&str]| {
        let mut all = vec!["grade", "--kata", "shard-key", "--work-dir", &w];
        all.extend_from_slice(args);
        katas(&root, &all)
    };
    let o = run(&[
        correct.to_str().unwrap(),
        partial.to_str().unwrap(),
        "--format",
        "junit",
    ]);
    let xml = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert_eq!(xml.matches("<testsuite ").count(), 2, "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), 6, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), 2, "{xml}");
    assert!(xml.contains("name=\"partial / shard-key\""), "{xml}");
    // Each testcase carries its own time (the test kit's measure); together they fit in their
    // suite's time, which also holds the build.
    let attr = |tag: &str, name: &str| -> f64 {
        let at = tag.find(&format!(" {name}=\"")).expect("attribute") + name.len() + 3;
        tag[at..tag[at..].find('"').unwrap() + at].parse().unwrap()
    };
    for suite in xml.split("<testsuite ").skip(1) {
        let suite_time = attr(&suite[..suite.find('>').unwrap()], "time");
        let cases: f64 = suite
            .split("<testcase ")
            .skip(1)
            .map(|c| attr(&format!(" {}", &c[..c.find('>').unwrap()]), "time"))
            .sum();
        assert!(cases <= suite_time + 0.01, "{cases} > {suite_time}: {xml}");
    }

    // Gradescope takes one submission.
    let o = run(&[
        correct.to_str().unwrap(),
        partial.to_str().unwrap(),
        "--format",
        "gradescope",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("one submission"), "{}", text(&o));

    let out = root.join("results.json");
    let o = run(&[
        partial.to_str().unwrap(),
        "--format",
        "gradescope",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(r["score"], 1);
    assert_eq!(r["max_score"], 4);
    let tests = r["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3);
    let t = tests
        .iter()
        .find(|t| t["name"] == "shard-key / lists_every_shard")
        .unwrap();
    assert_eq!(t["status"], "failed");
    assert_eq!(t["max_score"], 2);
    assert!(t["output"].as_str().unwrap().contains("likes#3"), "{t}");
}

#[test]
fn escape_codes_and_long_messages_are_cleaned_in_every_format() {
    let _serial = serial();
    let root = common::fresh_fixture("grade-clean");
    let w = work("clean");
    let class: Vec<PathBuf> = ["escape-codes", "escape-name.tar", "long-panic"]
        .iter()
        .map(|n| hostile().join(n))
        .collect();
    for format in ["table", "csv", "junit"] {
        let mut args = vec!["grade", "--kata", "shard-key", "--work-dir", &w];
        args.extend(class.iter().map(|p| p.to_str().unwrap()));
        args.extend(["--format", format]);
        let o = katas(&root, &args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        // The report and the progress lines alike.
        let all = text(&o);
        assert!(
            !all.contains('\u{1b}'),
            "{format}: an escape code got through"
        );
        let longest = all.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        // The message is 200,000 characters; capped, a JUnit line holds it twice (the
        // failure's attribute and body), escaped.
        assert!(longest < 10_000, "{format}: a line of {longest} characters");
        if format == "csv" {
            assert!(all.contains("escape-name,Evecorrect 4/4,4,4,4"), "{all}");
        }
    }
}

#[test]
fn a_private_test_set_replaces_the_public_one() {
    let _serial = serial();
    let root = common::fresh_fixture("grade-private");
    let private = root.join("private");
    katas::runner::scratch::copy_dir(
        &root.join("checker/katas/shard-key/tests"),
        &private.join("shard-key"),
        &|_| true,
    )
    .unwrap();
    let main = private.join("shard-key/src/lib.rs");
    let text_ = std::fs::read_to_string(&main).unwrap();
    let text_ = text_.replacen(
        "run(vec![",
        "run(vec![\n        test(\"private_zero_shards\", || {\n            \
         katas_testkit::check(shard_keys(\"x\", 0).is_empty(), \"no shards, no keys\")\n        }),",
        1,
    );
    std::fs::write(&main, text_).unwrap();
    let g = grade_json(
        &root,
        "private",
        &[
            hostile().join("correct").to_str().unwrap(),
            "--kata",
            "shard-key",
            "--hidden",
            private.to_str().unwrap(),
        ],
    );
    let names: Vec<&str> = g["katas"][0]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"private_zero_shards"), "{names:?}");
    assert_eq!(kata(learner(&g, "correct"), "shard-key")["score"], 5);
    assert!(g["hidden"].as_str().unwrap().ends_with("private"));
}
