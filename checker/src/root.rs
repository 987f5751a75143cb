//! Finding the repository root: the nearest directory, from the current one upwards, that
//! holds `checker/curriculum.toml`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::manifest::MANIFEST_PATH;

/// What a learner reads when they run `katas` outside the repository.
pub const OUTSIDE_REPO: &str = "this is not a DynamoDB Katas repository: run `cargo katas` \
inside the folder you cloned (the one that holds `checker/curriculum.toml`)";

/// The repository root at or above `start`.
pub fn find_root(start: &Path) -> Result<PathBuf> {
    for dir in start.ancestors() {
        if dir.join(MANIFEST_PATH).is_file() {
            return Ok(dir.to_path_buf());
        }
    }
    bail!("{OUTSIDE_REPO} (looked upwards from {})", start.display())
}
