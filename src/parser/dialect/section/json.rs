//! JSON call forms: call objects, one, a list or joined (`hermes`, `mistral` up to v10,
//! `llama3`, `cohere`, `granite`, `jamba`, `phi4_mini`): names as the scanner reads them,
//! values made into calls.

use super::*;

impl DialectMachine {
    /// A JSON value begins at `pos` (Json form).
    pub(super) fn json_read(&mut self, sec: &mut Sec, sc: &SectionC) -> Read {
        let scanner = match sc.forms.get(sec.form.unwrap_or(0)) {
            Some(Form::Json {
                name_keys,
                argument_keys,
                name_is_key,
                ..
            }) => {
                let mut s = new_scanner(&self.shared, name_keys.clone());
                s.set_call_keys(argument_keys.clone(), *name_is_key);
                s
            }
            _ => new_scanner(&self.shared, Arc::from(Vec::new())),
        };
        sec.json_from = self.pos;
        self.watch_from(sec, self.pos);
        Read::Json {
            scanner,
            slots: Vec::new(),
        }
    }

    pub(super) fn json_value(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let end = self.end();
        let Read::Json { scanner, slots } = &mut sec.read else {
            return Flow::Go;
        };
        let done = scanner.feed_value(&self.buf[self.pos - self.base..end - self.base]);
        self.pos = match done {
            Some(used) => self.pos + used,
            None => end,
        };
        let deltas = self.shared.cfg.argument_deltas;
        let (keys, name_is_key) = match sec.form.map(|f| &self.c.sections[sec.idx].forms[f]) {
            Some(Form::Json {
                argument_keys,
                name_is_key,
                ..
            }) => (&argument_keys[..], *name_is_key),
            _ => (&[][..], false),
        };
        // Calls whose names became certain start now; the call before each
        // gives out its deltas first (its object has ended), so the pieces
        // of one call come together whatever the chunks.
        for i in scanner.take_named() {
            if deltas {
                json_deltas(scanner, slots, &mut sec.calls, keys, name_is_key, emit);
            }
            let name = scanner.slot(i).and_then(|s| s.name()).map(str::to_owned);
            while slots.len() <= i {
                slots.push(usize::MAX);
            }
            sec.tentative = false;
            let id = emit.start(name.clone(), Syntax::Dialect, self.c.tag(sec.idx));
            slots[i] = sec.calls.len();
            sec.calls.push(Call {
                id: Some(id),
                name,
                ..Call::default()
            });
        }
        if deltas {
            json_deltas(scanner, slots, &mut sec.calls, keys, name_is_key, emit);
        }
        let error = scanner.error().cloned();
        let scanned = self.pos;
        self.watch_to(sec, scanned);
        if let Some(err) = error {
            // Reading goes on at the byte that broke the JSON, whatever the
            // scanner was given past it.
            self.pos = (sec.json_from + err.offset).min(end);
            let e = self.json_error(sec.from, sec.json_from + err.offset, &err.message);
            if sec.tentative {
                let at = self.pos;
                self.tentative_fails(sec, at, emit);
                return Flow::Go;
            }
            let at = self.pos;
            if self.rewind(sec, at, e.clone(), emit) {
                return Flow::Go;
            }
            sec.broken = Some(e);
            self.collect_slots(sec);
            if sec.calls.iter().all(|c| c.args.is_some()) {
                // The JSON broke outside any call: an action of its own.
                sec.calls.push(Call::default());
            }
            self.resync(sec, emit);
            return Flow::Go;
        }
        if done.is_none() {
            return Flow::Wait;
        }
        self.collect_slots(sec);
        if sec.tentative && sec.calls.iter().all(|c| c.name.is_none()) {
            let at = self.pos;
            self.tentative_fails(sec, at, emit);
            return Flow::Go;
        }
        sec.tentative = false;
        let sc = &self.c.sections[sec.idx];
        let joiner = matches!(
            sec.form.map(|f| &sc.forms[f]),
            Some(Form::Json {
                joiner: Some(_),
                ..
            })
        );
        if sc.close.is_none() && sc.trailer.is_none() && !joiner {
            // Nothing may follow: the section ends with its value, in
            // the push that delivers the value's last byte.
            let at = self.pos;
            self.end_section(sec, at, emit);
        } else {
            sec.read = Read::JsonAfter { at: self.pos };
        }
        Flow::Go
    }

    /// The values of a JSON form's scanner, made into calls.
    pub(super) fn collect_slots(&mut self, sec: &mut Sec) {
        let Read::Json { scanner, slots } = &mut sec.read else {
            return;
        };
        let Some(Form::Json {
            name_keys,
            argument_keys,
            id_key,
            name_is_key,
            ..
        }) = sec.form.map(|f| &self.c.sections[sec.idx].forms[f])
        else {
            return;
        };
        for (kind, at) in scanner.repairs() {
            sec.repairs.push((*kind, sec.json_from + at));
        }
        let broken = scanner.error().is_some();
        let mut taken = scanner.take_slots();
        for (i, slot) in taken.iter_mut().enumerate() {
            let ci = match slots.get(i) {
                Some(&ci) if ci != usize::MAX => ci,
                _ => {
                    sec.calls.push(Call::default());
                    sec.calls.len() - 1
                }
            };
            let call = &mut sec.calls[ci];
            match slot.take_value() {
                Some(Value::Object(obj)) if *name_is_key => {
                    call.args = Some(name_as_key(call, obj));
                }
                Some(Value::Object(mut obj)) => {
                    if call.name.is_none() {
                        call.name = name_keys
                            .iter()
                            .find_map(|k| obj.get(k).and_then(Value::as_str).map(str::to_owned));
                    }
                    if let Some(k) = id_key {
                        call.call_id = obj.get(k).map(|v| match v {
                            Value::String(s) => s.clone(),
                            v => v.to_string(),
                        });
                    }
                    call.args = Some(match call.name {
                        None => Err(ActionError::new(
                            ErrorKind::NoName,
                            "",
                            format!(
                                "the call object has no name: expected a string under {}",
                                name_keys
                                    .iter()
                                    .map(|k| format!("`{k}`"))
                                    .collect::<Vec<_>>()
                                    .join(" or ")
                            ),
                        )),
                        Some(_) => json_arguments(
                            &mut obj,
                            argument_keys,
                            slot.args_at(),
                            &mut sec.repairs,
                            sec.from,
                        ),
                    });
                }
                Some(other) => {
                    call.args = Some(Err(ActionError::new(
                        ErrorKind::Shape,
                        "",
                        format!(
                            "a call must be a JSON object, found {}",
                            crate::validate::type_name(&other)
                        ),
                    )));
                }
                None if broken => {}
                None => {}
            }
        }
    }
}

/// A call written `{"N": {…}}`: its one key names it, the key's value is
/// its arguments.
fn name_as_key(call: &mut Call, obj: Map<String, Value>) -> Result<Value, ActionError> {
    let n = obj.len();
    let Some((name, args)) = obj.into_iter().next().filter(|_| n == 1) else {
        return Err(ActionError::new(
            ErrorKind::NoName,
            "",
            format!("a call must be an object with one key, its name; found {n} keys"),
        ));
    };
    call.name = Some(name.clone());
    match args {
        Value::Object(_) => Ok(args),
        Value::Null => Ok(Value::Object(Map::new())),
        other => Err(ActionError::new(
            ErrorKind::Shape,
            name.as_str(),
            format!(
                "arguments must be a JSON object, found {}",
                crate::validate::type_name(&other)
            ),
        )),
    }
}

pub(super) fn new_scanner(shared: &Shared, names: Arc<[String]>) -> Box<JsonScanner> {
    Box::new(JsonScanner::new(
        Naming::Generic,
        shared.cfg.strict,
        shared.cfg.max_depth,
        names,
    ))
}

/// A call named by markers with nothing between them (`<function=>`,
/// `name=""`) cannot be run: its error, set before its arguments are read.
pub(super) fn no_name(name: &str) -> Option<Result<Value, ActionError>> {
    name.is_empty().then(|| {
        Err(ActionError::new(
            ErrorKind::NoName,
            "",
            "the call's name is empty",
        ))
    })
}

/// The arguments of a JSON call object: the value of the first of its
/// keys (in the order written) that is one of `keys`. `read` lists the
/// arguments keys the scanner saw, in order, repeats included: a key
/// written twice leaves the call ambiguous (and its deltas, streamed from
/// the first, wrong), so it is an error.
pub(super) fn json_arguments(
    obj: &mut Map<String, Value>,
    keys: &[String],
    read: &[(std::borrow::Cow<'static, str>, usize)],
    repairs: &mut Vec<(RepairKind, usize)>,
    at: usize,
) -> Result<Value, ActionError> {
    let Some(key) = obj.keys().find(|k| keys.contains(k)).cloned() else {
        return Ok(Value::Object(Map::new()));
    };
    if read.iter().filter(|(k, _)| *k == key).count() > 1 {
        return Err(ActionError::new(
            ErrorKind::Shape,
            key.as_str(),
            format!("the call object has `{key}` more than once"),
        ));
    }
    let v = obj.shift_remove(&key).unwrap_or(Value::Null);
    match v {
        Value::Object(_) => Ok(v),
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(o @ Value::Object(_)) => {
                repairs.push((RepairKind::ArgumentsAsString, at));
                Ok(o)
            }
            _ => Err(ActionError::new(
                ErrorKind::Shape,
                key.as_str(),
                "arguments must be a JSON object, found a string that holds no object",
            )),
        },
        other => Err(ActionError::new(
            ErrorKind::Shape,
            key.as_str(),
            format!(
                "arguments must be a JSON object, found {}",
                crate::validate::type_name(&other)
            ),
        )),
    }
}
