//! The borrowing push path: prose pushed in small pieces is lent from the
//! pieces themselves, with no allocation, and the path gives the events the
//! collecting path gives (the oracle runs both at every chunking; this file
//! checks what the oracle cannot see: that nothing is allocated or copied).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use actionstream::{EventRef, Parser};

/// Counts the allocations each thread makes (the test harness allocates
/// on other threads meanwhile; tests here also run one at a time, under
/// `ALLOCS_LOCK`).
struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
    /// Bytes this thread has allocated and not freed, and the most of
    /// them since [`reset_peak`].
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

/// Starts a new peak at what is live now; returns it.
fn reset_peak() -> isize {
    let live = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(live));
    live
}

fn peak() -> isize {
    PEAK.with(Cell::get)
}
static ALLOCS_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Allocations this thread has made so far.
fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with`: a thread's own locals may be gone as it ends.
        let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
        let _ = LIVE.try_with(|l| {
            l.set(l.get() + layout.size() as isize);
            let _ = PEAK.try_with(|p| p.set(p.get().max(l.get())));
        });
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = LIVE.try_with(|l| l.set(l.get() - layout.size() as isize));
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Prose: lines that start with letters, inline code, a `<` that opens no
/// tag because a space follows it in the same piece... or not: a `<` at a
/// piece's end must be held (it may begin `<action_call>`), and held text
/// is lent from the parser's buffer. So the prose here has none.
fn prose() -> String {
    let line = "Plain words, `inline code` and **bold**; 3 > 2, more words here.\n";
    line.repeat(200)
}

#[test]
fn prose_in_small_pieces_allocates_nothing_and_is_lent_from_the_pieces() {
    let _one = ALLOCS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let text = prose();
    for size in [1usize, 3, 4, 7, 16] {
        for first in 1..=size {
            let mut pieces = vec![&text[..first]];
            let mut at = first;
            while at < text.len() {
                let end = (at + size).min(text.len());
                pieces.push(&text[at..end]);
                at = end;
            }
            let mut parser = Parser::default();
            let mut got = String::with_capacity(text.len());
            let mut borrowed = true;
            // The first line warms the parser (its first pushes may size
            // buffers); after it, no piece may allocate.
            let warm = pieces.iter().position(|p| p.contains('\n')).unwrap_or(0) + 1;
            let mut before = 0;
            for (i, piece) in pieces.iter().enumerate() {
                if i == warm {
                    before = allocs();
                }
                parser.push_with(piece, |e| match e {
                    EventRef::Narrative(t) => {
                        let inside = piece.as_ptr() as usize..piece.as_ptr() as usize + piece.len();
                        borrowed &= inside.contains(&(t.as_ptr() as usize)) || t.is_empty();
                        got.push_str(t);
                    }
                    other => panic!("only narrative here, got {other:?}"),
                });
            }
            let made = allocs() - before;
            parser.finish_with(|e| match e {
                EventRef::Narrative(t) => got.push_str(t),
                other => panic!("only narrative here, got {other:?}"),
            });
            assert_eq!(got, text, "pieces of {size}, first {first}");
            assert!(
                borrowed,
                "pieces of {size}, first {first}: narrative not lent from the piece"
            );
            assert_eq!(
                made, 0,
                "pieces of {size}, first {first}: {made} allocations"
            );
        }
    }
}

#[test]
fn bytes_cut_inside_characters_still_give_the_text() {
    let _one = ALLOCS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let text = "Prosa: café, naïve, 😀 and <b>bold</b>.\n".repeat(20);
    for size in 1..=9 {
        let mut parser = Parser::default();
        let mut got = String::new();
        for piece in text.as_bytes().chunks(size) {
            parser.push_bytes_with(piece, |e| {
                if let EventRef::Narrative(t) = e {
                    got.push_str(t)
                }
            });
        }
        parser.finish_with(|e| {
            if let EventRef::Narrative(t) = e {
                got.push_str(t)
            }
        });
        assert_eq!(got, text, "{size}-byte pieces");
    }
}

#[test]
fn actions_come_through_the_borrowing_path_in_order() {
    let _one = ALLOCS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let text = "Before.\n```json\n{\"action\": \"search\", \"q\": \"x\"}\n```\nAfter <action_call name=\"f\">{}</action_call> end.";
    let whole = actionstream::oracle::check(&actionstream::Config::default(), text);
    for size in 1..=8 {
        let got = actionstream::oracle::run_chunks_borrowed(
            &actionstream::Config::default(),
            text.as_bytes().chunks(size),
        );
        assert_eq!(got, whole, "{size}-byte pieces");
    }
}

/// A response of many kilobytes with a multi-byte character at every
/// offset near each 1 KiB mark, and blocks across the marks: a long push is
/// read in slices cut at character boundaries, and the slices give what
/// any other cutting gives (the oracle: whole on both paths, every split,
/// one byte at a time).
#[test]
fn a_long_push_read_in_slices_gives_what_every_cutting_gives() {
    let _one = ALLOCS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut text = String::new();
    let mut n = 0;
    while text.len() < 5000 {
        // Shifted by one byte a round, so a character of 2, 3 and 4 bytes
        // falls across each mark at every offset.
        text.push_str(&"a".repeat(n % 7));
        text.push_str("é 😀 ✓ naïve prose\n");
        text.push_str(&format!(
            "```json\n{{\"action\": \"note\", \"text\": \"ü{n} 😀 {}\"}}\n```\n",
            "x".repeat(n * 37 % 300)
        ));
        text.push_str(&format!(
            "<action_call name=\"f{n}\">{{\"k\": \"✓\"}}</action_call>\n"
        ));
        n += 1;
    }
    let config = actionstream::Config::default();
    let whole = actionstream::oracle::check(&config, &text);
    let done = whole
        .iter()
        .filter(|e| matches!(e, actionstream::Event::ActionComplete(_)))
        .count();
    assert_eq!(done, 2 * n, "every block completes");
}

/// A whole push of a long action-heavy response holds a slice of it at a
/// time, not all of it: the parser's own memory at its peak stays far
/// below the response's length (the events lent are dropped as they go).
#[test]
fn a_long_push_is_held_a_slice_at_a_time() {
    let _one = ALLOCS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let block = "Some prose before the call, a line of it.\n```json\n{\"action\": \"search\", \"query\": \"rust streaming parsers\", \"limit\": 10}\n```\n";
    let blocks = (1 << 20) / block.len() + 1;
    let text = block.repeat(blocks);
    let mut parser = Parser::default();
    let mut completed = 0;
    let base = reset_peak();
    parser.push_with(&text, |e| {
        if let EventRef::Action(actionstream::Event::ActionComplete(_)) = e {
            completed += 1;
        }
    });
    let held = peak() - base;
    parser.finish_with(|_| {});
    assert_eq!(completed, blocks);
    assert!(
        held < 64 * 1024,
        "a {} B push held {held} B at its peak",
        text.len()
    );
}

/// A long raw value in a dialect call (`glm`, `qwen3_coder`), argument
/// deltas on, pushed in 4-byte pieces through the borrowing path: the
/// pieces of the value the machine's fast lane takes whole are lent from
/// one reused event, so the pushes allocate next to nothing (the buffer
/// that keeps the value grows by doubling, and so does the string the
/// test joins the pieces in), and the lent events merge to the collected
/// ones.
#[test]
fn a_long_dialect_value_is_streamed_with_no_allocation_a_push() {
    use actionstream::dialect::Dialect;
    use actionstream::{Config, Event};
    let _one = ALLOCS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // No byte that stops the lane (`<`, a line ending): every push inside
    // the value takes it whole.
    let value = "let x = compute(a, b) + c; // step and more words here; ".repeat(300);
    for (dialect, text) in [
        (
            "glm",
            format!("Writing.\n<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>{value}</arg_value>\n</tool_call>"),
        ),
        (
            "qwen3_coder",
            format!("Writing.\n<tool_call>\n<function=write_file>\n<parameter=content>\n{value}\n</parameter>\n</function>\n</tool_call>"),
        ),
    ] {
        let cfg = Config::default()
            .dialect(Dialect::builtin(dialect).expect("a built-in dialect"))
            .argument_deltas(true);
        let start = text.find("let x").expect("the value");
        // Pushes wholly inside the value, past its first 64 bytes.
        let window = start + 64..start + value.len();
        let pieces: Vec<&[u8]> = text.as_bytes().chunks(4).collect();
        let mut parser = Parser::new(cfg.clone());
        let mut events: Vec<Event> = Vec::new();
        let (mut made, mut inside, mut pushed) = (0, 0, 0);
        for piece in &pieces {
            let counted = window.contains(&pushed) && window.contains(&(pushed + piece.len()));
            let before = allocs();
            parser.push_bytes_with(piece, |e| match (e, events.last_mut()) {
                (
                    EventRef::Action(Event::ArgumentsDelta { id, json }),
                    Some(Event::ArgumentsDelta { id: last, json: joined }),
                ) if last == id => joined.push_str(json),
                (e, _) => events.push(e.to_event()),
            });
            if counted {
                made += allocs() - before;
                inside += 1;
            }
            pushed += piece.len();
        }
        parser.finish_with(|e| events.push(e.to_event()));
        assert!(inside > 4000, "{dialect}: {inside} pushes inside the value");
        assert!(
            made < 64,
            "{dialect}: {made} allocations in {inside} pushes inside the value"
        );
        let lent = actionstream::oracle::merge(events);
        assert_eq!(
            lent,
            actionstream::oracle::run_chunks(&cfg, pieces.iter().copied()),
            "{dialect}: lent events merge to the collected ones"
        );
        assert!(lent.iter().any(|e| matches!(e, Event::ActionComplete(_))));
    }
}

/// ASCII `text` in pieces of `size` bytes.
fn ascii_pieces(text: &str, size: usize) -> Vec<&str> {
    text.as_bytes()
        .chunks(size)
        .map(|c| std::str::from_utf8(c).expect("ASCII"))
        .collect()
}

/// A model dialect's reasoning and narrative, pushed in small pieces
/// through the borrowing path: a piece with no byte that could begin one of
/// the dialect's markers is lent from the piece itself as reasoning or
/// narrative, with no allocation (the dialect machine's hot case,
/// `DialectMachine::take_plain`), and what is lent is what is collected.
#[test]
fn dialect_reasoning_and_narrative_in_small_pieces_allocate_nothing() {
    use actionstream::dialect::Dialect;
    use actionstream::{Config, Event};
    let _one = ALLOCS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let words = "Plain words, numbers 1 2 3; and more words: here is some text.\n".repeat(40);
    for (dialect, open, close) in [
        ("hermes", "<think>", "</think>"),
        ("mistral", "[THINK]", "[/THINK]"),
        ("seed_oss", "<seed:think>", "</seed:think>"),
        ("deepseek_v31", "<think>", "</think>"),
    ] {
        let text = format!("{open}{words}{close}{words}");
        // Windows well inside the reasoning and the narrative.
        let reasoning = open.len() + 16..open.len() + words.len() - 16;
        let narrative = reasoning.end + 32 + close.len()..text.len() - 16;
        let cfg = Config::default().dialect(Dialect::builtin(dialect).expect("a built-in dialect"));
        for size in [1usize, 3, 4, 7, 16] {
            let pieces = ascii_pieces(&text, size);
            let mut parser = Parser::new(cfg.clone());
            // Room enough that joining the lent text allocates nothing.
            let mut got = [
                String::with_capacity(text.len()),
                String::with_capacity(text.len()),
            ];
            let (mut made, mut counted, mut lent, mut pushed) = (0, 0, 0, 0);
            for piece in &pieces {
                let span = pushed..pushed + piece.len();
                let inside = [&reasoning, &narrative]
                    .iter()
                    .any(|w| w.contains(&span.start) && w.contains(&span.end));
                let at = piece.as_ptr() as usize..piece.as_ptr() as usize + piece.len();
                let before = allocs();
                parser.push_with(piece, |e| {
                    let (kind, t) = match e {
                        EventRef::Reasoning(t) => (0, t),
                        EventRef::Narrative(t) => (1, t),
                        other => panic!("{dialect}: only reasoning and narrative, got {other:?}"),
                    };
                    lent += usize::from(inside && at.contains(&(t.as_ptr() as usize)));
                    got[kind].push_str(t);
                });
                if inside {
                    made += allocs() - before;
                    counted += 1;
                }
                pushed += piece.len();
            }
            parser.finish_with(|e| match e {
                EventRef::Narrative(t) => got[1].push_str(t),
                other => panic!("{dialect}: nothing but narrative held at the end, got {other:?}"),
            });
            let what = format!("{dialect}, pieces of {size}");
            assert!(counted > 40, "{what}: {counted} pushes counted");
            assert_eq!(lent, counted, "{what}: pushes lent from the piece");
            assert_eq!(made, 0, "{what}: {made} allocations in {counted} pushes");
            let [r, n] = got;
            assert_eq!(
                actionstream::oracle::run_chunks(&cfg, pieces.iter().map(|p| p.as_bytes())),
                [Event::Reasoning(r), Event::Narrative(n)],
                "{what}: what is lent is what is collected"
            );
        }
    }
}

/// Narrative the parser had to hold back (a line start it probed, a `<`
/// that might open a tag, a fenced block that is not an action's, a
/// backtick run) is lent from the parser's own buffer once it is certain,
/// with no string made for it: pushed in small pieces, once the parser is
/// warm, nothing allocates, and what is lent is what is collected. The
/// same with a model dialect chosen beside the actions (its machine hands
/// its narrative to the main machine, which lends it through the dialect
/// machine's output), and a `<` the dialect's markers could begin too. (A
/// fence's info word is read into a string of its own, one a fenced block,
/// not a push: the fence here has none.)
#[test]
fn held_narrative_is_lent_from_the_buffer_with_no_allocation() {
    use actionstream::dialect::Dialect;
    use actionstream::{Config, Event};
    let _one = ALLOCS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let part = "Some words < not a tag, a <b>bold</b> one, `code` and ``more``.\n\
                - a list item\n\
                ## A heading\n\
                \n\
                ```\n\
                def f(x):\n    return x < 2\n\
                ```\n\
                1. numbered, then plain.\n";
    let text = part.repeat(30);
    let configs = [
        ("actions", Config::default()),
        (
            "hermes beside the actions",
            Config::default()
                .dialect(Dialect::builtin("hermes").expect("a built-in dialect"))
                .actions(true),
        ),
    ];
    for (what, cfg) in &configs {
        for size in [1usize, 3, 4, 7, 16] {
            let pieces = ascii_pieces(&text, size);
            let mut parser = Parser::new(cfg.clone());
            let mut got = String::with_capacity(text.len());
            // The first parts warm the parser (its buffers take their size).
            let warm = 4 * part.len() / size;
            let mut before = 0;
            for (i, piece) in pieces.iter().enumerate() {
                if i == warm {
                    before = allocs();
                }
                parser.push_with(piece, |e| match e {
                    EventRef::Narrative(t) => got.push_str(t),
                    other => panic!("{what}: only narrative here, got {other:?}"),
                });
            }
            let made = allocs() - before;
            parser.finish_with(|e| match e {
                EventRef::Narrative(t) => got.push_str(t),
                other => panic!("{what}: only narrative here, got {other:?}"),
            });
            assert_eq!(made, 0, "{what}, pieces of {size}: {made} allocations");
            assert_eq!(
                actionstream::oracle::run_chunks(cfg, pieces.iter().map(|p| p.as_bytes())),
                [Event::Narrative(got)],
                "{what}, pieces of {size}: what is lent is what is collected"
            );
        }
    }
}
