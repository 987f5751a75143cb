//! Watch mode driven by injected events: no terminal, no file watcher, no cargo.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

use super::*;
use crate::runner::{TestResult, TestStatus, Verdict};
use crate::state::State;
use crate::text::{self, strip_ansi};

const MANIFEST: &str = "version = 2\nkatas = [\"alpha\", \"beta\"]\n";

const ALPHA: &str = r#"
title = "First"
track = "model-it"
lesson = "01-foundations#hot-keys"
hints = ["nudge", "concept", "nearly"]
[test_hints]
t = "look at the partition key"
"#;

const BETA: &str = r#"
title = "Second"
track = "build-it"
lesson = "02-writes"
hints = ["b1"]
"#;

/// A repository with the two katas, on disk: only for the test that runs the real runner.
fn temp_root(tag: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("katas-watch-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for k in ["alpha", "beta"] {
        std::fs::create_dir_all(root.join("exercises").join(k).join("src")).unwrap();
        std::fs::create_dir_all(root.join("checker/katas").join(k).join("starter")).unwrap();
        std::fs::write(
            root.join("checker/katas")
                .join(k)
                .join("starter")
                .join("lib.rs"),
            "// TODO starter\n",
        )
        .unwrap();
        std::fs::write(
            root.join("exercises").join(k).join("src/lib.rs"),
            "// TODO starter\n",
        )
        .unwrap();
        std::fs::write(
            root.join("exercises").join(k).join("Cargo.toml"),
            format!("[package]\nname = \"{k}\"\n"),
        )
        .unwrap();
    }
    std::fs::write(root.join("checker/curriculum.toml"), MANIFEST).unwrap();
    std::fs::write(root.join("checker/katas/alpha/kata.toml"), ALPHA).unwrap();
    std::fs::write(root.join("checker/katas/beta/kata.toml"), BETA).unwrap();
    root
}

fn manifest() -> Manifest {
    Manifest::parse(MANIFEST, |name| {
        Ok(if name == "alpha" { ALPHA } else { BETA }.to_string())
    })
    .unwrap()
}

/// Watch mode on the two katas, with no folder behind it: the App reads and writes no file
/// (a root that does not exist, so the progress starts fresh).
fn app(tag: &str) -> App {
    colored::control::set_override(false);
    let root = std::env::temp_dir().join(format!("katas-watch-nowhere-{tag}"));
    assert!(!root.exists(), "{} must not exist", root.display());
    let manifest = manifest();
    let state = StateFile::load(&root, &manifest);
    App::new(root, manifest, state, false)
}

/// What the check worker sends before a verdict of `kata`: its `src/` is the starter or not.
fn sources(kata: &str, untouched_starter: bool) -> Event {
    Event::Sources {
        kata: kata.into(),
        untouched_starter,
        unseen_by_grading: Vec::new(),
    }
}

fn result(kata: &str, passed: bool) -> Result<CheckResult, String> {
    Ok(CheckResult {
        kata: kata.into(),
        verdict: if passed {
            Verdict::Passed
        } else {
            Verdict::Failed
        },
        tests: vec![TestResult {
            name: "t".into(),
            status: if passed {
                TestStatus::Passed
            } else {
                TestStatus::Failed
            },
            message: (!passed).then(|| "partition 3 was throttled".into()),
            expected: (!passed).then(|| "1\n2\n".into()),
            actual: (!passed).then(|| "1\n3\n".into()),
            seed: None,
            location: None,
            output: String::new(),
            points: 1,
            millis: None,
        }],
        output: String::new(),
        output_truncated: false,
        warnings: Vec::new(),
        build_time: Duration::ZERO,
        run_time: Duration::ZERO,
        replayed: false,
    })
}

/// The screen at 100 columns, tall enough to hold everything.
fn screen(app: &App) -> String {
    strip_ansi(&app.render(100, 500).join("\n"))
}

/// The screen as a terminal of this size shows it, one string per row.
fn rows(app: &App, width: usize, height: usize) -> Vec<String> {
    app.render(width, height)
        .iter()
        .map(|l| strip_ansi(l))
        .collect()
}

fn save(app: &App, kata: &str) -> Event {
    Event::Save(app.root.join("exercises").join(kata).join("src/lib.rs"))
}

fn check(kata: &str) -> Vec<Effect> {
    vec![Effect::StartCheck(kata.into())]
}

#[test]
fn opens_at_the_current_kata_and_checks_it() {
    let mut a = app("open");
    assert_eq!(a.start(), check("alpha"));
    assert!(screen(&a).contains("checking alpha"));
    assert!(screen(&a).contains("1. alpha — First (Model it)"));
    assert!(screen(&a).contains("lesson: 01-foundations#hot-keys"));
    assert!(screen(&a).contains("read exercises/alpha/README.md while this builds"));
    a.handle(Event::CheckDone("alpha".into(), result("alpha", false)));
    assert!(!screen(&a).contains("while this builds"));
}

#[test]
fn a_save_checks_and_other_files_are_ignored() {
    let mut a = app("save");
    a.start();
    a.handle(sources("alpha", true));
    a.handle(Event::CheckDone("alpha".into(), result("alpha", false)));
    assert_eq!(a.handle(save(&a, "alpha")), check("alpha"));
    a.handle(Event::CheckDone("alpha".into(), result("alpha", false)));
    assert!(a.handle(save(&a, "beta")).is_empty(), "another kata's file");
    let readme = a.root.join("exercises/alpha/README.md");
    assert!(
        a.handle(Event::Save(readme)).is_empty(),
        "not a Rust source"
    );
    let s = screen(&a);
    assert!(
        s.contains("your task is in exercises/alpha/README.md"),
        "{s}"
    );
    assert!(s.contains("the first test, t, says:"), "{s}");
    assert!(
        !s.contains("look at the partition key"),
        "no hint unasked: {s}"
    );
}

#[test]
fn a_failing_tests_hint_comes_only_when_asked() {
    let mut a = app("ask");
    a.start();
    a.handle(Event::CheckDone("alpha".into(), result("alpha", false)));
    let s = screen(&a);
    assert!(s.contains("failing test: t"), "{s}");
    assert!(s.contains("partition 3 was throttled"), "{s}");
    assert!(s.contains("- 2") && s.contains("+ 3"), "{s}");
    assert!(
        !s.contains("look at the partition key"),
        "no hint unasked: {s}"
    );
    assert!(
        s.contains("a hint for this test is there when you want it: press h"),
        "{s}"
    );
    a.handle(Event::Key(Key::Char('h')));
    let s = screen(&a);
    assert!(s.contains("hint 1/3: nudge"), "{s}");
    assert!(
        !s.contains("look at the partition key"),
        "the nudge comes first: {s}"
    );
    a.handle(Event::Key(Key::Char('h')));
    let s = screen(&a);
    assert!(
        s.contains("hint for this test: look at the partition key"),
        "{s}"
    );
    assert!(!s.contains("hint 2/3"), "{s}");
    a.handle(Event::Key(Key::Char('h')));
    assert!(screen(&a).contains("hint 2/3: concept"));
}

#[test]
fn saves_during_a_check_are_queued_and_coalesced() {
    let mut a = app("queue");
    a.start();
    assert!(a.handle(save(&a, "alpha")).is_empty());
    assert!(a.handle(save(&a, "alpha")).is_empty());
    assert!(a.pending);
    assert!(screen(&a).contains("another check queued"));
    // The first check ends: exactly one more starts for the queued saves.
    assert_eq!(
        a.handle(Event::CheckDone("alpha".into(), result("alpha", false))),
        check("alpha")
    );
    assert!(!a.pending);
    assert!(a
        .handle(Event::CheckDone("alpha".into(), result("alpha", true)))
        .is_empty());
}

#[test]
fn pass_then_n_moves_to_the_next_kata() {
    let mut a = app("next");
    a.start();
    a.handle(Event::CheckDone("alpha".into(), result("alpha", false)));
    assert!(a.handle(Event::Key(Key::Char('n'))).is_empty());
    assert!(screen(&a).contains(texts::PASS_FIRST));
    a.handle(Event::Key(Key::Char('r')));
    a.handle(Event::CheckDone("alpha".into(), result("alpha", true)));
    assert!(screen(&a).contains("press n for the next kata"));
    assert!(screen(&a).contains("1/2 katas"));
    assert_eq!(a.handle(Event::Key(Key::Char('n'))), check("beta"));
    assert_eq!(a.kata().name, "beta");
    // Progress is handed to the ports to save (the event loop does, after this event).
    assert!(a.unsaved);
    assert_eq!(a.state.state.current.as_deref(), Some("beta"));
    assert!(a.state.state.passed.contains("alpha"));
}

#[test]
fn hint_levels_come_one_at_a_time_and_are_kept() {
    let mut a = app("hints");
    a.start();
    a.handle(Event::Key(Key::Char('h')));
    assert!(screen(&a).contains("hint 1/3: nudge"));
    assert!(!screen(&a).contains("hint 2/3"));
    a.handle(Event::Key(Key::Char('h')));
    a.handle(Event::Key(Key::Char('h')));
    a.handle(Event::Key(Key::Char('h')));
    let s = screen(&a);
    assert!(s.contains("hint 3/3: nearly"), "{s}");
    assert!(s.contains(texts::NO_MORE_HINTS), "{s}");
    assert!(a.unsaved, "kept: marked for saving");
    assert_eq!(a.state.state.hints_seen["alpha"], 3);
}

#[test]
fn reset_asks_first() {
    let mut a = app("reset");
    a.start();
    a.handle(Event::CheckDone("alpha".into(), result("alpha", true)));
    a.handle(Event::Key(Key::Char('x')));
    assert!(screen(&a).contains(texts::CONFIRM_RESET));
    assert!(a.handle(Event::Key(Key::Char('n'))).is_empty());
    assert!(screen(&a).contains(texts::RESET_CANCELLED));
    a.handle(Event::Key(Key::Char('x')));
    let reset = vec![Effect::Reset("alpha".into())];
    assert_eq!(a.handle(Event::Key(Key::Char('y'))), reset);
    // The files are the ports' business; once they are back, the pass is gone and the
    // starter is checked.
    assert_eq!(a.reset_done(Ok(())), check("alpha"));
    assert!(!a.state.state.passed.contains("alpha") && a.unsaved);
    assert!(screen(&a).contains("`alpha` is back to its starter"));
    a.handle(Event::CheckDone("alpha".into(), result("alpha", false)));
    a.handle(Event::Key(Key::Char('x')));
    a.handle(Event::Key(Key::Char('y')));
    assert!(a.reset_done(Err("disk full".into())).is_empty());
    assert!(
        screen(&a).contains("reset failed: disk full"),
        "{}",
        screen(&a)
    );
}

#[test]
fn a_corrupt_state_file_is_rebuilt_by_rechecking_every_kata() {
    // As StateFile::load leaves a progress file that did not parse (see state.rs's tests).
    let mut a = app("corrupt");
    a.state.warning = Some(".katas-state.json was corrupt (EOF); rebuilt it".into());
    a.state.rebuilt = true;
    a.message = a.state.warning.clone();
    assert_eq!(a.start(), vec![Effect::StartVerify]);
    a.handle(Event::Progress("[#-] 2/2 beta".into()));
    let s = screen(&a);
    assert!(s.contains("was corrupt"), "{s}");
    assert!(
        s.contains("re-checking every kata to rebuild your progress"),
        "{s}"
    );
    assert!(s.contains("[#-] 2/2 beta"), "{s}");
    // Passes come back from the re-check; then the current kata is checked as usual.
    assert_eq!(
        a.handle(Event::VerifyDone(vec![
            ("alpha".into(), true),
            ("beta".into(), false)
        ])),
        check("alpha"),
        "a corrupt file kept nothing readable: back at the first kata"
    );
    assert_ne!(a.screen, Screen::Finished);
    assert!(screen(&a).contains("1 of 2 pass"), "{}", screen(&a));
    assert!(a.unsaved && a.state.state.passed.contains("alpha"));
    assert!(
        !a.state.rebuilt,
        "saved whole, it is no longer a rebuilt file"
    );
}

#[test]
fn the_last_pass_rechecks_everything_before_the_finish() {
    let mut a = app("finish");
    a.start();
    a.handle(Event::CheckDone("alpha".into(), result("alpha", true)));
    a.handle(Event::Key(Key::Char('n')));
    assert_eq!(
        a.handle(Event::CheckDone("beta".into(), result("beta", true))),
        vec![Effect::StartVerify]
    );
    assert!(screen(&a).contains("re-checking every kata"));
    a.handle(Event::VerifyDone(vec![
        ("alpha".into(), true),
        ("beta".into(), true),
    ]));
    assert_eq!(a.screen, Screen::Finished);
    assert!(screen(&a).contains("every kata passes"));
}

#[test]
fn a_kata_that_broke_sends_you_back_and_the_note_goes_once_all_pass() {
    let mut a = app("finish-again");
    a.start();
    a.handle(Event::CheckDone("alpha".into(), result("alpha", true)));
    a.handle(Event::Key(Key::Char('n')));
    a.handle(Event::CheckDone("beta".into(), result("beta", true)));
    a.handle(Event::VerifyDone(vec![
        ("alpha".into(), false),
        ("beta".into(), true),
    ]));
    assert!(
        screen(&a).contains("`alpha` no longer passes"),
        "{}",
        screen(&a)
    );
    a.handle(Event::CheckDone("alpha".into(), result("alpha", true)));
    a.handle(Event::VerifyDone(vec![
        ("alpha".into(), true),
        ("beta".into(), true),
    ]));
    assert_eq!(a.screen, Screen::Finished);
    assert!(!screen(&a).contains("no longer passes"), "{}", screen(&a));
}

#[test]
fn list_switches_katas_and_a_stale_result_is_not_shown() {
    let mut a = app("list");
    a.start();
    a.handle(Event::Key(Key::Char('l')));
    assert!(screen(&a).contains("> ·  1. alpha"), "{}", screen(&a));
    a.handle(Event::Key(Key::Down));
    // Enter while alpha's check runs: beta's check is queued behind it.
    assert!(a.handle(Event::Key(Key::Enter)).is_empty());
    assert_eq!(a.kata().name, "beta");
    assert_eq!(
        a.handle(Event::CheckDone("alpha".into(), result("alpha", false))),
        check("beta")
    );
    assert!(a.last.is_none(), "alpha's result is not shown as beta's");
}

#[test]
fn watcher_failure_suggests_manual_mode() {
    let mut a = app("manual");
    a.start();
    a.handle(Event::WatcherFailed("inotify limit".into()));
    assert!(a.manual);
    let s = screen(&a);
    assert!(
        s.contains("--manual-run") && s.contains("inotify limit"),
        "{s}"
    );
    assert!(s.contains("manual mode: press r"), "{s}");
}

/// A fake world: answers checks from a script, records what was drawn.
struct FakePorts {
    tx: Sender<Event>,
    verdicts: Vec<bool>,
    started: Vec<String>,
    lessons: Vec<(String, Option<String>)>,
    pages: Vec<Vec<String>>,
    frames: Vec<String>,
    size: (usize, usize),
    /// Events fed one per drawn frame (as a learner would act after looking at the screen).
    script: Vec<Event>,
    /// Progress handed over to be saved, in order.
    saved: Vec<State>,
}

impl Ports for FakePorts {
    fn start_check(&mut self, kata: &str) {
        self.started.push(kata.to_string());
        let ok = if self.verdicts.is_empty() {
            false
        } else {
            self.verdicts.remove(0)
        };
        self.tx
            .send(Event::CheckDone(kata.into(), result(kata, ok)))
            .unwrap();
    }
    fn start_verify(&mut self) {}
    fn open_lesson(&mut self, lesson: &str, section: Option<&str>) {
        self.lessons
            .push((lesson.into(), section.map(String::from)));
    }
    fn page(&mut self, lines: &[String]) {
        self.pages
            .push(lines.iter().map(|l| strip_ansi(l)).collect());
    }
    fn edit(&mut self, cmd: &str, file: &Path) {
        self.pages
            .push(vec![format!("edit {cmd} {}", file.display())]);
    }
    fn save_progress(&mut self, state: &StateFile) -> Result<(), String> {
        self.saved.push(state.state.clone());
        Ok(())
    }
    fn reset(&mut self, _: &str) -> Result<(), String> {
        Ok(())
    }
    fn width(&self) -> usize {
        self.size.0
    }
    fn height(&self) -> usize {
        self.size.1
    }
    fn draw(&mut self, lines: &[String]) {
        assert!(lines.len() <= self.size.1, "{} rows drawn", lines.len());
        self.frames.push(strip_ansi(&lines.join("\n")));
        if !self.script.is_empty() {
            self.tx.send(self.script.remove(0)).unwrap();
        }
    }
}

#[test]
fn the_event_loop_runs_on_injected_events() {
    let mut a = app("loop");
    let (tx, rx) = mpsc::channel();
    let mut ports = FakePorts {
        tx: tx.clone(),
        verdicts: vec![false, true],
        started: Vec::new(),
        lessons: Vec::new(),
        pages: Vec::new(),
        frames: Vec::new(),
        size: (100, 500),
        script: Vec::new(),
        saved: Vec::new(),
    };
    let lib: &Path = &a.root.join("exercises/alpha/src/lib.rs");
    ports.script = vec![
        Event::Tick,
        Event::Save(lib.to_path_buf()),
        Event::Key(Key::Char('o')),
        Event::Key(Key::Char('n')),
        Event::Key(Key::Char('q')),
    ];
    event_loop(&mut a, &rx, &mut ports);
    assert_eq!(ports.started, vec!["alpha", "alpha", "beta"]);
    assert_eq!(
        ports.lessons,
        vec![("01-foundations".into(), Some("hot-keys".into()))]
    );
    assert!(ports
        .frames
        .iter()
        .any(|f| f.contains("all 1 hidden tests pass")));
    assert_eq!(a.kata().name, "beta");
    // The progress went to the ports to be saved, never to a file by the App.
    let last = ports.saved.last().expect("progress was saved");
    assert_eq!(last.current.as_deref(), Some("beta"));
    assert!(last.passed.contains("alpha"));
    assert!(!a.unsaved);
}

/// A failure as `stream-read-model` sends one: a long message the test kit broke at 100
/// columns, and a keyed transcript of 40 rows on each side.
fn tall_result(kata: &str) -> Result<CheckResult, String> {
    let mut r = result(kata, false).unwrap();
    let t = &mut r.tests[0];
    t.message = Some(format!(
        "{}\n{}",
        "the handler applied record 7 twice: a new_image with the same event id must change the \
         read model once, and the second delivery must be recognised by the event id kept in the",
        "table itself (a conditional write on the last applied sequence number), not in memory"
    ));
    let mut expected = String::new();
    let mut actual = String::new();
    for i in 0..40 {
        expected.push_str(&format!("customer c-{i:02} → orders {}\n", i % 3));
        actual.push_str(&format!("customer c-{i:02} → orders {}\n", (i % 3) + 1));
    }
    t.expected = Some(expected);
    t.actual = Some(actual);
    Ok(r)
}

fn failing_at(tag: &str, size: (usize, usize)) -> App {
    let mut a = app(tag);
    a.size = size;
    a.start();
    a.handle(Event::CheckDone("alpha".into(), tall_result("alpha")));
    a
}

#[test]
fn a_verdict_taller_than_the_terminal_keeps_header_verdict_and_keys() {
    for (w, h) in [(110, 38), (60, 20)] {
        let a = failing_at(&format!("tall-{w}"), (w, h));
        let screen = rows(&a, w, h);
        assert!(screen.len() <= h, "{w}x{h}: {} rows", screen.len());
        assert!(screen[0].starts_with("DynamoDB Katas  ["), "{screen:#?}");
        assert!(
            screen.iter().any(|l| l.contains("1. alpha — First")),
            "{screen:#?}"
        );
        assert!(
            screen
                .iter()
                .take(5)
                .any(|l| l.contains("✗ 1 of 1 hidden tests fail")),
            "the verdict line is at the top: {screen:#?}"
        );
        assert!(screen.last().unwrap().contains("q quit"), "{screen:#?}");
        assert!(
            screen
                .iter()
                .any(|l| l.contains("lines 1–") && l.contains(" of ")),
            "{screen:#?}"
        );
        assert!(
            !screen.iter().any(|l| l.contains("c-39")),
            "the end of the diff is below: {screen:#?}"
        );
    }
}

#[test]
fn scrolling_shows_the_rest_and_stops_at_the_end() {
    let mut a = failing_at("scroll", (60, 20));
    let first = rows(&a, 60, 20);
    a.handle(Event::Key(Key::Char('j')));
    let after_j = rows(&a, 60, 20);
    assert_eq!(a.scroll, 1);
    assert_eq!(after_j[0], first[0], "the header stays");
    assert_ne!(after_j, first);
    for _ in 0..20 {
        a.handle(Event::Key(Key::PageDown));
    }
    let end = rows(&a, 60, 20);
    assert!(
        end.iter().any(|l| l.contains("+ customer c-39")),
        "{end:#?}"
    );
    assert!(end[0].starts_with("DynamoDB Katas"), "{end:#?}");
    assert!(end.last().unwrap().contains("q quit"), "{end:#?}");
    let bottom = a.scroll;
    a.handle(Event::Key(Key::Char('j')));
    assert_eq!(a.scroll, bottom, "no scrolling past the end");
    a.handle(Event::Key(Key::PageUp));
    a.handle(Event::Key(Key::Char('k')));
    assert!(a.scroll < bottom);
    for _ in 0..100 {
        a.handle(Event::Key(Key::Up));
    }
    assert_eq!(rows(&a, 60, 20), first, "back at the top");
    // A new verdict starts at its top again.
    a.handle(Event::Key(Key::PageDown));
    a.handle(save(&a, "alpha"));
    a.handle(Event::CheckDone("alpha".into(), tall_result("alpha")));
    assert_eq!(a.scroll, 0);
}

#[test]
fn a_hint_asked_under_a_tall_verdict_is_scrolled_into_view() {
    let mut a = failing_at("hint-tall", (110, 38));
    assert!(!rows(&a, 110, 38).iter().any(|l| l.contains("hint 1/")));
    a.handle(Event::Key(Key::Char('h')));
    let screen = rows(&a, 110, 38);
    assert!(
        screen.iter().any(|l| l.contains("hint 1/")),
        "the hint just asked for is on screen: {screen:#?}"
    );
    assert!(screen[0].starts_with("DynamoDB Katas"), "{screen:#?}");
    assert!(screen.last().unwrap().contains("q quit"), "{screen:#?}");
}

#[test]
fn keyed_rows_are_shown_as_pairs() {
    let a = failing_at("pairs", (110, 38));
    let s = screen(&a);
    let want = "  - customer c-00 → orders 0\n  + customer c-00 → orders 1\n  - customer c-01 → orders 1\n  + customer c-01 → orders 2";
    assert!(s.contains(want), "{s}");
}

#[test]
fn a_60_column_terminal_wraps_at_60_between_words() {
    let a = failing_at("narrow", (60, 20));
    let mut all = Vec::new();
    let mut b = failing_at("narrow-all", (60, 400));
    b.scroll = 0;
    for l in rows(&b, 60, 400) {
        assert!(text::width(&l) <= 60, "{} columns: {l:?}", text::width(&l));
        all.push(l);
    }
    for l in rows(&a, 60, 20) {
        assert!(text::width(&l) <= 60, "{l:?}");
    }
    let joined = all.join("\n");
    // The message re-flows: its words come whole and in order, none cut at a line's end.
    let words: Vec<&str> = joined.split_whitespace().collect();
    for w in ["new_image", "recognised", "conditional", "sequence", "(a"] {
        assert!(words.contains(&w), "{w} is cut: {joined}");
    }
    let message = "the handler applied record 7 twice: a new_image with the same event id";
    assert!(
        words.join(" ").contains(message),
        "the message reads on across lines: {joined}"
    );
    assert!(
        all.iter()
            .any(|l| l.trim_start().starts_with("table itself"))
            || !joined.contains("\n  table itself"),
        "the test kit's 100-column break is not kept as a line of its own"
    );
    // The key bar breaks between keys.
    let keys: Vec<&String> = all.iter().filter(|l| l.contains(" · ")).collect();
    assert!(
        keys.iter()
            .all(|l| !l.ends_with(" ·") && !l.starts_with("· ")),
        "{keys:?}"
    );
}

#[test]
fn v_opens_the_whole_verdict_in_the_pager() {
    let mut a = failing_at("pager", (60, 20));
    let effects = a.handle(Event::Key(Key::Char('v')));
    let [Effect::Page(lines)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    let text: Vec<String> = lines.iter().map(|l| strip_ansi(l)).collect();
    assert!(text.len() > 80, "{}", text.len());
    assert!(text[0].starts_with("DynamoDB Katas"));
    assert!(text.iter().any(|l| l.contains("+ customer c-39")));
    assert!(text.iter().all(|l| text::width(l) <= 60));
}

#[test]
fn w_shows_the_failing_runs_inside_and_only_after_a_failure() {
    let mut a = app("view");
    a.start();
    assert!(
        a.handle(Event::Key(Key::Char('w'))).is_empty(),
        "no check yet"
    );
    assert_eq!(a.message.as_deref(), Some(texts::NOTHING_FAILED));
    a.handle(Event::CheckDone("alpha".into(), result("alpha", false)));
    assert_eq!(
        a.handle(Event::Key(Key::Char('w'))),
        vec![Effect::View("alpha".into())]
    );
    a.handle(Event::CheckDone("alpha".into(), result("alpha", true)));
    assert!(a.handle(Event::Key(Key::Char('w'))).is_empty(), "it passes");
}

#[test]
fn the_spinner_shows_over_a_tall_verdict_while_a_check_runs() {
    let mut a = failing_at("spin", (60, 20));
    a.handle(Event::Key(Key::PageDown));
    a.handle(save(&a, "alpha"));
    a.handle(Event::Progress(
        "Compiling conditional-stock v0.1.0 (3 crates built)".into(),
    ));
    let screen = rows(&a, 60, 20);
    assert!(
        screen.iter().take(4).any(|l| l.contains("checking alpha…")),
        "{screen:#?}"
    );
    assert!(
        screen
            .iter()
            .any(|l| l.contains("✗ 1 of 1 hidden tests fail")),
        "the last verdict stays under the spinner: {screen:#?}"
    );
    assert!(screen.last().unwrap().contains("q quit"));
}

#[test]
fn idle_ticks_and_events_that_change_nothing_do_not_redraw() {
    let mut a = app("ticks");
    let (tx, rx) = mpsc::channel();
    let mut ports = FakePorts {
        tx: tx.clone(),
        verdicts: vec![false],
        started: Vec::new(),
        lessons: Vec::new(),
        pages: Vec::new(),
        frames: Vec::new(),
        size: (60, 20),
        script: Vec::new(),
        saved: Vec::new(),
    };
    // While the check runs, a tick redraws (the spinner turns) …
    tx.send(Event::Tick).unwrap();
    // … once the verdict is drawn, ticks, a save of another kata's file and a key that does
    // nothing change nothing and draw nothing; the pager (the screen was left) and a resize
    // draw.
    let mut after: Vec<Event> = (0..5).map(|_| Event::Tick).collect();
    after.extend([
        save(&a, "beta"),
        Event::Key(Key::Char('z')),
        Event::Key(Key::Char('v')),
        Event::Resize,
        Event::Key(Key::Char('q')),
    ]);
    struct OnVerdict<'a>(&'a mut FakePorts, Vec<Event>, Option<usize>);
    impl Ports for OnVerdict<'_> {
        fn start_check(&mut self, kata: &str) {
            self.0.start_check(kata)
        }
        fn start_verify(&mut self) {}
        fn open_lesson(&mut self, _: &str, _: Option<&str>) {}
        fn page(&mut self, lines: &[String]) {
            self.0.page(lines)
        }
        fn edit(&mut self, cmd: &str, file: &Path) {
            self.0.edit(cmd, file)
        }
        fn save_progress(&mut self, state: &StateFile) -> Result<(), String> {
            self.0.save_progress(state)
        }
        fn reset(&mut self, kata: &str) -> Result<(), String> {
            self.0.reset(kata)
        }
        fn width(&self) -> usize {
            self.0.width()
        }
        fn height(&self) -> usize {
            self.0.height()
        }
        fn draw(&mut self, lines: &[String]) {
            self.0.draw(lines);
            let verdict = self
                .0
                .frames
                .last()
                .is_some_and(|f| !f.contains("checking"));
            if verdict && self.2.is_none() {
                self.2 = Some(self.0.frames.len());
                for e in self.1.drain(..) {
                    self.0.tx.send(e).unwrap();
                }
            }
        }
    }
    let mut ports = OnVerdict(&mut ports, after, None);
    event_loop(&mut a, &rx, &mut ports);
    let verdict_frame = ports.2.expect("a verdict was drawn");
    let ports = ports.0;
    assert_eq!(ports.pages.len(), 1, "v paged");
    assert!(verdict_frame >= 2, "the tick during the check drew a frame");
    assert_eq!(
        ports.frames.len(),
        verdict_frame + 2,
        "only the pager's return and the resize drew after the verdict: {:#?}",
        &ports.frames[verdict_frame..]
    );
}

#[test]
fn a_missing_kata_file_says_how_to_restore_it() {
    let mut a = app("missing");
    a.size = (60, 20);
    a.start();
    a.handle(Event::CheckDone("alpha".into(), result("alpha", false)));
    // The runner is the one part here that reads files: a real folder for it alone.
    let root = temp_root("missing");
    let lib = root.join("exercises/alpha/src/lib.rs");
    std::fs::remove_file(&lib).unwrap();
    // The watcher reports the removal as a change; the check finds the file gone before cargo.
    assert_eq!(a.handle(save(&a, "alpha")), check("alpha"));
    let checked = crate::runner::check(&root, a.kata(), &Default::default(), &mut |_| {});
    a.handle(Event::CheckDone(
        "alpha".into(),
        checked.map_err(|e| e.to_string()),
    ));
    let screen = rows(&a, 60, 20);
    let s = screen.join("\n");
    assert!(s.contains("exercises/alpha/src/lib.rs is missing"), "{s}");
    assert!(
        s.contains("git checkout -- exercises/alpha/src/lib.rs"),
        "{s}"
    );
    assert!(s.contains("cargo katas reset alpha"), "{s}");
    assert!(screen.iter().all(|l| text::width(l) <= 60), "{s}");
    assert!(screen.last().unwrap().contains("q quit"), "{s}");
    // x then y restores the starter (what the real ports do for Effect::Reset).
    a.handle(Event::Key(Key::Char('x')));
    assert_eq!(
        a.handle(Event::Key(Key::Char('y'))),
        vec![Effect::Reset("alpha".into())]
    );
    let outcome = crate::sources::reset_kata(&root, a.kata()).map_err(|e| e.to_string());
    assert_eq!(a.reset_done(outcome), check("alpha"));
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "// TODO starter\n");
}

#[test]
fn e_opens_the_kata_file_with_the_editor_command_and_a_pass_points_to_the_solution() {
    let mut a = app("edit");
    a.start();
    a.handle(Event::CheckDone("alpha".into(), result("alpha", true)));
    let s = screen(&a);
    assert!(s.contains("edit:   exercises/alpha/src/lib.rs"), "{s}");
    assert!(
        s.contains("compare with the reference: `cargo katas solution alpha`"),
        "{s}"
    );
    assert!(a.handle(Event::Key(Key::Char('e'))).is_empty());
    assert!(screen(&a).contains("--edit-cmd"), "{}", screen(&a));
    a.edit_cmd = Some("code -g".into());
    assert_eq!(
        a.handle(Event::Key(Key::Char('e'))),
        vec![Effect::Edit(
            "code -g".into(),
            a.root.join("exercises/alpha/src/lib.rs")
        )]
    );
}
