//! A section's end: its calls end together (complete or invalid, in order), at a
//! closer, at the block limit, or at the end of input.

use super::*;

impl DialectMachine {
    pub(super) fn json_error(&self, block_from: usize, at: usize, message: &str) -> ActionError {
        let raw = self.text(block_from, self.end());
        syntax_error(raw, at.saturating_sub(block_from), "the JSON", message)
    }

    /// Ends the section at `to`: its calls end together.
    pub(in crate::parser::dialect) fn end_section(
        &mut self,
        sec: &mut Sec,
        to: usize,
        emit: &mut Emit<'_>,
    ) {
        self.end_section_with(sec, to, None, emit);
    }

    pub(super) fn end_section_with(
        &mut self,
        sec: &mut Sec,
        to: usize,
        fail: Option<ActionError>,
        emit: &mut Emit<'_>,
    ) {
        self.pos = to;
        if sec.calls.is_empty() {
            // A section with no call in it is text.
            self.text_to(to, sec.reasoning.is_some(), emit);
        } else {
            let raw: Arc<str> = self.text(sec.from, to).into();
            let span = Span {
                start: sec.from,
                end: to,
            };
            let repairs: Arc<[Repair]> = {
                let mut walk = LineWalk::new(&raw);
                let mut list: Vec<(RepairKind, usize)> = std::mem::take(&mut sec.repairs);
                list.sort_by_key(|r| r.1);
                list.iter()
                    .map(|(kind, at)| {
                        let (line, column) = walk.to(at.saturating_sub(sec.from));
                        Repair {
                            kind: *kind,
                            line,
                            column,
                        }
                    })
                    .collect()
            };
            let tag = self.c.tag(sec.idx).to_owned();
            let cfg = &self.shared.cfg;
            for call in std::mem::take(&mut sec.calls) {
                let id = match call.id {
                    Some(id) => id,
                    None => emit.start(call.name.clone(), Syntax::Dialect, &tag),
                };
                let result = match (&fail, call.args) {
                    (Some(e), _) => Err(e.clone()),
                    (None, Some(r)) => r,
                    (None, None) => Err(sec.broken.clone().unwrap_or_else(|| {
                        ActionError::new(
                            ErrorKind::CutOff,
                            "",
                            "the call was cut off before its arguments ended",
                        )
                    })),
                };
                let attributes: Vec<(String, String)> = call
                    .call_id
                    .iter()
                    .map(|c| ("call_id".to_owned(), c.clone()))
                    .collect();
                let errors = match (&result, &call.name) {
                    (Ok(args), Some(name)) => validate(cfg, name, args),
                    (Err(e), _) => vec![e.clone()],
                    (Ok(_), None) => vec![ActionError::new(
                        ErrorKind::NoName,
                        "",
                        "the call has no name",
                    )],
                };
                let event = match (result, call.name) {
                    (Ok(arguments), Some(name)) if errors.is_empty() => {
                        Event::ActionComplete(Box::new(Action {
                            id: ActionId(id),
                            name,
                            arguments,
                            syntax: Syntax::Dialect,
                            tag: tag.clone(),
                            attributes,
                            raw: raw.clone(),
                            span: Some(span),
                            repairs: repairs.clone(),
                        }))
                    }
                    (_, name) => Event::ActionInvalid(Box::new(InvalidAction {
                        id: ActionId(id),
                        name,
                        errors,
                        syntax: Syntax::Dialect,
                        tag: tag.clone(),
                        raw: raw.clone(),
                        span: Some(span),
                    })),
                };
                emit.push(event);
            }
            self.start = to;
            if let Some(enc) = sec.closer_due {
                // The calls ended the reasoning: its closer may follow.
                self.state = DState::CloserDue(enc);
                return;
            }
        }
        self.resume(sec.reasoning);
    }

    /// The section grew past the block limit: its calls are invalid with
    /// what was read, and the rest up to its closer is narrative.
    pub(super) fn too_large(&mut self, mut sec: Box<Sec>, emit: &mut Emit<'_>) {
        let limit = self.shared.cfg.max_block_bytes;
        let to = self.pos;
        let e = self.open_at_closer(
            &sec,
            &format!("the section grew past the block limit of {limit} bytes"),
        );
        if self.rewind(&mut sec, to, e, emit) {
            return;
        }
        if sec.calls.is_empty() {
            sec.calls.push(Call::default());
        }
        let e = ActionError::new(
            ErrorKind::TooLarge,
            "",
            format!("the call section is larger than the block limit of {limit} bytes"),
        );
        self.end_section_with(&mut sec, to, Some(e), emit);
        let c = self.c.clone();
        if let Some(set) = &c.sections[sec.idx].close_set {
            self.ms = set.begin();
            self.state = DState::Skip { section: sec.idx };
        }
    }

    /// The end of input inside a section. Whether the section went back
    /// to its first closer (the text after it is then still to be read).
    pub(in crate::parser::dialect) fn section_at_eof(&mut self, emit: &mut Emit<'_>) -> bool {
        let DState::Section(mut sec) = std::mem::replace(&mut self.state, DState::Detached) else {
            return false;
        };
        let end = self.end();
        self.pos = end;
        if sec.tentative {
            self.narrative_to(end, emit);
            self.state = DState::Text;
            return false;
        }
        if let Read::Code { .. } = sec.read {
            // Code ends where the response does.
            self.finish_code(&mut sec, end, emit);
        }
        // A value cut off after it passed a closer: the call, or the
        // section, ends at that first closer.
        let cut_off = match &mut sec.read {
            Read::Json { scanner, .. } | Read::Args(scanner) => !scanner.finish_value(),
            Read::Python(_) | Read::Value { .. } => true,
            _ => false,
        };
        if cut_off {
            self.watch_to(&mut sec, end);
            let e = self.open_at_closer(&sec, "never ended");
            if self.rewind(&mut sec, end, e, emit) {
                if matches!(self.state, DState::Detached) {
                    self.state = DState::Section(sec);
                }
                return true;
            }
        }
        let has_closer = self.c.sections[sec.idx].close.is_some();
        match std::mem::replace(&mut sec.read, Read::Close) {
            Read::Json { mut scanner, slots } => {
                scanner.finish_value();
                sec.read = Read::Json { scanner, slots };
                self.collect_slots(&mut sec);
            }
            Read::Python(mut reader) => {
                // Whatever it says, the call it was reading is cut off.
                reader.finish(&mut Vec::new());
            }
            Read::JsonAfter { at } | Read::Trailer { at } if !has_closer => {
                self.end_section(&mut sec, at, emit);
                self.pos = end;
                self.narrative_to(end, emit);
                return false;
            }
            _ => {}
        }
        if has_closer && !sec.calls.is_empty() {
            if self.shared.cfg.strict {
                let e = ActionError::new(
                    ErrorKind::CutOff,
                    "",
                    "the call section was not closed before the end of the response",
                );
                for call in &mut sec.calls {
                    if call.args.as_ref().is_some_and(Result::is_ok) {
                        call.args = Some(Err(e.clone()));
                    }
                }
            } else if sec.calls.iter().all(|c| c.args.is_some()) {
                sec.repairs.push((RepairKind::MissingCloser, end));
            }
        }
        self.end_section(&mut sec, end, emit);
        false
    }
}
