//! Arguments in two layers: [`Args`] is what clap parsed (this module, which knows nothing of
//! the commands); [`crate::context::Context`] is what a command runs with: the repository
//! found, the manifest loaded and kata names resolved (ripgrep's lowargs/hiargs).
//! [`crate::commands`] turns the one into the other and runs the command.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Learn DynamoDB by doing: katas checked against a deterministic DynamoDB engine.
#[derive(Debug, Parser)]
#[command(name = "katas", bin_name = "cargo katas", version, about, long_about = None)]
pub struct Args {
    /// Watch mode without a file watcher: press r to check (for network filesystems and
    /// containers where file events do not arrive).
    #[arg(long, global = true)]
    pub manual_run: bool,
    /// Watch mode: the command `e` opens the kata's file with, the path appended (for example
    /// `code -g`, `vim`, `subl`); also read from `KATAS_EDIT_CMD`.
    #[arg(long, global = true, value_name = "CMD")]
    pub edit_cmd: Option<String>,
    /// The command (watch mode when absent).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Every kata with its state.
    List,
    /// Check one kata once (default: the current one); the exit code says pass (0) or fail (1).
    Run {
        /// The kata (see `cargo katas list`; default: the one whose folder you are in, else the
        /// current one).
        kata: Option<String>,
        /// Replay a randomized test with this seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Run only this hidden test (repeatable).
        #[arg(long = "test")]
        tests: Vec<String>,
        /// Print the structured result as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show the next hint level (levels already seen stay visible).
    Hint {
        /// The kata (default: the current one).
        kata: Option<String>,
    },
    /// Check every kata, with a progress bar and a summary.
    Verify,
    /// Restore a kata's starter (your changes to it are lost).
    Reset {
        /// The kata.
        kata: String,
    },
    /// Print a kata's reference solution (after it passes, or with --force).
    Solution {
        /// The kata.
        kata: String,
        /// Show it even though the kata has not passed yet.
        #[arg(long)]
        force: bool,
    },
    /// Read a lesson in the terminal.
    Lesson {
        /// Lesson number or name (default: the current kata's lesson).
        lesson: Option<String>,
        /// Jump to a section.
        #[arg(long)]
        section: Option<String>,
    },
    /// A lesson's check-yourself questions, choices shuffled per attempt.
    Quiz {
        /// Lesson number or name (default: the current kata's lesson).
        lesson: Option<String>,
        /// Only the questions of this section (its anchor, as `cargo katas lesson --section` takes
        /// it) and of the sections under it.
        #[arg(long)]
        section: Option<String>,
        /// Ask an earlier attempt again: the seed it printed.
        #[arg(long)]
        seed: Option<u64>,
        /// Start a new attempt even though one was stopped part way (by default the quiz
        /// takes it up at the question where it stopped).
        #[arg(long)]
        restart: bool,
    },
    /// Write your submission archive (kata sources and progress) for your instructor.
    Pack {
        /// The archive to write (default: `<your-name>.tar` at the repository root).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Your name (default: `git config user.name`).
        #[arg(long)]
        name: Option<String>,
    },
    /// Grade submissions (instructors): archives, repository copies, or folders of them.
    Grade(GradeArgs),
    /// Serve the engine on DynamoDB's HTTP API, for an AWS SDK or the AWS CLI
    /// (`--endpoint-url http://127.0.0.1:8000`): [--port 8000] [--seed N]
    /// [--clock real|manual] [--host 127.0.0.1]. Builds the server the first time.
    #[command(disable_help_flag = true)]
    Serve {
        /// The server's options, passed on as typed (`cargo katas serve --help` lists them).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// See inside the last failing run of a kata: its world (partitions, capacity per second,
    /// replicas, indexes, streams, the request log's tail) drawn as the live view's page, in
    /// your browser. Builds the viewer the first time.
    View {
        /// The kata (default: the one whose folder you are in, else the current one).
        kata: Option<String>,
    },
    /// Authoring tools.
    Dev {
        /// The tool.
        #[command(subcommand)]
        command: DevCommand,
    },
}

/// `katas grade` arguments.
#[derive(Debug, clap::Args)]
pub struct GradeArgs {
    /// Submissions: `.tar` archives from `katas pack`, learners' repository copies, or
    /// folders holding either.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Grade against this folder of hidden-test crates (`DIR/<kata>/`) instead of the
    /// repository's `checker/katas/<kata>/tests`.
    #[arg(long, value_name = "DIR")]
    pub hidden: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: crate::grade::output::Format,
    /// Submission-katas graded in parallel (default: the number of CPUs).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Write the report here instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Grade only this kata (repeatable).
    #[arg(long = "kata")]
    pub katas: Vec<String>,
    /// Timeout of one kata's hidden tests, seconds (default: the manifest's).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// Address-space limit of one test run, MiB.
    #[arg(long, value_name = "MIB", default_value_t = crate::grade::isolate::DEFAULT_MEMORY_MIB)]
    pub memory: u64,
    /// Output a kata's run may print before it scores zero, KiB.
    #[arg(long, value_name = "KIB", default_value_t = crate::grade::DEFAULT_OUTPUT_CAP / 1024)]
    pub output_cap: usize,
    /// Skip the OS sandbox (namespaces and limits); timeouts and output caps still apply.
    /// Needs --accept-weak-isolation.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Grade even where a test run gets no pid and mount namespace of its own (--no-sandbox,
    /// or no user namespaces): its processes may outlive it, and it can read your files.
    #[arg(long)]
    pub accept_weak_isolation: bool,
    /// Gradescope: who sees a failed test's output, and when.
    #[arg(long, value_enum, default_value = "after-due-date")]
    pub visibility: crate::grade::output::Visibility,
    /// Folder for scratch workspaces and build caches (default: target/katas-grade).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
}

/// `katas dev …`.
#[derive(Debug, Subcommand)]
pub enum DevCommand {
    /// The authoring gate: layout, starters, solutions, hints, lesson links, rustfmt, clippy.
    Check {
        /// Only these katas (default: all, plus the stray-folder check).
        katas: Vec<String>,
    },
    /// Scaffold a new kata that `dev check` accepts: both folders, a curriculum entry, a
    /// starter, one hidden test, a reference and a known-wrong solution (a placeholder task
    /// to replace; every text to write says TODO).
    New {
        /// The kata's name (lowercase, dashes): its crate and folder names.
        name: String,
        /// One-line title (default: from the name).
        #[arg(long)]
        title: Option<String>,
        /// `model-it` or `build-it`.
        #[arg(long, default_value = "model-it")]
        track: String,
        /// Lesson section practised, `<file stem>#<anchor>` (default: the first lesson's first
        /// section, as a placeholder).
        #[arg(long)]
        lesson: Option<String>,
    },
}
