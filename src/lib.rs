//! Read an LLM's response *while it streams* and pull out the structured
//! actions in it.
//!
//! Feed a [`Parser`] chunks as they arrive; it emits [`Event::Narrative`] at
//! once (holding back only what could still begin an opener),
//! [`Event::ActionStarted`] the moment an action's name is known, and
//! [`Event::ActionComplete`] in the same push that delivers the block's
//! closer, or [`Event::ActionInvalid`] with errors that name the path.
//!
//! ```
//! use actionstream::{Event, Parser};
//!
//! let response = "Let me look.\n<action_call name=\"search\">{\"query\": \"rust\"}</action_call>\nFound it.";
//! let mut parser = Parser::default();
//! let mut events = Vec::new();
//! for chunk in response.as_bytes().chunks(7) {
//!     parser.push_bytes(chunk, &mut events);
//! }
//! parser.finish(&mut events);
//!
//! let complete: Vec<_> = events
//!     .iter()
//!     .filter_map(|e| match e {
//!         Event::ActionComplete(a) => Some((a.name.as_str(), a.arguments.to_string())),
//!         _ => None,
//!     })
//!     .collect();
//! assert_eq!(complete, [("search", r#"{"query":"rust"}"#.to_string())]);
//! assert_eq!(actionstream::narrative(&events), "Let me look.\n\nFound it.");
//! ```
//!
//! [`protocol::Encoder`] writes the events as the streams existing clients
//! read: OpenAI Chat Completions and Responses, Anthropic Messages, the AI
//! SDK's UI message stream and AG-UI.
//!
//! The event model, and every decision on which fences and tags hold
//! actions, where a block ends, how actions are named and repaired, and the
//! invariants every input and every chunking keeps, are in `docs/events.md`;
//! the code map is in `ARCHITECTURE.md`.
// One exception, measured: `utf8::short_ascii` (see its note).
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![warn(rust_2018_idioms)]

pub mod artifacts;
// Test support as the oracle is (below): calls written in each dialect,
// for the tests and the benches.
#[cfg(feature = "testkit")]
pub mod call_writer;
pub mod chunking;
mod config;
mod config_error;
pub mod config_file;
pub mod dialect;
#[cfg(feature = "dispatch")]
pub mod dispatch;
mod event;
pub mod feedback;
// The oracle is test support (it panics by design), not part of the API a
// user builds on: it sits behind the `testkit` feature, which this crate's
// own tests, benches and the fuzz crate turn on. A feature rather than
// `#[doc(hidden)]` because it then cannot be reached by accident, and the
// binary (built without it) provably does not use it.
#[cfg(feature = "testkit")]
pub mod oracle;
mod parser;
pub mod protocol;
mod scan;
#[cfg(feature = "serve")]
pub mod serve;
mod settings_check;
mod shape;
pub mod sse;
#[cfg(feature = "stream")]
pub mod stream;
mod utf8;
mod validate;
pub mod wire;

#[cfg(feature = "schema")]
pub mod schema;
#[cfg(feature = "schema")]
pub mod typed;

pub use config::{Config, ParserSettings};
pub use config_file::{ActionsSection, ConfigError, ConfigFile};
pub use event::{
    Action, ActionError, ActionId, ErrorKind, Event, EventRef, InvalidAction, Repair, RepairKind,
    Span, Syntax,
};
pub(crate) use parser::NativeId;
pub use parser::{narrative, parse_str, parse_str_with, Parser};
pub use settings_check::{MAX_DEPTH, MIN_BLOCK_BYTES, MIN_DEPTH};
pub use validate::{TypeList, Validator};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of the pages under `docs/`, compiled and run as
/// doctests (a page with no Rust example needs no entry).
#[cfg(doctest)]
pub mod docs_doctests {
    /// `docs/events.md`.
    #[doc = include_str!("../docs/events.md")]
    pub struct Events;
    /// `docs/protocols.md`.
    #[doc = include_str!("../docs/protocols.md")]
    pub struct Protocols;
    /// `docs/proof.md`.
    #[doc = include_str!("../docs/proof.md")]
    pub struct Proof;
}
