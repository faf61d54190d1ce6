//! Body forms: a name, then a body read whole and made into arguments at
//! its end: parameters named by their tags (`minimax_m3`) and Gemma values
//! (`gemma4`, `function_gemma`). The body's end is found as it streams
//! (the call's end marker, or Gemma's closing brace, with the nesting
//! counted and held to the depth limit); the arguments go out when it
//! ends.

use super::*;
use crate::dialect::compiled::BodyMark;

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
                };
            }
            (BodyMark::NameEnd, Form::Gemma { outside, .. }) => {
                self.ms = outside.set.begin();
                sec.read = Read::Body {
                    from: to,
                    depth: 1,
                    quoted: false,
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
                outside,
                inside,
                string,
                ..
            } => {
                let roles = if quoted { inside } else { outside };
                let Some((role, at, to)) = self.seek(roles) else {
                    return Flow::Wait;
                };
                let (mut depth, mut quoted) = (depth, quoted);
                match role {
                    BodyMark::Quote => quoted = !quoted,
                    BodyMark::Open => depth += 1,
                    BodyMark::Shut => depth = depth.saturating_sub(1),
                    BodyMark::Close => {
                        return self.body_cut(sec, to, "the section closed inside the call", emit)
                    }
                    _ => {}
                }
                let max = self.shared.cfg.max_depth;
                if depth > max {
                    let e = ActionError::new(
                        ErrorKind::Syntax,
                        "",
                        format!("the arguments nest deeper than the limit of {max}"),
                    );
                    self.body_done(sec, Err(e), emit);
                    return Flow::Go;
                }
                if depth == 0 {
                    let args = crate::dialect::gemma::arguments(
                        self.text(from, at),
                        string,
                        schema.as_deref(),
                        strict,
                    );
                    self.body_done(sec, args, emit);
                    return Flow::Go;
                }
                self.ms = if quoted {
                    inside.set.begin()
                } else {
                    outside.set.begin()
                };
                sec.read = Read::Body {
                    from,
                    depth,
                    quoted,
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
                if let (true, Ok(v)) = (deltas, &args) {
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
}
