//! `actionstream parse --schema FILE` and `--config FILE`: the
//! `action_invalid` lines name the path and what was expected, at any
//! chunking; an unreadable schema or configuration exits 2 with one line on
//! standard error.
#![cfg(all(feature = "cli", feature = "schema"))]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_actionstream"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

/// `name: errors joined` for each action_invalid line, and the names of the
/// action_complete lines.
fn outcome(out: &Output) -> (Vec<String>, Vec<String>) {
    let mut invalid = Vec::new();
    let mut complete = Vec::new();
    for l in lines(out) {
        match l["event"].as_str() {
            Some("action_invalid") => invalid.push(format!(
                "{}: {}",
                l["name"].as_str().unwrap_or("-"),
                l["errors"]
                    .as_array()
                    .map(|e| e
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("; "))
                    .unwrap_or_default()
            )),
            Some("action_complete") => complete.push(l["name"].as_str().unwrap_or("-").to_owned()),
            _ => {}
        }
    }
    (invalid, complete)
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "actionstream-cli-schema-{}-{name}",
        std::process::id()
    ));
    std::fs::write(&path, text).expect("temp file written");
    path
}

#[test]
fn schema_errors_as_action_invalid_lines() {
    let schema = data("echelon.schema.json");
    let response = data("echelon_response.md");
    let expected_invalid = [
        r#"create_issues: at issues/0/labels: expected an array, found a string ("backend")"#.to_owned(),
        "create_issues: at issues: required field missing".to_owned(),
        "invoke_cheenoski: at label: expected a string, found an integer (123)".to_owned(),
        "unknown_action: unknown action 'unknown_action': expected one of 'update_plan' | 'create_issues' | 'invoke_cheenoski' | 'request_info' | 'escalate' | 'request_review' | 'create_branch'".to_owned(),
    ];
    for chunking in [
        vec![],
        vec!["--chunk-size", "1"],
        vec!["--random-chunks", "7"],
    ] {
        let mut args = vec!["parse", "--schema", schema.to_str().expect("utf-8 path")];
        args.extend(&chunking);
        args.push(response.to_str().expect("utf-8 path"));
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{chunking:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (invalid, complete) = outcome(&out);
        assert_eq!(invalid, expected_invalid, "{chunking:?}");
        assert_eq!(complete, ["update_plan"], "{chunking:?}");
    }
}

#[test]
fn schemas_from_a_config_file() {
    let schemas: Value =
        serde_json::from_str(include_str!("data/echelon.schema.json")).expect("JSON");
    let config = temp_file(
        "config.json",
        &serde_json::json!({ "schemas": schemas }).to_string(),
    );
    let out = run(&[
        "parse",
        "--config",
        config.to_str().expect("utf-8 path"),
        data("echelon_response.md").to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let (invalid, complete) = outcome(&out);
    assert_eq!(invalid.len(), 4);
    assert_eq!(complete, ["update_plan"]);

    // The seed's agent.json `actions` section: types and outputFormat.
    let agent = temp_file(
        "agent.json",
        r#"{"actions": {"enabled": true, "types": ["decision", "note"], "required": {"decision": ["content"]},
                        "outputFormat": "facilitator-action", "handlers": {"decision": "builtin:log"}}}"#,
    );
    let response = temp_file(
        "facilitator.md",
        "```facilitator-action\n{\"type\": \"decision\", \"rationale\": \"r\"}\n```\n```facilitator-action\n{\"type\": \"note\", \"content\": \"c\"}\n```\n",
    );
    let out = run(&[
        "parse",
        "--config",
        agent.to_str().expect("utf-8"),
        response.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let (invalid, complete) = outcome(&out);
    assert_eq!(invalid, ["decision: at content: required field missing"]);
    assert_eq!(complete, ["note"]);
    for p in [config, agent, response] {
        let _ = std::fs::remove_file(p);
    }
}

fn assert_usage_error(args: &[&str], needle: &str) {
    let out = run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains(needle), "{stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn unreadable_schema_exits_2_with_one_line() {
    let response = data("echelon_response.md");
    let response = response.to_str().expect("utf-8 path");
    assert_usage_error(
        &[
            "parse",
            "--schema",
            "/nonexistent/echelon.schema.json",
            response,
        ],
        "cannot read /nonexistent/echelon.schema.json",
    );
    let not_json = temp_file("not-json.json", "{\"update_plan\": ");
    assert_usage_error(
        &[
            "parse",
            "--schema",
            not_json.to_str().expect("utf-8"),
            response,
        ],
        "is not a valid schema file",
    );
    let bad = temp_file("bad-schema.json", r#"{"update_plan": {"type": "strin"}}"#);
    assert_usage_error(
        &["parse", "--schema", bad.to_str().expect("utf-8"), response],
        "schema for 'update_plan' is invalid",
    );
    assert_usage_error(
        &["parse", "--config", "/nonexistent/agent.json", response],
        "cannot read /nonexistent/agent.json",
    );
    for p in [not_json, bad] {
        let _ = std::fs::remove_file(p);
    }
}
