//! Shared by the integration tests: a fresh copy of the fixture curriculum in a temp dir.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The fixture repo in the source tree.
pub fn fixture_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini")
}

/// A target dir shared by every fixture build (kept between runs so they stay warm), apart
/// from the workspace's own so the outer cargo's lock is never in the way.
pub fn fixture_target() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_katas"));
    // <target>/debug/katas → <target>/katas-fixture
    exe.parent().and_then(Path::parent).map_or_else(
        || std::env::temp_dir().join("katas-fixture-target"),
        |t| t.join("katas-fixture"),
    )
}

/// Copies the fixture to a new temp dir, with the test kit's path made absolute.
pub fn fresh_fixture(tag: &str) -> PathBuf {
    let dest = std::env::temp_dir().join(format!("katas-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dest);
    katas::runner::scratch::copy_dir(&fixture_src(), &dest, &|p| {
        let name = p.file_name().unwrap_or_default();
        name != "target"
            && name != "Cargo.lock"
            && !name.to_string_lossy().starts_with(".katas-state")
    })
    .unwrap();
    let testkit = Path::new(env!("CARGO_MANIFEST_DIR")).join("testkit");
    let manifest = dest.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace("../../../testkit", &testkit.to_string_lossy());
    std::fs::write(&manifest, text).unwrap();
    // The workspace's lock file pins the same serde_json the test kit already built with.
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    if lock.exists() {
        std::fs::copy(lock, dest.join("Cargo.lock")).unwrap();
    }
    dest
}
