//! Parameter forms: raw-text values between markers (`qwen3_coder`, `seed_oss`, `glm`,
//! `minimax_m2`, `deepseek_v32`), typed by the tool's schema, strings streamed as written.

use super::*;
use crate::dialect::attributes as attrs;

impl DialectMachine {
    pub(super) fn params_step(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        if let Read::Value { .. } = sec.read {
            return self.param_value(sec, emit);
        }
        let c = self.c.clone();
        let Some(Form::Params {
            name,
            params,
            key_end,
            key_ends,
            value,
            value_end,
            attributes,
            type_close,
            ..
        }) = sec.form.map(|f| &c.sections[sec.idx].forms[f])
        else {
            return Flow::Go;
        };
        let deltas = self.shared.cfg.argument_deltas;
        match std::mem::replace(&mut sec.read, Read::Params) {
            Read::PName => {
                let Some((role, at, to)) = self.seek(name) else {
                    sec.read = Read::PName;
                    return Flow::Wait;
                };
                let text = self.text(sec.mark, at);
                let (n, call_id) = match attributes {
                    Some(a) if role == ParamMark::NameEnd => {
                        let pairs = attrs::parse(text);
                        (
                            attrs::get(&pairs, &a.name).unwrap_or_default().to_owned(),
                            a.id.as_deref()
                                .and_then(|k| attrs::get(&pairs, k))
                                .map(str::to_owned),
                        )
                    }
                    _ => (text.trim().to_owned(), None),
                };
                let id = emit.start(Some(n.clone()), Syntax::Dialect, c.tag(sec.idx));
                sec.tentative = false;
                sec.calls.push(Call {
                    id: Some(id),
                    args: no_name(&n),
                    name: Some(n),
                    call_id,
                    ..Call::default()
                });
                self.param_mark(sec, role, to, emit);
            }
            Read::Params => {
                let Some((role, at, to)) = self.seek(params) else {
                    sec.read = Read::Params;
                    return Flow::Wait;
                };
                self.check_stray(sec, at);
                self.param_mark(sec, role, to, emit);
            }
            Read::Key => {
                let Some((i, at, to)) = self.seek(key_end) else {
                    sec.read = Read::Key;
                    return Flow::Wait;
                };
                let text = self.text(sec.mark, at);
                let mut kind = key_ends.get(i).map_or(ValueKind::Typed, |k| k.value);
                let key = match attributes {
                    Some(a) => {
                        let pairs = attrs::parse(text);
                        let ty = a
                            .type_attribute
                            .as_deref()
                            .and_then(|t| attrs::get(&pairs, t));
                        if let Some(ty) = ty {
                            kind = if a.string_types.iter().any(|s| s == ty) {
                                ValueKind::String
                            } else {
                                ValueKind::Json
                            };
                        }
                        attrs::get(&pairs, &a.key).unwrap_or_default().to_owned()
                    }
                    None => text.trim().to_owned(),
                };
                if deltas {
                    if let Some(call) = sec.calls.last_mut() {
                        call.send_key(&key, emit);
                    }
                }
                match value {
                    Some(v) => {
                        self.ms = v.set.begin();
                        sec.stray = Some((to, Stray::InCall));
                        sec.read = Read::ValueOpen { key, kind };
                    }
                    None => {
                        self.ms = value_end.begin();
                        self.watch_from(sec, to);
                        sec.read = Read::Value {
                            key,
                            kind,
                            from: to,
                            streamed: None,
                            plain: false,
                        };
                    }
                }
            }
            Read::ValueOpen { key, kind } => {
                let Some(v) = value else { return Flow::Go };
                let Some((role, at, to)) = self.seek(v) else {
                    sec.read = Read::ValueOpen { key, kind };
                    return Flow::Wait;
                };
                self.check_stray(sec, at);
                if let (ParamMark::Type, Some(tc)) = (role, type_close) {
                    sec.mark = to;
                    self.ms = tc.begin();
                    sec.read = Read::ValueType { key, kind };
                } else if role == ParamMark::Value {
                    self.ms = value_end.begin();
                    self.watch_from(sec, to);
                    sec.read = Read::Value {
                        key,
                        kind,
                        from: to,
                        streamed: None,
                        plain: false,
                    };
                } else {
                    // The key has no value: the call cannot be read.
                    if let Some(call) = sec.calls.last_mut() {
                        if !call.args.as_ref().is_some_and(Result::is_err) {
                            call.args = Some(Err(ActionError::new(
                                ErrorKind::Syntax,
                                key.as_str(),
                                format!("the parameter `{key}` has no value"),
                            )));
                        }
                    }
                    self.param_mark(sec, role, to, emit);
                }
            }
            Read::ValueType { key, kind } => {
                let (Some(v), Some(tc)) = (value, type_close) else {
                    return Flow::Go;
                };
                let hay = &self.buf.as_bytes()[self.pos - self.base..self.end() - self.base];
                let Some(hit) = tc.find(&mut self.ms, hay) else {
                    self.pos = self.end();
                    sec.read = Read::ValueType { key, kind };
                    return Flow::Wait;
                };
                let to = self.pos + hit.end;
                let ty = self.text(sec.mark, to - hit.len).trim();
                let kind = match ty {
                    "string" | "str" => ValueKind::String,
                    "integer" | "int" | "number" | "float" | "boolean" | "bool" | "object"
                    | "array" | "null" => ValueKind::Json,
                    _ => kind,
                };
                self.pos = to;
                self.ms = v.set.begin();
                sec.stray = Some((to, Stray::InCall));
                sec.read = Read::ValueOpen { key, kind };
            }
            other => sec.read = other,
        }
        Flow::Go
    }

    /// A raw value, read up to its end marker: streamed as a JSON string
    /// while it is written once that is certain (argument deltas on), and
    /// typed by the tool's schema when it ends. Most pushes inside a long
    /// value end here with no marker found, so this reads the state in
    /// place and allocates nothing but the delta's text.
    pub(super) fn param_value(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) -> Flow {
        // The compiled form is borrowed field by field beside the buffer
        // and the search state (no `Arc` clone, an atomic count, a push).
        let Some(Form::Params {
            params,
            value_end,
            trim,
            cdata,
            ..
        }) = sec.form.map(|f| &self.c.sections[sec.idx].forms[f])
        else {
            return Flow::Go;
        };
        let (trim, cdata) = (*trim, *cdata);
        let Read::Value {
            kind,
            from,
            streamed,
            plain,
            ..
        } = sec.read
        else {
            return Flow::Go;
        };
        let deltas = self.shared.cfg.argument_deltas;
        let end = self.end();
        let hay = &self.buf.as_bytes()[self.pos - self.base..end - self.base];
        let hit = value_end.find(&mut self.ms, hay);
        let (stop, next) = match hit {
            Some(h) => (self.pos + h.end - h.len, Some(self.pos + h.end)),
            None => (end, None),
        };
        self.pos = next.unwrap_or(stop);
        self.watch_to(sec, stop);
        // The value's text: one line ending dropped at each side where the
        // template writes them.
        let raw_from = if trim {
            skip_line_ending(self.text(from, stop), from)
        } else {
            Some(from)
        };
        let (mut streamed, mut plain) = (streamed, plain);
        if let (Some(vfrom), true) = (raw_from, deltas) {
            // Held back: a prefix of the value's end marker, and before it
            // a line ending the value may end with.
            let held = match next {
                Some(_) => 0,
                None => {
                    let marker = value_end.held(&self.ms);
                    let before = stop.saturating_sub(marker).max(vfrom);
                    marker
                        + if trim {
                            trailing_line_ending(self.text(vfrom, before))
                        } else {
                            0
                        }
                }
            };
            let safe = stop.saturating_sub(held).max(vfrom);
            if streamed.is_none() && !plain {
                let Read::Value { key, .. } = &sec.read else {
                    return Flow::Go;
                };
                let tool = sec.calls.last().and_then(|c| c.name.as_deref());
                let ty = self.value_type(tool, key);
                let prefix = self.text(vfrom, safe);
                let decided = if cdata && may_be_cdata(prefix) {
                    // A CDATA value is not streamed: its wrapper is no text.
                    (prefix.len() > CDATA_OPEN.len()).then_some(false)
                } else {
                    streams(kind, ty, prefix)
                };
                match decided {
                    Some(true) => {
                        streamed = Some(vfrom);
                        if let Some(call) = sec.calls.last_mut() {
                            call.send("\"", emit);
                        }
                    }
                    // Certain whatever follows (see `streams_as_string`).
                    Some(false) => plain = true,
                    None => {}
                }
            }
            if let Some(sent) = streamed {
                let upto = if next.is_some() {
                    let t = self.text(vfrom, stop);
                    vfrom + t.len() - if trim { final_line_ending(t) } else { 0 }
                } else {
                    safe
                };
                if upto > sent {
                    if let Some(call) = sec.calls.last_mut() {
                        call.send_str_body(self.text(sent, upto), emit);
                    }
                    streamed = Some(upto);
                }
            }
        }
        let Some(_) = next else {
            if let Read::Value {
                streamed: s,
                plain: p,
                ..
            } = &mut sec.read
            {
                (*s, *p) = (streamed, plain);
            }
            self.arm_lane(sec);
            return Flow::Wait;
        };
        let Read::Value { key, .. } = std::mem::replace(&mut sec.read, Read::Params) else {
            return Flow::Go;
        };
        let mut text = self.text(from, stop);
        let mut at = from;
        if trim {
            let t = trim_line_endings(text);
            at += text.len()
                - text
                    .trim_start_matches(['\r', '\n'])
                    .len()
                    .max(t.len())
                    .min(text.len());
            text = t;
        }
        if cdata {
            if let Some(inner) = cdata_content(text) {
                at += text.len() - text.trim_start().len() + CDATA_OPEN.len();
                text = inner;
            }
        }
        let tool = sec.calls.last().and_then(|c| c.name.as_deref());
        let ty = self.value_type(tool, &key);
        let v = convert(kind, ty, text, self.shared.cfg.strict, &mut sec.repairs, at);
        if let Some(call) = sec.calls.last_mut() {
            if deltas {
                if streamed.is_some() {
                    call.send("\"", emit);
                } else {
                    call.send(&serde_json::to_string(&v).unwrap_or_default(), emit);
                }
            }
            call.params.insert(key, v);
        }
        self.ms = params.set.begin();
        sec.stray = Some((self.pos, Stray::InCall));
        Flow::Go
    }

    /// A marker of a parameter form was found, ending at `to`.
    pub(super) fn param_mark(
        &mut self,
        sec: &mut Sec,
        role: ParamMark,
        to: usize,
        emit: &mut Emit<'_>,
    ) {
        let c = self.c.clone();
        let Some(Form::Params {
            params, key_end, ..
        }) = sec.form.map(|f| &c.sections[sec.idx].forms[f])
        else {
            return;
        };
        match role {
            ParamMark::NameEnd => {
                self.ms = params.set.begin();
                sec.stray = Some((to, Stray::InCall));
                sec.read = Read::Params;
            }
            ParamMark::Value | ParamMark::Type => {}
            ParamMark::Key => {
                sec.mark = to;
                self.ms = key_end.set.begin();
                sec.read = Read::Key;
            }
            ParamMark::End => {
                self.finish_params_call(sec, emit);
                self.after_call(sec, emit);
            }
            ParamMark::Close => {
                self.finish_params_call(sec, emit);
                self.end_section(sec, to, emit);
            }
        }
    }

    pub(super) fn finish_params_call(&mut self, sec: &mut Sec, emit: &mut Emit<'_>) {
        let deltas = self.shared.cfg.argument_deltas;
        if let Some(call) = sec.calls.last_mut() {
            if call.args.is_none() {
                let closing = if call.sent { "}" } else { "{}" };
                call.args = Some(Ok(Value::Object(std::mem::take(&mut call.params))));
                if deltas {
                    call.send(closing, emit);
                }
            }
        }
    }

    /// What the tool's schema says property `key` of `tool` is.
    pub(super) fn value_type(&self, tool: Option<&str>, key: &str) -> ValueType {
        let schema = tool.and_then(|t| self.shared.cfg.call_schema(t));
        property_type(schema.as_deref(), key)
    }
}

const CDATA_OPEN: &str = "<![CDATA[";

/// Whether a value beginning `prefix` may be written as CDATA.
fn may_be_cdata(prefix: &str) -> bool {
    let t = prefix.trim_start();
    t.starts_with(CDATA_OPEN) || CDATA_OPEN.starts_with(t)
}

/// The content of a value written `<![CDATA[…]]>` (white space around it
/// allowed).
pub(super) fn cdata_content(text: &str) -> Option<&str> {
    text.trim()
        .strip_prefix(CDATA_OPEN)
        .and_then(|t| t.strip_suffix("]]>"))
}

/// Where a value starts once a leading line ending is dropped; `None` while
/// that cannot be told (a lone `\r` at the end).
pub(super) fn skip_line_ending(text: &str, from: usize) -> Option<usize> {
    if text.starts_with("\r\n") {
        Some(from + 2)
    } else if text == "\r" || text.is_empty() {
        None
    } else if text.starts_with('\n') {
        Some(from + 1)
    } else {
        Some(from)
    }
}

/// How many bytes of a trailing line ending end `text` (held back while
/// the value may end right after them).
pub(super) fn trailing_line_ending(text: &str) -> usize {
    if text.ends_with("\r\n") {
        2
    } else if text.ends_with('\n') || text.ends_with('\r') {
        1
    } else {
        0
    }
}

/// The line ending `text` ends with, as [`trim_line_endings`] drops it (a
/// lone `\r` is none).
pub(super) fn final_line_ending(text: &str) -> usize {
    if text.ends_with("\r\n") {
        2
    } else if text.ends_with('\n') {
        1
    } else {
        0
    }
}

pub(super) fn trim_line_endings(text: &str) -> &str {
    let t = text
        .strip_prefix("\r\n")
        .or_else(|| text.strip_prefix('\n'))
        .unwrap_or(text);
    t.strip_suffix("\r\n")
        .or_else(|| t.strip_suffix('\n'))
        .unwrap_or(t)
}

/// Whether a value is streamed as a JSON string while it is written.
pub(super) fn streams(kind: ValueKind, ty: ValueType, prefix: &str) -> Option<bool> {
    match kind {
        ValueKind::String => Some(true),
        ValueKind::Json => Some(false),
        ValueKind::Typed => streams_as_string(ty, prefix),
    }
}

/// A raw value as JSON; repairs noted at offsets from `at`.
pub(super) fn convert(
    kind: ValueKind,
    ty: ValueType,
    text: &str,
    strict: bool,
    repairs: &mut Vec<(RepairKind, usize)>,
    at: usize,
) -> Value {
    let ty = match kind {
        ValueKind::String => return Value::String(text.to_owned()),
        ValueKind::Json => ValueType::Json,
        ValueKind::Typed => ty,
    };
    let mut found = Vec::new();
    let v = convert_noting_repairs(text, ty, strict, &mut found);
    repairs.extend(found.into_iter().map(|(k, o)| (k, at + o)));
    v
}
