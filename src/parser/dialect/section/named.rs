//! Named forms: a name, then the arguments as one JSON object (`deepseek_v3`, `deepseek_v31`,
//! `kimi_k2`, `mistral` v11), and harmony calls.

use super::*;

impl DialectMachine {
    /// A harmony message addressed to `recipient`, whose content begins
    /// at `content`: a call (section `idx`) whose arguments are the message.
    pub(in crate::parser::dialect) fn open_harmony_call(
        &mut self,
        idx: usize,
        from: usize,
        content: usize,
        recipient: String,
        emit: &mut Emit<'_>,
    ) {
        self.open_section(idx, from, content, false, None);
        let DState::Section(mut sec) = std::mem::replace(&mut self.state, DState::Detached) else {
            return;
        };
        let name = recipient
            .strip_prefix("functions.")
            .unwrap_or(&recipient)
            .to_owned();
        sec.form = Some(0);
        let id = emit.start(Some(name.clone()), Syntax::Dialect, self.c.tag(idx));
        sec.calls.push(Call {
            id: Some(id),
            args: no_name(&name),
            name: Some(name),
            // The arguments stream from the message's first byte.
            compact: Compact::from(0),
            ..Call::default()
        });
        sec.json_from = content;
        self.watch_from(&mut sec, content);
        sec.read = Read::Args(new_scanner(&self.shared, Arc::from(Vec::new())));
        self.state = DState::Section(sec);
    }

    pub(super) fn named_roles_begin(&mut self, sc: &SectionC, f: usize) {
        if let Form::Named { name_end, .. } = &sc.forms[f] {
            self.ms = name_end.set.begin();
        }
    }

    pub(super) fn named_name(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some(Form::Named {
            name_end,
            name_prefix,
            indexed_name,
            ..
        }) = sec.form.map(|f| &c.sections[sec.idx].forms[f])
        else {
            return Flow::Go;
        };
        let Some((role, at, to)) = self.seek(name_end) else {
            return Flow::Wait;
        };
        let mut name = self.text(sec.mark, at).trim();
        if let Some(p) = name_prefix {
            name = name.strip_prefix(p.as_str()).unwrap_or(name).trim();
        }
        let (name, call_id) = if *indexed_name {
            indexed(name)
        } else {
            (name.to_owned(), None)
        };
        let id = emit.start(Some(name.clone()), Syntax::Dialect, c.tag(sec.idx));
        sec.tentative = false;
        sec.calls.push(Call {
            id: Some(id),
            args: no_name(&name),
            name: Some(name),
            call_id,
            ..Call::default()
        });
        match role {
            NameEnd::Args => self.begin_args(sec, to),
            NameEnd::Brace => self.begin_args(sec, at),
            NameEnd::Id => {
                sec.mark = to;
                if let Some(Form::Named { after_id, .. }) =
                    sec.form.map(|f| &c.sections[sec.idx].forms[f])
                {
                    self.ms = after_id.begin();
                }
                sec.read = Read::Id;
            }
        }
        Flow::Go
    }

    pub(super) fn begin_args(&mut self, sec: &mut Sec, at: usize) {
        self.pos = at;
        sec.json_from = at;
        self.watch_from(sec, at);
        let mut scanner = new_scanner(&self.shared, Arc::from(Vec::new()));
        scanner.reset(Naming::Generic);
        if let Some(call) = sec.calls.last_mut() {
            call.compact = Compact::from(0);
        }
        sec.read = Read::Args(scanner);
    }

    /// A named or harmony call's JSON arguments.
    pub(super) fn named_args(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let end = self.end();
        let Read::Args(scanner) = &mut sec.read else {
            return Flow::Go;
        };
        let done = scanner.feed_value(&self.buf[self.pos - self.base..end - self.base]);
        self.pos = match done {
            Some(used) => self.pos + used,
            None => end,
        };
        if let Some(call) = sec.calls.last_mut() {
            if self.shared.cfg.argument_deltas {
                call.stream_json(scanner, emit);
            }
        }
        let error = scanner.error().cloned();
        let scanned = self.pos;
        self.watch_to(sec, scanned);
        if let Some(err) = error {
            self.pos = (sec.json_from + err.offset).min(end);
            let e = self.json_error(sec.from, sec.json_from + err.offset, &err.message);
            let at = self.pos;
            if self.rewind(sec, at, e.clone(), emit) {
                return Flow::Go;
            }
            if let Some(call) = sec.calls.last_mut() {
                if !call.args.as_ref().is_some_and(Result::is_err) {
                    call.args = Some(Err(e));
                }
            }
            self.resync(sec, emit);
            return Flow::Go;
        }
        if done.is_none() {
            return Flow::Wait;
        }
        let Read::Args(scanner) = &mut sec.read else {
            return Flow::Go;
        };
        for (kind, at) in scanner.repairs() {
            sec.repairs.push((*kind, sec.json_from + at));
        }
        let value = scanner
            .take_slots()
            .into_iter()
            .next()
            .and_then(|mut s| s.take_value());
        if let Some(call) = sec.calls.last_mut().filter(|c| c.args.is_none()) {
            call.args = Some(match value {
                Some(v @ Value::Object(_)) => Ok(v),
                Some(Value::Null) | None => Ok(Value::Object(Map::new())),
                Some(other) => Err(ActionError::new(
                    ErrorKind::Shape,
                    "",
                    format!(
                        "arguments must be a JSON object, found {}",
                        crate::validate::type_name(&other)
                    ),
                )),
            });
        }
        let c = self.c.clone();
        let sc = &c.sections[sec.idx];
        match sec.form.map(|f| &sc.forms[f]) {
            Some(Form::Named {
                args_end: Some(a), ..
            }) => {
                sec.stray = Some((self.pos, Stray::AfterCall));
                self.ms = a.begin();
                sec.read = Read::ArgsEnd;
            }
            Some(Form::Named { end: Some(e), .. }) => {
                sec.stray = Some((self.pos, Stray::AfterCall));
                self.ms = e.begin();
                sec.read = Read::CallEnd;
            }
            Some(Form::Harmony) => {
                // The message ends with `<|call|>`.
                sec.stray = Some((self.pos, Stray::AfterCall));
                self.close_only(sec, sc);
            }
            _ => self.after_call(sec, emit),
        }
        Flow::Go
    }
}

/// `functions.NAME:INDEX` → (NAME, the whole as call id).
pub(super) fn indexed(text: &str) -> (String, Option<String>) {
    let base = text.strip_prefix("functions.").unwrap_or(text);
    let name = match base.rsplit_once(':') {
        Some((n, i)) if !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => base,
    };
    (name.to_owned(), Some(text.to_owned()))
}
