//! Python forms: `[f(a=1), g()]` lists and calls one per line, read by `scan::python`.

use super::*;

impl DialectMachine {
    pub(super) fn py(&self, mode: PyMode) -> Box<PyCalls> {
        Box::new(PyCalls::new(mode, self.shared.cfg.max_depth))
    }

    /// Python calls: names as their `(` is read, arguments as written.
    pub(super) fn python(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let Read::Python(reader) = &mut sec.read else {
            return Flow::Go;
        };
        let from = self.pos;
        let mut events = Vec::new();
        let used = reader.feed(
            &self.buf[from - self.base..self.end() - self.base],
            &mut events,
        );
        let done = reader.done();
        self.pos = from + used;
        self.watch_to(sec, self.pos);
        let base = sec.mark;
        let _ = base;
        for e in events {
            match e {
                PyEvent::Start { name, .. } => {
                    if !name.ends_with(".call") && self.code_instead(sec, emit) {
                        return Flow::Go;
                    }
                    // Llama 3.1's built-in tools: `T.call(…)` is a call of `T`.
                    let name = name.strip_suffix(".call").unwrap_or(&name).to_owned();
                    sec.tentative = false;
                    let id = emit.start(Some(name.clone()), Syntax::Dialect, self.c.tag(sec.idx));
                    sec.calls.push(Call {
                        id: Some(id),
                        name: Some(name),
                        ..Call::default()
                    });
                }
                PyEvent::Args(json) => {
                    if self.shared.cfg.argument_deltas {
                        self.param_delta(sec, &json, emit);
                    }
                }
                PyEvent::End { arguments, .. } => {
                    if let Some(call) = sec.calls.last_mut() {
                        call.args = Some(Ok(arguments));
                    }
                }
                PyEvent::Error { message, at } => {
                    if self.code_instead(sec, emit) {
                        return Flow::Go;
                    }
                    // Reading goes on at the byte that broke the call,
                    // whatever the reader was given past it.
                    let at = sec.json_from + at;
                    self.pos = at.min(self.end());
                    if sec.tentative {
                        let at = self.pos;
                        self.tentative_fails(sec, at, emit);
                        return Flow::Go;
                    }
                    let e = self.python_error(sec.from, at, &message);
                    if self.rewind(sec, at, e.clone(), emit) {
                        return Flow::Go;
                    }
                    match sec.calls.last_mut() {
                        Some(call) if call.args.is_none() => call.args = Some(Err(e)),
                        _ => sec.broken = Some(e),
                    }
                    if sec.broken.is_some() {
                        sec.calls.push(Call::default());
                    }
                    self.resync(sec, emit);
                    return Flow::Go;
                }
            }
        }
        if !done {
            return Flow::Wait;
        }
        if sec.tentative {
            // `[]`: no call in it.
            let at = self.pos;
            self.tentative_fails(sec, at, emit);
            return Flow::Go;
        }
        let c = self.c.clone();
        match sec.form.map(|f| &c.sections[sec.idx].forms[f]) {
            Some(Form::Python { list: false }) if c.sections[sec.idx].close.is_some() => {
                sec.read = Read::PyLines;
            }
            _ => {
                // After the list only the closer may come.
                sec.stray = Some((self.pos, Stray::AfterValues));
                self.after_call(sec, emit);
            }
        }
        Flow::Go
    }

    /// Python that is no built-in tool call (`T.call(…)`) in a section
    /// that also takes raw code (Llama 3.1's `code_interpreter`), before
    /// any call of it started: the section's content is read again from
    /// its start as code. Whether it was.
    fn code_instead(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> bool {
        let c = self.c.clone();
        let sc = &c.sections[sec.idx];
        let Some((f, name)) = sc.forms.iter().enumerate().find_map(|(i, f)| match f {
            Form::Code { name, .. } => Some((i, name.clone())),
            _ => None,
        }) else {
            return false;
        };
        if !sec.calls.is_empty() || sec.tentative {
            return false;
        }
        self.pos = sec.json_from;
        sec.watch = None;
        sec.first_close = None;
        sec.form = Some(f);
        self.begin_code(sec, name, emit);
        true
    }

    pub(super) fn python_error(&self, block_from: usize, at: usize, message: &str) -> ActionError {
        let raw = self.text(block_from, self.end());
        syntax_error(
            raw,
            at.saturating_sub(block_from),
            "the Python call",
            message,
        )
    }
}
