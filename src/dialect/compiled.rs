//! The chosen dialects compiled for reading: one marker set per context the
//! parser's dialect engine reads in, each marker with the role it plays
//! there. Built once per configuration (the cache lives in `Config`) and
//! shared by every parser made from it.

use std::sync::Arc;

use super::{Attributes, Calls, ContentKind, Dialect, Envelope, KeyEnd};
use crate::scan::markers::{ByteSet, MarkerSet};

/// What a marker found in narrative does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outer {
    /// Opens reasoning enclosure `i`.
    Reason(usize),
    /// Opens section `i`.
    Section(usize),
    /// Stands outside blocks, in no event.
    Ignore,
    /// Begins a harmony message header (`<|start|>`, `<|channel|>`).
    Header,
    /// A content marker with no header before it: says what follows.
    Content(ContentKind),
}

/// What a marker found in reasoning does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inner {
    /// Closes the reasoning.
    Close,
    /// Opens section `i` (with `calls_in_reasoning`).
    Section(usize),
    /// Opens section `i` and ends the reasoning (a dialect whose
    /// `calls_end_reasoning` is on).
    Ends(usize),
    /// Begins a harmony message header: the reasoning ends.
    Header,
}

/// A set of markers and the role of each.
#[derive(Debug)]
pub(crate) struct Roles<R> {
    pub set: MarkerSet,
    pub roles: Vec<R>,
}

impl<R: Copy> Roles<R> {
    fn new(pairs: Vec<(String, R)>) -> Self {
        let (markers, roles): (Vec<String>, Vec<R>) = pairs.into_iter().unzip();
        Roles {
            set: MarkerSet::new(&markers),
            roles,
        }
    }
}

/// A call form, compiled.
#[derive(Debug)]
// The forms are built once per configuration and few: their sizes do not
// matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Form {
    Json {
        name_keys: Arc<[String]>,
        argument_keys: Arc<[String]>,
        id_key: Option<String>,
        joiner: Option<String>,
        name_is_key: bool,
    },
    Named {
        call: String,
        name_prefix: Option<String>,
        indexed_name: bool,
        /// Markers that end the name: `args`, `id`, and `{` when `args` is
        /// optional ([`NameEnd`] says which).
        name_end: Roles<NameEnd>,
        /// `args` after an id.
        after_id: MarkerSet,
        args_end: Option<MarkerSet>,
        end: Option<MarkerSet>,
    },
    Params {
        call: String,
        /// What ends the name.
        name: Roles<ParamMark>,
        /// What may come between parameters.
        params: Roles<ParamMark>,
        key_end: Roles<usize>,
        key_ends: Vec<KeyEnd>,
        /// The marker before a value, with what may come instead of it
        /// (and the opener of its type, where the form writes one).
        value: Option<Roles<ParamMark>>,
        /// The marker that ends a value's type.
        type_close: Option<MarkerSet>,
        value_end: MarkerSet,
        trim: bool,
        /// The bytes that end the fast lane through a value (see
        /// `parser/dialect/section/lane.rs`): those that can begin its end
        /// marker or the section's closer, and line endings where they
        /// are trimmed.
        stops: ByteSet,
        /// The stops, the bytes JSON escapes, and every byte that is not
        /// ASCII: a push with none of them is taken by the lane as bytes,
        /// streamed as they are.
        ascii_stops: ByteSet,
        attributes: Option<Attributes>,
        cdata: bool,
    },
    /// Parameters named by their tags (`parser/dialect/section/body.rs`).
    Tags {
        call: String,
        /// What ends the name.
        name: Roles<BodyMark>,
        /// In the body: a tag's opener (`prefix<`), and the call's end
        /// and the section's closer where they are not written as tags.
        body: Roles<BodyMark>,
        /// The call's end and the section's closer where they are written
        /// as tags (`prefix</invoke>`): told by a tag's whole text.
        ends: Vec<(String, BodyMark)>,
        /// `prefix<`.
        opener: String,
        item: String,
    },
    /// Gemma values (`parser/dialect/section/body.rs`).
    Gemma {
        call: String,
        /// What ends the name.
        name: Roles<BodyMark>,
        /// Outside strings: the string marker, brackets, the closer.
        outside: Roles<BodyMark>,
        /// Inside a string: its end.
        inside: Roles<BodyMark>,
    },
    Python {
        list: bool,
    },
    /// A harmony call: the message content is the arguments.
    Harmony,
    /// Raw code up to the section's end: one call `name` (empty: named by
    /// its envelope's recipient) with arguments `{key: code}`.
    Code {
        name: String,
        key: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameEnd {
    Args,
    Id,
    Brace,
}

/// A marker met while a body form's call is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyMark {
    /// Ends the name.
    NameEnd,
    /// Ends the call.
    End,
    /// The section's closer.
    Close,
    /// A Gemma string marker.
    Quote,
    /// `{` or `[`.
    Open,
    /// `}` or `]`.
    Shut,
    /// A tag's opener (`prefix<`): its name follows.
    Tag,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParamMark {
    NameEnd,
    /// The marker before a value (GLM's `<arg_value>`).
    Value,
    /// The marker before a value's type (K2 Horizon's `<ifm|arg_type>`).
    Type,
    Key,
    End,
    Close,
}

/// A section, compiled.
#[derive(Debug)]
pub(crate) struct SectionC {
    pub dialect: usize,
    pub open: String,
    pub close: Option<String>,
    /// Between calls: the call marker of each form that has one, and the
    /// closer. Roles: `Some(form)` a call marker, `None` the closer.
    pub between: Roles<Option<usize>>,
    /// The closer alone (for the rest of an oversize section).
    pub close_set: Option<MarkerSet>,
    pub forms: Vec<Form>,
    pub trailer: Option<MarkerSet>,
}

impl SectionC {
    /// The form the first content byte `b` chooses.
    pub fn choose(&self, b: u8) -> Option<usize> {
        self.forms.iter().position(|f| match f {
            Form::Json { .. } => b == b'{' || b == b'[',
            Form::Python { list: true } => b == b'[',
            Form::Named { call, .. }
            | Form::Params { call, .. }
            | Form::Tags { call, .. }
            | Form::Gemma { call, .. } => match call.as_bytes().first() {
                Some(&c) => c == b,
                None => !b.is_ascii_whitespace() && b != b'{' && b != b'[' && b != b'<',
            },
            Form::Python { list: false } => b.is_ascii_alphabetic() || b == b'_',
            Form::Harmony => false,
            // Whatever no other form takes (it comes last).
            Form::Code { .. } => true,
        })
    }
}

/// Everything the engine needs, per configuration.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) dialects: Vec<Arc<Dialect>>,
    pub(crate) outer: Roles<Outer>,
    pub(crate) enclosures: Vec<Roles<Inner>>,
    /// Closes any reasoning: for a response that starts inside it.
    pub(crate) any_close: Roles<Inner>,
    /// The closers of each enclosure, by index (what may follow a call
    /// that ended reasoning, as a marker).
    pub(crate) closes: Vec<MarkerSet>,
    /// Every closer (for reasoning the response started in).
    pub(crate) all_closes: MarkerSet,
    pub(crate) sections: Vec<SectionC>,
    /// `(section, form)` read when the response starts with `{`.
    pub(crate) first_json: Option<usize>,
    /// The same for `[`.
    pub(crate) first_list: Option<usize>,
    /// Markers dropped where they stand first in the response.
    pub(crate) leading: Vec<String>,
    /// The `first` calls may come right after the reasoning too (a JSON
    /// form with `array_first`).
    pub(crate) first_after_reasoning: bool,
    /// Harmony: the header markers, and the section of its calls.
    pub(crate) harmony: Option<Harmony>,
}

#[derive(Debug)]
pub(crate) struct Harmony {
    /// The descriptor: what a header's channel or recipient means.
    pub env: Envelope,
    pub header: Roles<HeaderMark>,
    /// The section of a call whose content is its JSON arguments.
    pub section: usize,
    /// The section of a call whose content is raw code.
    pub code: usize,
    /// The section a call message's content is, if the envelope has a body.
    pub body: Option<usize>,
    /// Reasoning messages end at these.
    pub analysis: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderMark {
    /// A marker inside a header (`<|channel|>`, `<|constrain|>`).
    Inner,
    Message,
    /// A content marker: ends the header and says what follows.
    Content(ContentKind),
    /// A marker that ends a message cut short: the header is dropped.
    Stop,
}

fn form(calls: &Calls, sec_close: Option<&str>) -> Form {
    match calls {
        Calls::Json {
            name_keys,
            argument_keys,
            id_key,
            joiner,
            name_is_key,
            array_first: _,
        } => Form::Json {
            name_keys: name_keys.clone().into(),
            argument_keys: argument_keys.clone().into(),
            id_key: id_key.clone(),
            joiner: joiner.clone(),
            name_is_key: *name_is_key,
        },
        Calls::Named {
            call,
            name_prefix,
            id,
            args,
            args_optional,
            args_end,
            end,
            indexed_name,
        } => {
            let mut name_end = vec![(args.clone(), NameEnd::Args)];
            if let Some(id) = id {
                name_end.push((id.clone(), NameEnd::Id));
            }
            if *args_optional {
                name_end.push(("{".to_owned(), NameEnd::Brace));
            }
            Form::Named {
                call: call.clone(),
                name_prefix: name_prefix.clone(),
                indexed_name: *indexed_name,
                name_end: Roles::new(name_end),
                after_id: MarkerSet::new(&[args.as_str()]),
                args_end: args_end.as_ref().map(|m| MarkerSet::new(&[m.as_str()])),
                end: end.as_ref().map(|m| MarkerSet::new(&[m.as_str()])),
            }
        }
        Calls::Params {
            call,
            name_end,
            key,
            key_spellings,
            key_end,
            value,
            value_end,
            end,
            trim_line_endings,
            attributes,
            cdata,
            value_type,
        } => {
            let value_type = value_type.as_ref().filter(|_| value.is_some());
            let mut tail = vec![(key.clone(), ParamMark::Key)];
            tail.extend(key_spellings.iter().map(|k| (k.clone(), ParamMark::Key)));
            if let Some(e) = end {
                tail.push((e.clone(), ParamMark::End));
            }
            if let Some(c) = sec_close {
                tail.push((c.to_owned(), ParamMark::Close));
            }
            let mut name: Vec<(String, ParamMark)> = name_end
                .iter()
                .map(|m| (m.clone(), ParamMark::NameEnd))
                .collect();
            name.extend(tail.iter().cloned());
            Form::Params {
                call: call.clone(),
                name: Roles::new(name),
                params: Roles::new(tail.clone()),
                key_end: Roles::new(
                    key_end
                        .iter()
                        .enumerate()
                        .map(|(i, k)| (k.marker.clone(), i))
                        .collect(),
                ),
                key_ends: key_end.clone(),
                value: value.as_ref().map(|m| {
                    let mut pairs = vec![(m.clone(), ParamMark::Value)];
                    if let Some(t) = value_type {
                        pairs.push((t.open.clone(), ParamMark::Type));
                    }
                    pairs.extend(tail.iter().cloned());
                    Roles::new(pairs)
                }),
                type_close: value_type.map(|t| MarkerSet::new(&[t.close.as_str()])),
                value_end: MarkerSet::new(&[value_end.as_str()]),
                trim: *trim_line_endings,
                stops: stops_of(value_end, sec_close, *trim_line_endings),
                ascii_stops: {
                    let mut set = stops_of(value_end, sec_close, *trim_line_endings);
                    for b in 0..=u8::MAX {
                        if !b.is_ascii() || crate::scan::escape::escaped(b) {
                            set.add(b);
                        }
                    }
                    set
                },
                attributes: attributes.clone(),
                cdata: *cdata,
            }
        }
        Calls::Tags {
            call,
            name_end,
            prefix,
            item,
            end,
        } => {
            let mut ends = vec![(end.clone(), BodyMark::End)];
            if let Some(c) = sec_close {
                ends.push((c.to_owned(), BodyMark::Close));
            }
            let mut name: Vec<(String, BodyMark)> = name_end
                .iter()
                .map(|m| (m.clone(), BodyMark::NameEnd))
                .collect();
            name.extend(ends.iter().cloned());
            // In the body every tag is found by its opener and read whole;
            // the end markers written as tags are told by their text.
            let opener = format!("{prefix}<");
            let (as_tags, other): (Vec<_>, Vec<_>) =
                ends.into_iter().partition(|(m, _)| m.starts_with(&opener));
            let mut body = vec![(opener.clone(), BodyMark::Tag)];
            body.extend(other);
            Form::Tags {
                call: call.clone(),
                name: Roles::new(name),
                body: Roles::new(body),
                ends: as_tags,
                opener,
                item: item.clone(),
            }
        }
        Calls::Gemma { call, string } => {
            let mut name = vec![("{".to_owned(), BodyMark::NameEnd)];
            let mut outside = vec![
                (string.clone(), BodyMark::Quote),
                ("{".to_owned(), BodyMark::Open),
                ("[".to_owned(), BodyMark::Open),
                ("}".to_owned(), BodyMark::Shut),
                ("]".to_owned(), BodyMark::Shut),
            ];
            if let Some(c) = sec_close {
                name.push((c.to_owned(), BodyMark::Close));
                outside.push((c.to_owned(), BodyMark::Close));
            }
            Form::Gemma {
                call: call.clone(),
                name: Roles::new(name),
                outside: Roles::new(outside),
                inside: Roles::new(vec![(string.clone(), BodyMark::Quote)]),
            }
        }
        Calls::Python { list } => Form::Python { list: *list },
        Calls::Code { name, key } => Form::Code {
            name: name.clone(),
            key: key.clone(),
        },
    }
}

/// The bytes that end the fast lane through a raw value: the first bytes
/// of its end marker and of the section's closer, and line endings where
/// they are trimmed.
fn stops_of(value_end: &str, sec_close: Option<&str>, trim: bool) -> ByteSet {
    let mut stops = ByteSet::default();
    for m in [Some(value_end), sec_close].into_iter().flatten() {
        if let Some(&b) = m.as_bytes().first() {
            stops.add(b);
        }
    }
    if trim {
        stops.add(b'\r');
        stops.add(b'\n');
    }
    stops
}

fn section(
    dialect: usize,
    open: &str,
    close: Option<&str>,
    calls: &[Calls],
    trailer: &[String],
) -> SectionC {
    let forms: Vec<Form> = calls.iter().map(|c| form(c, close)).collect();
    let mut pairs: Vec<(String, Option<usize>)> = forms
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match f {
            Form::Named { call, .. }
            | Form::Params { call, .. }
            | Form::Tags { call, .. }
            | Form::Gemma { call, .. }
                if !call.is_empty() =>
            {
                Some((call.clone(), Some(i)))
            }
            _ => None,
        })
        .collect();
    if let Some(c) = close {
        pairs.push((c.to_owned(), None));
    }
    let between = Roles::new(pairs);
    SectionC {
        dialect,
        open: open.to_owned(),
        close: close.map(str::to_owned),
        between,
        close_set: close.map(|c| MarkerSet::new(&[c])),
        forms,
        trailer: (!trailer.is_empty()).then(|| MarkerSet::new(trailer)),
    }
}

impl Compiled {
    pub(crate) fn new(dialects: &[Arc<Dialect>], calls_in_reasoning: bool) -> Compiled {
        let mut outer: Vec<(String, Outer)> = Vec::new();
        let mut enclosures_raw: Vec<(usize, String)> = Vec::new();
        // Enclosures whose calls are calls (`Enclosure::calls`), by index.
        let mut calls_inside: Vec<bool> = Vec::new();
        let mut sections = Vec::new();
        let mut first_json = None;
        let mut first_list = None;
        let mut leading = Vec::new();
        let mut first_after_reasoning = false;
        let mut envelope: Option<(usize, Envelope)> = None;
        for (di, d) in dialects.iter().enumerate() {
            // Markers that may carry a token suffix are compiled with a slot.
            let d = &super::suffix::with_slots(d);
            for e in &d.reasoning {
                outer.push((e.open.clone(), Outer::Reason(enclosures_raw.len())));
                enclosures_raw.push((di, e.close.clone()));
                calls_inside.push(e.calls);
            }
            for s in &d.sections {
                outer.push((s.open.clone(), Outer::Section(sections.len())));
                sections.push(section(
                    di,
                    &s.open,
                    s.close.as_deref(),
                    &s.calls,
                    &s.trailer,
                ));
            }
            for m in &d.ignore {
                outer.push((m.clone(), Outer::Ignore));
            }
            leading.extend(d.leading.iter().filter(|m| !m.is_empty()).cloned());
            for c in &d.first {
                let idx = sections.len();
                let sec = section(di, "", None, std::slice::from_ref(c), &[]);
                let array_first = matches!(
                    c,
                    Calls::Json {
                        array_first: true,
                        ..
                    }
                );
                first_after_reasoning |= array_first;
                let mut used = false;
                for (slot, fits) in [
                    (
                        &mut first_list,
                        array_first || matches!(c, Calls::Python { .. }),
                    ),
                    (&mut first_json, !matches!(c, Calls::Python { .. })),
                ] {
                    if fits && slot.is_none() {
                        *slot = Some(idx);
                        used = true;
                    }
                }
                if used {
                    sections.push(sec);
                }
            }
            if let (Some(env), None) = (d.recipient_envelope(), &envelope) {
                for m in &env.header {
                    outer.push((m.clone(), Outer::Header));
                }
                for c in &env.contents {
                    outer.push((c.marker.clone(), Outer::Content(c.kind)));
                }
                for m in env.dropped() {
                    outer.push((m, Outer::Ignore));
                }
                envelope = Some((di, env));
            }
        }
        // A marker shared by two dialects plays the role of the first.
        let mut seen = std::collections::HashSet::new();
        outer.retain(|(m, _)| seen.insert(m.clone()));
        // A call body of an envelope opens only in a call message.
        let bodies = sections.len();
        let section_opens: Vec<(String, Inner)> = if calls_in_reasoning {
            sections[..bodies]
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.open.is_empty())
                .map(|(i, s)| (s.open.clone(), Inner::Section(i)))
                .collect()
        } else {
            Vec::new()
        };
        // The openers of the sections of dialects whose calls end their
        // reasoning, by dialect.
        let ending: Vec<(usize, String, Inner)> = sections
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.open.is_empty())
            .filter(|(_, s)| {
                dialects
                    .get(s.dialect)
                    .is_some_and(|d| d.calls_end_reasoning)
            })
            .map(|(i, s)| (s.dialect, s.open.clone(), Inner::Ends(i)))
            .collect();
        let ending_opens = |of: &dyn Fn(usize) -> bool| -> Vec<(String, Inner)> {
            ending
                .iter()
                .filter(|(d, _, _)| of(*d))
                .map(|(_, m, r)| (m.clone(), *r))
                .collect()
        };
        let reasoning_set = |closes: Vec<String>, headers: bool, ending: Vec<(String, Inner)>| {
            let mut pairs: Vec<(String, Inner)> =
                closes.into_iter().map(|c| (c, Inner::Close)).collect();
            if headers {
                if let Some((_, env)) = &envelope {
                    pairs.extend(env.header.iter().map(|m| (m.clone(), Inner::Header)));
                }
            }
            pairs.extend(section_opens.iter().cloned());
            pairs.extend(ending);
            let mut seen = std::collections::HashSet::new();
            pairs.retain(|(m, _)| seen.insert(m.clone()));
            Roles::new(pairs)
        };
        // The openers of a dialect's sections, read as calls inside its
        // enclosures whose `calls` is on.
        let opens: Vec<(usize, String, Inner)> = sections[..bodies]
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.open.is_empty())
            .map(|(i, s)| (s.dialect, s.open.clone(), Inner::Section(i)))
            .collect();
        let opens_of = |di: usize| -> Vec<(String, Inner)> {
            opens
                .iter()
                .filter(|(d, _, _)| *d == di)
                .map(|(_, m, r)| (m.clone(), *r))
                .collect()
        };
        let mut enclosures: Vec<Roles<Inner>> = enclosures_raw
            .iter()
            .zip(&calls_inside)
            .map(|((di, c), &calls)| {
                let mut inside = ending_opens(&|d| d == *di);
                if calls {
                    inside.extend(opens_of(*di));
                }
                reasoning_set(vec![c.clone()], false, inside)
            })
            .collect();
        let closes: Vec<Vec<String>> = enclosures_raw
            .iter()
            .map(|(_, c)| vec![c.clone()])
            .collect();
        let mut all_closes: Vec<String> = enclosures_raw.iter().map(|(_, c)| c.clone()).collect();
        let harmony = envelope.as_ref().map(|(di, env)| {
            let di = *di;
            let analysis = enclosures.len();
            enclosures.push(reasoning_set(env.end.clone(), true, Vec::new()));
            all_closes.extend(env.end.iter().cloned());
            // A call message ends at the first end marker.
            let call_end = env.end.first().map(String::as_str);
            let idx = sections.len();
            let mut sec = section(di, "", call_end, &[], &[]);
            sec.forms.push(Form::Harmony);
            sections.push(sec);
            let code = sections.len();
            let mut sec = section(di, "", call_end, &[], &[]);
            sec.forms.push(Form::Code {
                name: String::new(),
                key: "code".to_owned(),
            });
            sections.push(sec);
            let body = env.body.as_ref().map(|b| {
                let b = super::suffix::with_slots(&Dialect {
                    sections: vec![b.clone()],
                    ..(*dialects[di]).clone()
                })
                .sections
                .remove(0);
                sections.push(section(
                    di,
                    &b.open,
                    b.close.as_deref(),
                    &b.calls,
                    &b.trailer,
                ));
                sections.len() - 1
            });
            let mut marks: Vec<(String, HeaderMark)> =
                vec![(env.message.clone(), HeaderMark::Message)];
            marks.extend(
                env.contents
                    .iter()
                    .map(|c| (c.marker.clone(), HeaderMark::Content(c.kind))),
            );
            marks.extend(env.inner.iter().map(|m| (m.clone(), HeaderMark::Inner)));
            marks.extend(env.stops().into_iter().map(|m| (m, HeaderMark::Stop)));
            let mut seen = std::collections::HashSet::new();
            marks.retain(|(m, _)| seen.insert(m.clone()));
            Harmony {
                env: env.clone(),
                header: Roles::new(marks),
                section: idx,
                code,
                body,
                analysis,
            }
        });
        all_closes.dedup();
        let mut inside_any = ending_opens(&|_| true);
        for ((di, _), _) in enclosures_raw.iter().zip(&calls_inside).filter(|(_, &c)| c) {
            inside_any.extend(opens_of(*di));
        }
        let any_close = reasoning_set(all_closes.clone(), harmony.is_some(), inside_any);
        Compiled {
            dialects: dialects.to_vec(),
            outer: Roles::new(outer),
            enclosures,
            any_close,
            // Sets, not strings: a closer may carry a token suffix.
            closes: closes.iter().map(|c| MarkerSet::new(c)).collect(),
            all_closes: MarkerSet::new(&all_closes),
            sections,
            first_json,
            first_list,
            leading,
            first_after_reasoning,
            harmony,
        }
    }

    /// The tag of actions from section `i`: its dialect's name.
    pub fn tag(&self, section: usize) -> &str {
        self.sections
            .get(section)
            .and_then(|s| self.dialects.get(s.dialect))
            .map_or("", |d| d.name.as_str())
    }
}
