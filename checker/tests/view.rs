//! A kata's failing run leaves a picture of its world for `cargo katas view`, and that
//! picture shows why it failed: hot-key-sharding's single-key counter throttles one partition,
//! and the saved page marks that partition — and no other — as throttled.

mod common;

use std::path::Path;

use katas::manifest::Manifest;
use katas::runner::{self, scratch, CheckOptions};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// Checks `solution` of `kata` in a scratch workspace; returns the result and the options
/// it ran with (they say where the picture went).
fn check(kata: &str, solution: &str, save_view: bool) -> (runner::CheckResult, std::path::PathBuf) {
    let manifest = Manifest::load(repo()).unwrap();
    let k = manifest.kata(kata).unwrap();
    let dir = std::env::temp_dir().join(format!(
        "katas-view-{kata}-{save_view}-{}",
        std::process::id()
    ));
    let source = repo().join(k.dir()).join("solutions").join(solution);
    let ws = scratch::prepare(repo(), k, &source, None, &dir).unwrap();
    let opts = CheckOptions {
        target_dir: Some(common::fixture_target().join("view")),
        only_tests: vec!["spreads_a_viral_burst".into()],
        save_view,
        ..CheckOptions::default()
    };
    let file = runner::view_file(&ws, k, &opts);
    let result = runner::check(&ws, k, &opts, &mut |_| {}).unwrap();
    (result, file)
}

#[test]
fn a_failing_run_saves_its_world_and_the_view_shows_the_throttled_partition() {
    let (result, file) = check("hot-key-sharding", "wrong-single-key.rs", true);
    assert!(!result.passed(), "the single-key counter must fail");
    assert!(file.is_file(), "no picture saved at {}", file.display());
    let run = serve::view::saved::load(&file).unwrap();
    assert_eq!(run.test, "spreads_a_viral_burst");
    let hot: Vec<u32> = run.snapshot.tables[0]
        .partitions
        .iter()
        .filter(|p| p.seconds.iter().any(|s| s.throttled_writes > 0))
        .map(|p| p.id)
        .collect();
    assert_eq!(hot.len(), 1, "one partition throttled: {hot:?}");

    let page = serve::view::saved::page(&run, "hot-key-sharding");
    assert!(page.contains("inside the failing run of <code>hot-key-sharding</code>"));
    assert!(
        page.contains("<b>spreads_a_viral_burst</b>"),
        "the test is named"
    );
    assert!(
        page.contains("the last with a throttled request"),
        "the charts end at the throttle"
    );
    // Exactly one partition row is marked: the one the single key lives on.
    let marked = page
        .matches(&format!(
            r#"<tr class="partition throttled" data-partition="{}">"#,
            hot[0]
        ))
        .count();
    let rows = page.matches(r#"<tr class="partition"#).count();
    assert_eq!(marked, 1, "partition {} marked", hot[0]);
    assert_eq!(
        page.matches(r#"<tr class="partition throttled""#).count(),
        1,
        "and no other of {rows}"
    );
    assert_eq!(rows, 1, "the idle ones are folded into one row");
    let idle: Vec<u32> = (0..run.snapshot.tables[0].partitions.len() as u32)
        .filter(|id| *id != hot[0])
        .collect();
    assert!(
        idle.len() > 1,
        "the table has more partitions than the hot one"
    );
    assert!(
        page.contains("idle in these seconds"),
        "{} partitions folded",
        idle.len()
    );
    assert!(page.contains("THROTTLED"));
    // Read-only: no fault forms, no refresh script.
    assert!(!page.contains("/_katas/fault"));
    assert!(!page.contains("<script>"));

    // A run that saves nothing (graders, dev check) leaves no file, and a new run clears the
    // old one first.
    let (_, file2) = check("hot-key-sharding", "reference.rs", true);
    assert!(!file2.is_file(), "a passing run leaves no picture behind");
}
