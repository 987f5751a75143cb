//! The real world behind watch mode: the terminal (raw mode, alternate screen), the producer
//! threads (keys, file watcher, ticks) and the check worker.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use crossterm::event::{self as cevent, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, queue, terminal};
use notify::{EventKind, RecursiveMode, Watcher};

use super::{event_loop, App, Event, Key, Ports};
use crate::manifest::Manifest;
use crate::runner::{self, CheckOptions, Progress};

/// How long the watcher waits for an editor's burst of events (temp file, rename, chmod) to
/// settle before it reports one save.
const DEBOUNCE: Duration = Duration::from_millis(40);
/// `w` after a failure that saved no picture (a crash or a timeout ends the process first).
const NO_SAVED_RUN: &str = "this failure saved no picture of its world: a test that crashes \
or times out ends its process before it can (a failing test's does)";
/// Spinner / redraw period while a check runs.
const TICK: Duration = Duration::from_millis(120);

enum Job {
    Check(String),
    Verify,
}

/// The terminal and the worker.
struct RealPorts {
    root: PathBuf,
    manifest: Manifest,
    jobs: Sender<Job>,
    paused: Arc<AtomicBool>,
    /// Where checks build (and so where a failing run's picture is saved).
    opts: CheckOptions,
}

impl Ports for RealPorts {
    fn start_check(&mut self, kata: &str) {
        let _ = self.jobs.send(Job::Check(kata.to_string()));
    }
    fn start_verify(&mut self) {
        let _ = self.jobs.send(Job::Verify);
    }
    fn open_lesson(&mut self, lesson: &str, section: Option<&str>) {
        self.paused.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(60)); // let the key reader stand down
        let _ = leave_terminal();
        // The pager leaves the screen as it found it, so watch mode's screen comes straight
        // back on q; only a lesson that could not be shown waits for Enter (to be read).
        let shown = crate::lesson::show_as(
            &self.root,
            Some(lesson),
            section,
            crate::lesson::Leave::Clear,
        );
        if let Err(e) = shown {
            eprintln!("could not show the lesson: {e:#}");
            print!("\npress Enter to go back to the kata ");
            let _ = std::io::stdout().flush();
            let _ = std::io::stdin().read_line(&mut String::new());
        }
        let _ = enter_terminal();
        self.paused.store(false, Ordering::SeqCst);
    }
    fn page(&mut self, lines: &[String]) {
        self.paused.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(60)); // let the key reader stand down
        let _ = leave_terminal();
        if let Err(e) = show_in_pager(lines) {
            // No pager: print it all here; the terminal's own scrollback holds it.
            for line in lines {
                println!("{line}");
            }
            println!("\n({e:#})");
            print!("press Enter to go back to the kata ");
            let _ = std::io::stdout().flush();
            let _ = std::io::stdin().read_line(&mut String::new());
        }
        let _ = enter_terminal();
        self.paused.store(false, Ordering::SeqCst);
    }
    fn edit(&mut self, cmd: &str, file: &Path) {
        self.paused.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(60)); // let the key reader stand down
        let _ = leave_terminal();
        let mut parts = cmd.split_whitespace();
        let ran = match parts.next() {
            Some(program) => std::process::Command::new(program)
                .args(parts)
                .arg(file)
                .status()
                .map_err(|e| format!("could not start `{cmd}`: {e}")),
            None => Err("the editor command is empty".to_string()),
        };
        if let Err(e) = ran {
            println!("{e}\npress Enter to go back to the kata ");
            let _ = std::io::stdin().read_line(&mut String::new());
        }
        let _ = enter_terminal();
        self.paused.store(false, Ordering::SeqCst);
    }
    fn save_progress(&mut self, state: &crate::state::StateFile) -> Result<(), String> {
        state.save().map_err(|e| format!("{e:#}"))
    }
    fn reset(&mut self, kata: &str) -> Result<(), String> {
        let kata = self.manifest.kata(kata).map_err(|e| format!("{e:#}"))?;
        crate::sources::reset_kata(&self.root, kata).map_err(|e| format!("{e:#}"))
    }
    fn view(&mut self, kata: &str) {
        self.paused.store(true, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(60)); // let the key reader stand down
        let _ = leave_terminal();
        // The viewer serves until Enter, then watch mode's screen comes back.
        let file = self
            .manifest
            .kata(kata)
            .map(|k| runner::view_file(&self.root, k, &self.opts));
        let shown = match file {
            Ok(file) if file.is_file() => crate::commands::view_saved_run(&self.root, &file)
                .map_err(|e| format!("{e:#}"))
                .and_then(|code| match code {
                    0 => Ok(()),
                    n => Err(format!("the viewer exited with code {n}")),
                }),
            Ok(_) => Err(NO_SAVED_RUN.to_string()),
            Err(e) => Err(format!("{e:#}")),
        };
        if let Err(e) = shown {
            println!("{e}\npress Enter to go back to the kata ");
            let _ = std::io::stdin().read_line(&mut String::new());
        }
        let _ = enter_terminal();
        self.paused.store(false, Ordering::SeqCst);
    }
    fn draw(&mut self, lines: &[String]) {
        // Row by row, each cleared to its end, then everything below: no full clear, so no
        // flicker, and never a newline after the last row (which would scroll the screen).
        let mut out = std::io::stdout().lock();
        for (row, line) in lines.iter().enumerate() {
            let _ = queue!(out, cursor::MoveTo(0, row as u16));
            let _ = write!(out, "{line}");
            let _ = queue!(out, terminal::Clear(terminal::ClearType::UntilNewLine));
        }
        if lines.len() < self.height() {
            // (Past the last row the cursor would stay on it, and this would clear it.)
            let _ = queue!(
                out,
                cursor::MoveTo(0, lines.len() as u16),
                terminal::Clear(terminal::ClearType::FromCursorDown)
            );
        }
        let _ = out.flush();
    }
    fn width(&self) -> usize {
        terminal::size().map_or(100, |(w, _)| w as usize)
    }
    fn height(&self) -> usize {
        terminal::size().map_or(40, |(_, h)| h as usize)
    }
}

/// The pager: `$PAGER` (split at spaces: `less -R`), else `less -R`, fed the lines on stdin.
fn show_in_pager(lines: &[String]) -> Result<()> {
    let pager = std::env::var("PAGER")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "less -R".into());
    let mut parts = pager.split_whitespace();
    let program = parts.next().context("PAGER is empty")?;
    let mut child = std::process::Command::new(program)
        .args(parts)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start the pager `{pager}` (set PAGER)"))?;
    if let Some(mut stdin) = child.stdin.take() {
        for line in lines {
            // A pager quit early closes the pipe: that is not an error.
            if writeln!(stdin, "{line}").is_err() {
                break;
            }
        }
    }
    child.wait().context("waiting for the pager")?;
    Ok(())
}

fn enter_terminal() -> Result<()> {
    terminal::enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        terminal::EnterAlternateScreen,
        cursor::Hide
    )?;
    Ok(())
}

fn leave_terminal() -> Result<()> {
    execute!(
        std::io::stdout(),
        cursor::Show,
        terminal::LeaveAlternateScreen
    )?;
    terminal::disable_raw_mode()?;
    Ok(())
}

/// Restores the terminal however watch mode ends (including a panic).
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = leave_terminal();
    }
}

/// Runs watch mode in the terminal.
pub fn run(app: App, opts: CheckOptions) -> Result<()> {
    let mut app = app;
    let (tx, rx) = mpsc::channel::<Event>();
    let root = app.root.clone();
    let manifest = app.manifest.clone();
    let paused = Arc::new(AtomicBool::new(false));

    let (job_tx, job_rx) = mpsc::channel::<Job>();
    spawn_worker(
        root.clone(),
        manifest.clone(),
        opts.clone(),
        job_rx,
        tx.clone(),
    );
    spawn_keys(tx.clone(), Arc::clone(&paused));
    spawn_ticks(tx.clone());
    // Keep the watcher alive for the whole session.
    let _watcher = if app.manual {
        None
    } else {
        match watch_files(&root, tx.clone()) {
            Ok(w) => Some(w),
            Err(e) => {
                let _ = tx.send(Event::WatcherFailed(format!("{e:#}")));
                None
            }
        }
    };
    drop(tx);

    enter_terminal().context("cannot switch the terminal to raw mode (is this a terminal?)")?;
    let _guard = TerminalGuard;
    let mut ports = RealPorts {
        root,
        manifest,
        jobs: job_tx,
        paused,
        opts,
    };
    event_loop(&mut app, &rx, &mut ports);
    Ok(())
}

fn spawn_worker(
    root: PathBuf,
    manifest: Manifest,
    opts: CheckOptions,
    jobs: Receiver<Job>,
    tx: Sender<Event>,
) {
    std::thread::spawn(move || {
        for job in jobs {
            match job {
                Job::Check(name) => {
                    // The sources' status (a `git status`) is read while the check builds,
                    // so the verdict does not wait for it (see `commands::run`).
                    let (result, sources) = std::thread::scope(|s| {
                        let sources = s.spawn(|| {
                            manifest.kata(&name).ok().map(|k| {
                                (
                                    crate::sources::is_untouched_starter(&root, k),
                                    crate::sources::unseen_by_grading(&root, k),
                                )
                            })
                        });
                        let result = check_one(&root, &manifest, &name, &opts, &tx, "");
                        (result, sources.join().ok().flatten())
                    });
                    if let Some((untouched_starter, unseen_by_grading)) = sources {
                        let _ = tx.send(Event::Sources {
                            kata: name.clone(),
                            untouched_starter,
                            unseen_by_grading,
                        });
                    }
                    if tx.send(Event::CheckDone(name, result)).is_err() {
                        return;
                    }
                }
                Job::Verify => {
                    let mut all = Vec::new();
                    let n = manifest.katas.len();
                    for (i, k) in manifest.katas.iter().enumerate() {
                        let bar = format!("[{}{}]", "#".repeat(i), "-".repeat(n - i));
                        let step = format!("{bar} {}/{n} {}", i + 1, k.name);
                        let _ = tx.send(Event::Progress(step.clone()));
                        let checked = check_one(&root, &manifest, &k.name, &opts, &tx, &step);
                        let ok = matches!(checked, Ok(r) if r.passed());
                        all.push((k.name.clone(), ok));
                    }
                    if tx.send(Event::VerifyDone(all)).is_err() {
                        return;
                    }
                }
            }
        }
    });
}

fn check_one(
    root: &Path,
    manifest: &Manifest,
    name: &str,
    opts: &CheckOptions,
    tx: &Sender<Event>,
    step: &str,
) -> Result<runner::CheckResult, String> {
    let kata = manifest.kata(name).map_err(|e| e.to_string())?;
    let mut progress = |p: Progress| {
        let line = match p {
            Progress::Compiling { line, done } => format!("{line} ({done} crates built)"),
            Progress::Running => "running the hidden tests".to_string(),
        };
        let line = if step.is_empty() {
            line
        } else {
            format!("{step} · {line}")
        };
        let _ = tx.send(Event::Progress(line));
    };
    runner::check(root, kata, opts, &mut progress).map_err(|e| format!("{e:#}"))
}

fn spawn_keys(tx: Sender<Event>, paused: Arc<AtomicBool>) {
    std::thread::spawn(move || loop {
        if paused.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(30));
            continue;
        }
        match cevent::poll(Duration::from_millis(30)) {
            Ok(false) => continue,
            Ok(true) if paused.load(Ordering::SeqCst) => continue,
            Ok(true) => {}
            Err(_) => return,
        }
        let ev = match cevent::read() {
            Ok(cevent::Event::Key(k)) if k.kind != KeyEventKind::Release => {
                if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
                    Some(Event::Key(Key::Char('q')))
                } else {
                    match k.code {
                        KeyCode::Char(c) => Some(Event::Key(Key::Char(c))),
                        KeyCode::Enter => Some(Event::Key(Key::Enter)),
                        KeyCode::Esc => Some(Event::Key(Key::Esc)),
                        KeyCode::Up => Some(Event::Key(Key::Up)),
                        KeyCode::Down => Some(Event::Key(Key::Down)),
                        KeyCode::PageUp => Some(Event::Key(Key::PageUp)),
                        KeyCode::PageDown => Some(Event::Key(Key::PageDown)),
                        _ => None,
                    }
                }
            }
            Ok(cevent::Event::Resize(..)) => Some(Event::Resize),
            Ok(_) => None,
            Err(_) => return,
        };
        if let Some(ev) = ev {
            if tx.send(ev).is_err() {
                return;
            }
        }
    });
}

fn spawn_ticks(tx: Sender<Event>) {
    std::thread::spawn(move || loop {
        std::thread::sleep(TICK);
        if tx.send(Event::Tick).is_err() {
            return;
        }
    });
}

/// Watches `exercises/` (directories, not files: editors that save by writing a temp file and
/// renaming it over the original replace the inode a file watch would hold).
fn watch_files(root: &Path, tx: Sender<Event>) -> Result<notify::RecommendedWatcher> {
    let (raw_tx, raw_rx) = mpsc::channel::<PathBuf>();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        if let Ok(ev) = res {
            // Access events fire when cargo reads the sources: ignoring them avoids a loop.
            if matches!(
                ev.kind,
                EventKind::Create(_)
                    | EventKind::Modify(notify::event::ModifyKind::Data(_))
                    | EventKind::Modify(notify::event::ModifyKind::Name(_))
                    | EventKind::Modify(notify::event::ModifyKind::Any)
                    | EventKind::Remove(_)
            ) {
                for p in ev.paths {
                    if p.extension().is_some_and(|e| e == "rs") {
                        let _ = raw_tx.send(p);
                    }
                }
            }
        }
    })
    .context("cannot start the file watcher")?;
    let dir = root.join("exercises");
    watcher
        .watch(&dir, RecursiveMode::Recursive)
        .with_context(|| format!("cannot watch {}", dir.display()))?;
    std::thread::spawn(move || {
        while let Ok(first) = raw_rx.recv() {
            let mut last = first;
            while let Ok(p) = raw_rx.recv_timeout(DEBOUNCE) {
                last = p;
            }
            if tx.send(Event::Save(last)).is_err() {
                return;
            }
        }
    });
    Ok(watcher)
}
