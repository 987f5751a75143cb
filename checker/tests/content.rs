//! The teaching content stays consistent: every diagram is well-formed SVG with a title, every
//! diagram a lesson shows exists, every quiz loads with one valid answer per question, the
//! coverage table points only at sections, quiz questions, diagrams and katas that exist, the
//! terminal renderer lines tables up, and a scripted quiz session scores correctly.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Cursor;
use std::path::{Path, PathBuf};

use katas::quiz::{self, Answer};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The four flagship katas, written in the same session as this test. A name in the coverage
/// table counts as an existing kata if `exercises/<name>/` exists or it is one of these.
/// Remove this allowance once all four have landed under `exercises/`.
const MIN_QUESTIONS: usize = 12;

/// The katas of `checker/curriculum.toml`, in order.
fn curriculum_katas(root: &Path) -> Vec<String> {
    let text = read(&root.join("checker/curriculum.toml"));
    let value: toml::Table = toml::from_str(&text).expect("checker/curriculum.toml parses");
    value["katas"]
        .as_array()
        .expect("a katas list")
        .iter()
        .map(|k| k.as_str().expect("kata names are strings").to_string())
        .collect()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("checker/ has a parent")
        .to_path_buf()
}

fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// `lessons/src/NN-name.md` files: the lessons proper (not README, SUMMARY or coverage).
fn lesson_files() -> Vec<PathBuf> {
    files_with_ext(&root().join("lessons/src"), "md")
        .into_iter()
        .filter(|p| {
            let stem = stem(p);
            stem.len() > 3 && stem[..2].chars().all(|c| c.is_ascii_digit()) && &stem[2..3] == "-"
        })
        .collect()
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .and_then(|s| s.to_str())
        .expect("UTF-8 file name")
        .to_string()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
}

fn md_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// GitHub/mdBook heading anchor: lower case, letters/digits/`-`/`_` kept, spaces → `-`.
fn slug(text: &str) -> String {
    text.trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of every heading in a Markdown document, made unique as GitHub does.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut current: Option<String> = None;
    for event in Parser::new_ext(markdown, md_options()) {
        match event {
            Event::Start(Tag::Heading { .. }) => current = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(text) = current.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&current.take().unwrap_or_default());
                let mut anchor = base.clone();
                let mut n = 0;
                while out.contains(&anchor) {
                    n += 1;
                    anchor = format!("{base}-{n}");
                }
                out.insert(anchor);
            }
            _ => {}
        }
    }
    out
}

/// The anchors of the sections (headings of any level) that hold at least one compiled Rust
/// sample: a fenced block rustdoc runs (`rust`, `rust,no_run`…; not `ignore`d).
fn sections_with_compiled_samples(markdown: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut heading: Option<String> = None;
    let mut section: Option<String> = None;
    for event in Parser::new_ext(markdown, md_options()) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(text) = heading.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let mut anchor = base.clone();
                let mut n = 0;
                while seen.contains(&anchor) {
                    n += 1;
                    anchor = format!("{base}-{n}");
                }
                seen.insert(anchor.clone());
                section = Some(anchor);
            }
            Event::Start(Tag::CodeBlock(pulldown_cmark::CodeBlockKind::Fenced(info))) => {
                let words: Vec<&str> = info.split([',', ' ']).map(str::trim).collect();
                if words.contains(&"rust") && !words.contains(&"ignore") {
                    if let Some(anchor) = &section {
                        out.insert(anchor.clone());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every link and image target in a Markdown document.
fn link_targets(markdown: &str) -> Vec<String> {
    Parser::new_ext(markdown, md_options())
        .filter_map(|e| match e {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("katas-content-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------------------------------------
// (1) diagrams
// ---------------------------------------------------------------------------------------------

#[test]
fn every_diagram_is_well_formed_svg_with_a_title_and_text() {
    let svgs = files_with_ext(&root().join("diagrams"), "svg");
    assert!(!svgs.is_empty(), "no diagrams in diagrams/");
    for path in svgs {
        let text = read(&path);
        let doc = roxmltree::Document::parse(&text)
            .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", path.display()));
        let svg = doc.root_element();
        assert_eq!(
            svg.tag_name().name(),
            "svg",
            "{}: root is not <svg>",
            path.display()
        );
        assert_eq!(
            svg.tag_name().namespace(),
            Some("http://www.w3.org/2000/svg"),
            "{}: <svg> lacks the SVG namespace (browsers then show nothing)",
            path.display()
        );
        assert!(
            svg.attribute("viewBox").is_some(),
            "{}: no viewBox, so it cannot scale in the book",
            path.display()
        );
        let has_text = |name: &str| {
            doc.descendants().any(|n| {
                n.tag_name().name() == name
                    && n.descendants()
                        .filter_map(|d| d.text())
                        .any(|t| !t.trim().is_empty())
            })
        };
        assert!(
            has_text("title") || has_text("text"),
            "{}: neither a <title> nor visible <text>",
            path.display()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// (2) diagrams referenced by lessons
// ---------------------------------------------------------------------------------------------

#[test]
fn every_diagram_a_lesson_shows_exists_and_every_diagram_is_shown() {
    let lessons_dir = root().join("lessons/src");
    let mut used = BTreeSet::new();
    let mut missing = Vec::new();
    for path in files_with_ext(&lessons_dir, "md") {
        for target in link_targets(&read(&path)) {
            let file = target.split('#').next().unwrap_or("");
            if !file.ends_with(".svg") || file.contains("://") {
                continue;
            }
            let resolved = lessons_dir.join(file);
            match resolved.canonicalize() {
                Ok(p) => {
                    used.insert(p);
                }
                Err(_) => missing.push(format!("{} → {target}", stem(&path))),
            }
        }
    }
    assert!(
        missing.is_empty(),
        "lessons show diagrams that do not exist: {missing:#?}"
    );
    if lesson_files().is_empty() {
        return; // Lessons not written yet: nothing can show the diagrams.
    }
    let unused: Vec<String> = files_with_ext(&root().join("diagrams"), "svg")
        .into_iter()
        .filter(|p| !used.contains(&p.canonicalize().expect("diagram path")))
        .map(|p| stem(&p))
        .collect();
    assert!(unused.is_empty(), "diagrams no lesson shows: {unused:?}");
}

/// Every image a book page shows (and every link to a non-page file) resolves where the book
/// is read as a web book: served by `mdbook serve` (the page at `/<page>.html`, a `..` above
/// the root staying at the root, as browsers resolve it; the server's root holds the built
/// pages and mdbook's copy of every other file of the book's `src`) and built, opened from disk
/// (`<build-dir>/<page>.html`, where `..` climbs the real folders). Without mdbook: the two
/// resolutions are computed here, from `lessons/book.toml`.
#[test]
fn every_image_the_book_shows_is_there_served_and_built() {
    let book = root().join("lessons");
    let config: toml::Table = toml::from_str(&read(&book.join("book.toml"))).expect("book.toml");
    let setting = |table: &str, key: &str, default: &str| {
        config
            .get(table)
            .and_then(|t| t.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or(default)
            .to_string()
    };
    let src = book.join(setting("book", "src", "src"));
    let built = book.join(setting("build", "build-dir", "book"));
    let mut checked = 0;
    let mut missing = Vec::new();
    for page in files_with_ext(&src, "md") {
        for target in link_targets(&read(&page)) {
            let file = target.split(['#', '?']).next().unwrap_or("");
            if file.is_empty() || file.contains("://") || file.ends_with(".md") {
                continue;
            }
            checked += 1;
            // Served: URL resolution from the server's root; the file is mdbook's copy of src.
            let mut url: Vec<&str> = Vec::new();
            for part in file.split('/') {
                match part {
                    ".." => {
                        url.pop();
                    }
                    "." | "" => {}
                    part => url.push(part),
                }
            }
            let served = url.iter().fold(src.clone(), |p, part| p.join(part));
            if !served.is_file() {
                missing.push(format!(
                    "{}: {target} is /{} served, not in {}",
                    stem(&page),
                    url.join("/"),
                    src.display()
                ));
            }
            // Built and opened from disk: real folders, from the page's place in the book.
            let mut path = built.clone();
            for part in file.split('/') {
                match part {
                    ".." => {
                        path.pop();
                    }
                    "." | "" => {}
                    part => path.push(part),
                }
            }
            let on_disk = match path.strip_prefix(&built) {
                Ok(inside) => src.join(inside),
                Err(_) => path.clone(),
            };
            if !on_disk.is_file() {
                missing.push(format!(
                    "{}: {target} from {} is {}, which does not exist",
                    stem(&page),
                    built.display(),
                    on_disk.display()
                ));
            }
        }
    }
    assert!(checked > 0, "the book shows no images: nothing was checked");
    assert!(
        missing.is_empty(),
        "book images a browser would not find: {missing:#?}"
    );
}

// ---------------------------------------------------------------------------------------------
// (3) quizzes
// ---------------------------------------------------------------------------------------------

fn quizzes() -> Vec<(PathBuf, quiz::Quiz)> {
    files_with_ext(&root().join("lessons/quizzes"), "json")
        .into_iter()
        .map(|p| {
            let q = quiz::load(&p).unwrap_or_else(|e| panic!("{e:#}"));
            (p, q)
        })
        .collect()
}

#[test]
fn every_quiz_loads_with_one_valid_answer_per_question_and_mixed_kinds() {
    let all = quizzes();
    assert!(!all.is_empty(), "no quizzes in lessons/quizzes");
    let mut ids = BTreeSet::new();
    for (path, q) in &all {
        let name = stem(path);
        assert_eq!(
            q.lesson,
            name,
            "{}: lesson field ≠ file name",
            path.display()
        );
        assert!(
            q.questions.len() >= MIN_QUESTIONS,
            "{name}: {} questions, want at least {MIN_QUESTIONS}",
            q.questions.len()
        );
        let number = &name[..2];
        let mut kinds = BTreeMap::new();
        for question in &q.questions {
            assert!(
                ids.insert(question.id.clone()),
                "duplicate id {}",
                question.id
            );
            assert!(
                question.id.starts_with(&format!("{number}-q")),
                "{name}: id {} should start with {number}-q",
                question.id
            );
            assert!(!question.explanation.trim().is_empty(), "{}", question.id);
            let kind = match &question.answer {
                Answer::Choice { choices, correct } => {
                    assert!(
                        choices.len() >= 2 && *correct < choices.len(),
                        "{}",
                        question.id
                    );
                    let distinct: BTreeSet<_> = choices.iter().map(|c| c.to_lowercase()).collect();
                    assert_eq!(
                        distinct.len(),
                        choices.len(),
                        "{}: repeated choice",
                        question.id
                    );
                    "choice"
                }
                Answer::TrueFalse(_) => "true_false",
                Answer::Numeric {
                    value, tolerance, ..
                } => {
                    assert!(value.is_finite() && tolerance.is_finite() && *tolerance >= 0.0);
                    "numeric"
                }
            };
            *kinds.entry(kind).or_insert(0) += 1;
        }
        for kind in ["choice", "true_false", "numeric"] {
            assert!(kinds.contains_key(kind), "{name}: no {kind} question");
        }
    }
}

#[test]
fn every_lesson_has_a_quiz_and_every_question_names_a_section_of_its_lesson() {
    let lessons = lesson_files();
    if lessons.is_empty() {
        eprintln!("lessons/src has no lessons yet; section check skipped");
        return;
    }
    let quizzes: BTreeMap<String, quiz::Quiz> =
        quizzes().into_iter().map(|(p, q)| (stem(&p), q)).collect();
    for lesson in &lessons {
        let name = stem(lesson);
        let q = quizzes
            .get(&name)
            .unwrap_or_else(|| panic!("lesson {name} has no lessons/quizzes/{name}.json"));
        let anchors = anchors(&read(lesson));
        for question in &q.questions {
            assert!(
                anchors.contains(&question.section),
                "{}: section {:?} is not a heading of {name}.md",
                question.id,
                question.section
            );
        }
    }
    for name in quizzes.keys() {
        assert!(
            lessons.iter().any(|l| stem(l) == *name),
            "quiz {name} has no lesson"
        );
    }
}

#[test]
fn load_rejects_quizzes_without_exactly_one_valid_answer() {
    let dir = TempDir::new("bad-quizzes");
    let question = |fields: &str| {
        format!(
            r#"{{ "version": 1, "lesson": "09-x", "title": "t", "questions": [
                {{ "id": "09-q01", "prompt": "p", "explanation": "e", "section": "s", {fields} }} ] }}"#
        )
    };
    let cases = [
        ("index out of range", question(r#""kind": "choice", "choices": ["a", "b"], "answer": 2"#)),
        ("one choice", question(r#""kind": "choice", "choices": ["a"], "answer": 0"#)),
        ("two equal choices", question(r#""kind": "choice", "choices": ["a", "b", "A"], "answer": 0"#)),
        ("bool for choice", question(r#""kind": "choice", "choices": ["a", "b"], "answer": true"#)),
        ("number for true_false", question(r#""kind": "true_false", "answer": 1"#)),
        ("string for numeric", question(r#""kind": "numeric", "answer": "12""#)),
        ("negative tolerance", question(r#""kind": "numeric", "answer": 12, "tolerance": -1"#)),
        ("unknown kind", question(r#""kind": "essay", "answer": 1"#)),
        (
            "empty explanation",
            question(r#""kind": "true_false", "answer": true"#).replace(r#""e""#, r#""  ""#),
        ),
        (
            "duplicate ids",
            r#"{ "version": 1, "lesson": "09-x", "title": "t", "questions": [
                { "id": "09-q01", "kind": "true_false", "prompt": "p", "answer": true, "explanation": "e", "section": "s" },
                { "id": "09-q01", "kind": "true_false", "prompt": "p", "answer": false, "explanation": "e", "section": "s" } ] }"#
                .to_string(),
        ),
    ];
    for (what, json) in cases {
        let path = dir.0.join("09-x.json");
        std::fs::write(&path, json).expect("write quiz");
        assert!(quiz::load(&path).is_err(), "accepted a quiz with {what}");
    }
    let path = dir.0.join("09-x.json");
    std::fs::write(
        &path,
        question(r#""kind": "numeric", "answer": 1.5, "unit": "RCU""#),
    )
    .expect("write quiz");
    assert!(quiz::load(&path).is_ok(), "rejected a valid quiz");
}

// ---------------------------------------------------------------------------------------------
// (4) coverage table
// ---------------------------------------------------------------------------------------------

/// The hidden tests of a kata: the names given to `seeded("…", …)` / `plain("…", …)` in the
/// `run(vec![...])` list of `checker/katas/<kata>/tests/src/*.rs`.
fn hidden_test_names(root: &Path, kata: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in files_with_ext(
        &root.join("checker/katas").join(kata).join("tests/src"),
        "rs",
    ) {
        let text = read(&file);
        let Some(start) = text.find("run(vec![") else {
            continue;
        };
        let list = &text[start..];
        let list = &list[..list.find("]);").unwrap_or(list.len())];
        // The test kit's constructors: `seeded(..)`, `plain(..)` and `test(..)` (not a word
        // that merely ends in one of them, such as `latest(`).
        for opener in ["seeded(", "plain(", "test("] {
            let mut rest = list;
            while let Some(at) = rest.find(opener) {
                let before = rest[..at].chars().next_back();
                let after = rest[at + opener.len()..].trim_start();
                rest = &rest[at + opener.len()..];
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                if let Some(quoted) = after.strip_prefix('"') {
                    if let Some(end) = quoted.find('"') {
                        names.insert(quoted[..end].to_string());
                    }
                }
            }
        }
    }
    assert!(!names.is_empty(), "no hidden tests found for kata {kata}");
    names
}

#[test]
fn hidden_test_names_are_read_from_the_run_lists() {
    let names = hidden_test_names(&root(), "stream-read-model");
    assert!(names.contains("a_new_instance_starts_empty"), "{names:?}");
    assert!(
        names.contains("survives_redelivery_retries_and_a_split"),
        "{names:?}"
    );
}

#[test]
fn coverage_table_names_only_existing_sections_quiz_questions_diagrams_and_katas() {
    let root = root();
    let coverage = root.join("lessons/src/coverage.md");
    if !coverage.exists() {
        eprintln!("lessons/src/coverage.md not written yet; skipped");
        return;
    }
    let lesson_anchors: BTreeMap<String, BTreeSet<String>> = lesson_files()
        .iter()
        .map(|p| (stem(p), anchors(&read(p))))
        .collect();
    let sample_sections: BTreeMap<String, BTreeSet<String>> = lesson_files()
        .iter()
        .map(|p| (stem(p), sections_with_compiled_samples(&read(p))))
        .collect();
    let quiz_ids: BTreeSet<String> = quizzes()
        .into_iter()
        .flat_map(|(_, q)| q.questions.into_iter().map(|x| x.id))
        .collect();
    let katas = curriculum_katas(&root);
    let kata_exists =
        |name: &str| root.join("exercises").join(name).is_dir() && katas.iter().any(|k| k == name);
    let hidden_tests: BTreeMap<String, BTreeSet<String>> = katas
        .iter()
        .map(|k| (k.to_string(), hidden_test_names(&root, k)))
        .collect();
    let is_quiz_id = |t: &str| {
        let b = t.as_bytes();
        t.len() >= 5
            && b[..2].iter().all(u8::is_ascii_digit)
            && &t[2..4] == "-q"
            && b[4..].iter().all(u8::is_ascii_digit)
    };

    let mut problems = Vec::new();
    let mut rows = 0;
    for (n, line) in read(&coverage).lines().enumerate() {
        let line = line.trim();
        if !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let is_rule = cells.iter().all(|c| c.chars().all(|ch| "-: ".contains(ch)));
        if is_rule || cells.first() == Some(&"Fact") {
            continue;
        }
        rows += 1;
        let at = format!("coverage.md:{}", n + 1);
        if cells.len() < 3 {
            problems.push(format!("{at}: expected | fact | section | practised by |"));
            continue;
        }
        // Column 2: lesson sections (`01-foundations#anchor`) or diagrams.
        for token in cells[1].split(',').map(|t| t.trim().trim_matches('`')) {
            if token.ends_with(".svg") {
                let file = token.rsplit('/').next().unwrap_or(token);
                if !root.join("diagrams").join(file).exists() {
                    problems.push(format!("{at}: no diagram {token}"));
                }
                continue;
            }
            let Some((lesson, anchor)) = token.split_once('#') else {
                problems.push(format!("{at}: {token:?} is not <lesson>#<anchor>"));
                continue;
            };
            match lesson_anchors.get(lesson.trim_end_matches(".md")) {
                None => problems.push(format!("{at}: no lesson {lesson}")),
                Some(a) if !a.contains(anchor) => {
                    problems.push(format!("{at}: no section #{anchor} in {lesson}"))
                }
                Some(_) => {}
            }
        }
        if cells.len() < 4 {
            problems.push(format!(
                "{at}: expected | fact | section | status | checked by |"
            ));
            continue;
        }
        // Column 4: hidden tests (`kata::test`), quiz ids, diagrams, compiled samples.
        let (mut tests, mut questions) = (0, 0);
        for token in cells[3].split(',').map(|t| t.trim().trim_matches('`')) {
            if token.is_empty() {
                continue;
            }
            if let Some((kata, test)) = token.split_once("::") {
                tests += 1;
                match hidden_tests.get(kata) {
                    None => problems.push(format!("{at}: no kata {kata:?}")),
                    Some(names) if !names.contains(test) => problems.push(format!(
                        "{at}: kata {kata} has no hidden test {test:?} (its tests: {})",
                        names.iter().cloned().collect::<Vec<_>>().join(", ")
                    )),
                    Some(_) => {}
                }
            } else if let Some(target) = token.strip_prefix("sample:") {
                // A compiled lesson sample: `sample:<lesson>#<anchor>`.
                let (lesson, anchor) = target.split_once('#').unwrap_or((target, ""));
                let has_sample = sample_sections
                    .get(lesson)
                    .is_some_and(|sections| sections.contains(anchor));
                if !has_sample {
                    problems.push(format!(
                        "{at}: no compiled Rust sample in section {target} (see lessons/lib.rs)"
                    ));
                }
            } else if is_quiz_id(token) {
                questions += 1;
                if !quiz_ids.contains(token) {
                    problems.push(format!("{at}: no quiz question {token}"));
                }
            } else if token.ends_with(".svg") {
                let file = token.rsplit('/').next().unwrap_or(token);
                if !root.join("diagrams").join(file).exists() {
                    problems.push(format!("{at}: no diagram {token}"));
                }
            } else if kata_exists(token) {
                problems.push(format!(
                    "{at}: {token:?} names a kata, not what fails: write `{token}::<hidden test>`"
                ));
            } else {
                problems.push(format!(
                    "{at}: {token:?} is no test, question, sample or diagram"
                ));
            }
        }
        // Column 3: the status must be what column 4 proves.
        let proven = if tests > 0 {
            "practised"
        } else if questions > 0 {
            "quizzed"
        } else {
            "read only"
        };
        if cells[2] != proven {
            problems.push(format!(
                "{at}: status {:?}, but what the row names makes it {proven:?}",
                cells[2]
            ));
        }
    }
    assert!(rows > 0, "coverage.md has no table rows");
    assert!(
        problems.is_empty(),
        "coverage table problems:\n{}",
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// (5) the terminal renderer
// ---------------------------------------------------------------------------------------------

const SAMPLE: &str = "\
# Capacity

Reads cost **1 RCU** per 4 KB, see [the guide](https://example.com/rcu).

| Mode | Read unit | Note |
|---|---|---:|
| strong | 1 per 4 KB | the default for GetItem is eventual, which costs half as much |
| eventual | 0.5 | 2× cheaper |
| transactional ≤ | 2 per 4 KB | 2× |

- first point
- second point that is long enough to wrap onto another line when the width is narrow
  1. nested step

```rust
# use hidden::Scaffolding;
let units = (bytes + 4095) / 4096;
```

![Token buckets](../../diagrams/01-capacity-and-hot-keys.svg)
";

#[test]
fn render_lines_up_table_columns_and_shows_lists_code_links_and_images() {
    let width = 60;
    let lines: Vec<String> = katas::lesson::render(SAMPLE, width)
        .iter()
        .map(|l| strip_ansi(l))
        .collect();
    let text = lines.join("\n");

    // Heading, with a rule under it.
    assert_eq!(lines[0], "Capacity");
    assert!(lines[1].chars().all(|c| c == '═') && !lines[1].is_empty());

    // Table: every row's separators sit in the same columns, the header rule crosses there too.
    let table: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains('│') && !l.starts_with("  │"))
        .collect();
    assert!(table.len() >= 4, "table rows missing:\n{text}");
    let columns = |l: &str| -> Vec<usize> {
        l.chars()
            .enumerate()
            .filter(|(_, c)| *c == '│' || *c == '┼')
            .map(|(i, _)| i)
            .collect()
    };
    let first = columns(table[0]);
    assert_eq!(first.len(), 2, "three columns, two separators:\n{text}");
    for row in &table {
        assert_eq!(columns(row), first, "misaligned row {row:?} in:\n{text}");
    }
    let rule = lines.iter().find(|l| l.contains('┼')).expect("header rule");
    assert_eq!(columns(rule), first);
    // The long cell wrapped instead of overflowing; the right-aligned column ends flush.
    for line in &lines {
        if !line.starts_with("  │") {
            assert!(line.chars().count() <= width, "too wide: {line:?}");
        }
    }
    assert!(table.len() > 4, "the long cell should wrap:\n{text}");
    let eventual = table
        .iter()
        .find(|l| l.starts_with("eventual"))
        .expect("eventual row");
    assert!(eventual.ends_with("2× cheaper"), "{eventual:?}");

    // Lists with markers and hanging indents.
    assert!(lines.iter().any(|l| l == "• first point"), "{text}");
    let second = lines
        .iter()
        .position(|l| l.starts_with("• second point"))
        .expect("bullet");
    assert!(lines[second + 1].starts_with("  ") && !lines[second + 1].trim().is_empty());
    assert!(
        lines
            .iter()
            .any(|l| l.trim_start().starts_with("1. nested step")),
        "{text}"
    );

    // Code: indented behind a bar, rustdoc-hidden lines dropped.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  │ let units = (bytes + 4095) / 4096;")),
        "{text}"
    );
    assert!(!text.contains("Scaffolding"), "hidden line shown:\n{text}");

    // Links show their target; images become a diagram marker (lines may wrap in between).
    let flat = lines.join(" ");
    assert!(
        flat.contains("the guide (https://example.com/rcu)"),
        "{text}"
    );
    assert!(
        flat.contains("[diagram: ../../diagrams/01-capacity-and-hot-keys.svg]"),
        "{text}"
    );

    // Styling is there before stripping.
    let styled = katas::lesson::render(SAMPLE, width).join("\n");
    assert!(styled.contains("\x1b["), "no ANSI styling");
}

const DOCTEST_SAMPLE: &str = "\
<a id=\"hot-keys\"></a>

## Hot keys

Read <a id=\"inline-anchor\"></a>on.

```rust,ignore
# use hidden::One;
#
let shown = 1;
## a literal hash line
```

```rust,no_run
    # let indented_hidden = 2;
let also_shown = 2;
```

```ignore
# let bare_attribute_hidden = 3;
let shown_too = 3;
```

```text
# a text block keeps its hashes
```
";

#[test]
fn render_hides_doctest_scaffolding_doctest_attributes_and_html_anchors() {
    let lines: Vec<String> = katas::lesson::render(DOCTEST_SAMPLE, 80)
        .iter()
        .map(|l| strip_ansi(l))
        .collect();
    let text = lines.join("\n");

    // Raw HTML anchors (block or inline) leave no trace; the heading comes first.
    assert!(!text.contains("<a") && !text.contains("</a>"), "{text}");
    assert!(
        !text.contains("hot-keys") && !text.contains("inline-anchor"),
        "{text}"
    );
    assert_eq!(lines[0], "Hot keys", "{text}");
    assert!(lines.iter().any(|l| l == "Read on."), "{text}");

    // Hidden doctest lines (`# …`, a lone `#`, indented or not) are not shown …
    for hidden in ["hidden::One", "indented_hidden", "bare_attribute_hidden"] {
        assert!(
            !text.contains(hidden),
            "hidden line {hidden:?} shown:\n{text}"
        );
    }
    assert!(
        !lines
            .iter()
            .any(|l| l.trim_end() == "  │ #" || l.trim_end() == "  │"),
        "a lone `#` line shown:\n{text}"
    );
    // … the code is, and `##` is the escape for a line that starts with `#`.
    for shown in [
        "let shown = 1;",
        "let also_shown = 2;",
        "let shown_too = 3;",
    ] {
        assert!(
            lines.iter().any(|l| l == &format!("  │ {shown}")),
            "{shown:?} missing:\n{text}"
        );
    }
    assert!(
        lines.iter().any(|l| l == "  │ # a literal hash line"),
        "{text}"
    );
    // Other languages keep their `#` lines.
    assert!(
        lines
            .iter()
            .any(|l| l == "  │ # a text block keeps its hashes"),
        "{text}"
    );

    // Info strings: doctest attributes are not languages; such blocks are labelled `rust`.
    let labels: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("  ") && !l.starts_with("  │"))
        .map(|l| l.trim())
        .collect();
    assert_eq!(labels, ["rust", "rust", "rust", "text"], "{text}");
}

#[test]
fn render_keeps_real_lessons_within_the_width() {
    for path in lesson_files() {
        let md = read(&path);
        let lines = katas::lesson::render(&md, 72);
        assert!(
            lines.len() > 20,
            "{}: rendered almost nothing",
            path.display()
        );
        let mut in_code = false;
        for line in lines.iter().map(|l| strip_ansi(l)) {
            in_code = line.starts_with("  │ ") || (in_code && line.starts_with("  │"));
            if !in_code {
                assert!(
                    line.chars().count() <= 72,
                    "{}: line wider than 72: {line:?}",
                    path.display()
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// (6) a scripted quiz session
// ---------------------------------------------------------------------------------------------

const MINI_QUIZ: &str = r#"{ "version": 1, "lesson": "01-mini", "title": "Check yourself: mini",
  "questions": [
    { "id": "01-q01", "kind": "choice", "prompt": "Which is eventual?", "choices": ["strong", "eventual", "transactional"],
      "answer": 1, "explanation": "Eventual reads cost half.", "section": "s" },
    { "id": "01-q02", "kind": "true_false", "prompt": "TTL deletes cost WCU.", "answer": false,
      "explanation": "They are free.", "section": "s" },
    { "id": "01-q03", "kind": "numeric", "prompt": "RCU for a strong Query of 40.8 KB?", "answer": 11, "tolerance": 0,
      "unit": "RCU", "explanation": "Rounded once: 44 KB / 4 KB = 11.", "section": "s" },
    { "id": "01-q04", "kind": "numeric", "prompt": "Writes/s on one key of 2.5 KB items?", "answer": 333, "tolerance": 1,
      "explanation": "1,000 / 3.", "section": "s" }
  ] }"#;

fn mini_root() -> TempDir {
    let dir =
        TempDir::new(&format!("mini-{:?}", std::thread::current().id()).replace(['(', ')'], ""));
    let quizzes = dir.0.join("lessons/quizzes");
    std::fs::create_dir_all(&quizzes).expect("mkdir");
    std::fs::write(quizzes.join("01-mini.json"), MINI_QUIZ).expect("write quiz");
    dir
}

/// A scripted session with the choices in their stored order (see `stored_order_seed`).
fn session(root: &Path, lesson: Option<&str>, input: &str) -> (quiz::QuizOutcome, String) {
    session_with(root, lesson, &quiz::Options::default(), input)
}

fn session_with(
    root: &Path,
    lesson: Option<&str>,
    options: &quiz::Options<'_>,
    input: &str,
) -> (quiz::QuizOutcome, String) {
    let mut out = Vec::new();
    let options = quiz::Options {
        seed: Some(options.seed.unwrap_or(0)),
        ..*options
    };
    let outcome = quiz::run(
        root,
        lesson,
        &options,
        &mut Cursor::new(input.as_bytes()),
        &mut out,
    )
    .expect("quiz runs");
    (outcome, String::from_utf8(out).expect("UTF-8 output"))
}

/// The letters of the right and of a wrong choice of the mini quiz's first question, as the
/// scripted sessions (seed 0) ask it.
fn mini_letters(dir: &TempDir) -> (char, char) {
    let q = quiz::load(&dir.0.join("lessons/quizzes/01-mini.json")).expect("mini quiz");
    let asked = quiz::arrange(&q.questions, 0);
    let Answer::Choice { correct, .. } = &asked[0].answer else {
        unreachable!("the first mini question is a choice")
    };
    let letter = |i: usize| (b'a' + i as u8) as char;
    (letter(*correct), letter((*correct + 1) % 3))
}

#[test]
fn quiz_scores_letters_numbers_booleans_and_tolerance() {
    let dir = mini_root();
    let (right, wrong) = mini_letters(&dir);
    // right letter, f = right, 11 RCU = right, 334 within ±1 = right.
    let (outcome, out) = session(&dir.0, Some("1"), &format!("{right}\nf\n11 RCU\n334\n"));
    assert_eq!((outcome.correct, outcome.total), (4, 4), "{out}");
    assert_eq!(outcome.lesson, "01-mini");
    assert!(out.contains("Score: 4/4"), "{out}");
    assert!(
        out.contains("Eventual reads cost half."),
        "explanations are shown:\n{out}"
    );

    // the wrong choice by number, yes = true (wrong), 12 (wrong), 332 (right, within 1).
    let number = (wrong as u8 - b'a' + 1).to_string();
    let (outcome, out) = session(
        &dir.0,
        Some("01-mini"),
        &format!("{number}\nyes\n12\n332\n"),
    );
    assert_eq!((outcome.correct, outcome.total), (1, 4), "{out}");
    assert!(
        out.contains(&format!("The answer is {right}) eventual")),
        "{out}"
    );
    assert!(out.contains("The answer is false"), "{out}");
    assert!(out.contains("The answer is 11 RCU"), "{out}");
}

#[test]
fn quiz_reasks_once_on_bad_input_then_counts_it_wrong() {
    let dir = mini_root();
    let (_, wrong) = mini_letters(&dir);
    // "z" is no choice → hint → the wrong letter accepted (wrong). "maybe" twice → wrong
    // without a third ask. "eleven" → hint → "11" right. "333" right.
    let (outcome, out) = session(
        &dir.0,
        Some("mini"),
        &format!("z\n{wrong}\nmaybe\nperhaps\neleven\n11\n333\n"),
    );
    assert_eq!((outcome.correct, outcome.total), (2, 4), "{out}");
    assert_eq!(
        out.matches("Please answer").count(),
        3,
        "one hint per first bad answer:\n{out}"
    );
    assert!(out.contains("No valid answer; counted as wrong"), "{out}");
}

#[test]
fn quiz_ends_early_at_end_of_input_and_scores_what_was_answered() {
    let dir = mini_root();
    let (right, _) = mini_letters(&dir);
    let (outcome, out) = session(&dir.0, Some("1"), &format!("{right}\n"));
    assert_eq!((outcome.correct, outcome.total), (1, 1), "{out}");
    assert!(out.contains("1 of 4 questions answered"), "{out}");
    let (outcome, _) = session(&dir.0, Some("1"), "");
    assert_eq!((outcome.correct, outcome.total), (0, 0));
    let (outcome, _) = session(&dir.0, Some("1"), &format!("{right}\nquit\n11\n"));
    assert_eq!((outcome.correct, outcome.total), (1, 1));
}

#[test]
fn quiz_without_a_lesson_asks_which_one_and_rejects_unknown_lessons() {
    let dir = mini_root();
    let (right, _) = mini_letters(&dir);
    let (outcome, out) = session(&dir.0, None, &format!("\n{right}\n"));
    assert_eq!(outcome.lesson, "01-mini");
    assert_eq!((outcome.correct, outcome.total), (1, 1), "{out}");
    assert!(out.contains("1) 01-mini"), "{out}");
    let mut sink = Vec::new();
    let err = quiz::run(
        &dir.0,
        Some("7"),
        &quiz::Options::default(),
        &mut Cursor::new(&b""[..]),
        &mut sink,
    )
    .expect_err("no lesson 7");
    assert!(
        format!("{err:#}").contains("01-mini"),
        "suggests the closest: {err:#}"
    );
}

#[test]
fn the_real_quizzes_score_full_marks_when_answered_right() {
    for (path, q) in quizzes() {
        let answers: String = quiz::arrange(&q.questions, 0)
            .iter()
            .map(|question| match &question.answer {
                Answer::Choice { correct, .. } => format!("{}\n", (b'a' + *correct as u8) as char),
                Answer::TrueFalse(v) => format!("{v}\n"),
                Answer::Numeric { value, .. } => format!("{value}\n"),
            })
            .collect();
        let (outcome, out) = session(&root(), Some(&q.lesson), &answers);
        let n = q.questions.len() as u32;
        assert_eq!(
            (outcome.correct, outcome.total),
            (n, n),
            "{}:\n{out}",
            path.display()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// (7) quizzes that cannot be gamed, and questions reachable from their sections
// ---------------------------------------------------------------------------------------------

/// Mean and standard deviation of a count of independent events with these probabilities.
fn chance(probabilities: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut mean, mut var) = (0.0, 0.0);
    for p in probabilities {
        mean += p;
        var += p * (1.0 - p);
    }
    (mean, var.sqrt())
}

#[test]
fn no_letter_no_length_and_no_truth_value_beats_chance() {
    for (path, q) in quizzes() {
        let name = stem(&path);
        let choice: Vec<(&Vec<String>, usize, &str)> = q
            .questions
            .iter()
            .filter_map(|x| match &x.answer {
                Answer::Choice { choices, correct } => Some((choices, *correct, x.id.as_str())),
                _ => None,
            })
            .collect();
        // As stored: no position is right more often than chance allows (mean + 2σ).
        for pos in 0..4 {
            let count = choice.iter().filter(|(_, c, _)| *c == pos).count() as f64;
            let (mean, sd) = chance(
                choice
                    .iter()
                    .filter(|(cs, _, _)| cs.len() > pos)
                    .map(|(cs, _, _)| 1.0 / cs.len() as f64),
            );
            assert!(
                count <= mean + 2.0 * sd,
                "{name}: choice {} is right in {count} questions; chance allows {:.1}",
                (b'a' + pos as u8) as char,
                mean + 2.0 * sd
            );
        }
        // "Pick the longest" scores no better than chance (a tie shares the point).
        let longest: f64 = choice
            .iter()
            .map(|(cs, c, _)| {
                let max = cs.iter().map(|x| x.chars().count()).max().unwrap_or(0);
                let ties = cs.iter().filter(|x| x.chars().count() == max).count() as f64;
                if cs[*c].chars().count() == max {
                    1.0 / ties
                } else {
                    0.0
                }
            })
            .sum();
        let (mean, sd) = chance(choice.iter().map(|(cs, _, _)| 1.0 / cs.len() as f64));
        assert!(
            longest <= mean + 2.0 * sd,
            "{name}: the longest choice is right in {longest} questions; chance allows {:.1}",
            mean + 2.0 * sd
        );
        // Distractors of similar length: the answer is at most 1.5× the distractors' mean.
        for (cs, c, id) in &choice {
            let others: Vec<usize> = cs
                .iter()
                .enumerate()
                .filter(|(i, _)| i != c)
                .map(|(_, x)| x.chars().count())
                .collect();
            let mean_other = others.iter().sum::<usize>() as f64 / others.len() as f64;
            let len = cs[*c].chars().count() as f64;
            assert!(
                len <= 1.5 * mean_other,
                "{id}: the answer ({len} chars) stands out against distractors of {mean_other:.0}"
            );
        }
        // True/false: neither answer is a better guess.
        let tf: Vec<bool> = q
            .questions
            .iter()
            .filter_map(|x| match x.answer {
                Answer::TrueFalse(v) => Some(v),
                _ => None,
            })
            .collect();
        let trues = tf.iter().filter(|v| **v).count();
        let falses = tf.len() - trues;
        assert!(
            trues.abs_diff(falses) <= 1.max(tf.len() / 5),
            "{name}: {trues} true and {falses} false statements"
        );
        // As asked: every attempt deals each letter its share (±1) of the four-choice questions.
        let four = choice.iter().filter(|(cs, _, _)| cs.len() == 4).count();
        for seed in 0..40 {
            let mut per = [0usize; 4];
            for x in quiz::arrange(&q.questions, seed) {
                if let Answer::Choice { choices, correct } = x.answer {
                    if choices.len() == 4 {
                        per[correct] += 1;
                    }
                }
            }
            assert!(
                per.iter().all(|n| n.abs_diff(four / 4) <= 1),
                "{name}, seed {seed}: answers per letter {per:?}"
            );
        }
    }
}

/// The `cargo katas quiz N --section X` commands a lesson prints.
fn section_commands(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in markdown.split("--section ").skip(1) {
        let anchor: String = piece
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        out.push(anchor);
    }
    out
}

#[test]
fn every_section_a_lesson_points_to_has_questions_and_every_question_is_reachable() {
    let quizzes: BTreeMap<String, quiz::Quiz> =
        quizzes().into_iter().map(|(p, q)| (stem(&p), q)).collect();
    for lesson in lesson_files() {
        let name = stem(&lesson);
        let markdown = read(&lesson);
        let q = &quizzes[&name];
        let commands = section_commands(&markdown);
        assert!(!commands.is_empty(), "{name} names no `quiz --section`");
        let mut reached = BTreeSet::new();
        for anchor in &commands {
            let picked = quiz::questions_of_section(q, &markdown, anchor)
                .unwrap_or_else(|e| panic!("{name}: `--section {anchor}`: {e:#}"));
            reached.extend(picked.into_iter().map(|x| x.id));
        }
        let unreached: Vec<&str> = q
            .questions
            .iter()
            .map(|x| x.id.as_str())
            .filter(|id| !reached.contains(*id))
            .collect();
        assert!(
            unreached.is_empty(),
            "{name}: no section command of the lesson reaches {unreached:?}"
        );
    }
}

#[test]
fn a_section_session_asks_only_that_sections_questions() {
    let root = root();
    let q = quizzes()
        .into_iter()
        .map(|(_, q)| q)
        .find(|q| q.lesson == "01-foundations")
        .expect("quiz 1");
    let markdown = read(&root.join("lessons/src/01-foundations.md"));
    let want = quiz::questions_of_section(&q, &markdown, "capacity-modes").expect("questions");
    assert!(
        want.iter().any(|x| x.section == "on-demand-mode"),
        "subsections count"
    );
    let options = quiz::Options {
        section: Some("capacity-modes"),
        seed: Some(3),
    };
    let (outcome, out) = session_with(&root, Some("1"), &options, "");
    assert_eq!(outcome.total, 0);
    assert!(
        out.contains(&format!("{} questions.", want.len())),
        "asks the section's {} questions:\n{out}",
        want.len()
    );
    assert!(out.contains("--section capacity-modes --seed 3"), "{out}");
}

/// A lesson's headings in order, as (level, anchor).
type Headings = Vec<(usize, String)>;
/// `--section` commands, as (the section printing it, the section it names).
type SectionCommands = Vec<(String, String)>;

/// Every heading of a lesson in order, as (level, anchor), with anchors made unique as in
/// [`anchors`], and every `--section X` command in an inline code span, as (the anchor of the
/// section whose text holds it, X).
fn headings_and_section_commands(markdown: &str) -> (Headings, SectionCommands) {
    let (mut headings, mut commands) = (Vec::new(), Vec::new());
    let mut seen = BTreeSet::new();
    let mut heading: Option<(usize, String)> = None;
    for event in Parser::new_ext(markdown, md_options()) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((level as usize, String::new()))
            }
            Event::Text(t) if heading.is_some() => {
                heading.as_mut().expect("in a heading").1.push_str(&t)
            }
            Event::Code(t) if heading.is_some() => {
                heading.as_mut().expect("in a heading").1.push_str(&t)
            }
            Event::End(TagEnd::Heading(_)) => {
                let (level, text) = heading.take().expect("heading text");
                let base = slug(&text);
                let mut anchor = base.clone();
                let mut n = 0;
                while seen.contains(&anchor) {
                    n += 1;
                    anchor = format!("{base}-{n}");
                }
                seen.insert(anchor.clone());
                headings.push((level, anchor));
            }
            Event::Code(t) => {
                if let (Some((_, here)), Some(named)) =
                    (headings.last(), section_commands(&t).pop())
                {
                    commands.push((here.clone(), named));
                }
            }
            _ => {}
        }
    }
    (headings, commands)
}

/// Questions are asked where they are taught: each section a question is tagged with prints its
/// own `cargo katas quiz N --section <anchor>` in its own text (so a subsection's questions come
/// at the end of that subsection, not only with its parent's), and a command printed inside a
/// section names that section or one that contains it (a whole-section line closes its last
/// subsection).
#[test]
fn each_tagged_section_asks_its_own_questions_where_it_ends() {
    let quizzes: BTreeMap<String, quiz::Quiz> =
        quizzes().into_iter().map(|(p, q)| (stem(&p), q)).collect();
    let mut problems = Vec::new();
    for lesson in lesson_files() {
        let name = stem(&lesson);
        let (headings, commands) = headings_and_section_commands(&read(&lesson));
        let ancestors = |anchor: &str| -> Vec<String> {
            let Some(i) = headings.iter().position(|(_, a)| a == anchor) else {
                return Vec::new();
            };
            let mut level = headings[i].0;
            let mut out = vec![anchor.to_string()];
            for (l, a) in headings[..i].iter().rev() {
                if *l < level {
                    out.push(a.clone());
                    level = *l;
                }
            }
            out
        };
        for (here, named) in &commands {
            if !ancestors(here).contains(named) {
                problems.push(format!(
                    "{name}: `--section {named}` is printed in section #{here}, outside the section it names"
                ));
            }
        }
        let tagged: BTreeSet<&str> = quizzes[&name]
            .questions
            .iter()
            .map(|q| q.section.as_str())
            .collect();
        for section in tagged {
            if !commands
                .iter()
                .any(|(here, named)| here == section && named == section)
            {
                problems.push(format!(
                    "{name}: questions are tagged #{section}, but that section prints no \
                     `--section {section}` of its own"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
