//! The learner's progress, kept between sessions in `.katas-state.json` at the repository root
//! (gitignored): the current kata, the katas passed, the hint levels seen, quiz results.
//!
//! A missing file is a fresh start; an unreadable or corrupt one is moved aside to
//! `.katas-state.json.bak` and rebuilt, with a warning, never a crash: losing "which hints did I
//! see" is a nuisance, refusing to start is not acceptable.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::manifest::Manifest;

/// File name of the state file at the repository root.
pub const STATE_FILE: &str = ".katas-state.json";

/// One quiz attempt's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuizScore {
    /// Questions answered correctly.
    pub correct: u32,
    /// Questions asked.
    pub total: u32,
}

/// Everything remembered about one learner's progress.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct State {
    /// Format version of the file.
    pub version: u32,
    /// The kata watch mode opens at.
    pub current: Option<String>,
    /// Katas whose hidden tests passed.
    pub passed: BTreeSet<String>,
    /// Highest hint level (1–3) seen per kata.
    pub hints_seen: BTreeMap<String, u32>,
    /// Per kata, the hidden tests whose own hint the learner asked for.
    pub test_hints_seen: BTreeMap<String, BTreeSet<String>>,
    /// Per kata, the first test that failed in its last check (the hint `h` offers next).
    pub failing: BTreeMap<String, String>,
    /// Best score per lesson, of attempts that answered every question.
    pub quizzes: BTreeMap<String, QuizScore>,
    /// Per lesson, an attempt stopped before its last question: `cargo katas quiz` takes it up
    /// where it stopped. Never counted as a score.
    pub quiz_attempts: BTreeMap<String, QuizAttempt>,
}

/// A quiz attempt stopped part way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuizAttempt {
    /// The attempt's seed (the order of its choices).
    pub seed: u64,
    /// Questions answered, from the first.
    pub answered: u32,
    /// Of those, answered right.
    pub correct: u32,
    /// Questions the attempt holds.
    pub of: u32,
}

/// The state plus where it lives, and any warning produced while loading it.
#[derive(Debug)]
pub struct StateFile {
    path: PathBuf,
    /// The progress itself.
    pub state: State,
    /// Set when the file was corrupt and had to be rebuilt.
    pub warning: Option<String>,
    /// The file could not be read whole: which katas pass is to be found out again by
    /// re-checking them (watch mode does, `cargo katas verify` does).
    pub rebuilt: bool,
}

/// What can be read back from a corrupt state file: each field that still parses on its own
/// (a hand edit that broke one field keeps the others), with the names of those kept.
fn salvage(text: &str) -> (State, Vec<&'static str>) {
    let mut state = State::default();
    let mut kept = Vec::new();
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(text) else {
        return (state, kept);
    };
    fn take<T: serde::de::DeserializeOwned>(
        fields: &serde_json::Map<String, serde_json::Value>,
        name: &'static str,
        into: &mut T,
        kept: &mut Vec<&'static str>,
    ) {
        if let Some(v) = fields.get(name) {
            if let Ok(parsed) = serde_json::from_value(v.clone()) {
                *into = parsed;
                kept.push(name);
            }
        }
    }
    take(&fields, "current", &mut state.current, &mut kept);
    take(&fields, "passed", &mut state.passed, &mut kept);
    take(&fields, "hints_seen", &mut state.hints_seen, &mut kept);
    take(
        &fields,
        "test_hints_seen",
        &mut state.test_hints_seen,
        &mut kept,
    );
    take(&fields, "failing", &mut state.failing, &mut kept);
    take(&fields, "quizzes", &mut state.quizzes, &mut kept);
    take(
        &fields,
        "quiz_attempts",
        &mut state.quiz_attempts,
        &mut kept,
    );
    (state, kept)
}

impl StateFile {
    /// Loads the state under `root`, rebuilding it when missing or corrupt, and drops names
    /// of katas the manifest no longer has.
    pub fn load(root: &Path, manifest: &Manifest) -> StateFile {
        let path = root.join(STATE_FILE);
        let (mut state, warning) = match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (State::default(), None),
            Err(e) => (
                State::default(),
                Some(format!(
                    "could not read {STATE_FILE} ({e}); starting from a fresh state"
                )),
            ),
            Ok(text) => match serde_json::from_str::<State>(&text) {
                Ok(s) => (s, None),
                Err(e) => {
                    let backup = path.with_extension("json.bak");
                    let _ = std::fs::rename(&path, &backup);
                    let (state, kept) = salvage(&text);
                    let kept = if kept.is_empty() {
                        "nothing could be read back".to_string()
                    } else {
                        format!("kept {}", kept.join(", "))
                    };
                    (
                        state,
                        Some(format!(
                            "{STATE_FILE} was corrupt ({e}); rebuilt it ({kept}; old copy kept \
                             as {})",
                            backup.file_name().unwrap_or_default().to_string_lossy()
                        )),
                    )
                }
            },
        };
        let rebuilt = warning.is_some();
        state.version = 1;
        let known = |n: &String| manifest.index_of(n).is_some();
        state.passed.retain(known);
        state.hints_seen.retain(|k, _| known(k));
        state.test_hints_seen.retain(|k, _| known(k));
        state.failing.retain(|k, _| known(k));
        if !state.current.as_ref().is_some_and(known) {
            state.current = first_unsolved(manifest, &state);
        }
        StateFile {
            path,
            state,
            warning,
            rebuilt,
        }
    }

    /// Writes the state back.
    pub fn save(&self) -> Result<()> {
        let text = serde_json::to_string_pretty(&self.state)?;
        std::fs::write(&self.path, text + "\n")
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// What one more "hint, please" revealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revealed {
    /// Course hint level `n` (1-based).
    Level(usize),
    /// The hint of this failing test.
    Test(String),
    /// Everything is out already.
    NoMore,
}

impl State {
    /// Records the outcome of a check of `kata`: passed or not, and the first failing test
    /// (`None`: none failed, or none ran). The one place a pass or a fail is written (watch
    /// mode, `run`, `verify` and the re-check of a rebuilt file all come here); returns
    /// whether anything changed, so callers save only then.
    pub fn record_check(&mut self, kata: &str, passed: bool, failing: Option<&str>) -> bool {
        let changed = self.passed.contains(kata) != passed
            || self.failing.get(kata).map(String::as_str) != failing;
        if passed {
            self.passed.insert(kata.to_string());
        } else {
            self.passed.remove(kata);
        }
        self.record_failing(kata, failing);
        changed
    }

    /// Records that `kata` went back to its starter: it passes no longer (until checked).
    /// Hints seen stay seen, and so does the test that failed first (the starter fails it
    /// too, most likely). Returns whether anything changed.
    pub fn record_reset(&mut self, kata: &str) -> bool {
        self.passed.remove(kata)
    }

    /// Records a re-check of every kata (`verify`, or watch mode's before the finish): passes
    /// and fails as they came out; which test failed first is not known from it, so the one
    /// last recorded stays for a kata that still fails.
    pub fn record_all(&mut self, results: &[(String, bool)]) {
        for (name, ok) in results {
            let failing = if *ok {
                None
            } else {
                self.failing.get(name).cloned()
            };
            self.record_check(name, *ok, failing.as_deref());
        }
    }

    /// Makes `kata` the one watch mode opens at.
    pub fn go_to(&mut self, kata: &str) {
        self.current = Some(kata.to_string());
    }

    /// Records a quiz attempt: a complete one becomes the lesson's best score if it is one (and
    /// ends any stopped attempt); a partial one is kept to be taken up, the best score
    /// untouched; one with no answer leaves everything as it was.
    pub fn record_quiz(&mut self, outcome: &crate::quiz::QuizOutcome) {
        if outcome.complete() {
            self.quiz_attempts.remove(&outcome.lesson);
            let score = QuizScore {
                correct: outcome.correct,
                total: outcome.total,
            };
            let best = self.quizzes.entry(outcome.lesson.clone()).or_insert(score);
            if score.correct >= best.correct {
                *best = score;
            }
        } else if outcome.total > 0 {
            self.quiz_attempts.insert(
                outcome.lesson.clone(),
                QuizAttempt {
                    seed: outcome.seed,
                    answered: outcome.total,
                    correct: outcome.correct,
                    of: outcome.asked,
                },
            );
        }
    }

    /// Records a check of `kata`: which test failed first, if any.
    pub fn record_failing(&mut self, kata: &str, failing: Option<&str>) {
        match failing {
            Some(t) => self.failing.insert(kata.to_string(), t.to_string()),
            None => self.failing.remove(kata),
        };
    }

    /// Reveals the next hint of `kata`. The order: the course's first level (a nudge), then
    /// the hint of the test failing now (it speaks to what the learner is stuck on), then the
    /// course's further levels; a failing test's hint that was not out yet comes last.
    pub fn reveal_next_hint(&mut self, kata: &crate::manifest::Kata) -> Revealed {
        let levels = self.hints_seen.get(&kata.name).copied().unwrap_or(0) as usize;
        let test = self
            .failing
            .get(&kata.name)
            .filter(|t| kata.test_hints.contains_key(*t))
            .filter(|t| {
                !self
                    .test_hints_seen
                    .get(&kata.name)
                    .is_some_and(|seen| seen.contains(*t))
            })
            .cloned();
        match test {
            Some(t) if levels >= 1 || kata.hints.is_empty() => {
                self.test_hints_seen
                    .entry(kata.name.clone())
                    .or_default()
                    .insert(t.clone());
                Revealed::Test(t)
            }
            _ if levels < kata.hints.len() => {
                self.hints_seen.insert(kata.name.clone(), levels as u32 + 1);
                Revealed::Level(levels + 1)
            }
            _ => Revealed::NoMore,
        }
    }
}

/// The first kata (in curriculum order) not yet passed, or the last kata when all are.
pub fn first_unsolved(manifest: &Manifest, state: &State) -> Option<String> {
    manifest
        .katas
        .iter()
        .find(|k| !state.passed.contains(&k.name))
        .or(manifest.katas.last())
        .map(|k| k.name.clone())
}

/// The next unsolved kata after `name`, wrapping around; `None` when every kata passed.
pub fn next_unsolved(manifest: &Manifest, state: &State, name: &str) -> Option<String> {
    let n = manifest.katas.len();
    let start = manifest.index_of(name).map_or(0, |i| i + 1);
    (0..n)
        .map(|i| &manifest.katas[(start + i) % n])
        .find(|k| !state.passed.contains(&k.name))
        .map(|k| k.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        Manifest::parse("version = 2\nkatas = [\"a\", \"b\", \"c\"]\n", |_| {
            Ok("title = \"t\"\ntrack = \"build-it\"\nlesson = \"l\"\n".to_string())
        })
        .unwrap()
    }

    #[test]
    fn hints_come_when_asked_nudge_first_then_the_failing_tests_own() {
        let m = Manifest::parse("version = 2\nkatas = [\"a\"]\n", |_| {
            Ok("title = \"t\"\ntrack = \"model-it\"\nlesson = \"l\"\n\
                hints = [\"1\", \"2\", \"3\"]\n[test_hints]\nx = \"for x\"\n"
                .to_string())
        })
        .unwrap();
        let k = &m.katas[0];
        let mut s = State::default();
        s.record_failing("a", Some("x"));
        assert_eq!(s.reveal_next_hint(k), Revealed::Level(1));
        assert_eq!(s.reveal_next_hint(k), Revealed::Test("x".into()));
        assert_eq!(s.reveal_next_hint(k), Revealed::Level(2));
        s.record_failing("a", Some("y")); // y has no hint of its own
        assert_eq!(s.reveal_next_hint(k), Revealed::Level(3));
        assert_eq!(s.reveal_next_hint(k), Revealed::NoMore);
        let mut s = State::default();
        s.record_failing("a", None);
        assert_eq!(s.reveal_next_hint(k), Revealed::Level(1));
        assert_eq!(s.reveal_next_hint(k), Revealed::Level(2));
        s.record_failing("a", Some("x"));
        assert_eq!(s.reveal_next_hint(k), Revealed::Test("x".into()));
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("katas-state-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn missing_file_starts_at_the_first_kata() {
        let dir = temp_dir("missing");
        let sf = StateFile::load(&dir, &manifest());
        assert_eq!(sf.state.current.as_deref(), Some("a"));
        assert!(sf.warning.is_none());
    }

    #[test]
    fn corrupt_file_is_rebuilt_with_a_warning() {
        let dir = temp_dir("corrupt");
        std::fs::write(dir.join(STATE_FILE), "{ not json").unwrap();
        let sf = StateFile::load(&dir, &manifest());
        assert!(sf.warning.as_deref().unwrap().contains("corrupt"));
        assert_eq!(sf.state.current.as_deref(), Some("a"));
        assert!(dir.join(".katas-state.json.bak").exists());
        sf.save().unwrap();
        assert!(StateFile::load(&dir, &manifest()).warning.is_none());
    }

    #[test]
    fn a_corrupt_file_keeps_every_field_that_still_reads() {
        let dir = temp_dir("salvage");
        std::fs::write(
            dir.join(STATE_FILE),
            r#"{"current": "b", "passed": "oops", "hints_seen": {"a": 2},
                "quizzes": {"l": {"correct": 3, "total": 4}}}"#,
        )
        .unwrap();
        let sf = StateFile::load(&dir, &manifest());
        assert!(sf.rebuilt);
        let warning = sf.warning.as_deref().unwrap();
        assert!(
            warning.contains("kept current, hints_seen, quizzes"),
            "{warning}"
        );
        assert_eq!(sf.state.current.as_deref(), Some("b"));
        assert_eq!(sf.state.hints_seen["a"], 2);
        assert_eq!(sf.state.quizzes["l"].correct, 3);
        assert!(sf.state.passed.is_empty());
    }

    #[test]
    fn a_check_is_recorded_in_one_place_and_says_when_it_changed_something() {
        let mut s = State::default();
        assert!(s.record_check("a", false, Some("t1")));
        assert!(
            !s.record_check("a", false, Some("t1")),
            "the same fail again"
        );
        assert!(
            s.record_check("a", false, Some("t2")),
            "another test fails first"
        );
        assert!(s.record_check("a", true, None));
        assert!(s.passed.contains("a") && !s.failing.contains_key("a"));
        assert!(!s.record_check("a", true, None));
        assert!(s.record_check("a", false, None), "no longer passes");
        assert!(!s.passed.contains("a"));
    }

    fn outcome(correct: u32, total: u32, asked: u32) -> crate::quiz::QuizOutcome {
        crate::quiz::QuizOutcome {
            lesson: "01".into(),
            correct,
            total,
            asked,
            seed: 7,
        }
    }

    #[test]
    fn a_part_is_never_a_score_and_a_whole_attempt_ends_the_part() {
        let mut s = State::default();
        s.record_quiz(&outcome(2, 3, 31));
        assert!(s.quizzes.is_empty(), "2/3 of 31 is not a score");
        assert_eq!(s.quiz_attempts["01"].answered, 3);
        assert_eq!(s.quiz_attempts["01"].seed, 7);
        s.record_quiz(&outcome(20, 31, 31));
        assert!(s.quiz_attempts.is_empty());
        assert_eq!((s.quizzes["01"].correct, s.quizzes["01"].total), (20, 31));
        s.record_quiz(&outcome(15, 31, 31));
        assert_eq!(s.quizzes["01"].correct, 20, "the best stays");
        s.record_quiz(&outcome(0, 0, 31));
        assert!(s.quiz_attempts.is_empty(), "nothing answered, nothing kept");
    }

    #[test]
    fn a_reset_ends_the_pass_and_a_recheck_keeps_the_first_failure_it_cannot_know() {
        let mut s = State::default();
        s.record_check("a", true, None);
        s.record_check("b", false, Some("t1"));
        s.hints_seen.insert("a".into(), 2);
        assert!(s.record_reset("a"));
        assert!(
            !s.passed.contains("a") && s.hints_seen["a"] == 2,
            "hints stay seen"
        );
        assert!(!s.record_reset("a"), "nothing left to change");
        s.record_all(&[("a".into(), true), ("b".into(), false)]);
        assert!(s.passed.contains("a"));
        assert_eq!(s.failing["b"], "t1");
        s.record_all(&[("b".into(), true)]);
        assert!(s.passed.contains("b") && !s.failing.contains_key("b"));
    }

    #[test]
    fn next_unsolved_skips_passed_and_wraps() {
        let m = manifest();
        let mut s = State::default();
        s.passed.insert("b".into());
        assert_eq!(next_unsolved(&m, &s, "a").as_deref(), Some("c"));
        assert_eq!(next_unsolved(&m, &s, "c").as_deref(), Some("a"));
        s.passed.extend(["a".to_string(), "c".to_string()]);
        assert_eq!(next_unsolved(&m, &s, "a"), None);
    }
}
