//! Model dialects: tool calls written with a model's own markers.

pub(crate) mod value;
