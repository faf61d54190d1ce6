//! What a finished token does: values built as they close, the key each
//! value goes under, and the names of the action objects.
//!
//! The scanner's steps (`mod.rs`) and runs (`runs.rs`) read tokens; when one
//! is complete (a string, a number, a literal, a closing bracket) they hand
//! it here. A container is opened with a partly built value and a role
//! (slots, wrapper, action object, argument); a value that completes goes
//! into the container on top, or becomes its slot's value; a key of an
//! action object is classed by the naming rules (`scan::naming`), and a
//! string under a naming key may name the action at once. What must change
//! together: `open` and `close` push and pop `stack` and `build` as one.

use serde_json::{Map, Value};

use super::{Capture, Frame, JsonScanner, KeyClass, Partial, Role, Tok};
use crate::event::RepairKind;
use crate::scan::naming::{classify, KeyRole, NameKey, Naming};

impl JsonScanner {
    pub(super) fn open(&mut self, obj: bool, role: Role) -> Result<(), &'static str> {
        if self.stack.len() >= self.max_depth {
            return Err(if self.max_depth == 128 {
                "JSON nested deeper than 128 levels"
            } else {
                "JSON nested deeper than the nesting limit"
            });
        }
        self.stack.push(Frame { obj, role });
        self.build.push(match role {
            Role::Slots | Role::Wrapper => Partial::Skip,
            // An empty map, grown as keys come. Room for four keys up
            // front was measured: 2.3% fewer instructions on one response
            // whole, but 10,000 streams in flight took 20-22% of
            // one-after-another throughput against 26-27% (more memory
            // touched per stream), so it was taken back.
            _ if obj => Partial::Obj(Map::new(), None),
            _ => Partial::Arr(Vec::new()),
        });
        self.put(if obj { '{' } else { '[' });
        self.tok = if obj {
            Tok::Key { close: true }
        } else {
            Tok::Value { close: true }
        };
        Ok(())
    }

    pub(super) fn close(&mut self, b: u8) -> Result<(), &'static str> {
        let Some(frame) = self.stack.last().copied() else {
            return Err("a closing bracket with nothing open");
        };
        if frame.obj != (b == b'}') {
            return Err(if frame.obj {
                "expected `}` to close the object"
            } else {
                "expected `]` to close the array"
            });
        }
        if let Some((at, offset)) = self.comma.take() {
            if self.strict {
                return Err(if frame.obj {
                    "a trailing comma before `}`"
                } else {
                    "a trailing comma before `]`"
                });
            }
            if self.copy {
                self.out.replace_range(at..at + 1, " ");
            }
            self.repairs.push((RepairKind::TrailingComma, offset));
        }
        self.put(b as char);
        self.stack.pop();
        if let Role::Action(slot) = frame.role {
            let idx = slot as usize;
            if idx == 0 && self.decision.is_none() {
                self.decide(false);
            }
            if let Some(s) = self.slots.get_mut(idx) {
                if s.name.is_none() {
                    if let Some((k, n)) = s.resolve() {
                        s.name = Some(n);
                        s.name_key = Some(k);
                        self.named.push(idx);
                    }
                }
            }
        }
        let value = match self.build.pop() {
            Some(Partial::Obj(map, _)) => Some(Value::Object(map)),
            Some(Partial::Arr(list)) => Some(Value::Array(list)),
            Some(Partial::Skip) | None => None,
        };
        if frame.role == Role::Slots && self.slots.is_empty() && self.decision.is_none() {
            self.decide(false);
        }
        self.complete(value);
        Ok(())
    }

    /// A value is complete: it goes into its container, or is a slot's.
    #[inline]
    pub(super) fn complete(&mut self, value: Option<Value>) {
        // Only a value under a discriminator can be left out: most values
        // are told so by the key's class, without a look at the key.
        let discriminator =
            self.leave_name_key && matches!(self.key, KeyClass::Naming(NameKey::Discriminator(_)));
        let leave = discriminator && self.names_its_object();
        if let Some(v) = value {
            match self.build.last_mut() {
                Some(Partial::Obj(map, key)) => {
                    if let Some(k) = key.take() {
                        if !leave {
                            map.insert(k, v);
                            if discriminator {
                                // Maybe into the action object (or into an
                                // object under its discriminator: noted
                                // all the same).
                                if let Some(s) = self.slots.last_mut() {
                                    s.discriminator_kept = true;
                                }
                            }
                        }
                    }
                }
                Some(Partial::Arr(list)) => list.push(v),
                Some(Partial::Skip) | None => {
                    if self.slot_depth == Some(self.stack.len()) {
                        if let Some(s) = self.slots.last_mut() {
                            s.value = Some(v);
                        }
                    }
                }
            }
        }
        self.value_done();
    }

    /// Whether the key whose value completes now is the one that named the
    /// action object on top of the stack: its first discriminator, once a
    /// string under it made the name certain (certain at once, so no key
    /// read later can take its place).
    pub(super) fn names_its_object(&self) -> bool {
        let (
            Some(Frame {
                role: Role::Action(slot),
                ..
            }),
            Some(Partial::Obj(_, Some(key))),
        ) = (self.stack.last(), self.build.last())
        else {
            return false;
        };
        match self.slots.get(*slot as usize).and_then(|s| s.name_key) {
            Some(NameKey::Discriminator(r)) => self.discriminators.get(r) == Some(key),
            _ => false,
        }
    }

    #[inline]
    pub(super) fn value_done(&mut self) {
        if self.stack.is_empty() {
            self.values += 1;
            self.tok = Tok::Value { close: false };
        } else {
            self.tok = Tok::After;
        }
        let raw_end = self.end_at.take().unwrap_or(self.pos + self.cursor + 1);
        if self.slot_depth == Some(self.stack.len()) {
            self.slot_depth = None;
            if let Some(s) = self.slots.last_mut() {
                s.raw_end = Some(raw_end);
            }
        }
    }

    /// A string closed; `text` is its value.
    #[inline]
    pub(super) fn string_done(&mut self, cap: Capture, text: String) -> Result<(), &'static str> {
        match cap {
            Capture::None => {
                self.complete(Some(Value::String(text)));
            }
            Capture::Key => {
                self.set_key(text);
                self.tok = Tok::Colon;
            }
            Capture::ActionKey => {
                let k = text;
                let class = if self.name_is_key && self.first_key {
                    self.key_names(&k);
                    KeyClass::CallName
                } else {
                    self.key_class(&k)
                };
                self.set_key(k);
                self.key_read(class);
                self.first_key = false;
                self.key = class;
                self.tok = Tok::Colon;
            }
            Capture::NameValue(k) => {
                if let Some(Frame {
                    role: Role::Action(slot),
                    ..
                }) = self.stack.last().copied()
                {
                    let idx = slot as usize;
                    if let Some(s) = self.slots.get_mut(idx) {
                        if s.namer.value(k, &text) && s.name.is_none() {
                            s.name_key = Some(k);
                            self.named.push(idx);
                            // Certain at once: with `leave_name_key` the
                            // key is left out of the object (as `complete`
                            // leaves it out), and the string is the name,
                            // not copied.
                            if self.leave_name_key {
                                s.name = Some(text);
                                self.set_key_none();
                                self.value_done();
                                return Ok(());
                            }
                            s.name = Some(text.clone());
                        }
                    }
                }
                self.complete(Some(Value::String(text)));
            }
        }
        Ok(())
    }

    /// Records the generic-block decision, where it was made.
    pub(super) fn decide(&mut self, action: bool) {
        if self.decision.is_none() {
            self.decision = Some(action);
            self.decided_at = self.pos + self.cursor;
        }
    }

    /// The value of the object's key went nowhere: the key is dropped.
    pub(super) fn set_key_none(&mut self) {
        if let Some(Partial::Obj(_, key)) = self.build.last_mut() {
            *key = None;
        }
    }

    /// Sets the key whose value comes next in the object being built.
    pub(super) fn set_key(&mut self, k: String) {
        if let Some(Partial::Obj(_, key)) = self.build.last_mut() {
            *key = Some(k);
        }
    }

    /// The class of a key of the action object on top of the stack.
    pub(super) fn key_class(&self, key: &str) -> KeyClass {
        match classify(key, self.naming, &self.discriminators) {
            KeyRole::Naming(k) => KeyClass::Naming(k),
            KeyRole::Args(k) => KeyClass::Args(k),
            KeyRole::ArgsOrInput(k) => KeyClass::ArgsOrInput(k),
            KeyRole::Other
                if key == "actions"
                    && self.first_key
                    && self.naming == Naming::Action
                    && self.stack.len() == 1 =>
            {
                KeyClass::Actions
            }
            KeyRole::Other => match self.arg_keys.iter().position(|a| a == key) {
                Some(i) => u16::try_from(i).map_or(KeyClass::Other, KeyClass::Extra),
                None => KeyClass::Other,
            },
        }
    }

    /// The first key of the action object on top of the stack names it
    /// (see [`JsonScanner::set_call_keys`]): certain at once.
    fn key_names(&mut self, key: &str) {
        let Some(Frame {
            role: Role::Action(slot),
            ..
        }) = self.stack.last().copied()
        else {
            return;
        };
        let idx = slot as usize;
        if let Some(s) = self.slots.get_mut(idx) {
            if s.name.is_none() {
                s.name = Some(key.to_owned());
                s.name_key = Some(NameKey::Name);
                self.named.push(idx);
            }
        }
    }

    /// Notes what a key of the action object on top of the stack tells.
    pub(super) fn key_read(&mut self, class: KeyClass) {
        let Some(Frame {
            role: Role::Action(slot),
            ..
        }) = self.stack.last().copied()
        else {
            return;
        };
        let idx = slot as usize;
        if let KeyClass::Naming(NameKey::Discriminator(_)) = class {
            if idx == 0 && self.decision.is_none() {
                self.decide(true);
            }
        }
        if let Some(s) = self.slots.get_mut(idx) {
            match class {
                KeyClass::Args(k) => s.namer.key(KeyRole::Args(k)),
                KeyClass::ArgsOrInput(k) => s.namer.key(KeyRole::ArgsOrInput(k)),
                _ => {}
            }
        }
    }
}
