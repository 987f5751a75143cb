//! The pager driven by scripted keys on a fake terminal, and its sections read from the real
//! lesson: no terminal, no quiz on stdin.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use super::*;
use crate::text::strip_ansi;

/// A terminal of `rows` rows whose keys are scripted; it records every frame drawn and every
/// quiz asked (with the top line of the frame drawn last before it).
struct FakeTerminal {
    rows: usize,
    keys: VecDeque<Key>,
    frames: Vec<Frame>,
    quizzes: Vec<(String, String)>,
}

impl FakeTerminal {
    fn new(rows: usize, keys: &[Key]) -> FakeTerminal {
        FakeTerminal {
            rows,
            keys: keys.iter().copied().collect(),
            frames: Vec::new(),
            quizzes: Vec::new(),
        }
    }
}

impl Ports for FakeTerminal {
    fn rows(&mut self) -> usize {
        self.rows
    }
    fn draw(&mut self, frame: &Frame) -> anyhow::Result<()> {
        self.frames.push(frame.clone());
        Ok(())
    }
    fn next_key(&mut self) -> anyhow::Result<Option<Key>> {
        Ok(self.keys.pop_front())
    }
    fn quiz(&mut self, lesson: &str, section: &str) -> anyhow::Result<()> {
        self.quizzes.push((lesson.to_string(), section.to_string()));
        Ok(())
    }
}

/// 100 lines `line 0` … `line 99`: an introduction without a quiz, section `alpha` from
/// line 10, `alpha-detail` (no questions: its quiz is alpha's) from 30, `beta` from 60.
fn page() -> Page {
    let section = |line, quiz: Option<&str>| Section {
        line,
        quiz: quiz.map(str::to_string),
    };
    Page {
        lines: (0..100).map(|i| format!("line {i}")).collect(),
        lesson: "01-foundations".to_string(),
        sections: vec![
            section(0, None),
            section(10, Some("alpha")),
            section(30, Some("alpha")),
            section(60, Some("beta")),
        ],
    }
}

#[test]
fn z_asks_the_quiz_of_the_section_on_screen_and_the_lesson_comes_back_where_it_was() {
    // 21 rows: 20 lines a screen, a page forward is 19 lines. Two pages down the top line is
    // line 38, inside alpha-detail, whose quiz is alpha's.
    let keys = [
        Key::PageDown,
        Key::Char(' '),
        Key::Char('z'),
        Key::Char('q'),
    ];
    let mut terminal = FakeTerminal::new(21, &keys);
    let mut pager = Pager::new(page());
    run(&mut pager, &mut terminal).unwrap();
    assert_eq!(
        terminal.quizzes,
        [("01-foundations".to_string(), "alpha".to_string())]
    );
    let before_quiz = &terminal.frames[2];
    let after_quiz = &terminal.frames[3];
    assert_eq!(before_quiz.body[0], "line 38");
    assert_eq!(after_quiz, before_quiz, "the lesson comes back as it was");
    assert!(
        after_quiz.bar.contains("z: quiz on alpha"),
        "{}",
        after_quiz.bar
    );
    assert_eq!(terminal.frames.len(), 4, "q quits without drawing again");
}

#[test]
fn the_key_bar_offers_z_only_where_a_section_has_questions() {
    let mut pager = Pager::new(page());
    pager.resize(21);
    let intro = pager.frame();
    assert!(!intro.bar.contains("z:"), "{}", intro.bar);
    assert_eq!(pager.key(Key::Char('z')), None, "no quiz to open here");
    assert!(pager.frame().bar.contains(NO_QUIZ_HERE));
    // The note goes with the next key; a line further the intro is still on top.
    pager.key(Key::Char('j'));
    assert!(!pager.frame().bar.contains(NO_QUIZ_HERE));
    pager.key(Key::Char('G'));
    assert_eq!(pager.frame().body[0], "line 80");
    assert_eq!(pager.quiz_here(), Some("beta"));
    assert_eq!(
        pager.key(Key::Char('z')),
        Some(Effect::Quiz {
            lesson: "01-foundations".to_string(),
            section: "beta".to_string(),
        })
    );
}

#[test]
fn a_quiz_that_cannot_be_asked_is_said_in_the_key_bar() {
    struct Failing(FakeTerminal);
    impl Ports for Failing {
        fn rows(&mut self) -> usize {
            self.0.rows()
        }
        fn draw(&mut self, frame: &Frame) -> anyhow::Result<()> {
            self.0.draw(frame)
        }
        fn next_key(&mut self) -> anyhow::Result<Option<Key>> {
            self.0.next_key()
        }
        fn quiz(&mut self, _: &str, _: &str) -> anyhow::Result<()> {
            anyhow::bail!("no quiz file")
        }
    }
    let keys = [Key::Char('G'), Key::Char('z'), Key::Char('q')];
    let mut terminal = Failing(FakeTerminal::new(21, &keys));
    run(&mut Pager::new(page()), &mut terminal).unwrap();
    let last = terminal.0.frames.last().unwrap();
    assert!(
        last.bar.contains("could not ask the quiz: no quiz file"),
        "{}",
        last.bar
    );
    assert_eq!(last.body[0], "line 80");
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the checker sits in the repository")
        .to_path_buf()
}

#[test]
fn the_lessons_sections_start_on_their_headings_and_know_their_quiz() {
    let root = repo_root();
    let name = "01-foundations";
    let markdown =
        std::fs::read_to_string(root.join("lessons/src").join(format!("{name}.md"))).unwrap();
    let paged = crate::lesson::page_of(&root, name, &markdown, 0, 100, None);
    let headings = crate::lesson::headings(&markdown);
    assert_eq!(paged.sections.len(), headings.len());
    let quiz = crate::quiz::load(&crate::quiz::file_of(&root, name)).unwrap();
    let mut quiz_of = std::collections::BTreeMap::new();
    for (section, (_, anchor, _)) in paged.sections.iter().zip(&headings) {
        let line = strip_ansi(&paged.lines[section.line]);
        assert_eq!(crate::lesson::slug(&line), *anchor, "line {}", section.line);
        if let Some(q) = &section.quiz {
            assert!(crate::quiz::questions_of_section(&quiz, &markdown, q).is_ok());
        }
        quiz_of.insert(anchor.clone(), section.quiz.clone());
    }
    let of = |anchor: &str| quiz_of[anchor].as_deref();
    assert_eq!(of("provisioned-mode"), Some("provisioned-mode"));
    // A section without questions of its own opens its parent's (whose subsections have).
    assert_eq!(of("getitem"), Some("reading-getitem-query-scan"));
    // The lesson's title is no section.
    assert_eq!(of(&headings[0].1), None);

    // Cut at a section (`--section`), the same sections from there on.
    let start = crate::lesson::section_offset(&markdown, "provisioned-mode").unwrap();
    let cut = crate::lesson::page_of(&root, name, &markdown, start, 100, None);
    assert_eq!(
        strip_ansi(&cut.lines[cut.sections[0].line]),
        "Provisioned mode"
    );
    assert_eq!(cut.sections[0].quiz.as_deref(), Some("provisioned-mode"));
    assert_eq!(
        cut.sections.len(),
        headings.iter().filter(|(_, _, at)| *at >= start).count()
    );
}
