//! Validation (contract section 3): JSON Schemas per action name, a
//! discriminated union split by name, the seeds' types lists with required
//! fields, the `agent.json` `actions` section, and feedback for the model.
//! Every parse goes through the every-chunking oracle.
#![cfg(feature = "schema")]

mod common;
use actionstream::feedback;
use actionstream::schema::SchemaValidator;
use actionstream::{Config, ConfigFile, TypeList, Validator};
use common::*;
use serde_json::{json, Map, Value};

const ECHELON: &str = include_str!("data/echelon.schema.json");

fn echelon_map() -> Map<String, Value> {
    serde_json::from_str(ECHELON).expect("the schema file is JSON")
}

fn echelon() -> SchemaValidator {
    SchemaValidator::from_map(&echelon_map()).expect("the schemas compile")
}

/// The same schemas as one discriminated union, as zod-to-json-schema
/// would give `z.discriminatedUnion('action', [...])`.
fn echelon_union() -> Value {
    let branches: Vec<Value> = echelon_map()
        .into_iter()
        .map(|(name, mut schema)| {
            schema["properties"]["action"] = json!({"type": "string", "const": name});
            if let Some(req) = schema["required"].as_array_mut() {
                req.insert(0, json!("action"));
            }
            schema
        })
        .collect();
    json!({"$schema": "http://json-schema.org/draft-07/schema#", "oneOf": branches})
}

fn fence(json: &str) -> String {
    format!("Text before.\n\n```json\n{json}\n```\n\nText after.\n")
}

const KNOWN: &str = "'update_plan' | 'create_issues' | 'invoke_cheenoski' | 'request_info' | 'escalate' | 'request_review' | 'create_branch'";

/// The seed's four validation examples, each with the error it shows, in
/// our words with the path.
fn seed_examples() -> Vec<(&'static str, String)> {
    vec![
        (
            r#"{"action": "create_issues"}"#,
            "create_issues:at issues: required field missing".to_owned(),
        ),
        (
            r#"{"action": "invoke_cheenoski", "label": 123}"#,
            "invoke_cheenoski:at label: expected a string, found an integer (123)".to_owned(),
        ),
        (
            r#"{"action": "unknown_action"}"#,
            format!("unknown_action:unknown action 'unknown_action': expected one of {KNOWN}"),
        ),
        (
            "{\n  \"action\": \"create_issues\",\n  \"issues\": [\n    {\n      \"title\": \"[Backend] Auth\",\n      \"body\": \"\",\n      \"labels\": \"backend\"\n    }\n  ]\n}",
            r#"create_issues:at issues/0/labels: expected an array, found a string ("backend")"#
                .to_owned(),
        ),
    ]
}

#[test]
fn seed_000_examples_with_schema_map() {
    let config = Config::default().validator(echelon());
    for (json, expected) in seed_examples() {
        let events = parse_with(&config, &fence(json));
        assert_eq!(invalid(&events), [expected], "{json}");
        assert!(completed(&events).is_empty());
        assert_eq!(narrative_of(&events), "Text before.\n\n\nText after.\n");
    }
}

#[test]
fn seed_000_examples_with_union_schema() {
    // The union is split by name: an action meets only its own branch, so
    // each example gives exactly the one error, never a dump of all branches.
    let v = SchemaValidator::from_union(&echelon_union(), "action").expect("splits");
    assert_eq!(v.known().join(" | "), KNOWN.replace('\'', ""));
    let config = Config::default().validator(v);
    for (json, expected) in seed_examples() {
        let events = parse_with(&config, &fence(json));
        assert_eq!(invalid(&events), [expected], "{json}");
    }
}

#[test]
fn union_schema_in_config_file() {
    let file: ConfigFile =
        serde_json::from_value(json!({ "schemas": echelon_union() })).expect("a configuration");
    let config = file.apply(Config::default()).expect("applies");
    for (json, expected) in seed_examples() {
        assert_eq!(invalid(&parse_with(&config, &fence(json))), [expected]);
    }
}

#[test]
fn seed_000_valid_actions_complete() {
    let config = Config::default().validator(echelon());
    let input = "```json\n[\n  {\"action\": \"create_branch\", \"branch_name\": \"feature/auth\"},\n  {\"action\": \"update_plan\", \"plan\": \"Phase 1\"}\n]\n```\n";
    let events = parse_with(&config, input);
    assert_eq!(
        completed(&events),
        [
            r#"create_branch:{"branch_name":"feature/auth"}"#,
            r#"update_plan:{"plan":"Phase 1"}"#
        ]
    );
    // The embedded-backticks example validates too.
    let input = "```json\n{\n  \"action\": \"create_issues\",\n  \"issues\": [\n    {\n      \"title\": \"[Backend] JWT\",\n      \"body\": \"## Example\\n```typescript\\nconst t = 1;\\n```\",\n      \"labels\": [\"backend\"]\n    }\n  ]\n}\n```\n";
    assert_eq!(completed(&parse_with(&config, input)).len(), 1);
}

#[test]
fn seed_000_example_2_one_valid_one_invalid() {
    let config = Config::default().validator(echelon());
    let input = "\nFirst, update the plan:\n\n```json\n{\"action\": \"update_plan\", \"plan\": \"Implement auth system\"}\n```\n\nThen create issues:\n\n```json\n{\n  \"action\": \"create_issues\",\n  \"issues\": \"not-an-array\"\n}\n```\n";
    let events = parse_with(&config, input);
    assert_eq!(
        completed(&events),
        [r#"update_plan:{"plan":"Implement auth system"}"#]
    );
    assert_eq!(
        invalid(&events),
        [r#"create_issues:at issues: expected an array, found a string ("not-an-array")"#]
    );
}

#[test]
fn more_error_kinds_in_plain_words() {
    let config = Config::default().validator(echelon());
    let cases = [
        (
            r#"{"action": "create_issues", "issues": []}"#,
            "create_issues:at issues: expected at least 1 item, found 0",
        ),
        (
            r#"{"action": "request_info", "target": "ceo", "question": "?"}"#,
            r#"request_info:at target: expected one of "2ic", "eng-lead", "team-lead", found a string ("ceo")"#,
        ),
        (
            r#"{"action": "request_review", "pr_number": 0}"#,
            "request_review:at pr_number: expected a number >= 1, found an integer (0)",
        ),
        (
            r#"{"action": "create_branch", "branch_name": "a b"}"#,
            r#"create_branch:at branch_name: expected a string matching /^[A-Za-z0-9._/-]+$/, found a string ("a b")"#,
        ),
        (
            r#"{"action": "create_branch", "branch_name": "f", "base": "main"}"#,
            "create_branch:at base: unexpected field",
        ),
        (
            r#"{"action": "update_plan", "plan": ""}"#,
            r#"update_plan:at plan: expected at least 1 character, found a string ("")"#,
        ),
        (
            r#"{"action": "create_issues", "issues": [{"title": 1, "labels": []}]}"#,
            "create_issues:at issues/0/title: expected a string, found an integer (1); at issues/0/body: required field missing",
        ),
    ];
    for (json, expected) in cases {
        let got = invalid(&parse_with(&config, &fence(json)));
        assert_eq!(got.len(), 1, "{json}");
        // Errors come in the order jsonschema finds them; compare as sets.
        let (got_name, got) = got[0].split_once(':').expect("name:errors");
        let (want_name, want) = expected.split_once(':').expect("name:errors");
        assert_eq!(got_name, want_name);
        let mut got: Vec<&str> = got.split("; ").collect();
        let mut want: Vec<&str> = want.split("; ").collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{json}");
    }
}

#[test]
fn schemas_apply_to_every_syntax() {
    let config = Config::default().validator(echelon());
    let input = "<tool_call>{\"name\": \"invoke_cheenoski\", \"arguments\": {\"label\": 5}}</tool_call>\n<action_call name=\"escalate\">{}</action_call>\n<action_call name=\"escalate\"><reason>blocked</reason></action_call>\n";
    let events = parse_with(&config, input);
    assert_eq!(
        invalid(&events),
        [
            "invoke_cheenoski:at label: expected a string, found an integer (5)",
            "escalate:at reason: required field missing"
        ]
    );
    assert_eq!(completed(&events), [r#"escalate:{"reason":"blocked"}"#]);
}

#[test]
fn seed_001_required_fields_with_type_list() {
    let types = TypeList::new()
        .allow("create_task", ["content"])
        .allow("update_task", ["task_id"])
        .allow("create_memory", ["content"])
        .allow("list_tasks", [] as [&str; 0])
        .allow("execute_code", ["code"]);
    let config = Config::default().validator(types);
    let input = "Here.\n\n```actions\n{\n  \"actions\": [\n    {\"type\": \"create_task\"},\n    {\"type\": \"create_memory\", \"content\": \"User prefers dark mode\", \"notes\": \"preference\"},\n    {\"type\": \"list_tasks\"},\n    {\"type\": \"update_task\", \"content\": \"x\"},\n    {\"type\": \"fly\"}\n  ]\n}\n```\n";
    let events = parse_with(&config, input);
    assert_eq!(
        invalid(&events),
        [
            "create_task:at content: required field missing",
            "update_task:at task_id: required field missing",
            "fly:unknown action 'fly': expected one of 'create_task' | 'update_task' | 'create_memory' | 'list_tasks' | 'execute_code'",
        ]
    );
    assert_eq!(
        completed(&events),
        [
            r#"create_memory:{"content":"User prefers dark mode","notes":"preference"}"#,
            "list_tasks:{}"
        ]
    );
}

#[test]
fn seed_001_required_fields_from_config_file() {
    let file: ConfigFile = serde_json::from_str(
        r#"{"actions": {"types": ["create_task", "delete_task"],
                        "required": {"create_task": ["content"], "delete_task": ["task_id"]},
                        "outputFormat": "actions"}}"#,
    )
    .expect("a configuration");
    let config = file.apply(Config::default()).expect("applies");
    let input = "```actions\n{\"actions\": [{\"type\": \"create_task\"}, {\"type\": \"delete_task\", \"task_id\": 3}]}\n```\n";
    let events = parse_with(&config, input);
    assert_eq!(
        invalid(&events),
        ["create_task:at content: required field missing"]
    );
    assert_eq!(completed(&events), [r#"delete_task:{"task_id":3}"#]);
}

/// The seed's `agent.json`, plus its optional per-type schema for `decision`
/// (which names the type itself: that key is the naming key and dropped).
fn seed_002_agent_json(with_schema: bool) -> ConfigFile {
    let mut file = json!({
        "actions": {
            "enabled": true,
            "types": ["decision", "action-item", "note", "question"],
            "outputFormat": "facilitator-action",
            "handlers": {
                "decision": "builtin:log",
                "action-item": "builtin:github-issue",
                "note": "builtin:log",
                "question": "builtin:log"
            }
        }
    });
    if with_schema {
        file["schemas"] = json!({
            "decision": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "required": ["type", "content"],
                "properties": {
                    "type": {"const": "decision"},
                    "content": {"type": "string", "description": "Decision content"},
                    "rationale": {"type": "string", "description": "Decision rationale"},
                    "participants": {"type": "array", "items": {"type": "string"}, "description": "People involved"}
                }
            }
        });
    }
    serde_json::from_value(file).expect("a configuration")
}

#[test]
fn seed_002_schema_per_type() {
    let file = seed_002_agent_json(true);
    assert_eq!(file.handler_specs().len(), 4);
    let config = file.apply(Config::default()).expect("applies");
    let input = "I've made a decision:\n\n```facilitator-action\n{\n  \"type\": \"decision\",\n  \"rationale\": \"Better type safety\",\n  \"participants\": [\"Alice\", \"Bob\"]\n}\n```\n\n```facilitator-action\n{\"type\": \"decision\", \"content\": \"We will use TypeScript\", \"participants\": \"Alice\"}\n```\n\n```facilitator-action\n{\"type\": \"decision\", \"content\": \"We will use TypeScript\"}\n```\n\n```facilitator-action\n{\"type\": \"note\", \"content\": \"n\"}\n```\n\n```facilitator-action\n{\"type\": \"summary\", \"decisionsCount\": 3}\n```\n";
    let events = parse_with(&config, input);
    assert_eq!(
        invalid(&events),
        [
            "decision:at content: required field missing",
            r#"decision:at participants: expected an array, found a string ("Alice")"#,
            "summary:unknown action 'summary': expected one of 'decision' | 'action-item' | 'note' | 'question'",
        ]
    );
    assert_eq!(
        completed(&events),
        [
            r#"decision:{"content":"We will use TypeScript"}"#,
            r#"note:{"content":"n"}"#
        ]
    );
}

#[test]
fn seed_002_types_only() {
    let config = seed_002_agent_json(false)
        .apply(Config::default())
        .expect("applies");
    let input = "```facilitator-action\n{\"type\": \"question\", \"content\": \"Why?\"}\n```\n```facilitator-action\n{\"type\": \"summary\"}\n```\n";
    let events = parse_with(&config, input);
    assert_eq!(completed(&events), [r#"question:{"content":"Why?"}"#]);
    assert_eq!(invalid(&events).len(), 1);
    assert!(invalid(&events)[0].starts_with("summary:unknown action 'summary'"));
}

#[test]
fn disabled_actions_section() {
    let file: ConfigFile = serde_json::from_str(
        r#"{"actions": {"enabled": false, "types": ["note"], "required": {"note": ["content"]},
                        "outputFormat": "facilitator-action", "handlers": {"note": "builtin:log"}},
            "schemas": {"note": {"type": "object", "required": ["content"]}}}"#,
    )
    .expect("a configuration");
    assert!(!file.actions_enabled());
    assert!(file.handler_specs().is_empty());
    let config = file.apply(Config::default()).expect("applies");
    assert!(!config.is_action_fence_tag("facilitator-action"));
    // The outputFormat fence is an ordinary fence: narrative.
    let fenced = "```facilitator-action\n{\"type\": \"note\"}\n```\n";
    assert_eq!(
        summary(&parse_with(&config, fenced)),
        [format!("N:{fenced}")]
    );
    // Other blocks are still actions, and nothing checks them.
    let input = "```json\n{\"action\": \"fly\"}\n```\n```json\n{\"action\": \"note\"}\n```\n";
    assert_eq!(
        completed(&parse_with(&config, input)),
        ["fly:{}", "note:{}"]
    );
}

#[test]
fn unreadable_schema_in_config_is_an_error() {
    let file: ConfigFile =
        serde_json::from_str(r#"{"schemas": {"x": {"type": 7}}}"#).expect("a configuration");
    let err = file.apply(Config::default()).expect_err("does not compile");
    assert!(
        err.to_string().starts_with("schema for 'x' is invalid"),
        "{err}"
    );
    let union: ConfigFile = serde_json::from_str(r#"{"schemas": {"oneOf": [{"type": "object"}]}}"#)
        .expect("a configuration");
    assert!(union.apply(Config::default()).is_err());
}

#[test]
fn feedback_for_the_next_turn() {
    let v = echelon();
    let config = Config::default().validator(echelon());
    let input: String = seed_examples().iter().map(|(j, _)| fence(j)).collect();
    let events = parse_with(&config, &input);
    let message = feedback::invalid_actions(&events, Some(&v)).expect("there are invalid actions");
    let expected = format!(
        "4 actions in your last response were not carried out. Correct them and send them again:\n\
         - action 0 \"create_issues\": at issues: required field missing\n  \
           expected arguments: {{ issues: {{ title: string; body: string; labels: string[] }}[] }}\n\
         - action 1 \"invoke_cheenoski\": at label: expected a string, found an integer (123)\n  \
           expected arguments: {{ label: string; maxParallel?: integer }}\n\
         - action 2 \"unknown_action\": unknown action 'unknown_action': expected one of {KNOWN}\n\
         - action 3 \"create_issues\": at issues/0/labels: expected an array, found a string (\"backend\")\n  \
           expected arguments: {{ issues: {{ title: string; body: string; labels: string[] }}[] }}\n"
    );
    assert_eq!(message, expected);
    // Without a validator, only the errors.
    let bare = feedback::invalid_actions(&events, None).expect("invalid actions");
    assert!(!bare.contains("expected arguments"));
    // A response without invalid actions needs no feedback.
    let ok = parse_with(&config, &fence(r#"{"action": "escalate", "reason": "r"}"#));
    assert_eq!(feedback::invalid_actions(&ok, Some(&v)), None);
}

#[test]
fn prompt_instructions_parse_back() {
    let v = echelon();
    let text = feedback::instructions(&v, &feedback::PromptSyntax::ALL);
    assert!(
        text.contains("- update_plan: { plan: string; workstreams?: string[] }\n"),
        "{text}"
    );
    assert!(
        text.contains(
            r#"- request_info: { target: "2ic" | "eng-lead" | "team-lead"; question: string }"#
        ),
        "{text}"
    );
    assert!(
        text.contains("```json\n{\"action\": \"update_plan\", \"plan\": \"...\"}\n```"),
        "{text}"
    );
    assert!(text.contains("<tool_call>{\"name\": \"update_plan\", \"arguments\": {\"plan\": \"...\"}}</tool_call>"), "{text}");
    // Each example is a valid action of the syntax it shows.
    let events = parse_with(&Config::default().validator(echelon()), &text);
    assert!(invalid(&events).is_empty(), "{:?}", invalid(&events));
    assert_eq!(completed(&events), vec![r#"update_plan:{"plan":"..."}"#; 4]);
}

fn narrative_of(events: &[actionstream::Event]) -> String {
    actionstream::narrative(events)
}
