//! The raw-code form: a section's content, up to its closer (or trailer,
//! or the end of the response), is one argument of one call (Llama 3.1's
//! `code_interpreter`, harmony's built-in `python`), streamed as a JSON
//! string while it is written.

use super::*;

impl DialectMachine {
    /// A message to a code recipient (harmony's `python`), whose content
    /// begins at `content`: a call `name` of section `idx`.
    pub(in crate::parser::dialect) fn open_code_call(
        &mut self,
        idx: usize,
        from: usize,
        content: usize,
        name: String,
        emit: &mut Emit<'_>,
    ) {
        self.open_section(idx, from, content, false, None);
        let DState::Section(mut sec) = std::mem::replace(&mut self.state, DState::Detached) else {
            return;
        };
        sec.form = Some(0);
        self.begin_code(&mut sec, name, emit);
        self.state = DState::Section(sec);
    }

    /// The code begins at `pos`: its call starts.
    pub(super) fn begin_code(&mut self, sec: &mut Sec, name: String, emit: &mut Emit<'_>) {
        let c = self.c.clone();
        let sc = &c.sections[sec.idx];
        let key = match sec.form.map(|f| &sc.forms[f]) {
            Some(Form::Code { key, .. }) => key.clone(),
            _ => "code".to_owned(),
        };
        let id = emit.start(Some(name.clone()), Syntax::Dialect, c.tag(sec.idx));
        sec.tentative = false;
        sec.calls.push(Call {
            id: Some(id),
            args: no_name(&name),
            name: Some(name),
            ..Call::default()
        });
        if let Some(set) = code_end(sc) {
            self.ms = set.begin();
        }
        if self.shared.cfg.argument_deltas {
            if let Some(call) = sec.calls.last_mut() {
                call.send_key(&key, emit);
                call.send("\"", emit);
            }
        }
        let from = self.pos;
        sec.read = Read::Code {
            key,
            from,
            sent: from,
        };
    }

    /// Reads the code up to its end marker, streaming it.
    pub(super) fn code(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let sc = &c.sections[sec.idx];
        let Read::Code { from, sent, .. } = sec.read else {
            return Flow::Go;
        };
        let end = self.end();
        let (stop, next) = match code_end(sc) {
            Some(set) => {
                let hay = &self.buf.as_bytes()[self.pos - self.base..end - self.base];
                match set.find(&mut self.ms, hay) {
                    Some(h) => (self.pos + h.end - h.len, Some(self.pos + h.end)),
                    None => (end - set.held(&self.ms), None),
                }
            }
            None => (end, None),
        };
        self.pos = next.unwrap_or(end);
        let stop = stop.max(from);
        if self.shared.cfg.argument_deltas && stop > sent {
            // A character cut by the chunk waits for its last byte.
            let upto = sent + crate::utf8::floor_boundary(self.text(sent, end), stop - sent);
            if upto > sent {
                let piece = self.text(sent, upto).to_owned();
                if let Some(call) = sec.calls.last_mut() {
                    call.send_str_body(&piece, emit);
                }
                if let Read::Code { sent, .. } = &mut sec.read {
                    *sent = upto;
                }
            }
        }
        let Some(to) = next else {
            return Flow::Wait;
        };
        self.finish_code(sec, stop, emit);
        self.end_section(sec, to, emit);
        Flow::Go
    }

    /// The code ended at `stop`: the call's arguments.
    pub(super) fn finish_code(&mut self, sec: &mut Sec, stop: usize, emit: &mut Emit<'_>) {
        let Read::Code { key, from, sent } = std::mem::replace(&mut sec.read, Read::Close) else {
            return;
        };
        let code = self.text(from, stop.max(from)).to_owned();
        let deltas = self.shared.cfg.argument_deltas;
        if let Some(call) = sec.calls.last_mut() {
            if deltas {
                if stop > sent {
                    call.send_str_body(self.text(sent, stop), emit);
                }
                call.send("\"}", emit);
            }
            if call.args.is_none() {
                let mut args = Map::new();
                args.insert(key, Value::String(code));
                call.args = Some(Ok(Value::Object(args)));
            }
        }
    }
}

/// What ends the code: the section's closer, else its trailer markers.
fn code_end(sc: &SectionC) -> Option<&MarkerSet> {
    sc.close_set.as_ref().or(sc.trailer.as_ref())
}
