//! Watch mode: one event loop over one [`Event`] enum.
//!
//! ```text
//!  notify watcher ──Save(path)──┐
//!  key reader ─────Key(k)───────┤
//!  ticker ─────────Tick─────────┼──► mpsc::Receiver<Event> ──► App::handle ──► [Effect]
//!  check worker ───CheckDone────┘                                   │            │
//!                  Progress                                          ▼            ▼
//!                                                         App::render → lines   Ports
//! ```
//!
//! The [`App`] is a plain state machine: it owns the learner's progress and decides what
//! happens; everything that needs a thread or the terminal (starting a check, opening a
//! lesson, drawing) is an [`Effect`] carried out by a [`Ports`] implementation. Tests drive
//! [`event_loop`] with their own sender and a fake `Ports` — no terminal, no file watcher, no
//! cargo (rustlings' watch mode has no such seam; this is the part it lacks).
//!
//! Design decision: the App touches no file. Progress it changed is marked unsaved and the
//! loop hands it to [`Ports::save_progress`] once per event (so a burst of changes in one
//! event is one write); a reset is [`Effect::Reset`]; what the kata's files look like after a
//! check (its untouched starter, changes grading will not see) arrives as [`Event::Sources`]
//! from the check worker. Its tests therefore need no real folders, and the rules of the
//! learner's progress stay in [`crate::state`].
//!
//! Design decision: the loop draws a frame only when it differs from the last one drawn (or
//! the terminal was left or resized): a tick with no check running, a save of another file or
//! a key that changes nothing draw nothing.
//!
//! Design decision: a save that arrives while a check runs sets `pending` instead of being
//! dropped or starting a second cargo; when the running check ends, one more check starts.
//! Many saves during one check coalesce into that one re-check, which is what the learner
//! wants (the newest code), and cargo never runs twice at once on the same target directory.

mod render;
pub mod terminal;

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;

use crate::manifest::{Kata, Manifest};
use crate::runner::CheckResult;
use crate::state::{next_unsolved, StateFile};

/// A key the learner pressed (single keypress, no Enter needed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A printable key.
    Char(char),
    /// Enter / Return.
    Enter,
    /// Escape.
    Esc,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
}

/// Everything that can happen to watch mode.
#[derive(Debug)]
pub enum Event {
    /// A file changed (the path the watcher reported).
    Save(PathBuf),
    /// A keypress.
    Key(Key),
    /// Time passed (animates "checking…").
    Tick,
    /// Build progress of the running check.
    Progress(String),
    /// A check finished: the kata and its result (or why it could not run).
    CheckDone(String, Result<CheckResult, String>),
    /// What the check worker saw of the kata's files after a check (sent before its
    /// [`Event::CheckDone`]): whether `src/` is its untouched starter, and the changed files
    /// grading will not see ([`crate::sources`]).
    Sources {
        /// The kata checked.
        kata: String,
        /// Its `src/` is the untouched starter.
        untouched_starter: bool,
        /// Changed files grading will not see.
        unseen_by_grading: Vec<String>,
    },
    /// The final re-check of every kata finished: name and whether it passed.
    VerifyDone(Vec<(String, bool)>),
    /// The file watcher failed; only `r` re-checks from now on.
    WatcherFailed(String),
    /// The terminal was resized.
    Resize,
}

/// What the App asks its surroundings to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Check this kata (the worker answers with [`Event::CheckDone`]).
    StartCheck(String),
    /// Re-check every kata (the worker answers with [`Event::VerifyDone`]).
    StartVerify,
    /// Show a lesson section (leave the alternate screen first).
    OpenLesson(String, Option<String>),
    /// Show these lines in the pager (the whole verdict, unclipped).
    Page(Vec<String>),
    /// Open this file with the learner's editor command (`--edit-cmd`).
    Edit(String, PathBuf),
    /// Put this kata's files back to its starter (the App hears back in [`App::reset_done`]).
    Reset(String),
    /// Show the saved picture of this kata's failing run (`cargo katas view`).
    View(String),
    /// Leave watch mode.
    Quit,
}

/// Which screen is up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The current kata and its verdict.
    Kata,
    /// Every kata with its state; arrows + Enter switch.
    List,
    /// The keys.
    Help,
    /// Every kata passed and was re-checked.
    Finished,
}

/// The learner-facing texts of watch mode.
pub mod texts {
    /// Shown when the file watcher cannot start.
    pub const WATCHER_FAILED: &str = "file watching does not work here";
    /// How to work without a watcher.
    pub const SUGGEST_MANUAL: &str =
        "restart with `cargo katas --manual-run` and press r to check after each save";
    /// Before `n` is allowed.
    pub const PASS_FIRST: &str = "pass this kata first (or press l to pick another)";
    /// Asked before a reset.
    pub const CONFIRM_RESET: &str =
        "reset this kata to its starter? your changes are lost (y = yes, any other key = no)";
    /// After a reset was declined.
    pub const RESET_CANCELLED: &str = "reset cancelled";
    /// `w` when no check has failed.
    pub const NOTHING_FAILED: &str = "nothing failed to look inside: w shows the world of \
                                      the first failing test, after a check that fails";
    /// `e` without an editor command.
    pub const NO_EDIT_CMD: &str = "to open the file with e, start watch mode with \
                                   `cargo katas --edit-cmd 'code -g'` (or your editor; \
                                   KATAS_EDIT_CMD works too)";
    /// When every hint is out.
    pub const NO_MORE_HINTS: &str =
        "that was the last hint; the lesson (o) and the failing test's hint may help";
}

/// Watch mode's state.
#[derive(Debug)]
pub struct App {
    /// Repository root.
    pub root: PathBuf,
    /// The curriculum.
    pub manifest: Manifest,
    /// The learner's progress (saved on every change).
    pub state: StateFile,
    /// The screen shown.
    pub screen: Screen,
    /// Kata being checked, if a check runs.
    pub checking: Option<String>,
    /// A save arrived during the running check: check again when it ends.
    pub pending: bool,
    /// The last result for the current kata.
    pub last: Option<Result<CheckResult, String>>,
    /// Latest build progress line.
    pub progress: Option<String>,
    /// A one-line message under the verdict (warnings, confirmations).
    pub message: Option<String>,
    /// Waiting for `y` to confirm a reset.
    pub confirm_reset: bool,
    /// Manual mode: no watcher, `r` checks.
    pub manual: bool,
    /// Selected row on the list screen.
    pub list_cursor: usize,
    /// Results of the final re-check.
    pub verify: Option<Vec<(String, bool)>>,
    /// Ticks seen while checking (spinner).
    pub ticks: u64,
    /// The current kata's `src/` was its untouched starter at the last check.
    pub untouched_starter: bool,
    /// Files grading will not see, changed at the last check (see [`crate::sources`]).
    pub unseen_by_grading: Vec<String>,
    /// The progress file was corrupt: the running re-check of every kata rebuilds which pass.
    pub rederiving: bool,
    /// First row of the screen's body shown (j/k, PgUp/PgDn); 0 for each new verdict.
    pub scroll: usize,
    /// The terminal's size, columns and rows (the event loop keeps it up to date).
    pub size: (usize, usize),
    /// The command `e` opens the kata's file with (`--edit-cmd`), if given.
    pub edit_cmd: Option<String>,
    /// The progress changed since it was last handed to [`Ports::save_progress`].
    pub unsaved: bool,
}

impl App {
    /// A new App at the learner's current kata; call [`App::start`] for the first effects.
    pub fn new(root: PathBuf, manifest: Manifest, state: StateFile, manual: bool) -> App {
        let message = state.warning.clone();
        App {
            root,
            manifest,
            state,
            screen: Screen::Kata,
            checking: None,
            pending: false,
            last: None,
            progress: None,
            message,
            confirm_reset: false,
            manual,
            list_cursor: 0,
            verify: None,
            ticks: 0,
            untouched_starter: false,
            unseen_by_grading: Vec::new(),
            rederiving: false,
            scroll: 0,
            size: (100, 40),
            edit_cmd: None,
            unsaved: false,
        }
    }

    /// The current kata.
    pub fn kata(&self) -> &Kata {
        let name = self.state.state.current.as_deref().unwrap_or_default();
        let i = self.manifest.index_of(name).unwrap_or(0);
        &self.manifest.katas[i]
    }

    fn current_name(&self) -> String {
        self.kata().name.clone()
    }

    /// The first effects: check the current kata, or, when the progress file had to be
    /// rebuilt, re-check every kata first to find out again which pass.
    pub fn start(&mut self) -> Vec<Effect> {
        if self.state.rebuilt && !self.manifest.katas.is_empty() {
            self.state.rebuilt = false;
            self.rederiving = true;
            self.checking = Some(String::from("*"));
            return vec![Effect::StartVerify];
        }
        self.request_check()
    }

    fn request_check(&mut self) -> Vec<Effect> {
        if self.checking.is_some() {
            self.pending = true;
            return Vec::new();
        }
        let name = self.current_name();
        self.checking = Some(name.clone());
        self.progress = None;
        self.ticks = 0;
        vec![Effect::StartCheck(name)]
    }

    /// Marks the progress for saving (the loop saves it after this event).
    fn save_state(&mut self) {
        self.unsaved = true;
    }

    /// Whether `path` is a Rust source of the current kata.
    pub fn is_kata_source(&self, path: &Path) -> bool {
        let src = self.root.join(self.kata().src_dir());
        let rel_ok = path.starts_with(&src) || path.starts_with(self.kata().src_dir());
        rel_ok && path.extension().is_some_and(|e| e == "rs")
    }

    /// Reacts to one event.
    pub fn handle(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Save(path) => {
                if self.is_kata_source(&path) && self.screen != Screen::Finished {
                    self.request_check()
                } else {
                    Vec::new()
                }
            }
            Event::Key(key) => self.key(key),
            Event::Tick => {
                self.ticks += 1;
                Vec::new()
            }
            Event::Progress(line) => {
                self.progress = Some(line);
                Vec::new()
            }
            Event::CheckDone(name, result) => self.check_done(name, result),
            Event::Sources {
                kata,
                untouched_starter,
                unseen_by_grading,
            } => {
                if self.checking.as_deref() == Some(kata.as_str()) {
                    self.untouched_starter = untouched_starter;
                    self.unseen_by_grading = unseen_by_grading;
                }
                Vec::new()
            }
            Event::VerifyDone(results) if self.rederiving => {
                self.checking = None;
                self.rederiving = false;
                self.state.state.record_all(&results);
                let passing = results.iter().filter(|(_, ok)| *ok).count();
                let note = format!(
                    "progress rebuilt by re-checking every kata: {passing} of {} pass",
                    results.len()
                );
                self.message = Some(match self.message.take() {
                    Some(m) => format!("{m}\n{note}"),
                    None => note,
                });
                self.save_state();
                self.request_check()
            }
            Event::VerifyDone(results) => {
                self.checking = None;
                self.state.state.record_all(&results);
                self.save_state();
                if results.iter().all(|(_, ok)| *ok) {
                    // A note from an earlier round ("… no longer passes") no longer holds.
                    self.message = None;
                    self.screen = Screen::Finished;
                } else if let Some((name, _)) = results.iter().find(|(_, ok)| !ok) {
                    self.message = Some(format!("`{name}` no longer passes; back to it"));
                    self.state.state.go_to(name);
                    self.save_state();
                    self.last = None;
                    self.verify = Some(results);
                    return self.request_check();
                }
                self.verify = Some(results);
                Vec::new()
            }
            Event::WatcherFailed(why) => {
                self.manual = true;
                self.message = Some(format!(
                    "{} ({why}): {}",
                    texts::WATCHER_FAILED,
                    texts::SUGGEST_MANUAL
                ));
                Vec::new()
            }
            Event::Resize => Vec::new(),
        }
    }

    fn check_done(&mut self, name: String, result: Result<CheckResult, String>) -> Vec<Effect> {
        self.checking = None;
        self.progress = None;
        if let Ok(r) = &result {
            let failing = r.first_failure().map(|t| t.name.as_str());
            if self.state.state.record_check(&name, r.passed(), failing) {
                self.save_state();
            }
        }
        if name != self.current_name() {
            // A stale result (the learner switched katas meanwhile): check the new one.
            return self.request_check();
        }
        let passed = matches!(&result, Ok(r) if r.passed());
        self.last = Some(result);
        self.scroll = 0;
        if self.pending {
            self.pending = false;
            return self.request_check();
        }
        let all = self.manifest.katas.len();
        if passed && self.state.state.passed.len() == all && all > 0 {
            // The last kata passed: re-check everything before the finish screen.
            self.checking = Some(String::from("*"));
            return vec![Effect::StartVerify];
        }
        Vec::new()
    }

    fn key(&mut self, key: Key) -> Vec<Effect> {
        if self.confirm_reset {
            self.confirm_reset = false;
            if key == Key::Char('y') {
                return self.reset();
            }
            self.message = Some(texts::RESET_CANCELLED.into());
            return Vec::new();
        }
        match self.screen {
            Screen::List => return self.list_key(key),
            Screen::Help if key != Key::Char('q') => {
                self.screen = Screen::Kata;
                return Vec::new();
            }
            _ => {}
        }
        self.message = None;
        match key {
            Key::Char('q') => vec![Effect::Quit],
            Key::Char('j') | Key::Down => self.scroll_by(1),
            Key::Char('k') | Key::Up => self.scroll_by(-1),
            Key::PageDown | Key::Char(' ') => self.scroll_by(self.page()),
            Key::PageUp => self.scroll_by(-self.page()),
            Key::Char('v') => vec![Effect::Page(render::whole(self, self.size.0))],
            Key::Char('e') => match &self.edit_cmd {
                Some(cmd) => {
                    let file = self.root.join(self.kata().src_dir()).join("lib.rs");
                    vec![Effect::Edit(cmd.clone(), file)]
                }
                None => {
                    self.message = Some(texts::NO_EDIT_CMD.into());
                    Vec::new()
                }
            },
            Key::Char('w') => {
                if matches!(&self.last, Some(Ok(r)) if !r.passed()) {
                    vec![Effect::View(self.current_name())]
                } else {
                    self.message = Some(texts::NOTHING_FAILED.into());
                    Vec::new()
                }
            }
            Key::Char('?') => {
                self.screen = Screen::Help;
                Vec::new()
            }
            Key::Char('l') => {
                self.screen = Screen::List;
                self.list_cursor = self.manifest.index_of(&self.current_name()).unwrap_or(0);
                Vec::new()
            }
            Key::Char('r') => self.request_check(),
            Key::Char('h') => {
                let kata = self.kata().clone();
                match self.state.state.reveal_next_hint(&kata) {
                    crate::state::Revealed::NoMore => {
                        self.message = Some(texts::NO_MORE_HINTS.into());
                    }
                    _ => {
                        self.save_state();
                        // The hint is the body's last lines: scroll them into view, or a tall
                        // verdict hides what the key just did below the fold.
                        return self.scroll_by(isize::MAX);
                    }
                }
                Vec::new()
            }
            Key::Char('x') => {
                self.confirm_reset = true;
                self.message = Some(texts::CONFIRM_RESET.into());
                Vec::new()
            }
            Key::Char('o') => {
                let (stem, section) = self.kata().lesson_parts();
                vec![Effect::OpenLesson(
                    stem.to_string(),
                    section.map(String::from),
                )]
            }
            Key::Char('n') => {
                let passed = matches!(&self.last, Some(Ok(r)) if r.passed());
                if !passed {
                    self.message = Some(texts::PASS_FIRST.into());
                    return Vec::new();
                }
                match next_unsolved(&self.manifest, &self.state.state, &self.current_name()) {
                    Some(next) => self.switch_to(next),
                    None => {
                        self.checking = Some(String::from("*"));
                        vec![Effect::StartVerify]
                    }
                }
            }
            _ => Vec::new(),
        }
    }

    /// Rows a page scrolls (the body's rows less one, so a line of context stays).
    fn page(&self) -> isize {
        let l = render::layout(self, self.size.0);
        render::body_rows(&l, self.size.1).saturating_sub(1).max(1) as isize
    }

    fn scroll_by(&mut self, rows: isize) -> Vec<Effect> {
        let (width, height) = self.size;
        let l = render::layout(self, width);
        let first = render::first_row(&l, height, self.scroll);
        let most = l.body.len().saturating_sub(render::body_rows(&l, height));
        self.scroll = first.saturating_add_signed(rows).min(most);
        Vec::new()
    }

    fn list_key(&mut self, key: Key) -> Vec<Effect> {
        let n = self.manifest.katas.len();
        match key {
            Key::Up | Key::Char('k') => self.list_cursor = self.list_cursor.saturating_sub(1),
            Key::Down | Key::Char('j') => {
                self.list_cursor = (self.list_cursor + 1).min(n.saturating_sub(1))
            }
            Key::Enter => {
                self.screen = Screen::Kata;
                let name = self.manifest.katas[self.list_cursor].name.clone();
                if name != self.current_name() {
                    return self.switch_to(name);
                }
            }
            Key::Char('q') => return vec![Effect::Quit],
            _ => self.screen = Screen::Kata,
        }
        Vec::new()
    }

    fn switch_to(&mut self, name: String) -> Vec<Effect> {
        self.state.state.go_to(&name);
        self.save_state();
        self.last = None;
        self.scroll = 0;
        self.screen = Screen::Kata;
        self.request_check()
    }

    fn reset(&mut self) -> Vec<Effect> {
        vec![Effect::Reset(self.current_name())]
    }

    /// The outcome of an [`Effect::Reset`]: on success the pass is gone and the starter is
    /// checked.
    pub fn reset_done(&mut self, outcome: Result<(), String>) -> Vec<Effect> {
        match outcome {
            Ok(()) => {
                let name = self.current_name();
                if self.state.state.record_reset(&name) {
                    self.save_state();
                }
                self.message = Some(format!("`{name}` is back to its starter"));
                self.request_check()
            }
            Err(e) => {
                self.message = Some(format!("reset failed: {e}"));
                Vec::new()
            }
        }
    }

    /// The screen as at most `height` lines of at most `width` columns (ANSI colours unless
    /// `colored` is switched off): header, verdict line, spinner and key bar always; the
    /// body from [`App::scroll`] on, as much as fits.
    pub fn render(&self, width: usize, height: usize) -> Vec<String> {
        render::render(self, width, height)
    }
}

/// What the event loop needs from the world.
pub trait Ports {
    /// Start checking `kata`; answer later with [`Event::CheckDone`] on the loop's channel.
    fn start_check(&mut self, kata: &str);
    /// Re-check every kata; answer later with [`Event::VerifyDone`].
    fn start_verify(&mut self);
    /// Show a lesson section (blocking until the learner comes back).
    fn open_lesson(&mut self, lesson: &str, section: Option<&str>);
    /// Show lines in a pager (blocking until the learner comes back).
    fn page(&mut self, lines: &[String]);
    /// Run `cmd` (split at spaces) with `file` appended, blocking until it exits.
    fn edit(&mut self, cmd: &str, file: &Path);
    /// Write the learner's progress (`.katas-state.json`).
    fn save_progress(&mut self, state: &StateFile) -> Result<(), String>;
    /// Put `kata`'s files back to its starter.
    fn reset(&mut self, kata: &str) -> Result<(), String>;
    /// Show the saved picture of `kata`'s failing run (blocking until the learner comes
    /// back). Does nothing by default.
    fn view(&mut self, _kata: &str) {}
    /// Draw the screen (as many lines as [`Ports::height`] at most).
    fn draw(&mut self, lines: &[String]);
    /// Terminal width in columns.
    fn width(&self) -> usize {
        100
    }
    /// Terminal height in rows.
    fn height(&self) -> usize {
        40
    }
}

/// Runs watch mode until [`Effect::Quit`] or until every sender is gone.
pub fn event_loop(app: &mut App, events: &Receiver<Event>, ports: &mut dyn Ports) {
    app.size = (ports.width(), ports.height());
    let first = app.start();
    if perform(app, first, ports).quit {
        return;
    }
    let mut shown = app.render(app.size.0, app.size.1);
    ports.draw(&shown);
    while let Ok(event) = events.recv() {
        let resized = matches!(event, Event::Resize);
        app.size = (ports.width(), ports.height());
        let done = match &event {
            Event::CheckDone(kata, result) => {
                Some((kata.clone(), matches!(result, Ok(r) if r.passed())))
            }
            _ => None,
        };
        let effects = app.handle(event);
        let performed = perform(app, effects, ports);
        if performed.quit {
            return;
        }
        let frame = app.render(app.size.0, app.size.1);
        // Unchanged, with the terminal as we left it: nothing to draw.
        if frame != shown || performed.left_screen || resized {
            ports.draw(&frame);
            shown = frame;
        }
        if let Some((kata, passed)) = done {
            trace_verdict(&kata, passed);
        }
    }
}

/// Environment variable naming a file to which watch mode appends one line per verdict drawn
/// (`verdict <unix time, ns> <kata> <passed>`), and every check one line per build (`build
/// <unix time, ns> <kata> replayed|cargo <ms>`): `checker/bench/edit-to-verdict.sh` measures
/// save to verdict on screen with it.
pub const TRACE_ENV: &str = "KATAS_TRACE";

fn trace_verdict(kata: &str, passed: bool) {
    trace(&format!("verdict {{now}} {kata} {passed}"));
}

/// Appends `line` to the trace file, if [`TRACE_ENV`] names one; `{now}` in it becomes the
/// wall-clock time in nanoseconds since the Unix epoch.
pub fn trace(line: &str) {
    use std::io::Write as _;
    let Some(path) = std::env::var_os(TRACE_ENV) else {
        return;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{}", line.replace("{now}", &now.to_string()));
    }
}

/// What carrying out a round of effects did.
#[derive(Debug, Default)]
struct Performed {
    /// The loop should end.
    quit: bool,
    /// The screen was left (lesson, pager, editor): the next frame must be drawn whole.
    left_screen: bool,
}

/// Carries out effects, and then saves the progress if they or the event changed it.
fn perform(app: &mut App, effects: Vec<Effect>, ports: &mut dyn Ports) -> Performed {
    let mut done = Performed::default();
    let mut queue = std::collections::VecDeque::from(effects);
    while let Some(effect) = queue.pop_front() {
        match effect {
            Effect::StartCheck(kata) => ports.start_check(&kata),
            Effect::StartVerify => ports.start_verify(),
            Effect::OpenLesson(lesson, section) => {
                ports.open_lesson(&lesson, section.as_deref());
                done.left_screen = true;
            }
            Effect::Page(lines) => {
                ports.page(&lines);
                done.left_screen = true;
            }
            Effect::Edit(cmd, file) => {
                ports.edit(&cmd, &file);
                done.left_screen = true;
            }
            Effect::Reset(kata) => {
                let outcome = ports.reset(&kata);
                queue.extend(app.reset_done(outcome));
            }
            Effect::Quit => {
                done.quit = true;
                break;
            }
            Effect::View(kata) => {
                ports.view(&kata);
                done.left_screen = true;
            }
        }
    }
    if std::mem::take(&mut app.unsaved) {
        if let Err(e) = ports.save_progress(&app.state) {
            app.message = Some(format!("could not save progress: {e}"));
        }
    }
    done
}

#[cfg(test)]
mod tests;
