#!/usr/bin/env python3
"""Which snippets compile against the engine today: prints the README's status table.

Runs `cargo check --tests --keep-going --message-format=json` on this crate (target dir
$CARGO_TARGET_DIR, default /work/target-snippets, so other builds are not blocked) and
attributes every compiler error to the snippet whose lines hold it. A snippet runs from its
`// Snippet N: name` marker to the next marker (its test included). An unresolved import at
the top of a file is charged to every snippet of that file that uses the name, since rustc
reports it once, at the import. Errors in tests/common/mod.rs (the seeded worlds) are listed
on their own row: every test binary needs that module too.

Caveat: rustc runs some checks (borrow checking) only on code that type-checks, so a
snippet shown as compiling may still meet an error once the others are fixed; `cargo test`
passing is the final word.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARKER = re.compile(r"^// Snippet (\d+): (\w+)")


def snippets():
    """(file, number, name, first line, last line, text) of every snippet, in order."""
    found = []
    for path in sorted((HERE / "tests").glob("*.rs")):
        lines = path.read_text().splitlines()
        marks = [(i + 1, m) for i, line in enumerate(lines) if (m := MARKER.match(line))]
        for k, (start, m) in enumerate(marks):
            end = marks[k + 1][0] - 1 if k + 1 < len(marks) else len(lines)
            text = "\n".join(lines[start - 1 : end])
            found.append((path.name, int(m.group(1)), m.group(2), start, end, text))
    return sorted(found, key=lambda s: s[1])


def errors():
    """(file relative to this crate, line, message) of every compiler error."""
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", "/work/target-snippets")
    run = subprocess.run(
        ["cargo", "check", "--tests", "--keep-going", "--message-format=json"],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
    )
    found = []
    for line in run.stdout.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") != "compiler-message":
            continue
        diag = msg["message"]
        if diag["level"] != "error" or not diag["spans"]:
            continue
        span = next((s for s in diag["spans"] if s["is_primary"]), diag["spans"][0])
        name = Path(span["file_name"])
        if name.is_absolute():
            try:
                name = name.relative_to(HERE)
            except ValueError:
                pass
        text = diag["message"]
        if span.get("label"):
            text = f"{text} ({span['label']})"
        if diag["code"]:
            text = f"{diag['code']['code']}: {text}"
        found.append((str(name), span["line_start"], text))
    return sorted(set(found), key=lambda e: (e[0], e[1]))


def unresolved_names(message):
    """The last path segments an unresolved-import error names."""
    message = message.split(" (", 1)[0]  # drop the span's label
    return [p.split("::")[-1] for p in re.findall(r"`([\w:]+)`", message.split(":", 1)[-1])]


def main():
    all_snippets = snippets()
    all_errors = errors()
    first_marker = {}
    for file, _, _, start, _, _ in all_snippets:
        first_marker[file] = min(start, first_marker.get(file, start))

    charged = {s[1]: [] for s in all_snippets}
    common = []
    for file, line, text in all_errors:
        if file.startswith("tests/common"):
            common.append((file, line, text))
            continue
        base = Path(file).name
        if line < first_marker.get(base, 10**9):
            names = unresolved_names(text) if "E0432" in text or "E0433" in text else []
            for s in all_snippets:
                if s[0] == base and any(re.search(rf"\b{re.escape(n)}\b", s[5]) for n in names):
                    charged[s[1]].append((line, f"{file}:{line}: {text}"))
            continue
        for s in all_snippets:
            if s[0] == base and s[3] <= line <= s[4]:
                charged[s[1]].append((line, f"{file}:{line}: {text}"))

    def cell(text):
        return text.replace("|", "\\|").replace("\n", " ")

    print("| # | snippet | area | compiles today | errors | first error |")
    print("| --- | --- | --- | --- | --- | --- |")
    compiling = 0
    for file, number, name, _, _, _ in all_snippets:
        errs = sorted(charged[number])
        area = Path(file).stem.replace("_", " ")
        if errs:
            print(f"| {number} | `{name}` | {area} | no | {len(errs)} | {cell(errs[0][1])} |")
        else:
            compiling += 1
            print(f"| {number} | `{name}` | {area} | yes | 0 | |")
    if common:
        first = f"{common[0][0]}:{common[0][1]}: {common[0][2]}"
        print(f"| – | seeded worlds | tests/common | no | {len(common)} | {cell(first)} |")
    else:
        print("| – | seeded worlds | tests/common | yes | 0 | |")
    print()
    print(f"{compiling} of {len(all_snippets)} snippets free of errors; {len(all_errors)} errors in all.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
