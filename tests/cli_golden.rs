//! The CLI's exact output, byte for byte, on every response file under
//! `examples/` and `tests/data/`, with each command and option set the other
//! CLI tests use; and on each model dialect's example response
//! (`examples/responses/dialects/<dialect>.txt`) with `--dialect <dialect>`,
//! whole, one byte at a time and in random chunks. The expected outputs live
//! in `tests/golden/` (the dialects' in `tests/golden/dialects/`); a refactor
//! that means no behaviour change leaves every one of them as it is.
//!
//! After a change that *means* to change the output, write the new files
//! with `BLESS=1 cargo test --all-features --test cli_golden` and read the
//! diff before committing it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Response files: every `.md`, `.txt` and `.sse` under the two folders.
fn inputs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["examples/responses", "tests/data"] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path
                .extension()
                .is_some_and(|e| e == "md" || e == "txt" || e == "sse")
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The option sets each input is run with (relative paths from the root).
fn cases(input: &Path) -> Vec<(String, Vec<String>)> {
    let rel = input
        .strip_prefix(root())
        .expect("under the root")
        .to_string_lossy()
        .into_owned();
    let sse = input.extension().is_some_and(|e| e == "sse");
    let mut sets: Vec<Vec<&str>> = vec![
        vec![],
        vec!["--chunk-size", "1"],
        vec!["--random-chunks", "7"],
        vec!["--strict"],
        vec!["--deltas"],
        vec!["--summary"],
        vec!["--pretty"],
        vec!["--max-block-bytes", "64"],
        vec!["--fence-tag", "facilitator-action"],
        vec!["--xml-tag", "call", "--discriminator", "type"],
        vec!["--schema", "tests/data/echelon.schema.json"],
        vec!["--config", "examples/agent.json"],
    ];
    if sse {
        for s in &mut sets {
            s.extend(["--input", "sse"]);
        }
    }
    let mut out: Vec<(String, Vec<String>)> = sets
        .into_iter()
        .map(|s| {
            let mut args = vec!["parse".to_owned()];
            args.extend(s.iter().map(|a| a.to_string()));
            args.push(rel.clone());
            (s.join(" "), args)
        })
        .collect();
    if !sse {
        out.push((
            "artifacts --dry-run".into(),
            vec!["artifacts".into(), rel.clone(), "--dry-run".into()],
        ));
        for config in ["examples/agent.json", "tests/data/run_config.json"] {
            out.push((
                format!("run --dry-run --in-order --config {config}"),
                vec![
                    "run".into(),
                    "--dry-run".into(),
                    "--in-order".into(),
                    "--config".into(),
                    config.into(),
                    rel.clone(),
                ],
            ));
        }
    }
    out
}

fn render(args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_actionstream"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("run actionstream");
    let mut stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if args[0] == "run" {
        // Results interleave with the parse lines as the handlers finish:
        // each line is kept whole, results listed after the parse lines.
        let (results, events): (Vec<&str>, Vec<&str>) = stdout
            .lines()
            .partition(|l| l.starts_with("{\"event\":\"result\""));
        stdout = format!("{}\nresults:\n{}\n", events.join("\n"), results.join("\n"));
    }
    format!(
        "$ actionstream {}\nstatus: {:?}\nstderr:\n{}stdout:\n{}\n",
        args.join(" "),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr),
        stdout,
    )
}

/// The model dialects' example responses: `(dialect, path)` for each
/// `examples/responses/dialects/<dialect>.txt`, the dialect named by the file.
fn dialect_inputs() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(root().join("examples/responses/dialects")) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "txt") {
            let dialect = path
                .file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            out.push((dialect, path));
        }
    }
    out.sort();
    out
}

/// The option sets a dialect's example runs with: whole, one byte at a time
/// and in random chunks, each with `--dialect <dialect>`.
fn dialect_cases(dialect: &str, input: &Path) -> Vec<Vec<String>> {
    let rel = input
        .strip_prefix(root())
        .expect("under the root")
        .to_string_lossy()
        .into_owned();
    let sets: [&[&str]; 3] = [&[], &["--chunk-size", "1"], &["--random-chunks", "7"]];
    sets.iter()
        .map(|s| {
            let mut args = vec!["parse".to_owned(), "--dialect".into(), dialect.into()];
            args.extend(s.iter().map(|a| a.to_string()));
            args.push(rel.clone());
            args
        })
        .collect()
}

/// Compares `text` with the golden file at `path` (or writes it, when
/// blessing), adding a failure line if they differ.
fn compare(path: &Path, text: &str, bless: bool, failures: &mut Vec<String>) {
    if bless {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create a golden folder");
        std::fs::write(path, text).expect("write a golden file");
        return;
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == text => {}
        Ok(expected) => {
            let line = expected
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .map_or(expected.lines().count().min(text.lines().count()), |i| i);
            failures.push(format!(
                "{}: differs from line {}:\n  expected: {:?}\n  got:      {:?}",
                path.display(),
                line + 1,
                expected.lines().nth(line),
                text.lines().nth(line)
            ));
        }
        Err(e) => failures.push(format!("{}: {e} (run with BLESS=1)", path.display())),
    }
}

#[test]
fn cli_output_is_byte_identical_to_the_golden_files() {
    let bless = std::env::var_os("BLESS").is_some();
    let dir = root().join("tests/golden");
    let mut failures = Vec::new();
    let mut count = 0;
    for input in inputs() {
        let stem = input
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        let mut text = String::new();
        for (_, args) in cases(&input) {
            text.push_str(&render(&args));
            count += 1;
        }
        compare(
            &dir.join(format!("{stem}.out")),
            &text,
            bless,
            &mut failures,
        );
    }
    assert!(count > 100, "only {count} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dialect_examples_are_byte_identical_to_the_golden_files() {
    let bless = std::env::var_os("BLESS").is_some();
    let dir = root().join("tests/golden/dialects");
    let mut failures = Vec::new();
    let inputs = dialect_inputs();
    let names: Vec<&str> = inputs.iter().map(|(d, _)| d.as_str()).collect();
    let mut builtin = actionstream::dialect::BUILTIN.to_vec();
    builtin.sort_unstable();
    assert_eq!(names, builtin, "one example response per built-in dialect");
    for (dialect, input) in inputs {
        let mut text = String::new();
        for args in dialect_cases(&dialect, &input) {
            text.push_str(&render(&args));
        }
        compare(
            &dir.join(format!("{dialect}.txt.out")),
            &text,
            bless,
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
