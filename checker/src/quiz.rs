//! `katas quiz [N]`: a lesson's "check yourself" questions, asked in the terminal.
//!
//! Each lesson has one quiz file, `lessons/quizzes/<lesson>.json`, holding three kinds of
//! question: multiple choice (`choice`, answered with a letter or a 1-based number),
//! true/false (`true_false`) and numeric (`numeric`, capacity arithmetic, item sizes,
//! partition counts; compared within a tolerance). Every question carries an explanation
//! that is shown after the learner answers, right or wrong: the quiz teaches, it does not
//! only grade.
//!
//! Loading validates the file so that a broken question fails `cargo test` rather than a
//! learner: exactly one valid answer (a choice index in range over distinct choices, a
//! boolean, or a finite number), at least two choices, unique ids, non-empty prompts and
//! explanations.
//!
//! Running reads answers line by line from any `BufRead` and writes to any `Write`, so a test
//! can script a whole session. Bad input is re-asked once with a hint; a second bad answer
//! counts as wrong. End of input (or `quit`) ends the quiz early and scores what was answered.
//!
//! Design decisions:
//! - **Choices are shuffled per attempt, from a seed** ([`arrange`]). A quiz whose right answer
//!   sits at the same letter every time teaches the letter, not the fact. The seed is printed
//!   at the start, and `--seed N` asks the same attempt again (a learner can replay it, a test
//!   can script it). Without `--seed` a fresh seed is drawn; the checker may use randomness,
//!   only the engine may not.
//! - **Positions are balanced, not merely random.** Independent shuffles of 30 questions still
//!   put the answer at one letter 12 times now and then; [`arrange`] instead deals the answer
//!   positions like cards — each letter gets its share (±1) of the questions with that many
//!   choices — and shuffles the deck, then fills the other slots with the distractors in random
//!   order. So no letter is a better guess than another in any attempt.
//! - **Questions belong to lesson sections.** `--section <anchor>` asks only the questions of
//!   that section and of the sections under it (the heading tree of the lesson file), so a
//!   lesson can end each section with the command that checks it.

use std::collections::BTreeSet;
use std::hash::{BuildHasher, Hasher};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context};
use serde::Deserialize;

/// Where quiz files live, relative to the repository root.
const QUIZ_DIR: &str = "lessons/quizzes";
/// Where the lessons live, for the heading tree behind `--section`.
const LESSON_DIR: &str = "lessons/src";
/// Absolute slack when comparing numeric answers, so that `0.1 + 0.2`-style float noise never
/// turns a right answer wrong.
const FLOAT_SLACK: f64 = 1e-9;

const HINT_CHOICE: &str = "Please answer with a letter (a, b, …) or a number (1, 2, …).";
const HINT_TRUE_FALSE: &str = "Please answer t or f (true/false, y/n also work).";
const HINT_NUMERIC: &str = "Please answer with a number, e.g. 12 or 1.5.";
const QUIT_WORDS: [&str; 3] = ["quit", "exit", ":q"];
/// Prompts and explanations are wrapped to this many columns.
const TEXT_WIDTH: usize = 78;

/// One lesson's quiz, validated.
#[derive(Debug, Clone)]
pub struct Quiz {
    /// Lesson id, e.g. `01-foundations`.
    pub lesson: String,
    /// Title shown before the first question.
    pub title: String,
    pub questions: Vec<Question>,
}

/// One question, validated.
#[derive(Debug, Clone)]
pub struct Question {
    /// Stable id, e.g. `01-q07`; the coverage table refers to it.
    pub id: String,
    pub prompt: String,
    pub answer: Answer,
    pub explanation: String,
    /// Slug of the lesson section the question checks.
    pub section: String,
}

/// The expected answer, by kind of question.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Multiple choice; `correct` is a 0-based index into `choices`.
    Choice {
        choices: Vec<String>,
        correct: usize,
    },
    TrueFalse(bool),
    Numeric {
        value: f64,
        tolerance: f64,
        unit: Option<String>,
    },
}

/// The result of one quiz session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuizOutcome {
    pub lesson: String,
    /// Questions answered correctly.
    pub correct: u32,
    /// Questions answered (fewer than the quiz holds if input ended early), resumed ones
    /// included.
    pub total: u32,
    /// Questions the attempt holds: `total < asked` is a partial attempt.
    pub asked: u32,
    /// The attempt's seed (a resumed attempt keeps its seed, so the same order).
    pub seed: u64,
}

impl QuizOutcome {
    /// Whether every question of the attempt was answered.
    pub fn complete(&self) -> bool {
        self.total == self.asked
    }
}

/// Where a stopped attempt is taken up again: its seed (the same choices in the same order)
/// and what had been answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    /// The attempt's seed.
    pub seed: u64,
    /// Questions answered, from the first.
    pub answered: u32,
    /// Of those, answered right.
    pub correct: u32,
}

/// How one attempt is asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// Only the questions of this lesson section (an anchor such as `consistency`) and of the
    /// sections under it.
    pub section: Option<&'a str>,
    /// The seed that orders the choices; `None` draws a fresh one (printed, so the attempt can
    /// be asked again).
    pub seed: Option<u64>,
}

/// The file format, exactly as written; turned into [`Quiz`] by [`load`] after validation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuiz {
    version: u32,
    lesson: String,
    title: String,
    questions: Vec<RawQuestion>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuestion {
    id: String,
    kind: String,
    prompt: String,
    #[serde(default)]
    choices: Option<Vec<String>>,
    answer: serde_json::Value,
    #[serde(default)]
    tolerance: Option<f64>,
    #[serde(default)]
    unit: Option<String>,
    explanation: String,
    section: String,
}

/// Load and validate a quiz file.
pub fn load(path: &Path) -> anyhow::Result<Quiz> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let raw: RawQuiz =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    validate(raw).with_context(|| format!("invalid quiz {}", path.display()))
}

fn validate(raw: RawQuiz) -> anyhow::Result<Quiz> {
    ensure!(
        raw.version == 1,
        "unsupported quiz version {} (expected 1)",
        raw.version
    );
    ensure!(!raw.lesson.trim().is_empty(), "the lesson id is empty");
    ensure!(!raw.questions.is_empty(), "the quiz has no questions");
    let mut ids = BTreeSet::new();
    let mut questions = Vec::with_capacity(raw.questions.len());
    for q in raw.questions {
        let id = q.id.clone();
        ensure!(!id.trim().is_empty(), "a question has an empty id");
        ensure!(ids.insert(id.clone()), "duplicate question id {id}");
        questions.push(validate_question(q).with_context(|| format!("question {id}"))?);
    }
    Ok(Quiz {
        lesson: raw.lesson,
        title: raw.title,
        questions,
    })
}

fn validate_question(q: RawQuestion) -> anyhow::Result<Question> {
    ensure!(!q.prompt.trim().is_empty(), "empty prompt");
    ensure!(!q.explanation.trim().is_empty(), "empty explanation");
    ensure!(!q.section.trim().is_empty(), "empty section");
    let only_numeric_fields = |kind: &str| -> anyhow::Result<()> {
        ensure!(
            q.tolerance.is_none() && q.unit.is_none(),
            "`tolerance` and `unit` belong to numeric questions, not {kind}"
        );
        Ok(())
    };
    let answer = match q.kind.as_str() {
        "choice" => {
            only_numeric_fields("choice")?;
            let choices = q
                .choices
                .clone()
                .context("a choice question needs `choices`")?;
            ensure!(choices.len() >= 2, "needs at least 2 choices");
            ensure!(choices.len() <= 26, "at most 26 choices (a–z)");
            ensure!(
                choices.iter().all(|c| !c.trim().is_empty()),
                "a choice is empty"
            );
            let distinct: BTreeSet<String> =
                choices.iter().map(|c| c.trim().to_lowercase()).collect();
            ensure!(
                distinct.len() == choices.len(),
                "two choices are the same, so more than one answer would be valid"
            );
            let index = q
                .answer
                .as_u64()
                .context("`answer` of a choice question must be a 0-based index")?;
            let correct = usize::try_from(index).unwrap_or(usize::MAX);
            ensure!(
                correct < choices.len(),
                "answer index {index} is out of range ({} choices)",
                choices.len()
            );
            Answer::Choice { choices, correct }
        }
        "true_false" => {
            only_numeric_fields("true_false")?;
            ensure!(q.choices.is_none(), "a true_false question has no choices");
            let value = q
                .answer
                .as_bool()
                .context("`answer` of a true_false question must be true or false")?;
            Answer::TrueFalse(value)
        }
        "numeric" => {
            ensure!(q.choices.is_none(), "a numeric question has no choices");
            let value = q
                .answer
                .as_f64()
                .context("`answer` of a numeric question must be a number")?;
            ensure!(value.is_finite(), "numeric answer is not finite");
            let tolerance = q.tolerance.unwrap_or(0.0);
            ensure!(
                tolerance.is_finite() && tolerance >= 0.0,
                "tolerance must be a finite number ≥ 0"
            );
            Answer::Numeric {
                value,
                tolerance,
                unit: q.unit.clone().filter(|u| !u.trim().is_empty()),
            }
        }
        other => bail!("unknown kind {other:?} (expected choice, true_false or numeric)"),
    };
    Ok(Question {
        id: q.id,
        prompt: q.prompt,
        answer,
        explanation: q.explanation,
        section: q.section,
    })
}

/// Ask the lesson's questions in lesson order, choices shuffled from `options.seed`, reading
/// answers from `input`; score them.
///
/// `lesson` is "1", "01", "01-foundations" or a unique prefix. Without one, the available
/// quizzes are listed and the first line of input picks one (an empty line picks the first).
pub fn run(
    root: &Path,
    lesson: Option<&str>,
    options: &Options<'_>,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> anyhow::Result<QuizOutcome> {
    run_resuming(root, lesson, options, |_| None, input, out)
}

/// [`run`], taking up the stopped attempt `resume` gives for the chosen lesson (its seed,
/// the questions already answered skipped, their score kept). A `resume` that no longer fits
/// (the quiz has fewer questions now) starts over.
pub fn run_resuming(
    root: &Path,
    lesson: Option<&str>,
    options: &Options<'_>,
    resume: impl Fn(&str) -> Option<Resume>,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> anyhow::Result<QuizOutcome> {
    let available = quiz_files(root)?;
    let names: Vec<String> = available.iter().map(|(name, _)| name.clone()).collect();
    let chosen = match lesson {
        Some(query) => super::lesson::resolve_name(&names, query, "quiz")?,
        None => match pick_interactively(&names, input, out)? {
            Some(name) => name,
            None => bail!("no quiz chosen (input ended)"),
        },
    };
    let path = &available
        .iter()
        .find(|(name, _)| *name == chosen)
        .context("resolved quiz vanished")?
        .1;
    let mut quiz = load(path)?;
    if let Some(section) = options.section {
        let lesson_md = std::fs::read_to_string(root.join(LESSON_DIR).join(format!("{chosen}.md")))
            .unwrap_or_default();
        quiz.questions = questions_of_section(&quiz, &lesson_md, section)?;
    }
    let resume = resume(&chosen)
        .filter(|_| options.section.is_none() && options.seed.is_none())
        .filter(|r| (r.answered as usize) < quiz.questions.len() && r.correct <= r.answered);
    let seed = resume
        .map(|r| r.seed)
        .or(options.seed)
        .unwrap_or_else(fresh_seed);
    let asked = Quiz {
        questions: arrange(&quiz.questions, seed),
        ..quiz
    };
    writeln!(
        out,
        "Choices are shuffled for this attempt (seed {seed}); \
         `cargo katas quiz {chosen}{} --seed {seed}` asks it the same way again.",
        options
            .section
            .map(|s| format!(" --section {s}"))
            .unwrap_or_default()
    )?;
    if let Some(r) = resume {
        writeln!(
            out,
            "Taking up your stopped attempt at question {} ({} answered, {} right); \
             `cargo katas quiz {chosen} --restart` starts over.",
            r.answered + 1,
            r.answered,
            r.correct
        )?;
    }
    ask_all(&asked, options.section, resume, seed, input, out)
}

/// The questions of `section` and of every section under it in `lesson_md`'s heading tree,
/// in quiz order. Without the lesson file only exact matches count.
pub fn questions_of_section(
    quiz: &Quiz,
    lesson_md: &str,
    section: &str,
) -> anyhow::Result<Vec<Question>> {
    let headings = super::lesson::headings(lesson_md);
    let mut wanted = BTreeSet::from([section.to_string()]);
    if let Some(i) = headings.iter().position(|(_, anchor, _)| anchor == section) {
        let level = headings[i].0;
        wanted.extend(
            headings[i + 1..]
                .iter()
                .take_while(|(l, _, _)| *l > level)
                .map(|(_, anchor, _)| anchor.clone()),
        );
    }
    let picked: Vec<Question> = quiz
        .questions
        .iter()
        .filter(|q| wanted.contains(&q.section))
        .cloned()
        .collect();
    if picked.is_empty() {
        let mut with_questions: Vec<&str> = Vec::new();
        for q in &quiz.questions {
            if !with_questions.contains(&q.section.as_str()) {
                with_questions.push(&q.section);
            }
        }
        bail!(
            "no questions for section {section:?} in {}; sections with questions: {}",
            quiz.lesson,
            with_questions.join(", ")
        );
    }
    Ok(picked)
}

/// A seed for an attempt nobody asked to replay: the standard library's per-process random
/// hasher keys, so no clock and no extra crate.
fn fresh_seed() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x9e37_79b9_7f4a_7c15);
    h.finish() % 1_000_000
}

/// SplitMix64: a tiny, well-mixed generator; the same seed gives the same attempt on every
/// platform.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n ≥ 1); the modulo bias is below 2⁻⁵⁰ for the n a quiz has.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// The questions as one attempt asks them: the same questions in the same order, each choice
/// question's choices reordered. The right answers' positions are dealt evenly: among the
/// questions with n choices, every position is right for ⌊k/n⌋ or ⌈k/n⌉ of the k questions,
/// in an order shuffled from `seed`; the distractors fill the other positions in random
/// order. True/false and numeric questions are unchanged.
pub fn arrange(questions: &[Question], seed: u64) -> Vec<Question> {
    let mut rng = SplitMix64(seed);
    let mut by_count: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, q) in questions.iter().enumerate() {
        if let Answer::Choice { choices, .. } = &q.answer {
            by_count.entry(choices.len()).or_default().push(i);
        }
    }
    let mut target = vec![0usize; questions.len()];
    for (n, members) in &by_count {
        // Deal positions 0..n round-robin, starting at a random position so that when k is
        // not a multiple of n the extra ones do not always go to the first letters.
        let start = rng.below(*n);
        let mut deck: Vec<usize> = (0..members.len()).map(|i| (start + i) % n).collect();
        rng.shuffle(&mut deck);
        for (q, pos) in members.iter().zip(deck) {
            target[*q] = pos;
        }
    }
    questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let Answer::Choice { choices, correct } = &q.answer else {
                return q.clone();
            };
            let mut others: Vec<&String> = choices
                .iter()
                .enumerate()
                .filter(|(j, _)| j != correct)
                .map(|(_, c)| c)
                .collect();
            rng.shuffle(&mut others);
            let mut arranged: Vec<String> = others.into_iter().cloned().collect();
            arranged.insert(target[i], choices[*correct].clone());
            Question {
                answer: Answer::Choice {
                    choices: arranged,
                    correct: target[i],
                },
                ..q.clone()
            }
        })
        .collect()
}

/// The quiz files under `root`, sorted by name, as (lesson id, path).
/// The quiz file of lesson `name` (`01-foundations`), whether or not it exists.
pub fn file_of(root: &Path, name: &str) -> PathBuf {
    root.join(QUIZ_DIR).join(format!("{name}.json"))
}

fn quiz_files(root: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    let dir = root.join(QUIZ_DIR);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "json") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                files.push((stem.to_string(), path.clone()));
            }
        }
    }
    files.sort();
    ensure!(!files.is_empty(), "no quizzes found in {}", dir.display());
    Ok(files)
}

fn pick_interactively(
    names: &[String],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> anyhow::Result<Option<String>> {
    writeln!(out, "Quizzes:")?;
    for (i, name) in names.iter().enumerate() {
        writeln!(out, "  {}) {name}", i + 1)?;
    }
    write!(out, "Which one? [1] ")?;
    out.flush()?;
    let Some(line) = read_answer(input)? else {
        writeln!(out)?;
        return Ok(None);
    };
    if line.is_empty() {
        return Ok(Some(names[0].clone()));
    }
    if let Ok(n) = line.parse::<usize>() {
        if (1..=names.len()).contains(&n) {
            return Ok(Some(names[n - 1].clone()));
        }
    }
    super::lesson::resolve_name(names, &line, "quiz").map(Some)
}

/// Read one line; `None` at end of input. Trims surrounding whitespace.
fn read_answer(input: &mut dyn BufRead) -> anyhow::Result<Option<String>> {
    let mut line = String::new();
    let n = input.read_line(&mut line).context("reading an answer")?;
    if n == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim().to_string()))
}

/// What the learner typed, interpreted for the question's kind.
#[derive(Debug, Clone, PartialEq)]
enum Parsed {
    Choice(usize),
    Bool(bool),
    Number(f64),
}

fn parse_answer(answer: &Answer, text: &str) -> Option<Parsed> {
    let t = text.trim().to_lowercase();
    match answer {
        Answer::Choice { choices, .. } => {
            let t = t.trim_end_matches([')', '.']);
            if t.len() == 1 {
                let c = t.chars().next()?;
                if c.is_ascii_lowercase() {
                    let i = (c as u8 - b'a') as usize;
                    return (i < choices.len()).then_some(Parsed::Choice(i));
                }
            }
            let n: usize = t.parse().ok()?;
            n.checked_sub(1)
                .filter(|i| *i < choices.len())
                .map(Parsed::Choice)
        }
        Answer::TrueFalse(_) => match t.as_str() {
            "t" | "true" | "y" | "yes" => Some(Parsed::Bool(true)),
            "f" | "false" | "n" | "no" => Some(Parsed::Bool(false)),
            _ => None,
        },
        Answer::Numeric { unit, .. } => {
            let mut s = t.replace([',', '_', ' '], "");
            if let Some(u) = unit {
                let u = u.to_lowercase().replace(' ', "");
                if let Some(stripped) = s.strip_suffix(&u) {
                    s = stripped.to_string();
                }
            }
            let v: f64 = s.parse().ok()?;
            v.is_finite().then_some(Parsed::Number(v))
        }
    }
}

fn is_correct(answer: &Answer, given: &Parsed) -> bool {
    match (answer, given) {
        (Answer::Choice { correct, .. }, Parsed::Choice(i)) => correct == i,
        (Answer::TrueFalse(v), Parsed::Bool(b)) => v == b,
        (
            Answer::Numeric {
                value, tolerance, ..
            },
            Parsed::Number(x),
        ) => (x - value).abs() <= tolerance + FLOAT_SLACK,
        _ => false,
    }
}

fn hint(answer: &Answer) -> &'static str {
    match answer {
        Answer::Choice { .. } => HINT_CHOICE,
        Answer::TrueFalse(_) => HINT_TRUE_FALSE,
        Answer::Numeric { .. } => HINT_NUMERIC,
    }
}

/// The right answer, as shown after a wrong one.
fn describe(answer: &Answer) -> String {
    match answer {
        Answer::Choice { choices, correct } => {
            format!("{}) {}", letter(*correct), choices[*correct])
        }
        Answer::TrueFalse(v) => if *v { "true" } else { "false" }.to_string(),
        Answer::Numeric {
            value,
            tolerance,
            unit,
        } => {
            let mut s = format_number(*value);
            if *tolerance > 0.0 {
                s.push_str(&format!(" (± {})", format_number(*tolerance)));
            }
            if let Some(u) = unit {
                s.push(' ');
                s.push_str(u);
            }
            s
        }
    }
}

/// Word-wrap `text` to [`TEXT_WIDTH`] columns with [`crate::text::wrap`]; the first line
/// starts with `first`, the others with `rest` (spaces). Line breaks in the TOML text are
/// spaces: a question is one paragraph.
fn wrap_text(text: &str, first: &str, rest: &str) -> String {
    let line = format!(
        "{first}{}",
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    let lead = first.len() - first.trim_start_matches(' ').len();
    let hang = rest.len().saturating_sub(lead);
    crate::text::wrap(&line, TEXT_WIDTH, hang).join("\n")
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn letter(i: usize) -> char {
    (b'a' + i as u8) as char
}

/// Ask every question of `quiz`; stops early at end of input or on a quit word.
fn ask_all(
    quiz: &Quiz,
    section: Option<&str>,
    resume: Option<Resume>,
    seed: u64,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> anyhow::Result<QuizOutcome> {
    let count = quiz.questions.len();
    match section {
        Some(s) => writeln!(out, "{} — section {s}", quiz.title)?,
        None => writeln!(out, "{}", quiz.title)?,
    }
    writeln!(
        out,
        "{count} questions. Type your answer and press Enter; `quit` or end of input stops early."
    )?;
    let mut outcome = QuizOutcome {
        lesson: quiz.lesson.clone(),
        correct: resume.map_or(0, |r| r.correct),
        total: resume.map_or(0, |r| r.answered),
        asked: count as u32,
        seed,
    };
    let skip = outcome.total as usize;
    'questions: for (n, q) in quiz.questions.iter().enumerate().skip(skip) {
        writeln!(out)?;
        writeln!(out, "Question {} of {count} [{}]", n + 1, q.id)?;
        writeln!(out, "{}", wrap_text(&q.prompt, "", ""))?;
        let prompt = match &q.answer {
            Answer::Choice { choices, .. } => {
                for (i, c) in choices.iter().enumerate() {
                    let marker = format!("  {}) ", letter(i));
                    writeln!(out, "{}", wrap_text(c, &marker, "     "))?;
                }
                format!("Your answer (a–{}): ", letter(choices.len() - 1))
            }
            Answer::TrueFalse(_) => "True or false? (t/f): ".to_string(),
            Answer::Numeric { unit: Some(u), .. } => format!("Your answer ({u}): "),
            Answer::Numeric { unit: None, .. } => "Your answer: ".to_string(),
        };
        let mut parsed = None;
        for attempt in 0..2 {
            write!(out, "{prompt}")?;
            out.flush()?;
            let Some(line) = read_answer(input)? else {
                writeln!(out)?;
                break 'questions;
            };
            if QUIT_WORDS.contains(&line.to_lowercase().as_str()) {
                break 'questions;
            }
            parsed = parse_answer(&q.answer, &line);
            if parsed.is_some() {
                break;
            }
            if attempt == 0 {
                writeln!(out, "  {}", hint(&q.answer))?;
            }
        }
        outcome.total += 1;
        let right = parsed.as_ref().is_some_and(|p| is_correct(&q.answer, p));
        if right {
            outcome.correct += 1;
            writeln!(out, "✔ Right.")?;
        } else if parsed.is_none() {
            writeln!(
                out,
                "✘ No valid answer; counted as wrong. The answer is {}.",
                describe(&q.answer)
            )?;
        } else {
            writeln!(out, "✘ Not quite. The answer is {}.", describe(&q.answer))?;
        }
        writeln!(out, "{}", wrap_text(&q.explanation, "  ", "  "))?;
    }
    writeln!(out)?;
    if outcome.total < count as u32 {
        writeln!(
            out,
            "Quiz ended early: {} of {count} questions answered.",
            outcome.total
        )?;
    }
    match section {
        Some(s) => writeln!(
            out,
            "Score: {}/{} ({}, section {s})",
            outcome.correct, outcome.total, quiz.lesson
        )?,
        None => writeln!(
            out,
            "Score: {}/{} ({})",
            outcome.correct, outcome.total, quiz.lesson
        )?,
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(value: f64, tolerance: f64, unit: Option<&str>) -> Answer {
        Answer::Numeric {
            value,
            tolerance,
            unit: unit.map(str::to_string),
        }
    }

    #[test]
    fn parses_letters_numbers_and_units() {
        let choice = Answer::Choice {
            choices: vec!["x".into(), "y".into(), "z".into()],
            correct: 2,
        };
        assert_eq!(parse_answer(&choice, "C"), Some(Parsed::Choice(2)));
        assert_eq!(parse_answer(&choice, "b)"), Some(Parsed::Choice(1)));
        assert_eq!(parse_answer(&choice, "3"), Some(Parsed::Choice(2)));
        assert_eq!(parse_answer(&choice, "d"), None);
        assert_eq!(parse_answer(&choice, "0"), None);
        let tf = Answer::TrueFalse(true);
        assert_eq!(parse_answer(&tf, "Y"), Some(Parsed::Bool(true)));
        assert_eq!(parse_answer(&tf, "false"), Some(Parsed::Bool(false)));
        assert_eq!(parse_answer(&tf, "maybe"), None);
        let n = numeric(40000.0, 0.0, Some("writes/s"));
        assert_eq!(
            parse_answer(&n, "40,000 writes/s"),
            Some(Parsed::Number(40000.0))
        );
        assert_eq!(parse_answer(&n, "1.5"), Some(Parsed::Number(1.5)));
        assert_eq!(parse_answer(&n, "lots"), None);
        assert_eq!(parse_answer(&n, "inf"), None);
    }

    #[test]
    fn numeric_answers_respect_tolerance() {
        let a = numeric(333.0, 1.0, None);
        assert!(is_correct(&a, &Parsed::Number(333.3)));
        assert!(is_correct(&a, &Parsed::Number(334.0)));
        assert!(!is_correct(&a, &Parsed::Number(335.0)));
        let exact = numeric(0.3, 0.0, None);
        assert!(is_correct(&exact, &Parsed::Number(0.1 + 0.2)));
    }

    fn choice_question(id: usize, n: usize, correct: usize) -> Question {
        Question {
            id: format!("01-q{id:02}"),
            prompt: "p".into(),
            answer: Answer::Choice {
                choices: (0..n).map(|c| format!("q{id} choice {c}")).collect(),
                correct,
            },
            explanation: "e".into(),
            section: "s".into(),
        }
    }

    #[test]
    fn arrange_deals_answer_positions_evenly_and_keeps_the_right_text() {
        // 30 four-choice questions all stored with the answer first, and 7 three-choice ones.
        let mut bank: Vec<Question> = (0..30).map(|i| choice_question(i, 4, 0)).collect();
        bank.extend((30..37).map(|i| choice_question(i, 3, 2)));
        for seed in 0..50 {
            let asked = arrange(&bank, seed);
            let mut per_position = [[0u32; 4]; 5];
            for (original, q) in bank.iter().zip(&asked) {
                let (
                    Answer::Choice {
                        choices: c0,
                        correct: k0,
                    },
                    Answer::Choice { choices, correct },
                ) = (&original.answer, &q.answer)
                else {
                    unreachable!()
                };
                assert_eq!(
                    choices[*correct], c0[*k0],
                    "the right answer moved with its text"
                );
                let mut sorted = choices.clone();
                sorted.sort();
                let mut before = c0.clone();
                before.sort();
                assert_eq!(sorted, before, "the same choices, reordered");
                per_position[choices.len()][*correct] += 1;
            }
            // 30 over 4 positions: 7 or 8 each; 7 over 3: 2 or 3 each.
            assert!(
                per_position[4].iter().all(|n| (7..=8).contains(n)),
                "{per_position:?}"
            );
            assert!(
                per_position[3][..3].iter().all(|n| (2..=3).contains(n)),
                "{per_position:?}"
            );
        }
    }

    #[test]
    fn arrange_replays_from_its_seed_and_differs_between_seeds() {
        let bank: Vec<Question> = (0..12).map(|i| choice_question(i, 4, 1)).collect();
        let order = |seed| -> Vec<Vec<String>> {
            arrange(&bank, seed)
                .into_iter()
                .map(|q| match q.answer {
                    Answer::Choice { choices, .. } => choices,
                    _ => unreachable!(),
                })
                .collect()
        };
        assert_eq!(order(7), order(7));
        assert_ne!(order(7), order(8));
    }

    #[test]
    fn a_section_takes_its_subsections_questions() {
        let md = "# L\n\n## Capacity modes\n\n### Capacity units\n\n### On-demand mode\n\n## Partitions\n";
        let mut q = choice_question(1, 2, 0);
        q.section = "on-demand-mode".into();
        let mut other = choice_question(2, 2, 0);
        other.section = "partitions".into();
        let quiz = Quiz {
            lesson: "01-x".into(),
            title: "t".into(),
            questions: vec![q, other],
        };
        let picked = questions_of_section(&quiz, md, "capacity-modes").expect("found");
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].section, "on-demand-mode");
        let err = questions_of_section(&quiz, md, "streams").expect_err("none");
        assert!(
            format!("{err}").contains("on-demand-mode, partitions"),
            "{err}"
        );
    }
}
