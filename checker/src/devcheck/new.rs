//! `katas dev new <kata>`: scaffolds a kata that `katas dev check` accepts — both folders of
//! the layout (see [`crate::manifest`]), a curriculum entry, and content that really runs: a
//! starter that compiles and fails, one hidden test, a reference that passes it and a
//! known-wrong solution that fails it. The author then replaces the placeholder task (a
//! PutItem) with the kata's own; every text still to write says TODO.
//!
//! Design decision: the templates are files under `devcheck/templates/` embedded with
//! `include_str!`, not strings in this module, so that an author reads and edits them as the
//! Rust, TOML and Markdown they become. Placeholders are `{{name}}`, `{{crate}}`, `{{title}}`,
//! `{{track}}`, `{{lesson}}`, `{{lesson_file}}`, `{{lesson_anchor}}`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::manifest::{Manifest, KATAS_DIR, KATA_FILE, MANIFEST_PATH};

/// The default lesson link: the first section of the first lesson (a placeholder the kata's
/// README and `kata.toml` mark TODO, valid so that `dev check` accepts the scaffold).
pub fn default_lesson(root: &Path) -> Option<String> {
    let dir = root.join(super::layout::LESSONS_DIR);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "md")
                && p.file_stem().is_some_and(|s| {
                    s.to_string_lossy()
                        .starts_with(|c: char| c.is_ascii_digit())
                })
        })
        .collect();
    files.sort();
    let first = files.first()?;
    let text = std::fs::read_to_string(first).ok()?;
    let anchor = crate::lesson::headings(&text)
        .into_iter()
        .find(|(level, _, _)| *level == 2)
        .map(|(_, anchor, _)| anchor)?;
    let stem = first.file_stem()?.to_string_lossy().into_owned();
    Some(format!("{stem}#{anchor}"))
}

/// What `dev new` is asked to write.
#[derive(Debug, Clone)]
pub struct NewKata {
    /// The kata's name (its crate's package name).
    pub name: String,
    /// Its one-line title.
    pub title: String,
    /// `model-it` or `build-it`.
    pub track: String,
    /// `<lesson file stem>#<section anchor>`.
    pub lesson: String,
}

const TEMPLATES: &[(&str, &str)] = &[
    ("kata.toml", include_str!("templates/kata.toml.tmpl")),
    ("README.md", include_str!("templates/README.md.tmpl")),
    ("given.rs", include_str!("templates/given.rs.tmpl")),
    ("starter.rs", include_str!("templates/starter.rs.tmpl")),
    ("reference.rs", include_str!("templates/reference.rs.tmpl")),
    ("wrong.rs", include_str!("templates/wrong.rs.tmpl")),
    ("tests.rs", include_str!("templates/tests.rs.tmpl")),
    ("glue.rs", include_str!("templates/glue.rs.tmpl")),
];

/// Writes the kata's two folders and adds it to the end of the curriculum; returns the files
/// written, relative to `root`. Refuses a name that is taken or not a plain crate name, and
/// writes nothing then.
pub fn scaffold(root: &Path, new: &NewKata) -> Result<Vec<PathBuf>> {
    let name = new.name.as_str();
    let valid = !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid {
        bail!("`{name}` is not a kata name: use lowercase letters, digits and dashes (`hot-key-sharding`)");
    }
    if !matches!(new.track.as_str(), "model-it" | "build-it") {
        bail!("track `{}` is neither `model-it` nor `build-it`", new.track);
    }
    let manifest = Manifest::load(root)?;
    if manifest.index_of(name).is_some() {
        bail!("the curriculum already has a kata `{name}`");
    }
    let exercise = Path::new("exercises").join(name);
    let dir = Path::new(KATAS_DIR).join(name);
    for d in [&exercise, &dir] {
        if root.join(d).exists() {
            bail!(
                "{} exists already: pick another name or remove it",
                d.display()
            );
        }
    }
    let (lesson_file, lesson_anchor) = new
        .lesson
        .split_once('#')
        .unwrap_or((new.lesson.as_str(), ""));
    let crate_name = name.replace('-', "_");
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{crate}}", &crate_name)
            .replace("{{title}}", &new.title.replace('"', "'"))
            .replace("{{track}}", &new.track)
            .replace("{{lesson}}", &new.lesson)
            .replace("{{lesson_file}}", lesson_file)
            .replace("{{lesson_anchor}}", lesson_anchor)
    };
    let template = |key: &str| {
        TEMPLATES
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, t)| fill(t))
            .unwrap_or_default()
    };
    let starter = template("starter.rs");
    let files: Vec<(PathBuf, String)> = vec![
        (exercise.join("Cargo.toml"), exercise_manifest(name)),
        (exercise.join("README.md"), template("README.md")),
        (exercise.join("src/lib.rs"), starter.clone()),
        (dir.join(KATA_FILE), template("kata.toml")),
        (dir.join("starter/lib.rs"), starter),
        (dir.join("solutions/reference.rs"), template("reference.rs")),
        (
            dir.join("solutions/wrong-other-attribute.rs"),
            template("wrong.rs"),
        ),
        (
            dir.join("given/Cargo.toml"),
            crate_manifest(
                &format!("{name}-given"),
                &format!("the given part of the {name} kata"),
                "[lib]\ntest = false\ndoctest = false\n\n[dependencies]\nengine.workspace = true\n",
            ),
        ),
        (dir.join("given/src/lib.rs"), template("given.rs")),
        (
            dir.join("tests/Cargo.toml"),
            crate_manifest(
                &format!("hidden-{name}"),
                &format!("hidden tests of the {name} kata (a library; ../run links it)"),
                &format!(
                    "[lib]\ntest = false\ndoctest = false\n\n[dependencies]\n\
                     given = {{ package = \"{name}-given\", path = \"../given\" }}\n\
                     engine.workspace = true\n\
                     katas-testkit = {{ workspace = true, features = [\"engine\"] }}\n"
                ),
            ),
        ),
        (dir.join("tests/src/lib.rs"), template("tests.rs")),
        (
            dir.join("run/Cargo.toml"),
            crate_manifest(
                &format!("run-{name}"),
                &format!("the {name} kata's test binary (glue)"),
                &format!(
                    "[[bin]]\nname = \"run-{name}\"\npath = \"src/main.rs\"\ntest = false\n\n\
                     [dependencies]\n{name} = {{ path = \"../../../../exercises/{name}\" }}\n\
                     hidden = {{ package = \"hidden-{name}\", path = \"../tests\" }}\n"
                ),
            ),
        ),
        (dir.join("run/src/main.rs"), template("glue.rs")),
    ];
    let curriculum_path = root.join(MANIFEST_PATH);
    let curriculum = std::fs::read_to_string(&curriculum_path)
        .with_context(|| format!("cannot read {}", curriculum_path.display()))?;
    let curriculum = add_to_curriculum(&curriculum, name)?;

    let mut written = Vec::new();
    for (path, text) in &files {
        let full = root.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&full, text).with_context(|| format!("cannot write {}", full.display()))?;
        written.push(path.clone());
    }
    std::fs::write(&curriculum_path, curriculum)
        .with_context(|| format!("cannot write {}", curriculum_path.display()))?;
    written.push(PathBuf::from(MANIFEST_PATH));
    Ok(written)
}

/// The curriculum text with `name` added as the last kata of its `katas = [...]` list.
fn add_to_curriculum(text: &str, name: &str) -> Result<String> {
    let Some(start) = text.find("katas = [") else {
        let sep = if text.ends_with('\n') || text.is_empty() {
            ""
        } else {
            "\n"
        };
        return Ok(format!("{text}{sep}katas = [\"{name}\"]\n"));
    };
    let Some(end) = text[start..].find(']').map(|i| start + i) else {
        bail!("{MANIFEST_PATH}: the `katas = [` list is not closed");
    };
    let list = &text[start + "katas = [".len()..end];
    let entry = if list.contains('\n') {
        // One name per line: keep that shape.
        let before = list.trim_end_matches([' ', '\n']);
        let sep = if before.trim().is_empty() || before.trim_end().ends_with(',') {
            ""
        } else {
            ","
        };
        format!("{before}{sep}\n  \"{name}\",\n")
    } else if list.trim().is_empty() {
        format!("\"{name}\"")
    } else {
        format!("{}, \"{name}\"", list.trim_end().trim_end_matches(','))
    };
    Ok(format!(
        "{}katas = [{entry}{}",
        &text[..start],
        &text[end..]
    ))
}

fn exercise_manifest(name: &str) -> String {
    crate_manifest(
        name,
        &format!("DynamoDB Katas: the {name} kata (your code goes in src/lib.rs)"),
        &format!(
            "[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\nengine.workspace = true\n\
             # The kata's given part (types and names shared with the hidden tests): always the\n\
             # instructor's copy, in grading too.\n\
             given = {{ package = \"{name}-given\", path = \"../../checker/katas/{name}/given\" }}\n"
        ),
    )
}

fn crate_manifest(package: &str, description: &str, rest: &str) -> String {
    format!(
        "[package]\nname = \"{package}\"\ndescription = \"{description}\"\n\
         version.workspace = true\nedition.workspace = true\nrust-version.workspace = true\n\
         license.workspace = true\npublish.workspace = true\n\n{rest}\n[lints]\nworkspace = true\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_to_either_shape_of_list() {
        let multi = "version = 2\n\nkatas = [\n  \"a\",\n  \"b\",\n]\n";
        assert_eq!(
            add_to_curriculum(multi, "c").unwrap(),
            "version = 2\n\nkatas = [\n  \"a\",\n  \"b\",\n  \"c\",\n]\n"
        );
        let one = "version = 2\nkatas = [\"a\"]\n";
        assert_eq!(
            add_to_curriculum(one, "c").unwrap(),
            "version = 2\nkatas = [\"a\", \"c\"]\n"
        );
        let empty = "version = 2\nkatas = []\n";
        assert_eq!(
            add_to_curriculum(empty, "c").unwrap(),
            "version = 2\nkatas = [\"c\"]\n"
        );
        assert_eq!(
            add_to_curriculum("version = 2\n", "c").unwrap(),
            "version = 2\nkatas = [\"c\"]\n"
        );
    }
}
