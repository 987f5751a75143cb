//! The curriculum: `checker/curriculum.toml` gives the order in which a learner meets the
//! katas; each kata's own description is `checker/katas/<name>/kata.toml`, next to everything
//! else the instructor owns of it.
//!
//! ```text
//! exercises/<name>/               the learner's crate: Cargo.toml, README.md, src/ (theirs)
//! checker/katas/<name>/
//!   kata.toml                     title, lesson, points, hints, solutions (below)
//!   given/                        crate `<name>-given`: the types and names the learner's
//!                                 code and the tests share; the kata reaches it as `given`
//!   tests/                        crate `hidden-<name>`: the hidden tests, a library that
//!                                 does not depend on the kata (`katas_testkit::learner!`)
//!   run/                          crate `run-<name>`: the glue binary, kata + tests
//!   starter/                      pristine copy of exercises/<name>/src/ (for `katas reset`)
//!   solutions/                    reference.rs, alt-*.rs, wrong-*.rs
//! ```
//!
//! Design decision: one folder per kata rather than parallel trees (`checker/hidden/<name>`,
//! `checker/starters/<name>`, `checker/solutions/<name>`, one manifest for all). A kata is
//! then one place to read, review, copy or delete, `katas dev new` writes one folder, and two
//! authors adding katas touch different files (the curriculum's order list aside).
//!
//! Design decision: the given part is a crate of the instructor's tree, not a module of the
//! learner's `src/`. Grading takes only `src/**` from a submission, so whatever the learner must
//! not change (the result types the tests compare, their `PartialEq`) has to live outside it,
//! and solutions then hold only the learner's code: no type is written twice.
//!
//! ```toml
//! # checker/curriculum.toml
//! version = 2
//! katas = ["hot-key-sharding", "conditional-stock"]
//!
//! # checker/katas/conditional-stock/kata.toml
//! title = "Conditional stock decrement"
//! track = "model-it"                              # or "build-it"
//! lesson = "01-foundations#conditional-writes"    # lesson file stem + section anchor
//! # folder = "exercises/conditional-stock"        # the default
//! # timeout_secs = 10
//! points = 1                                      # points per hidden test ...
//! hints = ["a nudge", "the concept", "nearly the answer"]
//! # reference = "solutions/reference.rs"         # the default
//!
//! [test_points]                                   # ... unless overridden here
//! no_oversell_under_contention = 3
//!
//! [test_hints]                                    # offered when that test fails
//! no_oversell_under_contention = "Two readers saw the same stock ..."
//!
//! [[alternatives]]                                # other correct solutions: must pass
//! path = "solutions/alt-update-expression.rs"
//!
//! [[wrong]]                                       # known-wrong solutions: must fail
//! path = "solutions/wrong-read-then-put.rs"
//! must_fail = ["no_oversell_under_contention"]
//! why = "read-modify-write oversells when two buyers race"
//! ```
//!
//! Paths in `kata.toml` are relative to the kata's folder; once loaded, every path a [`Kata`]
//! gives is relative to the repository root. A solution path is either one `.rs` file (it
//! becomes `src/lib.rs`) or a directory (it becomes `src/`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

/// The manifest's path relative to the repository root.
pub const MANIFEST_PATH: &str = "checker/curriculum.toml";
/// Where each kata's instructor-side folder is, relative to the repository root.
pub const KATAS_DIR: &str = "checker/katas";
/// The file in a kata's folder that describes it.
pub const KATA_FILE: &str = "kata.toml";
/// The manifest format this checker reads.
pub const MANIFEST_VERSION: u32 = 2;
/// Timeout of one hidden-test run unless the kata sets its own.
pub const DEFAULT_TIMEOUT_SECS: u64 = 10;

/// The whole curriculum.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// Format version; must be [`MANIFEST_VERSION`].
    pub version: u32,
    /// Every kata in order.
    pub katas: Vec<Kata>,
}

/// `checker/curriculum.toml` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Curriculum {
    version: u32,
    #[serde(default)]
    katas: Vec<String>,
}

/// Which half of the curriculum a kata belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Track {
    /// Use the engine as an application would.
    ModelIt,
    /// Implement a piece of the engine's inside.
    BuildIt,
}

impl Track {
    /// How the track is shown to a learner.
    pub fn label(self) -> &'static str {
        match self {
            Track::ModelIt => "Model it",
            Track::BuildIt => "Build it",
        }
    }
}

/// One kata as the manifest describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kata {
    /// Short name, also the kata crate's package name (from the curriculum's list).
    #[serde(skip)]
    pub name: String,
    /// One-line title.
    pub title: String,
    /// Model it / Build it.
    pub track: Track,
    /// Lesson section practised: `<lesson file stem>#<section anchor>`.
    pub lesson: String,
    /// The learner's crate (default `exercises/<name>`).
    #[serde(default)]
    pub folder: Option<PathBuf>,
    /// Timeout of one run of the hidden tests, seconds.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// Points per hidden test unless `test_points` says otherwise.
    #[serde(default = "one")]
    pub points: u32,
    /// Per-test point overrides.
    #[serde(default)]
    pub test_points: BTreeMap<String, u32>,
    /// Three hint levels: a nudge, the concept, nearly the answer.
    #[serde(default)]
    pub hints: Vec<String>,
    /// Hints shown when a given hidden test fails.
    #[serde(default)]
    pub test_hints: BTreeMap<String, String>,
    /// The reference solution.
    #[serde(default)]
    pub reference: Option<PathBuf>,
    /// Other correct solutions (must pass).
    #[serde(default)]
    pub alternatives: Vec<Solution>,
    /// Known-wrong solutions (must fail on the named tests).
    #[serde(default)]
    pub wrong: Vec<WrongSolution>,
}

fn one() -> u32 {
    1
}

/// A correct solution other than the reference.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Solution {
    /// A `.rs` file (becomes `src/lib.rs`) or a directory (becomes `src/`).
    pub path: PathBuf,
}

/// A known-wrong solution: the anti-pattern the kata exists to teach.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WrongSolution {
    /// A `.rs` file (becomes `src/lib.rs`) or a directory (becomes `src/`).
    pub path: PathBuf,
    /// Hidden tests that must fail on it (at least one).
    pub must_fail: Vec<String>,
    /// What is wrong with it, for the authoring report.
    #[serde(default)]
    pub why: String,
}

impl Kata {
    /// The learner's crate, relative to the root.
    pub fn folder(&self) -> PathBuf {
        self.folder
            .clone()
            .unwrap_or_else(|| Path::new("exercises").join(&self.name))
    }
    /// The learner's sources (`<folder>/src`), relative to the root.
    pub fn src_dir(&self) -> PathBuf {
        self.folder().join("src")
    }
    /// The kata's task file.
    pub fn readme(&self) -> PathBuf {
        self.folder().join("README.md")
    }
    /// The kata's instructor-side folder, relative to the root.
    pub fn dir(&self) -> PathBuf {
        Path::new(KATAS_DIR).join(&self.name)
    }
    /// The kata's `kata.toml`, relative to the root.
    pub fn file(&self) -> PathBuf {
        self.dir().join(KATA_FILE)
    }
    /// The given part's crate (types shared by the learner's code and the tests).
    pub fn given(&self) -> PathBuf {
        self.dir().join("given")
    }
    /// The hidden-test library crate, relative to the root.
    pub fn hidden(&self) -> PathBuf {
        self.dir().join("tests")
    }
    /// The glue binary crate that links the kata with its hidden tests.
    pub fn glue(&self) -> PathBuf {
        self.dir().join("run")
    }
    /// The pristine starter sources, relative to the root.
    pub fn starter(&self) -> PathBuf {
        self.dir().join("starter")
    }
    /// The reference solution, relative to the root.
    pub fn reference(&self) -> PathBuf {
        self.reference
            .clone()
            .unwrap_or_else(|| self.dir().join("solutions").join("reference.rs"))
    }
    /// Makes the solution paths of `kata.toml` (relative to the kata's folder) relative to
    /// the root.
    fn resolve_paths(&mut self) {
        let dir = self.dir();
        if let Some(r) = &mut self.reference {
            *r = dir.join(&*r);
        }
        for a in &mut self.alternatives {
            a.path = dir.join(&a.path);
        }
        for w in &mut self.wrong {
            w.path = dir.join(&w.path);
        }
    }
    /// Timeout of one hidden-test run.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS))
    }
    /// Points a hidden test is worth.
    pub fn points_for(&self, test: &str) -> u32 {
        self.test_points.get(test).copied().unwrap_or(self.points)
    }
    /// The lesson stem and section of `lesson` (`"01-foundations#hot-keys"`).
    pub fn lesson_parts(&self) -> (&str, Option<&str>) {
        match self.lesson.split_once('#') {
            Some((stem, section)) => (stem, Some(section)),
            None => (self.lesson.as_str(), None),
        }
    }
}

impl Manifest {
    /// Reads and validates the curriculum under `root` and every kata's `kata.toml`.
    pub fn load(root: &Path) -> Result<Manifest> {
        let path = root.join(MANIFEST_PATH);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Manifest::parse(&text, |name| {
            let path = root.join(KATAS_DIR).join(name).join(KATA_FILE);
            std::fs::read_to_string(&path).with_context(|| {
                format!(
                    "cannot read {} (every kata of {MANIFEST_PATH} has one)",
                    path.display()
                )
            })
        })
        .with_context(|| format!("in {}", path.display()))
    }

    /// Parses and validates curriculum text; `kata_file` gives the text of a kata's
    /// `kata.toml` by name.
    pub fn parse(
        text: &str,
        mut kata_file: impl FnMut(&str) -> Result<String>,
    ) -> Result<Manifest> {
        let curriculum: Curriculum = toml::from_str(text)?;
        if curriculum.version != MANIFEST_VERSION {
            bail!(
                "manifest version {} is not supported (this checker reads version {})",
                curriculum.version,
                MANIFEST_VERSION
            );
        }
        let mut seen = std::collections::BTreeSet::new();
        let mut katas = Vec::new();
        for name in &curriculum.katas {
            if !seen.insert(name.as_str()) {
                bail!("kata `{name}` is listed twice");
            }
            if name.is_empty() || name.contains(['/', '\\', ' ', '.']) {
                bail!("kata name `{name}` must be a plain crate name");
            }
            let text = kata_file(name)?;
            let mut kata: Kata = toml::from_str(&text)
                .with_context(|| format!("in {KATAS_DIR}/{name}/{KATA_FILE}"))?;
            kata.name = name.clone();
            kata.resolve_paths();
            katas.push(kata);
        }
        Ok(Manifest {
            version: curriculum.version,
            katas,
        })
    }

    /// The kata called `name`, or an error that suggests the closest name.
    pub fn kata(&self, name: &str) -> Result<&Kata> {
        if let Some(k) = self.katas.iter().find(|k| k.name == name) {
            return Ok(k);
        }
        match self.closest(name) {
            Some(best) => bail!("there is no kata `{name}`; did you mean `{best}`?"),
            None => bail!("there is no kata `{name}` (`katas list` shows them all)"),
        }
    }

    /// Position of a kata in the curriculum.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.katas.iter().position(|k| k.name == name)
    }

    /// The kata name closest to `name` by edit distance, if any is reasonably close.
    pub fn closest(&self, name: &str) -> Option<&str> {
        self.katas
            .iter()
            .map(|k| (edit_distance(name, &k.name), k.name.as_str()))
            .filter(|(d, k)| *d <= (k.len() / 2).max(3) || k.contains(name))
            .min_by_key(|(d, _)| *d)
            .map(|(_, k)| k)
    }
}

/// Levenshtein distance, for "did you mean".
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const CURRICULUM: &str = r#"
version = 2
katas = ["hot-key-sharding"]
"#;

    const KATA: &str = r#"
title = "Hot keys"
track = "model-it"
lesson = "01-foundations#partitions-and-hot-keys"
points = 2
hints = ["a", "b", "c"]
[test_points]
big = 5
[test_hints]
big = "spread the writes"
[[wrong]]
path = "solutions/wrong-one-key.rs"
must_fail = ["big"]
"#;

    fn parse(curriculum: &str, kata: &str) -> Result<Manifest> {
        Manifest::parse(curriculum, |_| Ok(kata.to_string()))
    }

    #[test]
    fn parses_defaults_and_overrides() {
        let m = parse(CURRICULUM, KATA).unwrap();
        let k = &m.katas[0];
        assert_eq!(k.name, "hot-key-sharding");
        assert_eq!(k.folder(), Path::new("exercises/hot-key-sharding"));
        assert_eq!(
            k.hidden(),
            Path::new("checker/katas/hot-key-sharding/tests")
        );
        assert_eq!(
            k.reference(),
            Path::new("checker/katas/hot-key-sharding/solutions/reference.rs")
        );
        assert_eq!(
            k.wrong[0].path,
            Path::new("checker/katas/hot-key-sharding/solutions/wrong-one-key.rs")
        );
        assert_eq!(k.points_for("big"), 5);
        assert_eq!(k.points_for("small"), 2);
        assert_eq!(
            k.lesson_parts(),
            ("01-foundations", Some("partitions-and-hot-keys"))
        );
        assert_eq!(k.wrong[0].must_fail, vec!["big"]);
    }

    #[test]
    fn suggests_the_closest_name() {
        let m = parse(CURRICULUM, KATA).unwrap();
        let err = m.kata("hot-key-shardin").unwrap_err().to_string();
        assert!(err.contains("did you mean `hot-key-sharding`"), "{err}");
        assert!(m
            .kata("zzz")
            .unwrap_err()
            .to_string()
            .contains("katas list"));
    }

    #[test]
    fn rejects_other_versions_typos_and_doubles() {
        assert!(parse("version = 1", KATA).is_err());
        let typo = KATA.replace("points = 2", "pionts = 2");
        assert!(parse(CURRICULUM, &typo).is_err());
        let twice = CURRICULUM.replace(r#"["hot-key-sharding"]"#, r#"["a", "a"]"#);
        assert!(format!("{:#}", parse(&twice, KATA).unwrap_err()).contains("twice"));
    }
}
