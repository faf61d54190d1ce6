//! The `parse` command: `--chunk-size 1` and `--random-chunks N` give the same
//! merged events as a whole-input run on every file under `examples/` and
//! `tests/`; options, exit status and the summary line.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_actionstream"))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.ends_with("node_modules") {
            // The protocol clients' installed packages (tests/clients).
            continue;
        }
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Runs `parse` and returns its lines with adjacent narrative merged.
fn run(file: &Path, extra: &[&str]) -> Vec<Value> {
    let mut cmd = bin();
    cmd.arg("parse").arg(file).args(extra);
    if file.extension().is_some_and(|e| e == "sse") {
        cmd.args(["--input", "sse"]);
    }
    let out = cmd.output().expect("run actionstream");
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<Value> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).expect("a JSON line");
        // Adjacent narrative (or reasoning) lines join: how the text is cut
        // depends on the chunks.
        if v["event"] == "narrative" || v["event"] == "reasoning" {
            if let Some(prev) = lines.last_mut() {
                if prev["event"] == v["event"] {
                    let joined = format!(
                        "{}{}",
                        prev["text"].as_str().unwrap_or(""),
                        v["text"].as_str().unwrap_or("")
                    );
                    prev["text"] = Value::String(joined);
                    continue;
                }
            }
        }
        lines.push(v);
    }
    lines
}

#[test]
fn chunking_never_matters_on_every_bundled_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    files(&root.join("examples"), &mut all);
    files(&root.join("tests"), &mut all);
    all.sort();
    assert!(all.len() > 5);
    for file in &all {
        let whole = run(file, &[]);
        assert_eq!(
            whole,
            run(file, &["--chunk-size", "1"]),
            "{} --chunk-size 1",
            file.display()
        );
        for seed in ["1", "42"] {
            assert_eq!(
                whole,
                run(file, &["--random-chunks", seed]),
                "{} --random-chunks {seed}",
                file.display()
            );
        }
    }
}

#[test]
fn release_plan_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lines = run(&root.join("examples/responses/release_plan.md"), &[]);
    let names: Vec<String> = lines
        .iter()
        .filter(|l| l["event"] == "action_complete")
        .map(|l| l["name"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "update_plan",
            "create_branch",
            "create_issues",
            "search",
            "request_review"
        ]
    );
    let invalid: Vec<&Value> = lines
        .iter()
        .filter(|l| l["event"] == "action_invalid")
        .collect();
    assert_eq!(invalid.len(), 1);
    assert_eq!(invalid[0]["name"], "escalate");
    let issues = lines
        .iter()
        .find(|l| l["name"] == "create_issues" && l["event"] == "action_complete")
        .cloned()
        .unwrap_or_default();
    assert_eq!(issues["repairs"], serde_json::json!(["trailing comma"]));
    let span = issues["span"].as_array().cloned().unwrap_or_default();
    assert_eq!(span.len(), 2);
}

#[test]
fn summary_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = root.join("examples/responses/facilitator.md");
    let out = bin()
        .args(["parse", "--summary", "--fence-tag", "facilitator-action"])
        .arg(&file)
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = std::fs::read_to_string(&file).expect("read");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    assert_eq!(v["actions"], 2);
    assert_eq!(v["invalid"], 0);
    let blocks = run(&file, &["--fence-tag", "facilitator-action"]);
    let block_bytes: usize = blocks
        .iter()
        .filter(|l| l["event"] == "action_complete")
        .map(|l| l["raw"].as_str().unwrap_or("").len())
        .sum();
    assert_eq!(
        v["narrative_bytes"].as_u64(),
        Some((text.len() - block_bytes) as u64)
    );
}

#[test]
fn stdin_and_dash() {
    use std::io::Write;
    let mut child = bin()
        .args(["parse", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"hi <action_call name=\"x\">{}</action_call>")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(r#""event":"action_complete""#), "{text}");
}

#[test]
fn bad_usage_and_unreadable_files_exit_2() {
    let out = bin()
        .args(["parse", "/no/such/file"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let out = bin()
        .args(["parse", "--chunk-size", "0", "x"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .args(["parse", "--no-such-flag"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .args(["parse", "--schema", "/no/such/schema.json", "x"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .args(["parse", "--config", "/no/such/config.json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn invalid_utf8_is_reported_and_exit_is_0() {
    let dir = std::env::temp_dir().join(format!("as-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("bad.txt");
    std::fs::write(&file, b"ok \xff done").expect("write");
    let out = bin()
        .args(["parse", "--chunk-size", "1"])
        .arg(&file)
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\u{FFFD}"));
    assert!(text.contains(r#""event":"error""#), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tool loads only libc at start: its unwinder is linked in and it
/// defines the two maths functions its dependencies call (`build.rs`,
/// `src/bin/actionstream/math.rs`). A dependency that starts calling
/// another libm function brings libm back, and this test says which file to
/// look at. Read from the running process's own map while it waits on
/// standard input.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_start_maps_no_shared_library_but_libc() {
    use std::io::Write;
    let mut child = bin()
        .args(["parse", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let maps = format!("/proc/{}/maps", child.id());
    // The loader maps libc after every other library the executable needs.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mapped = loop {
        let text = std::fs::read_to_string(&maps).unwrap_or_default();
        if text.contains("/libc.so") || std::time::Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"done").expect("write");
    drop(stdin);
    assert!(child.wait().expect("wait").success());
    let libraries: std::collections::BTreeSet<&str> = mapped
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter(|path| path.contains(".so"))
        .filter_map(|path| path.rsplit('/').next())
        .collect();
    assert!(
        libraries.iter().any(|l| l.starts_with("libc.so")),
        "{mapped}"
    );
    assert!(
        !libraries.iter().any(|l| l.starts_with("libm.")),
        "libm is loaded again: a dependency calls a maths function \
         src/bin/actionstream/math.rs does not define (`nm -D --undefined-only` \
         on the executable names it): {libraries:?}"
    );
    if option_env!("ACTIONSTREAM_STATIC_UNWINDER").is_some() {
        assert!(
            !libraries.iter().any(|l| l.starts_with("libgcc_s")),
            "libgcc_s is loaded although build.rs linked the unwinder in: {libraries:?}"
        );
    }
}

/// Bad option values are refused by the library's one check
/// (`ParserSettings::validate`), with its message, whether they come as
/// flags, in a configuration file or to `run`: before, `--max-block-bytes 0`
/// was raised to 16 bytes in silence and every fenced action became
/// narrative.
#[test]
fn bad_option_values_are_refused_with_the_librarys_message() {
    let file = "examples/responses/facilitator.md";
    let refused = |args: &[&str], message: &str| {
        let out = bin().args(args).output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim(), format!("actionstream: {message}"), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing parsed");
    };
    let zero = actionstream::ParserSettings {
        max_block_bytes: Some(0),
        ..Default::default()
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert_eq!(zero, "max_block_bytes must be at least 16 bytes, not 0");
    refused(&["parse", "--max-block-bytes", "0", file], &zero);
    refused(
        &["parse", "--max-block-bytes", "15", file],
        "max_block_bytes must be at least 16 bytes, not 15",
    );
    refused(
        &["parse", "--xml-tag", "", file],
        "xml_tags entry \"\" is empty",
    );
    refused(
        &["parse", "--fence-tag", "my plan", file],
        "fence_tags entry \"my plan\" holds whitespace (a fence's tag is the first word of its info string)",
    );
    refused(
        &["parse", "--discriminator", "", file],
        "discriminators entry \"\" is empty",
    );
    let dir = std::env::temp_dir().join(format!("actionstream-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let config = dir.join("agent.json");
    std::fs::write(&config, r#"{"max_block_bytes": 0}"#).expect("write");
    let config = config.to_str().expect("a UTF-8 path");
    refused(&["parse", "--config", config, file], &zero);
    // The smallest value the parser honours is taken.
    let out = bin()
        .args(["parse", "--max-block-bytes", "16", file])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
}

/// `--model` says whether the response starts inside reasoning, by the
/// model's family; `--no-reasoning-open` says it does not; the two flags
/// that say opposite things are refused together.
#[test]
fn the_model_opens_reasoning_unless_told_otherwise() {
    let dir = std::env::temp_dir().join(format!("actionstream-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("r1.txt");
    std::fs::write(
        &file,
        "Plan the call.</think>\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Oslo\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    )
    .unwrap();
    let first = |extra: &[&str]| run(&file, extra)[0].clone();
    assert_eq!(
        first(&["--model", "deepseek-ai/DeepSeek-R1-0528"]),
        serde_json::json!({"event": "reasoning", "text": "Plan the call."})
    );
    assert_eq!(
        first(&[
            "--model",
            "deepseek-ai/DeepSeek-R1-0528",
            "--no-reasoning-open"
        ])["event"],
        "narrative"
    );
    assert_eq!(
        first(&["--model", "deepseek-ai/DeepSeek-V3-0324"])["event"],
        "narrative"
    );
    let out = bin()
        .args(["parse", "--reasoning-open", "--no-reasoning-open"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
    let _ = std::fs::remove_dir_all(&dir);
}
