//! The DynamoDB Katas checker, `katas`: watch mode, hidden tests, hints and progress for
//! learners; the runner and manifest that `katas dev check` and `katas grade` build on.
//!
//! ```text
//! commands resolve the parsed arguments into a context, run a command (main → commands)
//! cli      the parse layer: what clap parsed
//! context  what a command runs with: root, curriculum, progress
//! manifest checker/curriculum.toml + checker/katas/<kata>/kata.toml: the katas, their points, hints and solutions
//! state    .katas-state.json: the learner's progress
//! runner   build + run hidden tests → per-test results (also in scratch workspaces)
//! report   results → coloured lines (verdict, diff, hint)
//! watch    the watch-mode event loop and its screen
//! text     terminal text: display width, escapes, wrapping (every screen goes through it)
//! devcheck `katas dev check`: the authoring gate over the whole curriculum
//! grade    `katas grade`: submissions → sandboxed runs → scores in five formats
//! pack     `katas pack`: a learner's submission archive
//! ```

pub mod cli;
pub mod commands;
pub mod context;
pub mod devcheck;
pub mod grade;
pub mod lesson;
pub mod manifest;
pub mod pack;
pub mod quiz;
pub mod report;
pub mod root;
pub mod runner;
pub mod sources;
pub mod state;
pub mod text;
pub mod watch;
