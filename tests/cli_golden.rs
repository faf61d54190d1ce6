//! The CLI's exact output, byte for byte, on every response file under
//! `examples/` and `tests/data/`, with each command and option set the other
//! CLI tests use. The expected outputs live in `tests/golden/`; a refactor
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
        let path = dir.join(format!("{stem}.out"));
        if bless {
            std::fs::create_dir_all(&dir).expect("create tests/golden");
            std::fs::write(&path, &text).expect("write a golden file");
            continue;
        }
        match std::fs::read_to_string(&path) {
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
    assert!(count > 100, "only {count} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
