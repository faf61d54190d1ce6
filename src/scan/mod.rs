//! Scanners: small state machines stepped over the text, each knowing one
//! piece of syntax.

pub(crate) mod escape;
pub(crate) mod fence;
pub(crate) mod json;
pub(crate) mod line;
pub(crate) mod markers;
pub(crate) mod naming;
pub(crate) mod python;
pub(crate) mod python_str;
pub(crate) mod tag;
