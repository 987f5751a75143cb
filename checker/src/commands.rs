//! The commands other than watch mode: list, run, hint, verify, reset, solution, lesson, quiz,
//! serve.

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use colored::Colorize;

use crate::cli::{Args, Command};
use crate::context::Context;
use crate::manifest::Kata;
use crate::report;
use crate::runner::{self, CheckResult, Progress};
use crate::state::Revealed;

/// `cargo katas hint` when every hint is out (watch mode says `o` for the lesson instead).
const NO_MORE_HINTS: &str = "that was the last hint; the lesson (`cargo katas lesson`) and the \
                             failing test's message may help";

/// Shown by `katas solution` before the kata passed.
const SOLUTION_LOCKED: &str = "the reference solution unlocks once the kata passes \
(`cargo katas run KATA`); add --force to see it anyway";

/// Parses the command line and runs it; returns the process exit code.
pub fn main() -> i32 {
    let args = <Args as clap::Parser>::parse();
    match dispatch(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!(
                "{} {e:#}",
                colored::Colorize::bold(colored::Colorize::red("error:"))
            );
            2
        }
    }
}

/// Runs a parsed command line; returns the exit code.
pub fn dispatch(args: Args) -> Result<i32> {
    let mut cx = Context::discover()?;
    // Watch mode shows the warning on its screen (stderr would be hidden under it) and
    // re-checks every kata itself; elsewhere `verify` is the way back to the passes.
    if args.command.is_some() {
        if let Some(w) = cx.state.warning.take() {
            eprintln!("{} {w}", "warning:".yellow().bold());
            if cx.state.rebuilt && !matches!(args.command, Some(Command::Verify)) {
                eprintln!("  `cargo katas verify` re-checks every kata to find which pass");
            }
        }
    }
    match args.command {
        None => watch(cx, args.manual_run, args.edit_cmd),
        Some(Command::List) => list(&cx),
        Some(Command::Run {
            kata,
            seed,
            tests,
            json,
        }) => {
            cx.check.seed = seed;
            cx.check.only_tests = tests;
            cx.check.save_view = true;
            cx.check.replay = crate::runner::replay_wanted();
            run(&mut cx, kata.as_deref(), json)
        }
        Some(Command::Hint { kata }) => hint(&mut cx, kata.as_deref()),
        Some(Command::Verify) => verify(&mut cx),
        Some(Command::Reset { kata }) => {
            let k = cx.manifest.kata(&kata)?;
            crate::sources::reset_kata(&cx.root, k)?;
            if cx.state.state.record_reset(&k.name) {
                cx.state.save()?;
            }
            println!("`{}` is back to its starter", k.name);
            Ok(0)
        }
        Some(Command::Solution { kata, force }) => solution(&cx, &kata, force),
        Some(Command::Lesson { lesson, section }) => {
            show_lesson(&cx.root, lesson.as_deref(), section.as_deref())?;
            Ok(0)
        }
        Some(Command::Quiz {
            lesson,
            section,
            seed,
            restart,
        }) => {
            let options = crate::quiz::Options {
                section: section.as_deref(),
                seed,
            };
            quiz(&mut cx, lesson.as_deref(), &options, restart)
        }
        Some(Command::Pack { out, name }) => {
            let p = crate::pack::pack(&cx, out.as_deref(), name.as_deref())?;
            println!(
                "wrote {} ({} katas, {} files, learner \"{}\") — hand this file in",
                p.path.display(),
                p.katas,
                p.files,
                p.name
            );
            Ok(0)
        }
        Some(Command::Grade(g)) => grade(&cx, g),
        Some(Command::Serve { args }) => serve(&cx, &args),
        Some(Command::View { kata }) => {
            let kata = cx.kata_or_current(kata.as_deref())?.clone();
            view(&cx, &kata)
        }
        Some(Command::Dev {
            command: crate::cli::DevCommand::Check { katas },
        }) => dev_check(&cx, katas),
        Some(Command::Dev {
            command:
                crate::cli::DevCommand::New {
                    name,
                    title,
                    track,
                    lesson,
                },
        }) => dev_new(&cx, name, title, track, lesson),
    }
}

/// `cargo katas serve`: builds and runs the server crate (`serve/`). Decision: a separate
/// binary run through cargo, not a library linked here, so that the checker — the learner's
/// first build — compiles none of the server, and a learner who never serves never waits for
/// it. The server's options are its own (`katas-serve --help`), passed on untouched.
fn serve(cx: &Context, args: &[String]) -> Result<i32> {
    let status = runner::cargo_command()
        .current_dir(&cx.root)
        .args(["run", "-p", SERVE_PACKAGE, "--"])
        .args(args)
        .status()
        .context("could not run cargo to build and start the server")?;
    Ok(status.code().unwrap_or(1))
}

/// The server's package (`serve/Cargo.toml`).
const SERVE_PACKAGE: &str = "katas-serve";

/// The line `katas run` prints under a failure that saved its world.
pub fn see_inside(kata: &str) -> String {
    format!("see inside the failing run (partitions, throttles, replicas): cargo katas view {kata}")
}

/// Said when there is no saved run to show.
const NOTHING_TO_VIEW: &str = "no failing run of this kata is saved: `cargo katas run KATA` (or \
watch mode) saves one when a test fails, and a run that passes removes it";

/// `cargo katas view`: serves the saved picture of the kata's last failing run with the
/// server crate's viewer (`katas-serve view FILE`), which prints its address, opens the
/// browser where it can, and stops on Enter. Like `serve`, the viewer is built through cargo
/// only when asked for, so the learner's first build compiles none of it.
fn view(cx: &Context, kata: &Kata) -> Result<i32> {
    let file = runner::view_file(&cx.root, kata, &cx.check);
    if !file.is_file() {
        bail!("{}", NOTHING_TO_VIEW.replace("KATA", &kata.name));
    }
    view_saved_run(&cx.root, &file)
}

/// Runs the viewer on a saved run in the foreground (watch mode's `w` too).
pub fn view_saved_run(root: &Path, file: &Path) -> Result<i32> {
    let status = runner::cargo_command()
        .current_dir(root)
        .args(["run", "-q", "-p", SERVE_PACKAGE, "--", "view"])
        .arg(file)
        .status()
        .context("could not run cargo to build and start the viewer")?;
    Ok(status.code().unwrap_or(1))
}

fn dev_new(
    cx: &Context,
    name: String,
    title: Option<String>,
    track: String,
    lesson: Option<String>,
) -> Result<i32> {
    use crate::devcheck::new;
    let lesson = match lesson.or_else(|| new::default_lesson(&cx.root)) {
        Some(l) => l,
        None => bail!("no lesson to link: pass --lesson <file stem>#<section anchor>"),
    };
    let title = title.unwrap_or_else(|| {
        let words = name.replace('-', " ");
        let mut c = words.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    });
    let written = new::scaffold(
        &cx.root,
        &new::NewKata {
            name: name.clone(),
            title,
            track,
            lesson,
        },
    )?;
    for f in &written {
        println!("  wrote {}", f.display());
    }
    println!(
        "\n`{name}` is scaffolded. Next: replace the TODOs (README, kata.toml, the task), then \
         `cargo katas dev check {name}`."
    );
    Ok(0)
}

fn grade(cx: &Context, g: crate::cli::GradeArgs) -> Result<i32> {
    let opts = crate::grade::GradeOptions {
        paths: g.paths,
        hidden: g.hidden,
        jobs: g.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
        }),
        timeout: g.timeout.map(std::time::Duration::from_secs),
        output_cap: g.output_cap * 1024,
        memory_mib: g.memory,
        sandbox: !g.no_sandbox,
        work: g.work_dir,
        katas: g.katas,
        accept_weak_isolation: g.accept_weak_isolation,
        expect_one: g.format == crate::grade::output::Format::Gradescope,
        visibility: g.visibility,
    };
    let tty = std::io::stderr().is_terminal();
    let log = |line: &str| {
        if tty {
            eprintln!("{}", line.dimmed());
        } else {
            eprintln!("{line}");
        }
    };
    let grades = crate::grade::grade(&cx.root, &cx.manifest, &opts, &log)?;
    let color = g.out.is_none() && std::io::stdout().is_terminal();
    let text = crate::grade::output::render(&grades, g.format, color)?;
    match &g.out {
        Some(path) => {
            std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(0)
}

fn dev_check(cx: &Context, katas: Vec<String>) -> Result<i32> {
    let opts = crate::devcheck::DevOptions {
        katas,
        ..crate::devcheck::DevOptions::default()
    };
    let tty = std::io::stderr().is_terminal();
    let mut log = |line: &str| {
        if tty {
            eprint!(
                "\r\x1b[2K{}",
                line.chars().take(100).collect::<String>().dimmed()
            );
        } else {
            eprintln!("{line}");
        }
    };
    let report = crate::devcheck::check(&cx.root, &cx.manifest, &opts, &mut log)?;
    if tty {
        eprint!("\r\x1b[2K");
    }
    print!("{}", report.render(std::io::stdout().is_terminal()));
    Ok(if report.errors() == 0 { 0 } else { 1 })
}

fn watch(cx: Context, manual: bool, edit_cmd: Option<String>) -> Result<i32> {
    if cx.manifest.katas.is_empty() {
        bail!("the curriculum has no katas yet");
    }
    if !std::io::stdout().is_terminal() {
        bail!("watch mode needs a terminal; use `cargo katas run` in scripts");
    }
    let mut opts = cx.check.clone();
    opts.save_view = true;
    opts.replay = crate::runner::replay_wanted();
    let mut app = crate::watch::App::new(cx.root, cx.manifest, cx.state, manual);
    app.edit_cmd = edit_cmd
        .or_else(|| std::env::var("KATAS_EDIT_CMD").ok())
        .filter(|c| !c.trim().is_empty());
    crate::watch::terminal::run(app, opts)?;
    Ok(0)
}

fn list(cx: &Context) -> Result<i32> {
    let current = cx.state.state.current.as_deref().unwrap_or_default();
    let done = cx.state.state.passed.len();
    println!("{done}/{} katas passed\n", cx.manifest.katas.len());
    for (i, k) in cx.manifest.katas.iter().enumerate() {
        let mark = if cx.state.state.passed.contains(&k.name) {
            "✓ passed ".green()
        } else {
            "· to do  ".dimmed()
        };
        let here = if k.name == current {
            "  ← current"
        } else {
            ""
        };
        println!(
            "{mark} {:>2}. {:<24} {:<9} {}{here}",
            i + 1,
            k.name,
            k.track.label(),
            k.title
        );
    }
    Ok(0)
}

/// A progress callback that keeps one status line on stderr (only on a terminal).
fn stderr_progress() -> impl FnMut(Progress) {
    let tty = std::io::stderr().is_terminal();
    move |p| {
        if !tty {
            return;
        }
        let line = match p {
            Progress::Compiling { line, done } => format!("{line} ({done} crates built)"),
            Progress::Running => String::new(),
        };
        let mut err = std::io::stderr();
        let _ = write!(
            err,
            "\r\x1b[2K{}",
            line.chars().take(100).collect::<String>()
        );
        let _ = err.flush();
    }
}

/// Checks one kata and records the result in the state.
pub fn check_and_record(cx: &mut Context, kata: &Kata) -> Result<CheckResult> {
    let mut progress = stderr_progress();
    let result = runner::check(&cx.root, kata, &cx.check, &mut progress)?;
    let failing = result.first_failure().map(|t| t.name.as_str());
    if cx
        .state
        .state
        .record_check(&kata.name, result.passed(), failing)
    {
        cx.state.save()?;
    }
    Ok(result)
}

fn run(cx: &mut Context, name: Option<&str>, json: bool) -> Result<i32> {
    let kata = cx.kata_or_current(name)?.clone();
    let root = cx.root.clone();
    // What the sources are (the untouched starter? files grading will not see? — a `git
    // status`, 40–110 ms on a loaded machine) is read while the check builds, not after it:
    // it is about the same files, and the verdict should not wait for it.
    let (result, (untouched_starter, unseen)) = std::thread::scope(|s| {
        let sources = s.spawn(|| {
            (
                crate::sources::is_untouched_starter(&root, &kata),
                crate::sources::unseen_by_grading(&root, &kata),
            )
        });
        let result = check_and_record(cx, &kata);
        (result, sources.join().unwrap_or_default())
    });
    let result = result?;
    if json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        println!("{} — {}\n", kata.name.bold(), kata.title);
        let ask = format!("`cargo katas hint {}`", kata.name);
        let shown = report::Shown {
            test_hints: cx.state.state.test_hints_seen.get(&kata.name),
            untouched_starter,
            ask: &ask,
            unseen_by_grading: &unseen,
            cols: terminal_cols(),
        };
        for line in report::verdict_lines(&kata, &result, &shown) {
            println!("{line}");
        }
        if result.passed() {
            println!(
                "\n{}",
                format!(
                    "compare with the reference: `cargo katas solution {}`",
                    kata.name
                )
                .dimmed()
            );
        } else if !result.tests.is_empty()
            && runner::view_file(&cx.root, &kata, &cx.check).is_file()
        {
            // Only after tests ran: a compile error has no run to look inside, and the file
            // left from an earlier failing run is not this one.
            println!("\n{}", see_inside(&kata.name).dimmed());
        }
    }
    Ok(if result.passed() { 0 } else { 1 })
}

/// The terminal's width when stdout is one; otherwise 0 (the width the test kit wrapped at).
fn terminal_cols() -> usize {
    use std::io::IsTerminal as _;
    if std::io::stdout().is_terminal() {
        crossterm::terminal::size().map_or(0, |(w, _)| w as usize)
    } else {
        0
    }
}

fn hint(cx: &mut Context, name: Option<&str>) -> Result<i32> {
    let kata = cx.kata_or_current(name)?.clone();
    if kata.hints.is_empty() && kata.test_hints.is_empty() {
        println!("`{}` has no hints", kata.name);
        return Ok(0);
    }
    let revealed = cx.state.state.reveal_next_hint(&kata);
    cx.state.save()?;
    let seen = cx
        .state
        .state
        .hints_seen
        .get(&kata.name)
        .copied()
        .unwrap_or(0) as usize;
    // Wrapped at the terminal's width, later lines under the hint's first word.
    let cols = match terminal_cols() {
        0 => usize::MAX,
        c => c,
    };
    let print_hint = |label: &str, hint: &str| {
        let hang = crate::text::width(label) + 1;
        // A long label (a test's name) on a narrow terminal would leave the hint a thin
        // column: then the label gets its own line and the hint runs under it.
        if cols != usize::MAX && hang > 12 && hang > cols / 3 {
            println!("{}", label.cyan().bold());
            let text = format!(
                "  {}",
                hint.split_whitespace().collect::<Vec<_>>().join(" ")
            );
            for line in crate::text::wrap(&text, cols, 0) {
                println!("{line}");
            }
            println!();
            return;
        }
        for line in crate::text::wrap(&report::hint_line(label, hint), cols, hang) {
            println!("{line}");
        }
        println!();
    };
    for (i, h) in kata.hints.iter().take(seen).enumerate() {
        print_hint(&format!("hint {}/{}:", i + 1, kata.hints.len()), h);
    }
    let tests = cx.state.state.test_hints_seen.get(&kata.name);
    for (test, h) in &kata.test_hints {
        if tests.is_some_and(|t| t.contains(test)) {
            print_hint(&format!("hint for {test}:"), h);
        }
    }
    match revealed {
        Revealed::NoMore => {
            for line in crate::text::wrap(NO_MORE_HINTS, cols, 0) {
                println!("{}", line.dimmed());
            }
        }
        Revealed::Test(t) => println!(
            "{}",
            format!("(new: the hint for the failing test {t})").dimmed()
        ),
        Revealed::Level(_) => {}
    }
    Ok(0)
}

fn verify(cx: &mut Context) -> Result<i32> {
    let katas = cx.manifest.katas.clone();
    let total = katas.len();
    let mut failed = Vec::new();
    for (i, k) in katas.iter().enumerate() {
        eprint!(
            "\r\x1b[2K{} {}/{total} {}",
            bar(i, total, 30),
            i + 1,
            k.name
        );
        let r = check_and_record(cx, k)?;
        if !r.passed() {
            let first = report::verdict_lines(k, &r, &report::Shown::default())
                .into_iter()
                .next()
                .unwrap_or_default();
            failed.push((k.name.clone(), first));
        }
    }
    eprintln!("\r\x1b[2K{} {total}/{total}", bar(total, total, 30));
    println!(
        "{} of {total} katas pass",
        (total - failed.len()).to_string().bold()
    );
    for (name, why) in &failed {
        println!(
            "  {} {name}: {}",
            "✗".red(),
            crate::text::strip_ansi(why).trim_start_matches("✗ ")
        );
    }
    Ok(if failed.is_empty() { 0 } else { 1 })
}

fn bar(done: usize, total: usize, width: usize) -> String {
    let filled = (width * done).checked_div(total).unwrap_or(width);
    format!("[{}{}]", "#".repeat(filled), "-".repeat(width - filled))
}

fn solution(cx: &Context, name: &str, force: bool) -> Result<i32> {
    let kata = cx.manifest.kata(name)?;
    if !force && !cx.state.state.passed.contains(&kata.name) {
        println!("{SOLUTION_LOCKED}");
        return Ok(1);
    }
    let path = cx.root.join(kata.reference());
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    println!(
        "{}\n",
        format!("// {}", kata.reference().display()).dimmed()
    );
    print!("{text}");
    Ok(0)
}

/// Shows a lesson (section) in the terminal.
pub fn show_lesson(root: &Path, lesson: Option<&str>, section: Option<&str>) -> Result<()> {
    crate::lesson::show(root, lesson, section)
}

/// Runs a lesson's quiz and keeps the best score per lesson in the state file; a section's
/// questions alone are practice and leave the recorded score as it is. An attempt stopped part
/// way is kept as such (never as a score) and taken up next time, unless `restart`.
fn quiz(
    cx: &mut Context,
    lesson: Option<&str>,
    options: &crate::quiz::Options<'_>,
    restart: bool,
) -> Result<i32> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    let stopped = cx.state.state.quiz_attempts.clone();
    let resume = |lesson: &str| {
        stopped
            .get(lesson)
            .filter(|_| !restart)
            .map(|a| crate::quiz::Resume {
                seed: a.seed,
                answered: a.answered,
                correct: a.correct,
            })
    };
    let outcome =
        crate::quiz::run_resuming(&cx.root, lesson, options, resume, &mut input, &mut out)?;
    if options.section.is_some() {
        return Ok(0);
    }
    cx.state.state.record_quiz(&outcome);
    cx.state.save()?;
    if !outcome.complete() && outcome.total > 0 {
        println!(
            "Kept as a stopped attempt ({} of {} answered, not a score): `cargo katas quiz {}` \
             takes it up at question {}.",
            outcome.total,
            outcome.asked,
            outcome.lesson,
            outcome.total + 1
        );
    }
    Ok(0)
}
