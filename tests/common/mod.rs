//! Shared test helpers: every input goes through the every-chunking oracle.
#![allow(dead_code)]

use actionstream::{oracle, Action, Config, Event};

pub mod dialects;
pub mod rss;
pub mod sse;

/// Parses `input` at every chunking (see `actionstream::oracle`) and
/// returns the merged events.
pub fn parse(input: &str) -> Vec<Event> {
    oracle::check(&Config::default(), input)
}

/// The complete actions of `input` at every chunking, default config.
pub fn complete(input: &str) -> Vec<Action> {
    parse(input)
        .into_iter()
        .filter_map(|e| match e {
            Event::ActionComplete(a) => Some(*a),
            _ => None,
        })
        .collect()
}

/// `name line:column` of each repair of an action.
pub fn repairs(a: &Action) -> Vec<String> {
    a.repairs
        .iter()
        .map(|r| format!("{} {}:{}", r.kind.name(), r.line, r.column))
        .collect()
}

/// [`parse`] with a configuration.
pub fn parse_with(config: &Config, input: &str) -> Vec<Event> {
    oracle::check(config, input)
}

/// One line per event, short, for assertions:
/// `N:text`, `R:reasoning`, `S0:name`, `D0:delta`, `A0:arguments delta`,
/// `C0:name:{args}`, `I0:name:first error`.
pub fn summary(events: &[Event]) -> Vec<String> {
    events.iter().map(line).collect()
}

/// The [`summary`] line of one event.
pub fn line(e: &Event) -> String {
    match e {
        Event::Narrative(t) => format!("N:{t}"),
        Event::Reasoning(t) => format!("R:{t}"),
        Event::ActionStarted { id, name, .. } => {
            format!("S{id}:{}", name.as_deref().unwrap_or("-"))
        }
        Event::ActionDelta { id, text } => format!("D{id}:{text}"),
        Event::ArgumentsDelta { id, json } => format!("A{id}:{json}"),
        Event::ActionComplete(a) => format!("C{}:{}:{}", a.id, a.name, a.arguments),
        Event::ActionInvalid(a) => format!(
            "I{}:{}:{}",
            a.id,
            a.name.as_deref().unwrap_or("-"),
            a.errors.first().map(|e| e.to_string()).unwrap_or_default()
        ),
        other => format!("?{other:?}"),
    }
}

/// The complete actions as `name:{args}`.
pub fn completed(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ActionComplete(a) => Some(format!("{}:{}", a.name, a.arguments)),
            _ => None,
        })
        .collect()
}

/// The invalid actions as `name:errors joined by "; "`.
pub fn invalid(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ActionInvalid(a) => Some(format!(
                "{}:{}",
                a.name.as_deref().unwrap_or("-"),
                a.errors
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            _ => None,
        })
        .collect()
}
