//! The grade report in the formats instructors feed to gradebooks, CI dashboards and
//! Gradescope. Every format renders the same [`Grades`].

mod csv;
mod gradescope;
mod junit;
mod table;

use anyhow::Result;
use clap::ValueEnum;

use super::Grades;

/// An output format of `katas grade`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A readable table (the default).
    Table,
    /// The whole report, schema `katas-grade/1` (see the README).
    Json,
    /// One row per learner, one column per kata, then total and max.
    Csv,
    /// JUnit XML: one testsuite per learner and kata, one testcase per hidden test.
    Junit,
    /// Gradescope's autograder `results.json` (one submission).
    Gradescope,
}

/// Who sees a Gradescope test's failure output, and when (Gradescope's `visibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Students see it at once.
    Visible,
    /// Only instructors.
    Hidden,
    /// Students see it once the due date has passed (the default: a failure message can
    /// quote the hidden tests' values).
    AfterDueDate,
    /// Students see it once grades are published.
    AfterPublished,
}

impl Visibility {
    /// Gradescope's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
        }
    }
}

/// Renders `grades` as `format`.
pub fn render(grades: &Grades, format: Format, color: bool) -> Result<String> {
    Ok(match format {
        Format::Table => table::render(grades, color),
        Format::Json => serde_json::to_string_pretty(grades)? + "\n",
        Format::Csv => csv::render(grades),
        Format::Junit => junit::render(grades),
        Format::Gradescope => gradescope::render(grades)?,
    })
}

/// Everything a failed test said, as plain text (for JUnit bodies and Gradescope output).
fn test_text(t: &super::TestGrade) -> String {
    let mut s = String::new();
    if let Some(m) = &t.message {
        s.push_str(m);
        s.push('\n');
    }
    if let Some(e) = &t.expected {
        s.push_str("expected:\n");
        s.push_str(e);
        s.push('\n');
    }
    if let Some(a) = &t.actual {
        s.push_str("actual:\n");
        s.push_str(a);
        s.push('\n');
    }
    if let Some(seed) = t.seed {
        s.push_str(&format!("seed: {seed}\n"));
    }
    s
}
