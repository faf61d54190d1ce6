//! Typed actions: the seed's Echelon actions as Rust types, registered once,
//! validating a streamed response (at every chunking) and giving typed values.
#![cfg(feature = "schema")]

mod common;
use std::sync::Arc;

use actionstream::typed::TypedRegistry;
use actionstream::{feedback, Config, Event, Validator};
use common::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
struct IssuePayload {
    title: String,
    body: String,
    labels: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
enum Echelon {
    CreateIssues {
        issues: Vec<IssuePayload>,
    },
    InvokeCheenoski {
        label: String,
        #[serde(rename = "maxParallel")]
        max_parallel: Option<u32>,
    },
    UpdatePlan {
        plan: String,
    },
    RequestInfo {
        target: String,
        question: String,
    },
    Escalate {
        reason: String,
    },
    RequestReview {
        pr_number: u64,
    },
    CreateBranch {
        branch_name: String,
        from: Option<String>,
    },
}

const RESPONSE: &str = "Here's my plan:\n\n```json\n{\n  \"action\": \"update_plan\",\n  \"plan\": \"JWT auth\"\n}\n```\n\nIssues:\n\n```json\n{\n  \"action\": \"create_issues\",\n  \"issues\": [\n    {\"title\": \"[Backend] JWT\", \"body\": \"## Example\\n```ts\\nsign();\\n```\", \"labels\": [\"backend\", \"ralphy-1\"]}\n  ]\n}\n```\n\n<action_call name=\"create_branch\">{\"branch_name\": \"feature/jwt-auth\", \"from\": \"main\"}</action_call>\n\n```json\n{\"action\": \"invoke_cheenoski\", \"label\": 123}\n```\n\n```json\n{\"action\": \"create_issues\", \"issues\": [{\"title\": \"t\", \"body\": \"\", \"labels\": \"backend\"}]}\n```\n";

fn registry() -> Arc<TypedRegistry<Echelon>> {
    Arc::new(TypedRegistry::<Echelon>::from_enum("action").expect("the enum's schema splits"))
}

#[test]
fn enum_registry_gives_typed_values_from_a_stream() {
    let reg = registry();
    assert_eq!(
        reg.known(),
        [
            "create_issues",
            "invoke_cheenoski",
            "update_plan",
            "request_info",
            "escalate",
            "request_review",
            "create_branch"
        ]
    );
    let config = Config::default().shared_validator(reg.clone());
    let events = parse_with(&config, RESPONSE);
    assert_eq!(
        reg.typed_events(&events),
        [
            Echelon::UpdatePlan {
                plan: "JWT auth".into()
            },
            Echelon::CreateIssues {
                issues: vec![IssuePayload {
                    title: "[Backend] JWT".into(),
                    body: "## Example\n```ts\nsign();\n```".into(),
                    labels: vec!["backend".into(), "ralphy-1".into()],
                }]
            },
            Echelon::CreateBranch {
                branch_name: "feature/jwt-auth".into(),
                from: Some("main".into())
            },
        ]
    );
    // Wrong field types give errors with their paths.
    assert_eq!(
        invalid(&events),
        [
            "invoke_cheenoski:at label: expected a string, found an integer (123)",
            r#"create_issues:at issues/0/labels: expected an array, found a string ("backend")"#,
        ]
    );
}

#[test]
fn typed_reports_errors_with_paths() {
    let reg = registry();
    // Parsed without the registry as validator: every action completes, and
    // `typed` checks them.
    let events = parse(RESPONSE);
    let results: Vec<Result<Echelon, Vec<String>>> = events
        .iter()
        .filter_map(|e| match e {
            Event::ActionComplete(a) => Some(
                reg.typed(a)
                    .map_err(|errs| errs.iter().map(ToString::to_string).collect()),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 5);
    assert!(results[..3].iter().all(Result::is_ok));
    assert_eq!(
        results[3],
        Err(vec![
            "at label: expected a string, found an integer (123)".to_owned()
        ])
    );
    assert_eq!(
        results[4],
        Err(vec![
            r#"at issues/0/labels: expected an array, found a string ("backend")"#.to_owned()
        ])
    );
    let fly = parse("```json\n{\"action\": \"fly\"}\n```\n");
    let Event::ActionComplete(a) = &fly[1] else {
        panic!("{fly:?}")
    };
    let err = reg.typed(a).expect_err("unknown");
    assert!(err[0]
        .message
        .starts_with("unknown action 'fly': expected one of 'create_issues'"));
}

#[test]
fn missing_and_nested_fields() {
    let reg = registry();
    let config = Config::default().shared_validator(reg.clone());
    let input = "```json\n{\"action\": \"create_issues\"}\n```\n```json\n{\"action\": \"create_issues\", \"issues\": [{\"title\": \"t\", \"labels\": [1]}]}\n```\n```json\n{\"action\": \"request_review\", \"pr_number\": -3}\n```\n";
    let events = parse_with(&config, input);
    let got = invalid(&events);
    assert_eq!(got[0], "create_issues:at issues: required field missing");
    assert!(
        got[1].contains("at issues/0/body: required field missing"),
        "{got:?}"
    );
    assert!(
        got[1].contains("at issues/0/labels/0: expected a string, found an integer (1)"),
        "{got:?}"
    );
    assert!(
        got[2].starts_with("request_review:at pr_number: expected a number >= 0"),
        "{got:?}"
    );
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct CreateTask {
    content: String,
    notes: Option<String>,
    #[serde(default)]
    status: Status,
}

#[derive(Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    #[default]
    Pending,
    Done,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct DeleteTask {
    task_id: u64,
}

#[derive(Debug, PartialEq)]
enum Task {
    Create(CreateTask),
    Delete(DeleteTask),
}

#[test]
fn one_struct_per_action_name() {
    let reg = Arc::new(
        TypedRegistry::new()
            .action("create_task", Task::Create)
            .and_then(|r| r.action("delete_task", Task::Delete))
            .expect("schemas compile"),
    );
    let config = Config::default().shared_validator(reg.clone());
    let input = "```actions\n{\"actions\": [\n  {\"type\": \"create_task\", \"content\": \"Review\", \"status\": \"done\"},\n  {\"type\": \"delete_task\", \"task_id\": 7},\n  {\"type\": \"create_task\", \"content\": \"x\", \"status\": \"later\"},\n  {\"type\": \"delete_task\", \"task_id\": \"7\"}\n]}\n```\n";
    let events = parse_with(&config, input);
    assert_eq!(
        reg.typed_events(&events),
        [
            Task::Create(CreateTask {
                content: "Review".into(),
                notes: None,
                status: Status::Done
            }),
            Task::Delete(DeleteTask { task_id: 7 }),
        ]
    );
    assert_eq!(
        invalid(&events),
        [
            r#"create_task:at status: expected one of "pending", "done", found a string ("later")"#,
            r#"delete_task:at task_id: expected an integer, found a string ("7")"#,
        ]
    );
    // The registry describes its actions for the prompt and for feedback.
    let text = feedback::instructions(reg.as_ref(), &feedback::PromptSyntax::ALL);
    assert!(
        text.contains("- create_task: { content: string; notes?: string | null; status?: "),
        "{text}"
    );
    let message = feedback::invalid_actions(&events, Some(reg.as_ref())).expect("two invalid");
    assert!(
        message.contains("- action 3 \"delete_task\": at task_id: expected an integer"),
        "{message}"
    );
    assert!(
        message.contains("expected arguments: { task_id: integer }"),
        "{message}"
    );
}
