//! Snippets of `aws-sdk-dynamodb` code, ported to the engine by mechanical edits only; they
//! live in `tests/` (one file per area) and are described in README.md. This library is empty:
//! a package needs one target besides its tests.
