//! The curriculum manifest, `checker/curriculum.toml`: every kata, in the order a learner meets
//! them, and everything the checker knows about each one.
//!
//! ```toml
//! version = 1
//!
//! [[katas]]
//! name = "conditional-stock"                      # also the kata crate's package name
//! title = "Conditional stock decrement"
//! track = "model-it"                              # or "build-it"
//! lesson = "02-writes#conditional-writes"         # lesson file stem + section anchor
//! # folder  = "exercises/conditional-stock"       # defaults shown
//! # hidden  = "checker/hidden/conditional-stock"  # crate `hidden-conditional-stock`, a binary
//! # starter = "checker/starters/conditional-stock"  # pristine copy of src/, for `katas reset`
//! # timeout_secs = 10
//! points = 1                                      # points per hidden test ...
//! hints = ["a nudge", "the concept", "nearly the answer"]
//! reference = "checker/solutions/conditional-stock/reference.rs"
//!
//! [katas.test_points]                             # ... unless overridden here
//! no_oversell_under_contention = 3
//!
//! [katas.test_hints]                              # shown when that test fails
//! no_oversell_under_contention = "Two readers saw the same stock ..."
//!
//! [[katas.alternatives]]                          # other correct solutions: must pass
//! path = "checker/solutions/conditional-stock/alt-update-expression.rs"
//!
//! [[katas.wrong]]                                 # known-wrong solutions: must fail
//! path = "checker/solutions/conditional-stock/wrong-read-then-put.rs"
//! must_fail = ["no_oversell_under_contention"]
//! why = "read-modify-write oversells when two buyers race"
//! ```
//!
//! A solution path is either one `.rs` file (it becomes `src/lib.rs`) or a directory (it
//! becomes `src/`). All paths are relative to the repository root.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

/// The manifest's path relative to the repository root.
pub const MANIFEST_PATH: &str = "checker/curriculum.toml";
/// The manifest format this checker reads.
pub const MANIFEST_VERSION: u32 = 1;
/// Timeout of one hidden-test run unless the kata sets its own.
pub const DEFAULT_TIMEOUT_SECS: u64 = 10;

/// The whole curriculum.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Format version; must be [`MANIFEST_VERSION`].
    pub version: u32,
    /// Every kata in order.
    #[serde(default)]
    pub katas: Vec<Kata>,
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
    /// Short name, also the kata crate's package name.
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
    /// The hidden-test crate (default `checker/hidden/<name>`).
    #[serde(default)]
    pub hidden: Option<PathBuf>,
    /// Pristine copy of the starter's `src/` (default `checker/starters/<name>`).
    #[serde(default)]
    pub starter: Option<PathBuf>,
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
    /// The hidden-test crate, relative to the root.
    pub fn hidden(&self) -> PathBuf {
        self.hidden
            .clone()
            .unwrap_or_else(|| Path::new("checker/hidden").join(&self.name))
    }
    /// The pristine starter sources, relative to the root.
    pub fn starter(&self) -> PathBuf {
        self.starter
            .clone()
            .unwrap_or_else(|| Path::new("checker/starters").join(&self.name))
    }
    /// The reference solution, relative to the root.
    pub fn reference(&self) -> PathBuf {
        self.reference.clone().unwrap_or_else(|| {
            Path::new("checker/solutions")
                .join(&self.name)
                .join("reference.rs")
        })
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
    /// Reads and validates the manifest under `root`.
    pub fn load(root: &Path) -> Result<Manifest> {
        let path = root.join(MANIFEST_PATH);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Manifest::parse(&text).with_context(|| format!("in {}", path.display()))
    }

    /// Parses and validates manifest text.
    pub fn parse(text: &str) -> Result<Manifest> {
        let manifest: Manifest = toml::from_str(text)?;
        if manifest.version != MANIFEST_VERSION {
            bail!(
                "manifest version {} is not supported (this checker reads version {})",
                manifest.version,
                MANIFEST_VERSION
            );
        }
        let mut seen = std::collections::BTreeSet::new();
        for k in &manifest.katas {
            if !seen.insert(k.name.as_str()) {
                bail!("kata `{}` is listed twice", k.name);
            }
            if k.name.is_empty() || k.name.contains(['/', '\\', ' ']) {
                bail!("kata name `{}` must be a plain crate name", k.name);
            }
        }
        Ok(manifest)
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

    const SAMPLE: &str = r#"
version = 1
[[katas]]
name = "hot-key-sharding"
title = "Hot keys"
track = "model-it"
lesson = "01-foundations#partitions-and-hot-keys"
points = 2
hints = ["a", "b", "c"]
[katas.test_points]
big = 5
[katas.test_hints]
big = "spread the writes"
[[katas.wrong]]
path = "checker/solutions/hot-key-sharding/wrong-one-key.rs"
must_fail = ["big"]
"#;

    #[test]
    fn parses_defaults_and_overrides() {
        let m = Manifest::parse(SAMPLE).unwrap();
        let k = &m.katas[0];
        assert_eq!(k.folder(), Path::new("exercises/hot-key-sharding"));
        assert_eq!(k.hidden(), Path::new("checker/hidden/hot-key-sharding"));
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
        let m = Manifest::parse(SAMPLE).unwrap();
        let err = m.kata("hot-key-shardin").unwrap_err().to_string();
        assert!(err.contains("did you mean `hot-key-sharding`"), "{err}");
        assert!(m
            .kata("zzz")
            .unwrap_err()
            .to_string()
            .contains("katas list"));
    }

    #[test]
    fn rejects_other_versions_and_typos() {
        assert!(Manifest::parse("version = 2").is_err());
        let typo = SAMPLE.replace("points = 2", "pionts = 2");
        assert!(Manifest::parse(&typo).is_err());
    }
}
