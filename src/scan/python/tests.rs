//! The Python call reader at every splitting of its input.
use super::*;
use crate::chunking::ChunkSizes;
use serde_json::json;

const DEPTH: usize = 64;

/// Feeds `pieces` in order to a new reader, then finishes it. Returns
/// the events as reported and the bytes consumed.
fn feed_pieces<'a>(
    mode: PyMode,
    max_depth: usize,
    pieces: impl IntoIterator<Item = &'a str>,
) -> (Vec<PyEvent>, usize) {
    let mut r = PyCalls::new(mode, max_depth);
    let mut events = Vec::new();
    let mut consumed = 0;
    for p in pieces {
        let was_done = r.done();
        let n = r.feed(p, &mut events);
        if was_done {
            assert_eq!(n, 0, "a closed reader consumes nothing");
        }
        assert!(n == p.len() || r.done(), "only a closed reader stops early");
        consumed += n;
    }
    let before = events.len();
    r.finish(&mut events);
    if r.done() {
        assert_eq!(
            events.len(),
            before,
            "finish after the close reports nothing"
        );
    }
    (events, consumed)
}

/// Adjacent `Args` joined.
fn merge(events: &[PyEvent]) -> Vec<PyEvent> {
    let mut out: Vec<PyEvent> = Vec::new();
    for e in events {
        match (out.last_mut(), e) {
            (Some(PyEvent::Args(a)), PyEvent::Args(b)) => a.push_str(b),
            _ => out.push(e.clone()),
        }
    }
    out
}

/// The event stream is well formed: `Args` only inside a call and never
/// empty, nothing after an error, and each call's pieces join to JSON
/// that parses to exactly its `End` arguments.
fn check_shape(events: &[PyEvent]) {
    let mut open: Option<String> = None;
    let mut failed = false;
    for e in events {
        assert!(!failed, "an event after an error: {e:?}");
        match e {
            PyEvent::Start { .. } => {
                assert!(open.is_none(), "a call starts inside a call");
                open = Some(String::new());
            }
            PyEvent::Args(piece) => {
                assert!(!piece.is_empty(), "an empty Args piece");
                open.as_mut().expect("Args outside a call").push_str(piece);
            }
            PyEvent::End { arguments, .. } => {
                let json = open.take().expect("End outside a call");
                let parsed: Value = serde_json::from_str(&json)
                    .unwrap_or_else(|e| panic!("Args {json:?} are not JSON: {e}"));
                assert_eq!(&parsed, arguments, "Args {json:?}");
                // Keys in order too.
                assert_eq!(parsed.to_string(), arguments.to_string());
            }
            PyEvent::Error { .. } => failed = true,
        }
    }
}

/// `text` cut at char boundaries: whole, one char at a time, at every
/// two-way split (every 97th beyond 4 KB), and at seeded random sizes.
fn splittings(text: &str) -> Vec<Vec<&str>> {
    let mut all = vec![vec![text]];
    all.push(
        text.char_indices()
            .map(|(i, c)| &text[i..i + c.len_utf8()])
            .collect(),
    );
    let stride = if text.len() > 4096 { 97 } else { 1 };
    for (k, (i, _)) in text.char_indices().enumerate().skip(1) {
        if k % stride == 0 {
            all.push(vec![&text[..i], &text[i..]]);
        }
    }
    for seed in 1..=6u64 {
        for max in [2, 3, 5, 8, 16, 64] {
            let mut sizes = ChunkSizes::new(seed, max);
            let mut pieces = Vec::new();
            let mut at = 0;
            while at < text.len() {
                let mut end = (at + sizes.next().unwrap_or(1)).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                pieces.push(&text[at..end]);
                at = end;
            }
            all.push(pieces);
        }
    }
    all
}

/// Reads `text` at every splitting; all must give the same merged events
/// and consume the same bytes. Returns those.
fn read_with(mode: PyMode, max_depth: usize, text: &str) -> (Vec<PyEvent>, usize) {
    let mut first: Option<(Vec<PyEvent>, usize)> = None;
    for pieces in splittings(text) {
        let (events, consumed) = feed_pieces(mode, max_depth, pieces.iter().copied());
        check_shape(&events);
        let merged = merge(&events);
        match &first {
            None => first = Some((merged, consumed)),
            Some((want, n)) => {
                assert_eq!(&merged, want, "pieces {pieces:?}");
                assert_eq!(consumed, *n, "consumed, pieces {pieces:?}");
            }
        }
    }
    first.unwrap_or_default()
}

fn read(text: &str) -> (Vec<PyEvent>, usize) {
    read_with(PyMode::List, DEPTH, text)
}

/// The calls of a list that reads without error, closed by its last
/// byte.
fn calls(text: &str) -> Vec<(String, Value)> {
    let (events, consumed) = read(text);
    assert_eq!(consumed, text.len(), "{events:?}");
    let mut out = Vec::new();
    let mut name = None;
    for e in events {
        match e {
            PyEvent::Start { name: n, .. } => name = Some(n),
            PyEvent::End { arguments, .. } => {
                out.push((name.take().unwrap_or_default(), arguments));
            }
            PyEvent::Args(_) => {}
            PyEvent::Error { message, at } => panic!("error at {at}: {message}"),
        }
    }
    out
}

/// The arguments of the one call in `[f(<args>)]`.
fn args(inner: &str) -> Value {
    args_of(&format!("[f({inner})]"))
}

/// The arguments of the one call in `text`.
fn args_of(text: &str) -> Value {
    let got = calls(text);
    assert_eq!(got.len(), 1);
    got[0].1.clone()
}

/// The error `text` gives (read as a list, with the nesting limit).
fn error_with(mode: PyMode, max_depth: usize, text: &str) -> (String, usize) {
    let (events, _) = read_with(mode, max_depth, text);
    match events.last() {
        Some(PyEvent::Error { message, at }) => (message.clone(), *at),
        other => panic!("no error for {text:?}: {other:?}"),
    }
}

fn error(text: &str) -> (String, usize) {
    error_with(PyMode::List, DEPTH, text)
}

#[test]
fn a_simple_call_reports_its_name_then_its_arguments() {
    let text = "[get_weather(city='San Francisco', metric='celsius')]";
    let (events, consumed) = read(text);
    assert_eq!(consumed, text.len());
    assert_eq!(
        events,
        [
            PyEvent::Start {
                name: "get_weather".into(),
                at: 1
            },
            PyEvent::Args(r#"{"city":"San Francisco","metric":"celsius"}"#.into()),
            PyEvent::End {
                arguments: json!({"city": "San Francisco", "metric": "celsius"}),
                at: text.len() - 1
            },
        ]
    );
}

#[test]
fn parallel_calls_with_every_kind_of_value() {
    let text = "[get_weather(city='San Francisco', metric='celsius'), \
        register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, \
        role=None, passed_test=True, aliases=['John', 'Johnny'])]";
    let (events, _) = read(text);
    assert_eq!(
        events[4],
        PyEvent::Args(
            r#"{"name":"John Doe","age":37,"address":{"city":"San Francisco","state":"CA"},"role":null,"passed_test":true,"aliases":["John","Johnny"]}"#
                .into()
        )
    );
    let got = calls(text);
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].0, "register_user");
    assert_eq!(got[1].1["address"]["state"], "CA");
}

#[test]
fn parameterless_calls_empty_containers_and_an_empty_list() {
    assert_eq!(
        calls("[get_weather()]"),
        [("get_weather".into(), json!({}))]
    );
    assert_eq!(args("additional_data={}"), json!({"additional_data": {}}));
    assert_eq!(args("steps=[]"), json!({"steps": []}));
    assert_eq!(args("a=1,"), json!({"a": 1}), "a trailing comma");
    assert_eq!(calls("[]"), []);
    assert_eq!(calls(" [ \n ] "[..6].trim_start()), []);
    let (events, consumed) = read("  [ping(), pong( ) ,]\nThen some text.");
    assert_eq!(consumed, 21);
    assert_eq!(events.len(), 6);
}

#[test]
fn escapes_are_read_as_python_reads_them() {
    let a = args(r#"city='Martha\'s Vineyard', metric='\"cool units\"'"#);
    assert_eq!(
        a,
        json!({"city": "Martha's Vineyard", "metric": "\"cool units\""})
    );
    let a = args(r#"text="She said \"Hello\" to him", mixed="It's \"quoted\"", single='say "hi"'"#);
    assert_eq!(a["text"], "She said \"Hello\" to him");
    assert_eq!(a["mixed"], "It's \"quoted\"");
    assert_eq!(a["single"], "say \"hi\"");
    let a = args(
        r"a='x\ny\tz', b='caf\u00e9', c='\x41\102', d='\d\\', e='\U0001F600\ud83d\ude00', f='\a\v\0', g='one \
two'",
    );
    assert_eq!(a["a"], "x\ny\tz");
    assert_eq!(a["b"], "café");
    assert_eq!(a["c"], "AB");
    assert_eq!(a["d"], "\\d\\", "an unknown escape keeps its backslash");
    assert_eq!(a["e"], "😀😀");
    assert_eq!(a["f"], "\u{7}\u{b}\u{0}");
    assert_eq!(a["g"], "one two", "a line continuation");
    let a = args(r"path=r'C:\new\table', q=r'it\'s', u=u'x', tab='a	b'");
    assert_eq!(a["path"], r"C:\new\table");
    assert_eq!(a["q"], r"it\'s");
    assert_eq!(a["u"], "x");
    assert_eq!(a["tab"], "a\tb");
    let a = args(
        r#"city="São Paulo", k="array[0] lookup", e="he said \"]\" loudly", x="(2 + 3) * (4 - 1)""#,
    );
    assert_eq!(a["city"], "São Paulo");
    assert_eq!(a["k"], "array[0] lookup");
    assert_eq!(a["e"], r#"he said "]" loudly"#);
    assert_eq!(a["x"], "(2 + 3) * (4 - 1)");
}

#[test]
fn triple_quoted_and_adjacent_strings() {
    let a = args("a='''line one\nit's \"two\"''', b=\"\"\"x\"y\"\"z\"\"\", c='''''', d=''");
    assert_eq!(a["a"], "line one\nit's \"two\"");
    assert_eq!(a["b"], "x\"y\"\"z");
    assert_eq!(a["c"], "");
    assert_eq!(a["d"], "");
    let a = args("text='one, ' \"two, \"\n   'three', k={'a' 'b': 1}");
    assert_eq!(a["text"], "one, two, three");
    assert_eq!(a["k"], json!({"ab": 1}));
}

#[test]
fn nested_lists_dicts_and_tuples() {
    let a = args(r#"data=[[1, 2], [3, 4]], labels=["row[0]", "row[1]"]"#);
    assert_eq!(
        a,
        json!({"data": [[1, 2], [3, 4]], "labels": ["row[0]", "row[1]"]})
    );
    let a = args(
        r#"config={"patterns": ["[a-z]+", "[0-9]+"], "nested": {"list": [1, [2, 3]]}, 'z': {},}"#,
    );
    assert_eq!(
        a,
        json!({"config": {"patterns": ["[a-z]+", "[0-9]+"], "nested": {"list": [1, [2, 3]]}, "z": {}}})
    );
    let a =
        args("a=(1, 2), b=(1,), c=(), d=(1), e=((1, 2)), g=((1), (2,)), h=[(\"x\")], i=((('s')))");
    assert_eq!(
        a,
        json!({"a": [1, 2], "b": [1], "c": [], "d": 1, "e": [1, 2], "g": [1, [2]], "h": ["x"], "i": "s"})
    );
    let a = args("m={'b': 1, 'a': 2, 'b': 3}");
    assert_eq!(
        a.to_string(),
        r#"{"m":{"b":3,"a":2}}"#,
        "the last of a repeated key, in first place"
    );
}

#[test]
fn python_and_json_literals() {
    let a = args(
        "enabled=True, disabled=False, optional=None, t=true, f=false, n=null, l=[True, None]",
    );
    assert_eq!(
        a,
        json!({"enabled": true, "disabled": false, "optional": null, "t": true, "f": false, "n": null, "l": [true, null]})
    );
}

#[test]
fn numbers_become_json_numbers() {
    let a = args(
        "a=-1, b=2.75, c=-2.5e-3, d=1e5, e=1E+5, f=1., g=.5, h=-.5, i=0, j=00, k=1_000, \
         l=0x1f, m=0o17, n=0b101, o=1.e3, p=007.5, q=-0, r=+3, s=0.0, t=1_0.2_5",
    );
    let want = json!({"a": -1, "b": 2.75, "c": -2.5e-3, "d": 1e5, "e": 1e5, "f": 1.0, "g": 0.5,
        "h": -0.5, "i": 0, "j": 0, "k": 1000, "l": 31, "m": 15, "n": 5, "o": 1e3, "p": 7.5, "q": 0,
        "r": 3, "s": 0.0, "t": 10.25});
    assert_eq!(a, want);
    let (events, _) = read("[f(f=1., g=.5, o=1.e3, big=123456789012345678901234567890)]");
    assert_eq!(
        events[1],
        PyEvent::Args(r#"{"f":1.0,"g":0.5,"o":1.0e3,"big":123456789012345678901234567890}"#.into())
    );
}

#[test]
fn dotted_names_and_a_single_call() {
    assert_eq!(
        calls("[functions.get_weather(city=\"Paris\")]")[0].0,
        "functions.get_weather"
    );
    assert_eq!(calls("[get-weather (city=\"Paris\")]")[0].0, "get-weather");
    let text = " brave_search.call(query=\"weather in Menlo Park\")<|eom_id|>";
    let (events, consumed) = read_with(PyMode::Call, DEPTH, text);
    assert_eq!(consumed, text.find("<|").unwrap_or(0));
    assert_eq!(
        events.first(),
        Some(&PyEvent::Start {
            name: "brave_search.call".into(),
            at: 1
        })
    );
    assert_eq!(
        events.last(),
        Some(&PyEvent::End {
            arguments: json!({"query": "weather in Menlo Park"}),
            at: consumed
        })
    );
    let (events, consumed) = read_with(PyMode::Call, DEPTH, "wolfram_alpha.call()\n");
    assert_eq!((events.len(), consumed), (3, 20));
}

#[test]
fn multi_line_lists_and_unicode() {
    let text = "[web_search(query=\"latest Rust features\", max_results=3, safe_search=True),\n \
        calculate(expression=\"42 * 3.14159\", precision=2),\n \
        météo(ville='Zürich 🌧', degrés=-3.5)\n]";
    let got = calls(text);
    assert_eq!(got.len(), 3);
    assert_eq!(
        got[2],
        ("météo".into(), json!({"ville": "Zürich 🌧", "degrés": -3.5}))
    );
}

#[test]
fn white_space_alone_is_at_rest() {
    assert_eq!(read(" \n\t"), (Vec::new(), 3));
    let mut r = PyCalls::new(PyMode::List, DEPTH);
    let mut events = Vec::new();
    assert_eq!(r.feed(" \n\t", &mut events), 3);
    assert!(r.at_rest() && !r.done());
    r.finish(&mut events);
    assert!(events.is_empty());
    assert_eq!(r.feed("[", &mut events), 1);
    assert!(!r.at_rest());
}

#[test]
fn string_arguments_stream_as_they_arrive() {
    let mut r = PyCalls::new(PyMode::List, DEPTH);
    let mut events = Vec::new();
    r.feed("[search(q='ab\\", &mut events);
    assert_eq!(
        events,
        [
            PyEvent::Start {
                name: "search".into(),
                at: 1
            },
            PyEvent::Args(r#"{"q":"ab"#.into())
        ]
    );
    events.clear();
    r.feed("x4", &mut events);
    assert!(events.is_empty(), "an escape cut by the piece is held");
    r.feed("1c", &mut events);
    assert_eq!(events, [PyEvent::Args("Ac".into())]);
    events.clear();
    // A number waits for its end; a parenthesised value for its comma.
    r.feed("', n=12", &mut events);
    assert_eq!(events, [PyEvent::Args(r#"","n":"#.into())]);
    events.clear();
    r.feed(", t=(1", &mut events);
    assert_eq!(events, [PyEvent::Args(r#"12,"t":"#.into())]);
    events.clear();
    r.feed(", 2))]", &mut events);
    assert_eq!(events[0], PyEvent::Args("[1,2]}".into()));
    assert!(r.done());
    assert_eq!(
        args(r"q='ab\x41c', n=12, t=(1, 2)"),
        json!({"q": "abAc", "n": 12, "t": [1, 2]})
    );
}

#[test]
fn a_20_kb_string_in_4_byte_pieces_streams_in_many_pieces() {
    let body: String = (0..20_000)
        .map(|i| ['a', 'é', '"', 'z', '\t'][i % 5])
        .collect();
    let text = format!("[write(path='out.txt', content='''{body}''')]");
    let pieces: Vec<&str> = {
        let mut v = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let mut end = (at + 4).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            v.push(&text[at..end]);
            at = end;
        }
        v
    };
    let (events, consumed) = feed_pieces(PyMode::List, DEPTH, pieces);
    assert_eq!(consumed, text.len());
    check_shape(&events);
    let n = events
        .iter()
        .filter(|e| matches!(e, PyEvent::Args(_)))
        .count();
    assert!(n > 4_000, "{n} Args events");
    match events.last() {
        Some(PyEvent::End { arguments, .. }) => assert_eq!(arguments["content"], body.as_str()),
        other => panic!("{other:?}"),
    }
    // And at every other splitting, the same.
    assert_eq!(calls(&text)[0].1["content"], body.as_str());
}

#[test]
fn nesting_at_the_limit_is_read_and_beyond_it_refused() {
    let (events, _) = read_with(PyMode::List, 3, "[f(a=[[1]])]");
    assert!(
        matches!(events.last(), Some(PyEvent::End { .. })),
        "{events:?}"
    );
    let (message, at) = error_with(PyMode::List, 3, "[f(a=[[{'k': 1}]])]");
    assert_eq!(at, 7);
    assert_eq!(
        message,
        "arguments nested deeper than 3 levels in argument `a` of call `f`"
    );
    let deep = format!("[f(a={}", "[".repeat(100_000));
    let (message, at) = error_with(PyMode::List, 128, &deep);
    assert_eq!(at, 5 + 127);
    assert!(
        message.starts_with("arguments nested deeper than 128 levels"),
        "{message}"
    );
    let deep = "[".repeat(100_000);
    let (message, at) = error(&deep);
    assert_eq!(at, 1);
    assert_eq!(
        message,
        "expected a call (`name(…)`) or `]` in the list of calls, found `[`"
    );
    let deep = format!("[f(a={}", "(".repeat(100_000));
    assert_eq!(error_with(PyMode::List, 128, &deep).1, 5 + 127);
}

#[test]
fn calls_as_values_are_refused() {
    let (message, at) = error("[f(a=g(1))]");
    assert_eq!(at, 6);
    assert_eq!(
        message,
        "a call `g(…)` in argument `a` of call `f` is not read: calls inside arguments are refused (write the value as a literal)"
    );
    assert!(error("[f(a=[1, math.floor (2.5)])]")
        .0
        .starts_with("a call `math.floor(…)`"));
    let (message, _) = error("[f(a=float('inf'))]");
    assert!(message.starts_with("a call `float(…)`"), "{message}");
}

#[test]
fn positional_arguments_are_refused() {
    assert_eq!(
        error("[f(1)]"),
        (
            "positional argument 1 in call `f` is not read: expected an argument name (arguments are written `name=value`), found `1`".into(),
            3
        )
    );
    let (message, at) = error("[search(q='x', \"more\")]");
    assert_eq!(at, 15);
    assert!(
        message.starts_with("positional argument 2 in call `search`"),
        "{message}"
    );
    assert_eq!(
        error("[search(q)]").0,
        "expected `=` after argument name `q` in call `search`, found `)`: positional argument 1 is not read (arguments are written `name=value`)"
    );
    assert!(error("[f(g(1))]")
        .0
        .starts_with("positional argument 1 in call `f` is a call `g(…)`"));
    assert_eq!(
        error("[f(**kw)]").0,
        "expected an argument (`name=value`) or `)` in call `f`, found `*`"
    );
}

#[test]
fn a_cut_off_call_is_an_error_at_finish() {
    let text = "[f(a='abc";
    let (events, _) = read(text);
    assert_eq!(
        events,
        [
            PyEvent::Start {
                name: "f".into(),
                at: 1
            },
            PyEvent::Args(r#"{"a":"abc"#.into()),
            PyEvent::Error {
                message: "expected the closing `'` of a string in argument `a` of call `f`, found the end of the text".into(),
                at: text.len()
            }
        ]
    );
    assert_eq!(
        error("[f(a='''abc''").0,
        "expected the closing `'''` of a string in argument `a` of call `f`, found the end of the text"
    );
    assert_eq!(
        error("[f(a=1").0,
        "expected `,` or `)` after argument `a` in call `f`, found the end of the text"
    );
    assert_eq!(
        error("[f(a=[1, 2").0,
        "expected `,` or `]` in argument `a` of call `f`, found the end of the text"
    );
    assert_eq!(
        error("[f(), g").0,
        "expected `(` after call name `g`, found the end of the text"
    );
    assert_eq!(
        error("[f()").0,
        "expected `,` or `]` after call `f`, found the end of the text"
    );
    let (events, _) = read_with(PyMode::Call, DEPTH, "  ");
    assert!(events.is_empty(), "white space alone is no error");
}

#[test]
fn what_is_not_a_list_of_calls_is_an_error_at_its_first_byte() {
    assert_eq!(
        error("[1, 2]"),
        (
            "expected a call (`name(…)`) or `]` in the list of calls, found `1`".into(),
            1
        )
    );
    assert_eq!(
        error("[foo bar]"),
        ("expected `(` after call name `foo`, found `b`".into(), 5)
    );
    assert_eq!(
        error("[foo]"),
        ("expected `(` after call name `foo`, found `]`".into(), 4)
    );
    assert_eq!(
        error("Sure! [f()]"),
        ("expected `[` to open a list of calls, found `S`".into(), 0)
    );
    assert_eq!(
        error("[foo.(x=1)]").0,
        "`foo.` is not a call name: each part between dots must begin with a letter or `_`"
    );
    assert_eq!(
        error_with(PyMode::Call, DEPTH, "{\"name\": 1}"),
        ("expected a call (`name(…)`), found `{`".into(), 0)
    );
    assert_eq!(
        error("[f(a=1])]"),
        (
            "expected `,` or `)` after argument `a` in call `f`, found `]`".into(),
            6
        )
    );
    assert_eq!(
        error("[f(a=[1)]"),
        (
            "expected `,` or `]` in argument `a` of call `f`, found `)`".into(),
            7
        )
    );
    assert_eq!(
        error("[f() g()]").0,
        "expected `,` or `]` after call `f`, found `g`"
    );
}

#[test]
fn values_python_reads_but_json_cannot_carry_are_refused() {
    let cases = [
        ("a=x", "a name `x` in argument `a` of call `f` where a value was expected"),
        ("a=math.pi", "a name `math.pi` in argument `a` of call `f`"),
        ("a=b'z'", "a bytes literal (prefix `b`) in argument `a` of call `f`, which is not read"),
        ("a=f'{x}'", "an f-string (prefix `f`)"),
        ("a=1j", "a complex number `1j`, which JSON cannot carry, in argument `a`"),
        ("a=012", "a number with a leading zero (`012`)"),
        ("a=1e999", "a number out of range (`1e999`) in argument `a` of call `f`"),
        ("a=1e", "`1e` is not a number Python reads in argument `a`"),
        ("a=1__0", "`1__0` is not a number Python reads"),
        ("a=- 1", "expected a digit after `-` in argument `a`"),
        ("a='one\ntwo'", "a line break inside a string in `'` quotes in argument `a` of call `f`: write it as \\n, or use triple quotes"),
        ("a='\\ud83d'", "a lone surrogate \\ud83d in a string in argument `a` of call `f`, which JSON cannot carry"),
        ("a='\\ude00x'", "a lone surrogate \\ude00"),
        ("a='\\ud83dx'", "a lone surrogate \\ud83d"),
        ("a='\\xg1'", "expected two hex digits after \\x (in argument `a` of call `f`), found `g`"),
        ("a='\\N{DASH}'", "a \\N{…} escape, which is not read: write the character itself (in argument `a` of call `f`), found `N`"),
        ("a={1: 2}", "expected a string key or `}` in a dict in argument `a` of call `f`, found `1` (dict keys must be strings)"),
        ("a={'k' 1}", "expected `:` after a dict key in argument `a` of call `f`, found `1`"),
        ("a=1, a=2", "argument `a` given twice in call `f`"),
        ("a=)", "expected a value in argument `a` of call `f`, found `)`"),
        ("a=[1,,2]", "expected a value or `]` in argument `a` of call `f`, found `,`"),
        ("a==1", "expected a value in argument `a` of call `f`, found `=`"),
        ("a=“x”", "a name `“x”` in argument `a`"),
    ];
    for (inner, want) in cases {
        let (message, _) = error(&format!("[f({inner})]"));
        assert!(message.starts_with(want), "{inner}: {message}");
    }
}

/// A random Python literal of depth at most `depth`, written in a random
/// style, and the JSON value it stands for.
fn gen_value(rng: &mut crate::chunking::Rng, depth: usize) -> (String, Value) {
    let pick = rng.below(if depth == 0 { 4 } else { 7 });
    let sp = |rng: &mut crate::chunking::Rng| [" ", "", "\n  ", ""][rng.below(4)];
    match pick {
        0 => gen_string(rng),
        1 => {
            const NUMS: &[(&str, f64)] = &[
                ("1.", 1.0),
                (".5", 0.5),
                ("1e3", 1000.0),
                ("-2.5e-3", -0.0025),
                ("6.25E+2", 625.0),
                ("0.0", 0.0),
            ];
            match rng.below(4) {
                0 => {
                    let (t, v) = NUMS[rng.below(NUMS.len())];
                    (t.to_owned(), json!(v))
                }
                1 => ("1_000".into(), json!(1000)),
                2 => ("0x1F".into(), json!(31)),
                _ => {
                    let n = rng.below(2001) as i64 - 1000;
                    (n.to_string(), json!(n))
                }
            }
        }
        2 => {
            let (t, v) = [
                ("True", json!(true)),
                ("false", json!(false)),
                ("None", Value::Null),
                ("null", Value::Null),
            ][rng.below(4)]
            .clone();
            (t.to_owned(), v)
        }
        3 => {
            let (t, v) = gen_string(rng);
            let (u, w) = gen_string(rng);
            let (Value::String(a), Value::String(b)) = (v, w) else {
                unreachable!()
            };
            (format!("{t}{}{u}", sp(rng)), Value::String(a + &b))
        }
        4 | 5 => {
            let n = rng.below(4);
            let mut items = Vec::new();
            let mut parts = Vec::new();
            for _ in 0..n {
                let (t, v) = gen_value(rng, depth - 1);
                parts.push(format!("{}{t}", sp(rng)));
                items.push(v);
            }
            let trailing = if n > 0 && rng.below(3) == 0 { "," } else { "" };
            let tuple = pick == 5;
            let text = if tuple && n == 1 {
                format!("({},{})", parts[0], sp(rng))
            } else if tuple {
                format!("({}{trailing})", parts.join(","))
            } else {
                format!("[{}{trailing}{}]", parts.join(","), sp(rng))
            };
            (text, Value::Array(items))
        }
        _ => {
            let n = rng.below(4);
            let mut map = Map::new();
            let mut parts = Vec::new();
            for k in 0..n {
                let (t, v) = gen_value(rng, depth - 1);
                let q = ["'", "\""][rng.below(2)];
                parts.push(format!("{}{q}k{k}{q}{}:{}{t}", sp(rng), sp(rng), sp(rng)));
                map.insert(format!("k{k}"), v);
            }
            (format!("{{{}}}", parts.join(",")), Value::Object(map))
        }
    }
}

/// A random string literal, quoted and escaped in a random style.
fn gen_string(rng: &mut crate::chunking::Rng) -> (String, Value) {
    const CHARS: &[char] = &[
        'a', 'Z', ' ', '\'', '"', '\\', '\n', '\t', 'é', '😀', ']', ')',
    ];
    let value: String = (0..rng.below(12))
        .map(|_| CHARS[rng.below(CHARS.len())])
        .collect();
    let q = ["'", "\"", "'''", "\"\"\""][rng.below(4)];
    let triple = q.len() == 3;
    let mut text = String::from(q);
    for c in value.chars() {
        let escaped = rng.below(3) == 0;
        match c {
            '\\' => text.push_str("\\\\"),
            '\'' | '"' if q.starts_with(c) => {
                text.push('\\');
                text.push(c);
            }
            '\n' if !triple || escaped => text.push_str("\\n"),
            'a' if escaped => text.push_str("\\x61"),
            'é' if escaped => text.push_str("\\u00e9"),
            '😀' if escaped => text.push_str(["\\U0001F600", "\\ud83d\\ude00"][rng.below(2)]),
            '\t' if escaped => text.push_str("\\t"),
            _ => text.push(c),
        }
    }
    text.push_str(q);
    (text, Value::String(value))
}

#[test]
fn random_literals_read_as_the_values_they_stand_for() {
    let mut rng = crate::chunking::Rng::new(7);
    for _ in 0..150 {
        let mut want = Map::new();
        let mut text = String::from("[f(");
        for k in 0..rng.below(4) {
            let (t, v) = gen_value(&mut rng, 3);
            text.push_str(&format!("a{k}={t}, "));
            want.insert(format!("a{k}"), v);
        }
        text.push_str(")]");
        assert_eq!(args_of(&text), Value::Object(want), "{text}");
    }
}

#[test]
fn random_token_soup_reads_the_same_at_every_splitting() {
    // Never a panic, and the same events however the text is cut.
    const TOKENS: &[&str] = &[
        "[", "]", "(", ")", "{", "}", "f", "g.h", "a", "b", "=", ",", " ", "'", "\"", "'''", "\\",
        "x41", "u00e9", "ud83d", "ude00", "1", ".", "e", "-", "True", "None", "é", "\n", ":", "r",
        "0x", "_", "2", "'k': ", "a=", "x=(", "y=[",
    ];
    let mut rng = crate::chunking::Rng::new(42);
    for n in 0..400 {
        let mut text = String::from(["[f(", "[", "f(", ""][n % 4]);
        for _ in 0..rng.next_in(30) {
            text.push_str(TOKENS[rng.below(TOKENS.len())]);
        }
        read_with(PyMode::List, 8, &text);
        read_with(PyMode::Call, 8, &text);
    }
}

#[test]
fn after_an_error_nothing_more_is_reported() {
    let mut r = PyCalls::new(PyMode::List, DEPTH);
    let mut events = Vec::new();
    assert_eq!(r.feed("[f(a=1), g(x)] and more", &mut events), 23);
    let n = events.len();
    assert!(
        matches!(events.last(), Some(PyEvent::Error { at: 12, .. })),
        "{events:?}"
    );
    assert!(
        matches!(events[2], PyEvent::End { .. }),
        "the first call is whole"
    );
    assert_eq!(r.feed("[g(a=1)]", &mut events), 8);
    r.finish(&mut events);
    assert_eq!(events.len(), n);
    assert_eq!(merge(&read("[f(a=1), g(x)] and more").0), merge(&events));
}
