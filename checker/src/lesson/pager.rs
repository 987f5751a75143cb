//! The built-in pager: a lesson a screen at a time, where `less` is missing or
//! `KATAS_PAGER=builtin` asks for it, with one key `less` cannot have — **`z` opens the quiz of
//! the section on screen**, and after the quiz the lesson comes back where it was.
//!
//! ```text
//!   terminal keys ──▶ Ports::next_key ──▶ Pager::key ──▶ Effect::Quiz ──▶ Ports::quiz
//!                                             │                            (the screen is left,
//!   Ports::draw ◀── Pager::frame ◀────────────┘                             the quiz asked, the
//!                                                                           screen taken back)
//! ```
//!
//! As in watch mode, the [`Pager`] is a plain state machine (where the reader is, what the key
//! bar says) and everything that needs the terminal is behind [`Ports`], so a test drives
//! [`run`] with scripted keys and a fake terminal and reads what would have been drawn.
//!
//! "The section on screen" is the section the top line belongs to: a reader who reaches a
//! section's "Check yourself" line has that section at the top, the next one perhaps starting
//! below. A section without questions of its own or below it opens the quiz of the section
//! it belongs to (a `###` under its `##`); the lesson's title (`#`) is no section, so its
//! introduction offers no quiz, and the key bar shows `z` only where it leads somewhere.
//!
//! Design decision: a quiz asked from the pager is a section's questions, which are practice
//! and change no score (as `cargo katas quiz N --section S`), so the pager needs no access to
//! the learner's progress.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// One heading of the paged text: the line it starts on, and the section whose quiz `z`
/// opens while it is the section on screen (`None`: no questions here or above it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub line: usize,
    pub quiz: Option<String>,
}

/// What the pager shows: the rendered lines, the lesson they are from, and its sections.
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub lines: Vec<String>,
    /// The lesson's name (`01-foundations`): the quiz `z` opens is this lesson's.
    pub lesson: String,
    /// In line order.
    pub sections: Vec<Section>,
}

/// A key, as the pager reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    /// A character with Control held (`Ctrl-C` quits).
    Ctrl(char),
    Esc,
    Enter,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    /// The terminal changed size: nothing to do but draw again.
    Resize,
    /// Any other key: ignored.
    Other,
}

/// What the pager asks its surroundings to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Ask this section's questions of this lesson, then come back.
    Quiz { lesson: String, section: String },
    /// Leave the pager.
    Quit,
}

/// One screen: the visible lines and the key bar under them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub body: Vec<String>,
    pub bar: String,
}

/// Where the reader is in a [`Page`].
#[derive(Debug)]
pub struct Pager {
    page: Page,
    /// The first line on screen.
    top: usize,
    /// Lines the screen shows above the key bar.
    body: usize,
    /// Shown in the key bar instead of the keys until the next key.
    note: Option<String>,
}

/// Keys of the bar, `z` aside (it names its section, and only shows where it leads).
const KEYS: &str = "space: next page  b: back  j/k: line  g/G: top/end";
/// When `z` has no quiz to open.
const NO_QUIZ_HERE: &str = "no check-yourself questions for this part of the lesson";

impl Pager {
    pub fn new(page: Page) -> Pager {
        Pager {
            page,
            top: 0,
            body: 1,
            note: None,
        }
    }

    /// Fits the pager to a terminal of `rows` rows (one of them the key bar).
    pub fn resize(&mut self, rows: usize) {
        self.body = rows.saturating_sub(1).max(1);
        self.top = self.top.min(self.last_top());
    }

    fn last_top(&self) -> usize {
        self.page.lines.len().saturating_sub(self.body)
    }

    fn step(&self) -> usize {
        self.body.saturating_sub(1).max(1)
    }

    /// The section whose quiz `z` opens now, from the section the top line belongs to.
    pub fn quiz_here(&self) -> Option<&str> {
        self.page
            .sections
            .iter()
            .take_while(|s| s.line <= self.top)
            .last()
            .and_then(|s| s.quiz.as_deref())
    }

    pub fn key(&mut self, key: Key) -> Option<Effect> {
        self.note = None;
        let last_top = self.last_top();
        match key {
            Key::Char('q') | Key::Esc | Key::Ctrl('c') => return Some(Effect::Quit),
            Key::Char(' ') | Key::Char('f') | Key::PageDown => {
                if self.top >= last_top {
                    return Some(Effect::Quit);
                }
                self.top = (self.top + self.step()).min(last_top);
            }
            Key::Char('b') | Key::PageUp => self.top = self.top.saturating_sub(self.step()),
            Key::Char('j') | Key::Down | Key::Enter => self.top = (self.top + 1).min(last_top),
            Key::Char('k') | Key::Up => self.top = self.top.saturating_sub(1),
            Key::Char('g') | Key::Home => self.top = 0,
            Key::Char('G') | Key::End => self.top = last_top,
            Key::Char('z') => match self.quiz_here() {
                Some(section) => {
                    return Some(Effect::Quiz {
                        lesson: self.page.lesson.clone(),
                        section: section.to_string(),
                    })
                }
                None => self.note = Some(NO_QUIZ_HERE.to_string()),
            },
            _ => {}
        }
        None
    }

    /// Tells the reader something in the key bar until the next key.
    pub fn note(&mut self, text: impl Into<String>) {
        self.note = Some(text.into());
    }

    /// What the screen shows now.
    pub fn frame(&self) -> Frame {
        let lines = &self.page.lines;
        let end = (self.top + self.body).min(lines.len());
        let body = lines[self.top.min(end)..end].to_vec();
        let place = format!("lines {}-{end} of {}", self.top + 1, lines.len());
        let keys = match (&self.note, self.quiz_here()) {
            (Some(note), _) => note.clone(),
            (None, Some(section)) => format!("z: quiz on {section}  {KEYS}  q: quit"),
            (None, None) => format!("{KEYS}  q: quit"),
        };
        Frame {
            body,
            bar: format!("{place}  {keys}"),
        }
    }
}

/// What the pager needs of a terminal.
pub trait Ports {
    /// Rows of the terminal.
    fn rows(&mut self) -> usize;
    fn draw(&mut self, frame: &Frame) -> anyhow::Result<()>;
    /// The next key; `None` when there will be none (input closed).
    fn next_key(&mut self) -> anyhow::Result<Option<Key>>;
    /// Asks the quiz of `section` of `lesson` and returns once the reader is done with it.
    fn quiz(&mut self, lesson: &str, section: &str) -> anyhow::Result<()>;
}

/// Pages until the reader quits; a quiz the reader opens runs in between, and the lesson
/// comes back at the same line.
pub fn run(pager: &mut Pager, ports: &mut dyn Ports) -> anyhow::Result<()> {
    loop {
        pager.resize(ports.rows());
        ports.draw(&pager.frame())?;
        let Some(key) = ports.next_key()? else {
            return Ok(());
        };
        match pager.key(key) {
            Some(Effect::Quit) => return Ok(()),
            Some(Effect::Quiz { lesson, section }) => {
                if let Err(e) = ports.quiz(&lesson, &section) {
                    pager.note(format!("could not ask the quiz: {e:#}"));
                }
            }
            None => {}
        }
    }
}

/// Pages `page` on the terminal (raw mode, alternate screen), asking quizzes from `root`.
pub fn show(root: &Path, page: Page) -> anyhow::Result<()> {
    let mut terminal = Terminal {
        root,
        screen: Some(RawScreen::enter()?),
    };
    run(&mut Pager::new(page), &mut terminal)
}

/// The real terminal.
struct Terminal<'a> {
    root: &'a Path,
    /// Held while the pager is on screen; dropped while a quiz is asked.
    screen: Option<RawScreen>,
}

impl Ports for Terminal<'_> {
    fn rows(&mut self) -> usize {
        crossterm::terminal::size().map_or(24, |(_, rows)| usize::from(rows))
    }

    fn draw(&mut self, frame: &Frame) -> anyhow::Result<()> {
        use crossterm::{cursor::MoveTo, queue, terminal::Clear, terminal::ClearType};
        let (cols, rows) =
            crossterm::terminal::size().map_or((80, 24), |(c, r)| (usize::from(c), usize::from(r)));
        let mut out = std::io::stdout().lock();
        queue!(out, Clear(ClearType::All), MoveTo(0, 0))?;
        for line in &frame.body {
            write!(out, "{line}\r\n")?;
        }
        let bar_row = u16::try_from(rows.saturating_sub(1)).unwrap_or(u16::MAX);
        queue!(out, MoveTo(0, bar_row))?;
        // Cut to the width: a bar that wrapped would scroll the screen by a line.
        let bar: String = frame.bar.chars().take(cols.saturating_sub(2)).collect();
        write!(out, "\x1b[7m {bar} \x1b[0m")?;
        out.flush()?;
        Ok(())
    }

    fn next_key(&mut self) -> anyhow::Result<Option<Key>> {
        use crossterm::event::{read, Event, KeyCode, KeyEventKind, KeyModifiers};
        loop {
            let key = match read()? {
                Event::Key(k) if k.kind != KeyEventKind::Release => k,
                Event::Resize(..) => return Ok(Some(Key::Resize)),
                _ => continue,
            };
            return Ok(Some(match key.code {
                KeyCode::Char(c) if key.modifiers.contains(KeyModifiers::CONTROL) => Key::Ctrl(c),
                KeyCode::Char(c) => Key::Char(c),
                KeyCode::Esc => Key::Esc,
                KeyCode::Enter => Key::Enter,
                KeyCode::Up => Key::Up,
                KeyCode::Down => Key::Down,
                KeyCode::PageUp => Key::PageUp,
                KeyCode::PageDown => Key::PageDown,
                KeyCode::Home => Key::Home,
                KeyCode::End => Key::End,
                _ => Key::Other,
            }));
        }
    }

    fn quiz(&mut self, lesson: &str, section: &str) -> anyhow::Result<()> {
        self.screen = None;
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut out = std::io::stdout();
        let options = crate::quiz::Options {
            section: Some(section),
            seed: None,
        };
        let asked = crate::quiz::run(self.root, Some(lesson), &options, &mut input, &mut out);
        if let Err(e) = &asked {
            writeln!(out, "{e:#}")?;
        }
        write!(out, "\npress Enter to go back to the lesson ")?;
        out.flush()?;
        let _ = std::io::BufRead::read_line(&mut input, &mut String::new());
        drop(input);
        self.screen = Some(RawScreen::enter().context("taking the screen back for the lesson")?);
        Ok(())
    }
}

/// Raw mode and the alternate screen, restored however the pager ends.
struct RawScreen;

impl RawScreen {
    fn enter() -> anyhow::Result<Self> {
        crossterm::terminal::enable_raw_mode()?;
        let guard = RawScreen;
        crossterm::execute!(
            std::io::stdout(),
            crossterm::terminal::EnterAlternateScreen,
            crossterm::cursor::Hide
        )?;
        Ok(guard)
    }
}

impl Drop for RawScreen {
    fn drop(&mut self) {
        let _ = crossterm::execute!(
            std::io::stdout(),
            crossterm::cursor::Show,
            crossterm::terminal::LeaveAlternateScreen
        );
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

#[cfg(test)]
mod tests;
