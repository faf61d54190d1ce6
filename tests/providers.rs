//! Recorded provider streams (`tests/data/providers/`, sources in the README
//! there), each parsed at every chunking of its SSE bytes: native calls,
//! narrative and reasoning as the stream says; a copy cut off before its end
//! gives an error and its open calls invalid.

mod common;
use actionstream::sse::SseItem;
use actionstream::Event;
use common::sse::*;

fn provider(name: &str) -> Vec<u8> {
    data(&format!("providers/{name}"))
}

/// Checks a recorded stream at every chunking, its text and reasoning
/// against an independent reading of the payloads, and returns the items.
fn recorded(name: &str) -> Vec<SseItem> {
    let bytes = provider(name);
    let items = check(&bytes);
    assert_text_lossless(&items, &text_of(&bytes));
    assert_eq!(reasoning(&items), reasoning_of(&bytes), "{name}: reasoning");
    items
}

/// The summary without the reasoning and narrative lines (checked apart).
fn actions(items: &[SseItem]) -> Vec<String> {
    summary(items)
        .into_iter()
        .filter(|l| !l.starts_with("R:") && !l.starts_with("N:"))
        .collect()
}

/// The `call_id` attributes of the complete actions.
fn call_ids(items: &[SseItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            SseItem::Event(Event::ActionComplete(a)) => a
                .attributes
                .iter()
                .find(|(k, _)| k == "call_id")
                .map(|(_, v)| v.clone()),
            _ => None,
        })
        .collect()
}

/// The stream's bytes up to (not including) the event holding `marker`:
/// a copy of the stream cut off there, at an event boundary.
fn cut_before(bytes: &[u8], marker: &str) -> Vec<u8> {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let at = text.find(marker).unwrap_or_else(|| panic!("no {marker}"));
    let start = text[..at].rfind("\n\n").map_or(0, |i| i + 2);
    text.as_bytes()[..start].to_vec()
}

/// Checks a cut-off copy: the last item is the cut-off error, the calls
/// open at the cut end invalid.
fn assert_cut_off(bytes: &[u8], end_marker: &str) -> Vec<String> {
    let items = check(bytes);
    let errors = errors(&items);
    assert_eq!(
        errors,
        [format!(
            "the stream ended before {end_marker}: the response is cut off"
        )],
        "{:?}",
        summary(&items)
    );
    assert!(matches!(items.last(), Some(SseItem::Error(_))));
    summary(&items)
}

// ---- OpenAI Responses ----

#[test]
fn responses_text() {
    let items = recorded("openai_responses_text.sse");
    assert_eq!(summary(&items), ["N:The final result is **570**."]);
    let s = assert_cut_off(
        &cut_before(
            &provider("openai_responses_text.sse"),
            "response.output_text.done",
        ),
        "response.completed",
    );
    assert_eq!(s[0], "N:The final result is **570**.");
}

#[test]
fn responses_reasoning_summary_and_function_call() {
    let name = "openai_responses_reasoning_function_call.sse";
    let items = recorded(name);
    assert_eq!(
        actions(&items),
        [
            "S0:calculator:native:openai",
            r#"C0:calculator:{"a":12,"b":7,"op":"add"}"#,
        ]
    );
    assert!(reasoning(&items).starts_with("**Calculating step-by-step using calculator**"));
    assert!(matches!(&items[0], SseItem::Event(Event::Reasoning(_))));
    assert_eq!(call_ids(&items), ["call_AB6AaRZ1FYZB2RwS6A5vbdqn"]);

    // Cut off inside the call's arguments: the call is invalid.
    let bytes = provider(name);
    let text = String::from_utf8(bytes.clone()).unwrap();
    let last_delta = text
        .rfind("event: response.function_call_arguments.delta")
        .unwrap();
    let s = assert_cut_off(&bytes[..last_delta], "response.completed");
    assert_eq!(s[1], "S0:calculator:native:openai");
    assert!(
        s[2].starts_with("I0:calculator:the arguments of tool call 'calculator' are not JSON"),
        "{s:?}"
    );
}

#[test]
fn responses_failed_gives_one_error_line() {
    let items = recorded("openai_responses_failed.sse");
    assert_eq!(
        summary(&items),
        [
            "E:openai error (insufficient_quota): You exceeded your current quota, please check \
          your plan and billing details. For more information on this error, read the docs: \
          https://platform.openai.com/docs/guides/error-codes/api-errors."
        ]
    );
    // Without the error event, response.failed quotes its own message.
    let bytes = provider("openai_responses_failed.sse");
    let text = String::from_utf8(bytes).unwrap();
    let from = text.find("event: error").unwrap();
    let to = text.find("event: response.failed").unwrap();
    let without = format!("{}{}", &text[..from], &text[to..]);
    let s = summary(&check(without.as_bytes()));
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(
        s[0].starts_with("E:openai error (insufficient_quota): You exceeded your current quota"),
        "{s:?}"
    );
}

#[test]
fn responses_incomplete_ends_the_stream() {
    let items = recorded("openai_responses_incomplete.sse");
    assert_eq!(summary(&items), ["N:Hello,"]);
}

#[test]
fn responses_custom_tool_call_input_is_wrapped() {
    let items = recorded("openai_responses_custom_tool_call.sse");
    assert_eq!(
        actions(&items),
        [
            "S0:write_sql:native:openai",
            r#"C0:write_sql:{"input":"SELECT * FROM users WHERE age > 25"}"#,
        ]
    );
    assert_eq!(call_ids(&items), ["call_custom_sql_001"]);
}

// ---- Gemini ----

#[test]
fn gemini_text() {
    let items = recorded("gemini_text.sse");
    assert_eq!(
        summary(&items),
        ["N:There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y"]
    );
    let s = assert_cut_off(
        &cut_before(&provider("gemini_text.sse"), "finishReason"),
        "a finishReason",
    );
    assert_eq!(s.len(), 2, "{s:?}");
}

#[test]
fn gemini_function_call_arrives_whole() {
    let items = recorded("gemini_function_call.sse");
    assert_eq!(
        actions(&items),
        [
            "S0:weather:native:gemini",
            r#"C0:weather:{"location":"San Francisco"}"#,
        ]
    );
}

#[test]
fn gemini_vertex_thought_and_four_calls_with_partial_args() {
    let name = "gemini_vertex_thought_and_four_calls.sse";
    let items = recorded(name);
    assert!(
        matches!(&items[0], SseItem::Event(Event::Reasoning(t)) if t.starts_with("**Processing User Requests**"))
    );
    assert_eq!(
        actions(&items),
        [
            "S0:read_theme:native:gemini",
            "C0:read_theme:{}",
            "S1:read_screen:native:gemini",
            r#"C1:read_screen:{"id":"A"}"#,
            "S2:read_screen:native:gemini",
            r#"C2:read_screen:{"id":"B"}"#,
            "S3:read_screen:native:gemini",
            r#"C3:read_screen:{"id":"C"}"#,
        ]
    );
    // Cut off while the last call's arguments stream: it ends (with the
    // pieces held) and the stream is reported cut off.
    let bytes = provider(name);
    let text = String::from_utf8(bytes.clone()).unwrap();
    let at = text.find("\"stringValue\":\"C\"").unwrap();
    let at = text[..at].rfind("\n\n").unwrap() + 2;
    let s = assert_cut_off(&bytes[..at], "a finishReason");
    assert_eq!(
        s[s.len() - 3..s.len() - 1],
        ["S3:read_screen:native:gemini", "C3:read_screen:{}"]
    );
}

#[test]
fn gemini_vertex_partial_args_two_calls() {
    let items = recorded("gemini_vertex_partial_args_two_calls.sse");
    assert_eq!(
        actions(&items),
        [
            "S0:getWeather:native:gemini",
            r#"C0:getWeather:{"location":"Boston"}"#,
            "S1:getWeather:native:gemini",
            r#"C1:getWeather:{"location":"San Francisco"}"#,
        ]
    );
}

// ---- OpenAI-compatible chat completions ----

#[test]
fn chat_deepseek_reasoning_content_and_tool_call() {
    let name = "chat_deepseek_reasoning_content_tool_call.sse";
    let items = recorded(name);
    assert!(reasoning(&items).starts_with("The user is asking for the weather in San Francisco."));
    assert_eq!(
        actions(&items),
        [
            "S0:weather:native:openai",
            r#"C0:weather:{"location":"San Francisco"}"#,
        ]
    );
    assert_eq!(call_ids(&items), ["call_00_ioIn7yN9p1ZOMNpDLwd4MgAF"]);
    let s = assert_cut_off(
        &cut_before(&provider(name), "finish_reason\":\"tool_calls"),
        "a finish_reason or [DONE]",
    );
    assert_eq!(s[1], "S0:weather:native:openai");
    assert!(
        s[2].starts_with("I0:weather:") || s[2].starts_with("C0:weather:"),
        "{s:?}"
    );
}

#[test]
fn chat_groq_reasoning_then_content() {
    let items = recorded("chat_groq_reasoning_trimmed.sse");
    let s = summary(&items);
    assert_eq!(s.len(), 2, "{s:?}");
    assert!(
        s[0].starts_with("R:Okay, let me try to figure out"),
        "{s:?}"
    );
    assert!(s[1].starts_with("N:The word **\"strawberry\"**"), "{s:?}");
    assert!(s[1].ends_with("$\\boxed{3}$"), "{s:?}");
}

#[test]
fn chat_parallel_tool_calls_end_when_the_next_begins() {
    let name = "chat_openai_parallel_tool_calls.sse";
    let items = recorded(name);
    assert_eq!(
        actions(&items),
        [
            "S0:GetWeatherArgs:native:openai",
            r#"C0:GetWeatherArgs:{"city":"Edinburgh","country":"GB","units":"c"}"#,
            "S1:get_stock_price:native:openai",
            r#"C1:get_stock_price:{"ticker":"AAPL","exchange":"NASDAQ"}"#,
        ]
    );
    assert_eq!(call_ids(&items).len(), 2);
    // Cut off inside the second call: the first is complete already, the
    // second is invalid.
    let bytes = provider(name);
    let text = String::from_utf8(bytes.clone()).unwrap();
    let mut at = text.find("get_stock_price").unwrap();
    for _ in 0..4 {
        at += text[at..].find("\n\n").unwrap() + 2;
    }
    let s = assert_cut_off(&bytes[..at], "a finish_reason or [DONE]");
    assert_eq!(s[..3], actions(&items)[..3]);
    assert!(s[3].starts_with("I1:get_stock_price:"), "{s:?}");
}

// ---- Anthropic ----

#[test]
fn anthropic_thinking_then_text() {
    let items = recorded("anthropic_thinking_text.sse");
    assert_eq!(
        summary(&items),
        [
            "R:The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
            "N:925 ÷ 5 = 185",
        ]
    );
    let s = assert_cut_off(
        &cut_before(&provider("anthropic_thinking_text.sse"), "message_stop"),
        "message_stop",
    );
    assert_eq!(s.len(), 3, "{s:?}");
}

#[test]
fn anthropic_text_and_tool_use() {
    let name = "anthropic_text_tool_use.sse";
    let items = recorded(name);
    assert_eq!(
        summary(&items),
        [
            "N:I'll check the current weather in Paris for you.",
            "S0:get_weather:native:anthropic",
            r#"C0:get_weather:{"location":"Paris"}"#,
        ]
    );
    assert_eq!(call_ids(&items), ["toolu_01NRLabsLyVHZPKxbKvkfSMn"]);
    let bytes = provider(name);
    let text = String::from_utf8(bytes.clone()).unwrap();
    let at = text.rfind("event: content_block_delta").unwrap();
    let s = assert_cut_off(&bytes[..at], "message_stop");
    assert!(s[2].starts_with("I0:get_weather:"), "{s:?}");
}

#[test]
fn anthropic_spliced_message_thinking_and_tool_use() {
    let items = recorded("anthropic_thinking_tool_use_spliced.sse");
    assert_eq!(
        actions(&items),
        [
            "S0:test-tool:native:anthropic",
            "S1:test-tool:native:anthropic",
            "I0:test-tool:the arguments of tool call 'test-tool' are not JSON: EOF while parsing a string at line 1 column 15",
            r#"C1:test-tool:{"value":"Sparkle Day"}"#,
        ]
    );
}
