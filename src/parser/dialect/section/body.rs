//! Body forms: a name, then a body read as it streams and made into
//! arguments: Gemma values (`gemma4`, `function_gemma`), their JSON sent
//! as argument deltas as it is written; parameters named by their tags
//! (`minimax_m3`), read at the body's end. The body's end is found as it
//! streams (the call's end marker, or Gemma's closing brace, with the
//! nesting counted and held to the depth limit).

use super::*;
use crate::dialect::compiled::BodyMark;
use crate::dialect::gemma::GemmaReader;

/// The reader of a body form's call.
#[derive(Debug)]
pub(in crate::parser::dialect) enum BodyReader {
    Gemma(GemmaReader),
}

impl DialectMachine {
    /// A body form's call marker was found: its name follows.
    pub(super) fn body_begin(&mut self, sec: &mut Sec, sc: &SectionC, f: usize, to: usize) {
        if let Form::Tags { name, .. } | Form::Gemma { name, .. } = &sc.forms[f] {
            self.ms = name.set.begin();
        }
        sec.mark = to;
        sec.read = Read::BName;
    }

    pub(super) fn body_name(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some(form) = sec.form.map(|f| &c.sections[sec.idx].forms[f]) else {
            return Flow::Go;
        };
        let (Form::Tags { name, .. } | Form::Gemma { name, .. }) = form else {
            return Flow::Go;
        };
        let Some((role, at, to)) = self.seek(name) else {
            return Flow::Wait;
        };
        let n = self.text(sec.mark, at).trim().to_owned();
        let id = emit.start(Some(n.clone()), Syntax::Dialect, c.tag(sec.idx));
        sec.tentative = false;
        sec.calls.push(Call {
            id: Some(id),
            args: no_name(&n),
            name: Some(n),
            ..Call::default()
        });
        match (role, form) {
            (BodyMark::NameEnd, Form::Tags { body, .. }) => {
                self.ms = body.set.begin();
                sec.read = Read::Body {
                    from: to,
                    depth: 0,
                    quoted: false,
                    fed: to,
                };
            }
            (BodyMark::NameEnd, Form::Gemma { outside, .. }) => {
                self.ms = outside.set.begin();
                let schema = self.call_schema_of(sec);
                let mut out = String::new();
                let reader = GemmaReader::new(schema, self.shared.cfg.strict, &mut out);
                sec.body = Some(Box::new(BodyReader::Gemma(reader)));
                self.body_send(sec, &out, emit);
                sec.read = Read::Body {
                    from: to,
                    depth: 1,
                    quoted: false,
                    fed: to,
                };
            }
            (BodyMark::End, _) => {
                // A call with no body: no arguments.
                self.body_done(sec, Ok(Value::Object(Map::new())), emit);
            }
            _ => {
                self.body_cut(sec, to, "the section closed before the call's body", emit);
            }
        }
        Flow::Go
    }

    pub(super) fn body_step(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        let c = self.c.clone();
        let Some(form) = sec.form.map(|f| &c.sections[sec.idx].forms[f]) else {
            return Flow::Go;
        };
        let Read::Body {
            from,
            depth,
            quoted,
            fed,
        } = sec.read
        else {
            return Flow::Go;
        };
        let tool = sec.calls.last().and_then(|c| c.name.clone());
        let shared = self.shared.clone();
        let schema = tool.as_deref().and_then(|t| shared.cfg.call_schema(t));
        let strict = self.shared.cfg.strict;
        match form {
            Form::Tags {
                body, prefix, item, ..
            } => {
                let Some((role, at, to)) = self.seek(body) else {
                    return Flow::Wait;
                };
                if role == BodyMark::Close {
                    return self.body_cut(sec, to, "the section closed inside the call", emit);
                }
                let max = self.shared.cfg.max_depth;
                let args = crate::dialect::tags::arguments(
                    self.text(from, at),
                    prefix,
                    item,
                    schema.as_deref(),
                    max,
                    strict,
                );
                self.body_done(sec, args, emit);
            }
            Form::Gemma {
                outside, inside, ..
            } => {
                let roles = if quoted { inside } else { outside };
                let found = self.seek(roles);
                // The text before the marker found, or all that can no
                // longer begin one, goes to the reader.
                let upto = match found {
                    Some((_, at, _)) => at,
                    None => self.pos - roles.set.held(&self.ms),
                };
                let mut out = String::new();
                if let (Some(BodyReader::Gemma(r)), true) = (sec.body.as_deref_mut(), upto > fed) {
                    r.text(self.text(fed, upto), &mut out);
                }
                let Some((role, at, to)) = found else {
                    self.body_send(sec, &out, emit);
                    if let Read::Body { fed: f, .. } = &mut sec.read {
                        *f = upto.max(fed);
                    }
                    return Flow::Wait;
                };
                let (mut depth, mut quoted) = (depth, quoted);
                let object = self.text(at, to).starts_with(['{', '}']);
                let reader = match sec.body.as_deref_mut() {
                    Some(BodyReader::Gemma(r)) => Some(r),
                    _ => None,
                };
                match role {
                    BodyMark::Quote => {
                        quoted = !quoted;
                        if let Some(r) = reader {
                            r.quote(&mut out);
                        }
                    }
                    BodyMark::Open => {
                        depth += 1;
                        let max = self.shared.cfg.max_depth;
                        if depth > max {
                            let e = ActionError::new(
                                ErrorKind::Syntax,
                                "",
                                format!("the arguments nest deeper than the limit of {max}"),
                            );
                            sec.body = None;
                            self.body_done(sec, Err(e), emit);
                            return Flow::Go;
                        }
                        if let Some(r) = reader {
                            r.open(object, &mut out);
                        }
                    }
                    BodyMark::Shut => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            let args = match sec.body.take().map(|b| *b) {
                                Some(BodyReader::Gemma(r)) => r.end(&mut out),
                                None => Err(ActionError::new(
                                    ErrorKind::CutOff,
                                    "",
                                    "the call's arguments were not read",
                                )),
                            };
                            self.body_send(sec, &out, emit);
                            self.body_done(sec, args, emit);
                            return Flow::Go;
                        }
                        if let Some(r) = reader {
                            r.shut(object, &mut out);
                        }
                    }
                    BodyMark::Close => {
                        sec.body = None;
                        return self.body_cut(sec, to, "the section closed inside the call", emit);
                    }
                    _ => {}
                }
                self.body_send(sec, &out, emit);
                self.ms = if quoted {
                    inside.set.begin()
                } else {
                    outside.set.begin()
                };
                sec.read = Read::Body {
                    from,
                    depth,
                    quoted,
                    fed: to,
                };
            }
            _ => {}
        }
        Flow::Go
    }

    /// The call's body ended with these arguments.
    fn body_done(&mut self, sec: &mut Sec, args: Result<Value, ActionError>, emit: &mut Emit<'_>) {
        let deltas = self.shared.cfg.argument_deltas;
        if let Some(call) = sec.calls.last_mut() {
            if call.args.is_none() {
                // A streamed body has sent its JSON already.
                if let (true, false, Ok(v)) = (deltas, call.sent, &args) {
                    call.send(&serde_json::to_string(v).unwrap_or_default(), emit);
                }
                call.args = Some(args);
            }
        }
        sec.stray = Some((self.pos, Stray::AfterCall));
        self.after_call(sec, emit);
    }

    /// The section closed (its closer ending at `to`) while a call was
    /// being read: the call is cut off.
    fn body_cut(&mut self, sec: &mut Sec, to: usize, why: &str, emit: &mut Emit<'_>) -> Flow {
        if let Some(call) = sec.calls.last_mut() {
            if call.args.is_none() {
                call.args = Some(Err(ActionError::new(ErrorKind::CutOff, "", why)));
            }
        }
        self.end_section(sec, to, emit);
        Flow::Go
    }

    /// Sends a piece of the streamed body's JSON (argument deltas on).
    fn body_send(&mut self, sec: &mut Sec, out: &str, emit: &mut Emit<'_>) {
        if self.shared.cfg.argument_deltas && !out.is_empty() {
            if let Some(call) = sec.calls.last_mut() {
                call.send(out, emit);
            }
        }
    }

    /// The schema of the call being read, if the configuration has one.
    fn call_schema_of(&self, sec: &Sec) -> Option<Value> {
        let tool = sec.calls.last().and_then(|c| c.name.as_deref())?;
        self.shared.cfg.call_schema(tool).map(|s| Value::clone(&s))
    }
}
