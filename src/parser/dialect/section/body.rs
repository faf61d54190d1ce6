//! Body forms: a name, then a body read as it streams and made into
//! arguments: Gemma values (`gemma4`, `function_gemma`), their JSON sent
//! as argument deltas as it is written; parameters named by their tags
//! (`minimax_m3`), read at the body's end. The body's end is found as it
//! streams (the call's end marker, or Gemma's closing brace, with the
//! nesting counted and held to the depth limit).

use super::*;
use crate::dialect::compiled::BodyMark;
use crate::dialect::gemma::GemmaReader;
use crate::dialect::tags::{name_byte, TagsReader};

/// The reader of a body form's call.
#[derive(Debug)]
pub(in crate::parser::dialect) enum BodyReader {
    Gemma(GemmaReader),
    Tags(TagsReader),
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
            (BodyMark::NameEnd, Form::Tags { body, item, .. }) => {
                self.ms = body.set.begin();
                let schema = self.call_schema_of(sec);
                let mut out = String::new();
                let cfg = &self.shared.cfg;
                let reader = TagsReader::new(schema, item, cfg.max_depth, cfg.strict, &mut out);
                self.body_read_from(sec, BodyReader::Tags(reader), &out, to, 0, emit);
            }
            (BodyMark::NameEnd, Form::Gemma { outside, .. }) => {
                self.ms = outside.set.begin();
                let schema = self.call_schema_of(sec);
                let mut out = String::new();
                let reader = GemmaReader::new(schema, self.shared.cfg.strict, &mut out);
                self.body_read_from(sec, BodyReader::Gemma(reader), &out, to, 1, emit);
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
            tag,
        } = sec.read
        else {
            return Flow::Go;
        };
        match form {
            Form::Tags {
                body, ends, opener, ..
            } => {
                let mut out = String::new();
                if let Some(tag_at) = tag {
                    // A tag's name, from `pos`: name bytes (after a `/`
                    // right after the opener) up to `>`.
                    let name_at = tag_at + opener.len();
                    let end = self.end();
                    let bytes = &self.buf.as_bytes()[self.pos - self.base..end - self.base];
                    let mut stop = None;
                    for (i, &b) in bytes.iter().enumerate() {
                        let at = self.pos + i;
                        let ok = name_byte(b) || (b == b'/' && at == name_at);
                        if !ok {
                            stop = Some((
                                at,
                                b == b'>'
                                    && at
                                        > name_at
                                            + usize::from(self.text(name_at, at).starts_with('/')),
                            ));
                            break;
                        }
                    }
                    let Some((at, is_tag)) = stop else {
                        self.pos = end;
                        return Flow::Wait;
                    };
                    self.ms = body.set.begin();
                    if !is_tag {
                        // No tag: its opener is text, read on from `at`.
                        self.pos = at;
                        if let Read::Body { tag: t, .. } = &mut sec.read {
                            *t = None;
                        }
                        return Flow::Go;
                    }
                    let to = at + 1;
                    self.pos = to;
                    let whole = self.text(tag_at, to);
                    match ends.iter().find(|(m, _)| m == whole).map(|(_, r)| *r) {
                        Some(BodyMark::End) => return self.tags_end(sec, &mut out, emit),
                        Some(_) => {
                            sec.body = None;
                            return self.body_cut(
                                sec,
                                to,
                                "the section closed inside the call",
                                emit,
                            );
                        }
                        None => {}
                    }
                    let name = self.text(name_at, at);
                    if let Some(BodyReader::Tags(r)) = sec.body.as_deref_mut() {
                        match name.strip_prefix('/') {
                            Some(n) => r.close(n, &mut out),
                            None => r.open(name, &mut out),
                        }
                    }
                    self.body_send(sec, &out, emit);
                    if let Read::Body { tag: t, fed: f, .. } = &mut sec.read {
                        (*t, *f) = (None, to);
                    }
                    return Flow::Go;
                }
                let found = self.seek(body);
                let upto = match found {
                    Some((_, at, _)) => at,
                    None => self.pos - body.set.held(&self.ms),
                };
                if let (Some(BodyReader::Tags(r)), true) = (sec.body.as_deref_mut(), upto > fed) {
                    r.text(self.text(fed, upto), &mut out);
                }
                let fed = upto.max(fed);
                if let Read::Body { fed: f, .. } = &mut sec.read {
                    *f = fed;
                }
                let Some((role, at, to)) = found else {
                    self.body_send(sec, &out, emit);
                    return Flow::Wait;
                };
                match role {
                    BodyMark::Tag => {
                        self.body_send(sec, &out, emit);
                        if let Read::Body { tag: t, .. } = &mut sec.read {
                            *t = Some(at);
                        }
                    }
                    BodyMark::End => return self.tags_end(sec, &mut out, emit),
                    _ => {
                        sec.body = None;
                        return self.body_cut(sec, to, "the section closed inside the call", emit);
                    }
                }
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
                                _ => Err(ActionError::new(
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
                    tag: None,
                };
            }
            _ => {}
        }
        Flow::Go
    }

    /// A tag form's call ended: its arguments.
    fn tags_end(&mut self, sec: &mut Sec, out: &mut String, emit: &mut Emit<'_>) -> Flow {
        let args = match sec.body.take().map(|b| *b) {
            Some(BodyReader::Tags(r)) => r.end(out),
            _ => Err(ActionError::new(
                ErrorKind::CutOff,
                "",
                "the call's arguments were not read",
            )),
        };
        self.body_send(sec, out, emit);
        self.body_done(sec, args, emit);
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
    /// Gives the call its body reader, sends what the reader wrote on
    /// starting, and reads the body from `to` at bracket depth `depth`.
    fn body_read_from(
        &mut self,
        sec: &mut Sec,
        reader: BodyReader,
        out: &str,
        to: usize,
        depth: usize,
        emit: &mut Emit<'_>,
    ) {
        sec.body = Some(Box::new(reader));
        self.body_send(sec, out, emit);
        sec.read = Read::Body {
            from: to,
            depth,
            quoted: false,
            fed: to,
            tag: None,
        };
    }

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
