//! `actionstream artifacts`: dry run, writing under --out, refusals and
//! symlink escapes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const RESPONSE: &str = "Here you go.\n\n```typescript\n// src/a.ts\nexport const a = 1;\n```\n\n```json\n{\"action\": \"noop\"}\n```\n\n```ts\n// ../evil.ts\nbad();\n```\n\n```ts\n// src/a.ts\nexport const b = 2;\n```\n\n## Notes\n```ts\n// src/example.ts\nexample();\n```\n";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_actionstream"))
}

/// A fresh directory under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "actionstream-cli-artifacts-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that fails on its arguments may exit before reading: a
    // broken pipe here is not the test's concern.
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    child.wait_with_output().unwrap()
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn dry_run_lists_without_writing() {
    let out = run_stdin(&["artifacts", "--dry-run"], RESPONSE);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = lines(&out);
    assert_eq!(got.len(), 2);
    assert_eq!(
        got[0].to_string(),
        r#"{"path":"src/a.ts","language":"typescript","content":"export const a = 1;\n\nexport const b = 2;\n","written":false}"#
    );
    assert_eq!(got[1]["path"], "../evil.ts");
    assert_eq!(got[1]["error"], "the path has a '..' component");
    assert!(got[1].get("written").is_none());
}

#[test]
fn out_writes_under_dir_and_refuses_escapes() {
    let dir = temp_dir("out");
    let out_dir = dir.join("out");
    let file = dir.join("response.md");
    std::fs::write(&file, RESPONSE).unwrap();
    let out = bin()
        .args([
            "artifacts",
            file.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = lines(&out);
    assert_eq!(got[0]["written"], true);
    assert_eq!(
        std::fs::read_to_string(out_dir.join("src/a.ts")).unwrap(),
        "export const a = 1;\n\nexport const b = 2;\n"
    );
    assert!(got[1]["error"].is_string());
    assert!(!dir.join("evil.ts").exists());
    assert!(!out_dir.join("src/example.ts").exists());
    // Only the one file, and no temporary files left behind.
    let names: Vec<_> = std::fs::read_dir(out_dir.join("src"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["a.ts"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn symlinks_leading_out_are_refused() {
    use std::os::unix::fs::symlink;
    let dir = temp_dir("symlink");
    let outside = dir.join("outside");
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(out_dir.join("inside")).unwrap();
    std::fs::write(outside.join("target.ts"), "original\n").unwrap();
    symlink(&outside, out_dir.join("link")).unwrap();
    symlink(outside.join("target.ts"), out_dir.join("file.ts")).unwrap();
    symlink(out_dir.join("inside"), out_dir.join("in_link")).unwrap();
    let response = "```ts\n// link/pwn.ts\npwned();\n```\n```ts\n// link/deeper/pwn.ts\npwned();\n```\n```ts\n// file.ts\npwned();\n```\n```ts\n// in_link/ok.ts\nfine();\n```\n";
    let out = run_stdin(
        &["artifacts", "-", "--out", out_dir.to_str().unwrap()],
        response,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = lines(&out);
    assert_eq!(got.len(), 4);
    for (line, path) in got
        .iter()
        .zip(["link/pwn.ts", "link/deeper/pwn.ts", "file.ts"])
    {
        assert_eq!(line["path"], path);
        assert!(line["error"].is_string(), "{line}");
    }
    assert_eq!(got[3]["written"], true, "a link that stays inside is fine");
    assert_eq!(
        std::fs::read_to_string(out_dir.join("inside/ok.ts")).unwrap(),
        "fine();\n"
    );
    // Nothing was created or changed outside.
    let outside_names: Vec<_> = std::fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(outside_names, ["target.ts"]);
    assert_eq!(
        std::fs::read_to_string(outside.join("target.ts")).unwrap(),
        "original\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_errors_exit_2() {
    // Neither --out nor --dry-run.
    let out = run_stdin(&["artifacts"], RESPONSE);
    assert_eq!(out.status.code(), Some(2));
    // Both.
    let out = run_stdin(&["artifacts", "--dry-run", "--out", "x"], RESPONSE);
    assert_eq!(out.status.code(), Some(2));
    // An unreadable file: one line on stderr.
    let missing = Path::new("/nonexistent/actionstream/response.md");
    let out = bin()
        .args(["artifacts", missing.to_str().unwrap(), "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot read"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn empty_input_prints_nothing() {
    let out = run_stdin(&["artifacts", "--dry-run"], "no code here\n");
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
}
