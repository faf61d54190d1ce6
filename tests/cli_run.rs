//! `actionstream run`: the parse lines plus one result line per handled
//! action, results printed while the input is still open, exit statuses.
#![cfg(all(feature = "cli", unix))]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_actionstream");

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "actionstream-cli-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The bundled configuration, copied into `dir` so its relative paths
/// (`out`, `audit.jsonl`) land there.
fn config_in(dir: &TempDir) -> PathBuf {
    let config = dir.0.join("config.json");
    std::fs::copy(data("run_config.json"), &config).unwrap();
    config
}

fn lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn run_prints_the_parse_lines_and_one_result_per_complete_action() {
    let dir = TempDir::new("full");
    let config = config_in(&dir);
    let out = Command::new(BIN)
        .args(["run", "--config"])
        .arg(&config)
        .arg(data("run_input.txt"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = lines(&out.stdout);

    // Without the result lines, the output is exactly what `parse` prints.
    let parsed = Command::new(BIN)
        .args(["parse", "--config"])
        .arg(&config)
        .arg(data("run_input.txt"))
        .output()
        .unwrap();
    let events: Vec<Value> = all
        .iter()
        .filter(|v| v["event"] != "result")
        .cloned()
        .collect();
    assert_eq!(events, lines(&parsed.stdout));

    let complete: Vec<u64> = events
        .iter()
        .filter(|v| v["event"] == "action_complete")
        .map(|v| v["id"].as_u64().unwrap())
        .collect();
    let results: Vec<&Value> = all.iter().filter(|v| v["event"] == "result").collect();
    let mut ids: Vec<u64> = results.iter().map(|v| v["id"].as_u64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, complete, "one result per complete action");
    assert_eq!(complete.len(), 7);

    // Each result comes after its action_complete line.
    for r in &results {
        let at = |pred: &dyn Fn(&Value) -> bool| all.iter().position(pred).unwrap();
        let done = at(&|v: &Value| v["event"] == "action_complete" && v["id"] == r["id"]);
        let res = at(&|v: &Value| v["event"] == "result" && v["id"] == r["id"]);
        assert!(done < res);
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["event", "id", "name", "ok", "output", "error"]);
    }

    let result = |name: &str, nth: usize| {
        *results
            .iter()
            .filter(|v| v["name"] == name)
            .nth(nth)
            .unwrap_or_else(|| panic!("no result {nth} for {name}"))
    };
    let decision = result("decision", 0);
    assert_eq!(decision["ok"], true);
    assert_eq!(decision["output"], json!({"logged": true}));
    assert_eq!(decision["error"], Value::Null);

    let saves: Vec<&Value> = results
        .iter()
        .copied()
        .filter(|v| v["name"] == "save_file")
        .collect();
    assert_eq!(saves.len(), 2);
    let written = saves.iter().find(|v| v["ok"] == true).unwrap();
    assert_eq!(written["output"]["path"], "notes/meeting.md");
    let refused = saves.iter().find(|v| v["ok"] == false).unwrap();
    assert!(
        refused["error"].as_str().unwrap().contains(".."),
        "{refused}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.0.join("out/notes/meeting.md")).unwrap(),
        "# Meeting\nUse Rust."
    );
    assert!(!dir.0.join("escape.txt").exists());

    assert_eq!(result("audit", 0)["ok"], true);
    let audit = std::fs::read_to_string(dir.0.join("audit.jsonl")).unwrap();
    let audit: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0]["arguments"], json!({"what": "decision recorded"}));

    let shout = result("shout", 0);
    assert_eq!(shout["ok"], true);
    assert_eq!(shout["output"]["ARGUMENTS"], json!({"TEXT": "DONE"}));

    let crash = result("crash", 0);
    assert_eq!(crash["ok"], false);
    assert!(
        crash["error"].as_str().unwrap().contains("broken"),
        "{crash}"
    );

    let unknown = result("unknown_thing", 0);
    assert_eq!(unknown["ok"], false);
    assert!(unknown["error"].as_str().unwrap().contains("no handler"));
}

#[test]
fn dry_run_and_in_order_from_the_command_line() {
    let dir = TempDir::new("dry");
    let config = config_in(&dir);
    let out = Command::new(BIN)
        .args([
            "run",
            "--dry-run",
            "--in-order",
            "--chunk-size",
            "3",
            "--config",
        ])
        .arg(&config)
        .arg(data("run_input.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let results: Vec<Value> = lines(&out.stdout)
        .into_iter()
        .filter(|v| v["event"] == "result")
        .collect();
    let ids: Vec<u64> = results.iter().map(|v| v["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5, 6], "in action order");
    assert_eq!(
        results[0]["output"],
        json!({"dry_run": true, "handler": "builtin:log"})
    );
    assert!(!dir.0.join("out").exists(), "dry run wrote nothing");
    assert!(!dir.0.join("audit.jsonl").exists());
}

#[test]
fn results_print_while_the_input_is_still_open() {
    let dir = TempDir::new("live");
    let config = config_in(&dir);
    let mut child = Command::new(BIN)
        .args(["run", "--config"])
        .arg(&config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                break;
            }
        }
    });
    stdin
        .write_all(
            b"Start.\n```action\n{\"action\": \"shout\", \"text\": \"early\"}\n```\nStill writing",
        )
        .unwrap();
    stdin.flush().unwrap();
    // The result arrives while standard input is still open.
    let result = loop {
        let v = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("no result before the input ended");
        if v["event"] == "result" {
            break v;
        }
    };
    assert_eq!(result["id"], 0);
    assert_eq!(result["output"]["ARGUMENTS"], json!({"TEXT": "EARLY"}));
    stdin.write_all(b" more.\n").unwrap();
    drop(stdin);
    let rest: Vec<Value> = rx.iter().collect();
    assert!(rest.iter().any(|v| v["event"] == "narrative"));
    assert_eq!(child.wait().unwrap().code(), Some(0));
    reader.join().unwrap();
}

#[test]
fn bad_configurations_exit_2() {
    let dir = TempDir::new("bad");
    let unknown = dir.0.join("unknown.json");
    std::fs::write(&unknown, r#"{"handlers": {"x": "builtin:github-issue"}}"#).unwrap();
    let broken = dir.0.join("broken.json");
    std::fs::write(&broken, "{not json").unwrap();
    let no_root = dir.0.join("no_root.json");
    std::fs::write(&no_root, r#"{"handlers": {"x": "builtin:file"}}"#).unwrap();
    let missing = dir.0.join("missing.json");
    for config in [&unknown, &broken, &no_root, &missing] {
        let out = Command::new(BIN)
            .args(["run", "--config"])
            .arg(config)
            .arg(data("run_input.txt"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", config.display());
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let out = Command::new(BIN)
        .arg("run")
        .arg(data("run_input.txt"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--config is required");
}
