//! The DynamoDB Katas checker, `katas`: watch mode, hidden tests, hints and progress for
//! learners; the runner and manifest that `katas dev check` and `katas grade` build on.
//!
//! ```text
//! cli      parse arguments, resolve them into a plan, run a command
//! manifest checker/curriculum.toml: the katas, their points, hints and solutions
//! state    .katas-state.json: the learner's progress
//! runner   build + run hidden tests → per-test results (also in scratch workspaces)
//! report   results → coloured lines (verdict, diff, hint)
//! watch    the watch-mode event loop and its screen
//! ```

pub mod cli;
pub mod commands;
pub mod lesson;
pub mod manifest;
pub mod quiz;
pub mod report;
pub mod root;
pub mod runner;
pub mod state;
pub mod watch;
