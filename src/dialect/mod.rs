//! Model dialects: tool calls written with a model's own markers.

pub mod family;
pub mod tools;
pub(crate) mod value;
