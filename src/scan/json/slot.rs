//! A slot: a value of the block that becomes an action, and what the
//! scanner has learned of it (its name and the key that gave it, where its
//! arguments begin, its built value, its extent). The scanner in
//! [`super`] fills slots as it reads; the parser reads them here.

use std::borrow::Cow;

use serde_json::Value;

use crate::scan::naming::{NameKey, Namer};

/// A value that becomes an action.
#[derive(Debug, Clone, Default)]
pub(crate) struct Slot {
    /// Its name once certain.
    pub(super) name: Option<String>,
    /// The key that gave the name.
    pub(super) name_key: Option<NameKey>,
    /// Where the values of `arguments`, `parameters` and `input` (and a
    /// dialect's arguments keys) begin (offsets in the scanned text), for
    /// repair positions.
    pub(super) args_at: Vec<(Cow<'static, str>, usize)>,
    /// Where the value of the first of those begins in the repaired copy.
    pub(super) args_out: Option<usize>,
    /// The value, built as it was scanned, once closed.
    pub(super) value: Option<Value>,
    /// Where the value begins in the scanned text.
    pub(super) raw_start: usize,
    /// Where it ends in the scanned text, once closed.
    pub(super) raw_end: Option<usize>,
    /// What its keys say about its name so far.
    pub(super) namer: Namer,
    /// A value under a discriminator key may have gone into its object
    /// (always so when the scanner leaves no key out).
    pub(super) discriminator_kept: bool,
}

impl Slot {
    /// Its name, once certain.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Takes its name out.
    pub fn take_name(&mut self) -> Option<String> {
        self.name.take()
    }

    /// The key that gave the name.
    pub fn name_key(&self) -> Option<NameKey> {
        self.name_key
    }

    /// Where the values of `arguments`, `parameters` and `input` begin.
    pub fn args_at(&self) -> &[(Cow<'static, str>, usize)] {
        &self.args_at
    }

    /// Where the value of its first arguments key begins in the repaired
    /// copy ([`JsonScanner::repaired`]).
    pub fn args_out(&self) -> Option<usize> {
        self.args_out
    }

    /// Takes out the value built as it was scanned (once closed).
    pub fn take_value(&mut self) -> Option<Value> {
        self.value.take()
    }

    /// Where the value begins in the scanned text.
    pub fn raw_start(&self) -> usize {
        self.raw_start
    }

    /// Where it ends in the scanned text, once closed.
    pub fn raw_end(&self) -> Option<usize> {
        self.raw_end
    }

    /// Whether no discriminator key is in its value's object: every value
    /// under one was left out (see `JsonScanner::set_leave_name_key`), so
    /// the key that named it need not be looked for.
    pub fn no_discriminator_key(&self) -> bool {
        !self.discriminator_kept
    }

    /// Whether `name` alone names this slot (action fences and tags).
    pub fn name_alone(&self) -> bool {
        self.namer.name_alone()
    }

    /// The name by the ranking from what has been read so far.
    pub fn resolve(&self) -> Option<(NameKey, String)> {
        self.namer.resolve()
    }

    /// The name if certain, else the best guess from what was read whole.
    pub fn name_or_guess(&self) -> Option<String> {
        self.name.clone().or_else(|| self.resolve().map(|(_, n)| n))
    }
}
