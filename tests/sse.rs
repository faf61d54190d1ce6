//! SSE input: recorded OpenAI and Anthropic streams, each parsed at every
//! chunking of its bytes.

mod common;
use actionstream::sse::{SseItem, SseParser};
use actionstream::{Config, Event};
use common::sse::*;
use serde_json::Value;

#[test]
fn openai_fenced_action_split_across_deltas() {
    let bytes = data("openai_fenced_action.sse");
    let items = check(&bytes);
    assert_eq!(
        summary(&items),
        [
            "N:Sure — I'll search for that.\n\n",
            "S0:search:fence:json",
            r#"C0:search:{"query":"rust sse parser","limit":5}"#,
            "N:Then I'll summarise. Done.",
        ]
    );
    let text = text_of(&bytes);
    assert_text_lossless(&items, &text);
    let SseItem::Event(Event::ActionComplete(a)) = &items[2] else {
        panic!("{items:?}")
    };
    let span = a.span.expect("a text action has a span");
    assert_eq!(&text[span.range()], &*a.raw);
    assert!(a.raw.starts_with("```json\n") && a.raw.ends_with("```\n"));
    // Line endings do not matter.
    assert_eq!(check(&to_crlf(&bytes)), items);
    assert_eq!(check(&to_cr(&bytes)), items);
}

#[test]
fn openai_two_parallel_tool_calls_by_index() {
    let bytes = data("openai_tool_calls.sse");
    let items = check(&bytes);
    assert_eq!(
        summary(&items),
        [
            "N:Checking both cities.",
            "S0:get_weather:native:openai",
            // The first call ends when the second begins.
            r#"C0:get_weather:{"location":"Paris, FR","unit":"celsius"}"#,
            "S1:get_weather:native:openai",
            r#"C1:get_weather:{"location":"Tokyo, JP","unit":"celsius"}"#,
        ]
    );
    assert_eq!(
        native(&items),
        [
            (
                r#"{"location": "Paris, FR", "unit": "celsius"}"#.to_string(),
                None,
                "openai".to_string()
            ),
            (
                r#"{"location": "Tokyo, JP", "unit": "celsius"}"#.to_string(),
                None,
                "openai".to_string()
            ),
        ]
    );
    assert_text_lossless(&items, &text_of(&bytes));
    assert_eq!(check(&to_crlf(&bytes)), items);
}

#[test]
fn openai_error_payload_is_an_error_item() {
    let bytes = data("openai_error.sse");
    let items = check(&bytes);
    let s = summary(&items);
    assert_eq!(s.len(), 4, "{s:?}");
    assert_eq!(
        s[..3],
        [
            "N:Here is the plan:\n",
            "S0:deploy:tag:action_call",
            "E:openai error (server_error): The server had an error while processing your request. Sorry about that!",
        ]
    );
    // The text ends with the stream: the cut-off call is invalid, and no
    // "cut off" error is added after the provider's own.
    assert!(s[3].starts_with("I0:deploy:"), "{s:?}");
}

#[test]
fn anthropic_tool_use_and_fenced_action() {
    let bytes = data("anthropic_tool_use.sse");
    let items = check(&bytes);
    assert_eq!(
        summary(&items),
        [
            "N:Okay, let me check the weather.\n",
            "S0:note:fence:action",
            r#"C0:note:{"text":"user asked about San Francisco"}"#,
            "S1:get_weather:native:anthropic",
            r#"C1:get_weather:{"location":"San Francisco, CA","unit":"fahrenheit"}"#,
        ]
    );
    let text = text_of(&bytes);
    assert_text_lossless(&items, &text);
    assert_eq!(
        native(&items),
        [(
            r#"{"location": "San Francisco, CA", "unit": "fahrenheit"}"#.to_string(),
            None,
            "anthropic".to_string()
        )]
    );
    assert_eq!(check(&to_crlf(&bytes)), items);
}

#[test]
fn anthropic_error_event_is_an_error_item() {
    let bytes = data("anthropic_error.sse");
    let items = check(&bytes);
    assert_eq!(
        summary(&items),
        [
            "N:Let me think about this caref",
            "E:anthropic error (overloaded_error): Overloaded",
        ]
    );
}

#[test]
fn malformed_json_is_reported_and_the_stream_goes_on() {
    let sse = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let items = check(sse.as_bytes());
    let s = summary(&items);
    assert_eq!(s.len(), 3, "{s:?}");
    assert_eq!(s[0], "N:a");
    assert!(
        s[1].starts_with("E:malformed JSON in a server-sent event"),
        "{s:?}"
    );
    assert!(s[1].contains("(data: {\"choices\""), "{s:?}");
    assert_eq!(s[2], "N:b");
}

#[test]
fn a_stream_cut_off_is_reported_and_open_calls_end_invalid() {
    let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"run\",\"arguments\":\"{\\\"cmd\\\": \\\"l\"}}]}}]}\n\n";
    let items = check(sse.as_bytes());
    let s = summary(&items);
    assert_eq!(s.len(), 3, "{s:?}");
    assert_eq!(s[0], "S0:run:native:openai");
    assert!(
        s[1].starts_with("I0:run:the arguments of tool call 'run' are not JSON"),
        "{s:?}"
    );
    assert_eq!(
        s[2],
        "E:the stream ended before a finish_reason or [DONE]: the response is cut off"
    );

    let anthropic = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"ls\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"/\\\"}\"}}\n\n",
    );
    let s = summary(&check(anthropic.as_bytes()));
    assert_eq!(
        s,
        [
            "S0:ls:native:anthropic",
            r#"C0:ls:{"path":"/"}"#,
            "E:the stream ended before message_stop: the response is cut off",
        ]
    );
}

#[test]
fn finish_without_done_after_finish_reason_is_fine() {
    let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}";
    assert_eq!(summary(&check(sse.as_bytes())), ["N:x"]);
}

#[test]
fn empty_and_non_sse_input_is_reported() {
    let s = summary(&check(b""));
    assert_eq!(s.len(), 1);
    assert!(s[0].starts_with("E:the input held no server-sent-event data"));
    let s = summary(&check(b"Hello, this is plain text.\n"));
    assert_eq!(s.len(), 1);
    let s = summary(&check(b"data: {\"foo\": 1}\n\ndata: [1,2]\n\n"));
    assert_eq!(s.len(), 2, "{s:?}");
    assert!(
        s[0].starts_with("E:unrecognised server-sent event"),
        "{s:?}"
    );
    assert!(s[1].contains("not an object"), "{s:?}");
}

#[test]
fn bom_comments_and_usage_chunks() {
    let sse = concat!(
        "\u{FEFF}: keep-alive\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[]}\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":null,\"usage\":{\"total_tokens\":3}}\n\n",
        "data:{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\",\"reasoning_content\":\"hmm\"}},{\"index\":1,\"delta\":{\"content\":\"other choice\"}}]}\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    assert_eq!(summary(&check(sse.as_bytes())), ["R:hmm", "N:hi"]);
}

#[test]
fn a_data_payload_split_over_lines_is_joined() {
    let sse = "data: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"ok\"},\ndata:\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    assert_eq!(summary(&check(sse.as_bytes())), ["N:ok"]);
}

#[test]
fn tool_call_problems() {
    // A call that never gets a name, and arguments that are not JSON.
    let sse = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"name\":\"f\",\"arguments\":\"{oops\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let s = summary(&check(sse.as_bytes()));
    assert_eq!(s.len(), 3, "{s:?}");
    // The nameless call at index 0 ends when the call at index 1 begins.
    assert_eq!(
        s[0],
        "E:the tool call at index 0 ended without a name; its arguments were: {}"
    );
    assert_eq!(s[1], "S0:f:native:openai");
    assert!(s[2].starts_with("I0:f:the arguments of tool call 'f' are not JSON"));

    // The legacy function_call, and a call with empty arguments.
    let sse = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"function_call\":{\"name\":\"legacy\",\"arguments\":\"{\\\"a\\\"\"}}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"function_call\":{\"arguments\":\": 1}\"}}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"x\",\"type\":\"function\",\"function\":{\"name\":\"now\",\"arguments\":\"\"}}]}}]}\n\n",
        "data: [DONE]\n\n",
    );
    assert_eq!(
        summary(&check(sse.as_bytes())),
        [
            "S0:legacy:native:openai",
            "S1:now:native:openai",
            "C1:now:{}",
            r#"C0:legacy:{"a":1}"#,
        ]
    );
}

#[test]
fn anthropic_details() {
    let sse = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"content\":[]}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"```json\\n\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        // A tool_use block whose input comes whole at its start.
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"whole\",\"input\":{\"k\":[1,2]}}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        // A server tool is not the client's to run.
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"s\",\"name\":\"web_search\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: ping\ndata: {\"type\": \"ping\"}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"text_delta\",\"text\":\"<action_call>{\\\"action\\\": \\\"a\\\"}\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":3}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":4,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":4,\"delta\":{\"type\":\"text_delta\",\"text\":\"</action_call> done\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":4}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n",
        "event: some_future_event\ndata: {\"type\":\"some_future_event\"}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let items = check(sse.as_bytes());
    assert_eq!(
        summary(&items),
        [
            "R:```json\n",
            "S0:whole:native:anthropic",
            r#"C0:whole:{"k":[1,2]}"#,
            "S1:a:tag:action_call",
            "C1:a:{}",
            "N: done",
        ]
    );
    // The tag block spans two text blocks: spans count in the joined text.
    assert_text_lossless(&items, &text_of(sse.as_bytes()));
}

#[test]
fn native_calls_are_validated_against_the_schema() {
    #[derive(Debug)]
    struct NeedsCity;
    impl actionstream::Validator for NeedsCity {
        fn validate(&self, _name: &str, args: &Value) -> Vec<actionstream::ActionError> {
            if args.get("city").is_some() {
                Vec::new()
            } else {
                vec![actionstream::ActionError::at("city", "required")]
            }
        }
    }
    let config = Config::default().validator(NeedsCity);
    let bytes = data("openai_tool_calls.sse");
    let s = summary(&check_with(&config, &bytes));
    assert_eq!(s[2], "I0:get_weather:at city: required");
}

#[test]
fn cost_is_linear_in_a_long_event_pushed_bytewise() {
    let mut sse = String::from("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"");
    sse.push_str(&"ab".repeat(400_000));
    sse.push_str("\"}}]}\n\ndata: [DONE]\n\n");
    let mut parser = SseParser::new(Config::default());
    let mut items = Vec::new();
    let started = std::time::Instant::now();
    for chunk in sse.as_bytes().chunks(1) {
        parser.push(chunk, &mut items);
    }
    parser.finish(&mut items);
    // Quadratic rescanning would take minutes here.
    assert!(started.elapsed().as_secs() < 30);
    assert_eq!(merge(items).len(), 1);
}

#[test]
fn an_oversize_event_is_dropped_and_reported() {
    let mut parser = SseParser::new(Config::default());
    let mut items = Vec::new();
    parser.push(b"data: ", &mut items);
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..17 {
        parser.push(&chunk, &mut items);
    }
    parser.push(
        b"\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n",
        &mut items,
    );
    parser.finish(&mut items);
    let s = summary(&items);
    assert_eq!(s.len(), 2, "{s:?}");
    assert!(s[0].contains("larger than"), "{s:?}");
    assert_eq!(s[1], "N:ok");
}

#[test]
fn interleaved_tool_call_fragments_are_kept_apart() {
    let frag = |index: u64, name: Option<&str>, args: &str| {
        let mut function = serde_json::json!({ "arguments": args });
        if let Some(n) = name {
            function["name"] = n.into();
        }
        let chunk = serde_json::json!({
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, "function": function}]}}]
        });
        format!("data: {chunk}\n\n")
    };
    let mut sse = String::new();
    sse += &frag(1, Some("b"), "{\"y\":");
    sse += &frag(0, Some("a"), "{\"x\":");
    sse += &frag(1, None, " 2}");
    sse += &frag(0, None, " 1}");
    sse += "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
    assert_eq!(
        summary(&check(sse.as_bytes())),
        [
            "S0:b:native:openai",
            "S1:a:native:openai",
            r#"C1:a:{"x":1}"#,
            r#"C0:b:{"y":2}"#,
        ]
    );
}

#[test]
fn a_parser_is_ready_for_a_new_stream_after_finish() {
    let bytes = data("openai_tool_calls.sse");
    let mut parser = SseParser::new(Config::default());
    let mut first = Vec::new();
    parser.push(&bytes, &mut first);
    parser.finish(&mut first);
    let mut second = Vec::new();
    parser.push(&bytes, &mut second);
    parser.finish(&mut second);
    assert_eq!(first, second);
}

#[test]
fn a_parser_made_with_a_sibling_keeps_the_template_configuration_after_finish() {
    // A `plan` fence is an action fence only in the template's
    // configuration; it still is after `finish`, on the second stream.
    let config = Config::default().fence_tag("plan");
    let delta = |text: &str| {
        format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{}}}}}]}}\n\n",
            serde_json::to_string(text).expect("a JSON string")
        )
    };
    let bytes = [
        delta("Plan:\n```pl"),
        delta("an\n{\"action\": \"branch\", \"name\": \"x\"}\n```\n"),
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
            .to_string(),
    ]
    .concat();
    let want = check_with(&config, bytes.as_bytes());
    assert_eq!(
        summary(&want),
        [
            "N:Plan:\n",
            "S0:branch:fence:plan",
            r#"C0:branch:{"name":"x"}"#
        ]
    );
    let template = actionstream::Parser::new(config);
    let mut parser = SseParser::with_parser(template.sibling());
    for _ in 0..2 {
        let mut items = Vec::new();
        parser.push(bytes.as_bytes(), &mut items);
        parser.finish(&mut items);
        assert_eq!(merge(items), want);
    }
}
