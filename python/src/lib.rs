//! `actionstream._native`: the parser and its events for Python.
//!
//! The pure-Python package (`python/actionstream/`) re-exports what is here
//! and adds the adapters over the SDKs' streams. Events are frozen classes
//! whose fields are Python objects made once, when the event is made; an end
//! event's fields come from the CLI's JSON line of it
//! ([`actionstream::wire::event_line`]), so `to_dict()` is that line.

use actionstream::sse::{SseItem, SseParser as RustSseParser};
use actionstream::{Config, ConfigError, Event, ParserSettings};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

/// Pushes at least this long are parsed with the interpreter detached, so
/// other Python threads run meanwhile; shorter ones are not worth the cost.
const DETACH_BYTES: usize = 64 * 1024;

// ---------------------------------------------------------------------------
// JSON values between Rust and Python.

/// A JSON value as Python objects: dicts (in key order), lists, str, int,
/// float, bool and None.
fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(k, value_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// A Python object as a JSON value, by way of `json.dumps` (so what it
/// accepts is what `json` accepts; NaN is refused).
fn py_to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let py = obj.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    let text = py
        .import("json")?
        .call_method("dumps", (obj,), Some(&kwargs))?;
    let text: String = text.extract()?;
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))
}

// ---------------------------------------------------------------------------
// Events.

/// What every event class shares: its kind (the JSON line's `event`) and
/// its fields in the line's order.
trait Fields {
    const KIND: &'static str;
    const CLASS: &'static str;
    fn fields(&self) -> Vec<(&'static str, &Py<PyAny>)>;

    fn repr(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = Vec::new();
        for (k, v) in self.fields() {
            parts.push(format!("{k}={}", v.bind(py).repr()?));
        }
        Ok(format!("{}({})", Self::CLASS, parts.join(", ")))
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("event", Self::KIND)?;
        for (k, v) in self.fields() {
            let v = v.bind(py);
            match k {
                // A span is a JSON array in the line, a tuple here.
                "span" if !v.is_none() => dict.set_item(
                    k,
                    PyList::new(py, v.try_iter()?.collect::<PyResult<Vec<_>>>()?)?,
                )?,
                // The line has attributes only when there are any.
                "attributes" if v.is_empty()? => {}
                _ => dict.set_item(k, v)?,
            }
        }
        Ok(dict)
    }

    fn eq_fields(&self, py: Python<'_>, other: &Self) -> PyResult<bool> {
        for ((_, a), (_, b)) in self.fields().into_iter().zip(other.fields()) {
            if !a.bind(py).eq(b.bind(py))? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// `__eq__` for an event class: equal to an event of the same class with
/// equal fields; `NotImplemented` for anything else.
fn eq_result<T: Fields + pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync>(
    this: &T,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let py = other.py();
    match other.cast::<T>() {
        Ok(other) => {
            let equal = this.eq_fields(py, other.get())?;
            Ok(PyBool::new(py, equal).to_owned().into_any().unbind())
        }
        Err(_) => Ok(py.NotImplemented()),
    }
}

macro_rules! event_methods {
    ($ty:ident, [$($field:literal),*], { $($new:tt)* }) => {
        #[pymethods]
        impl $ty {
        $($new)*

        #[classattr]
        fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
            Ok(PyTuple::new(py, [$($field),*])?.unbind())
        }

        fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
            Fields::repr(self, py)
        }

        fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            eq_result(self, other)
        }

        /// The event as the CLI prints it (`actionstream parse`): a dict
        /// with `event` first, then the fields in the line's order.
        fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
            Fields::to_dict(self, py)
        }

        /// For pickle and copy: the class and its arguments (the fields,
        /// in the constructor's order).
        fn __reduce__<'py>(
            slf: &Bound<'py, Self>,
        ) -> PyResult<(Bound<'py, pyo3::types::PyType>, Bound<'py, PyTuple>)> {
            let py = slf.py();
            let fields = slf.get().fields();
            let args = PyTuple::new(py, fields.into_iter().map(|(_, v)| v.bind(py)))?;
            Ok((slf.get_type(), args))
        }
        }
    };
}

fn obj<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: T) -> PyResult<Py<PyAny>>
where
    PyErr: From<T::Error>,
{
    use pyo3::IntoPyObjectExt;
    v.into_py_any(py)
}

/// Text that is certain to be narrative (adjacent ones may be merged).
#[pyclass(frozen, get_all, module = "actionstream")]
pub struct Narrative {
    text: Py<PyAny>,
}

impl Fields for Narrative {
    const KIND: &'static str = "narrative";
    const CLASS: &'static str = "Narrative";
    fn fields(&self) -> Vec<(&'static str, &Py<PyAny>)> {
        vec![("text", &self.text)]
    }
}

event_methods!(Narrative, ["text"], {
    #[new]
    fn new(text: Bound<'_, PyString>) -> Self {
        Narrative {
            text: text.into_any().unbind(),
        }
    }
});

/// Reasoning the model wrote apart from its answer.
#[pyclass(frozen, get_all, module = "actionstream")]
pub struct Reasoning {
    text: Py<PyAny>,
}

impl Fields for Reasoning {
    const KIND: &'static str = "reasoning";
    const CLASS: &'static str = "Reasoning";
    fn fields(&self) -> Vec<(&'static str, &Py<PyAny>)> {
        vec![("text", &self.text)]
    }
}

event_methods!(Reasoning, ["text"], {
    #[new]
    fn new(text: Bound<'_, PyString>) -> Self {
        Reasoning {
            text: text.into_any().unbind(),
        }
    }
});

/// An action's name is known, or its block ended without one.
#[pyclass(frozen, get_all, module = "actionstream")]
pub struct ActionStarted {
    id: Py<PyAny>,
    name: Py<PyAny>,
    syntax: Py<PyAny>,
    tag: Py<PyAny>,
}

impl Fields for ActionStarted {
    const KIND: &'static str = "action_started";
    const CLASS: &'static str = "ActionStarted";
    fn fields(&self) -> Vec<(&'static str, &Py<PyAny>)> {
        vec![
            ("id", &self.id),
            ("name", &self.name),
            ("syntax", &self.syntax),
            ("tag", &self.tag),
        ]
    }
}

event_methods!(ActionStarted, ["id", "name", "syntax", "tag"], {
    #[new]
    fn new(
        py: Python<'_>,
        id: u64,
        name: Option<String>,
        syntax: String,
        tag: String,
    ) -> PyResult<Self> {
        Ok(ActionStarted {
            id: obj(py, id)?,
            name: obj(py, name)?,
            syntax: obj(py, syntax)?,
            tag: obj(py, tag)?,
        })
    }
});

/// More raw text of a started action's JSON (opt-in: `action_deltas`).
#[pyclass(frozen, get_all, module = "actionstream")]
pub struct ActionDelta {
    id: Py<PyAny>,
    text: Py<PyAny>,
}

impl Fields for ActionDelta {
    const KIND: &'static str = "action_delta";
    const CLASS: &'static str = "ActionDelta";
    fn fields(&self) -> Vec<(&'static str, &Py<PyAny>)> {
        vec![("id", &self.id), ("text", &self.text)]
    }
}

event_methods!(ActionDelta, ["id", "text"], {
    #[new]
    fn new(py: Python<'_>, id: u64, text: Bound<'_, PyString>) -> PyResult<Self> {
        Ok(ActionDelta {
            id: obj(py, id)?,
            text: text.into_any().unbind(),
        })
    }
});

/// The next piece of a started action's arguments as compact JSON (opt-in:
/// `argument_deltas`).
#[pyclass(frozen, get_all, module = "actionstream")]
pub struct ArgumentsDelta {
    id: Py<PyAny>,
    json: Py<PyAny>,
}

impl Fields for ArgumentsDelta {
    const KIND: &'static str = "arguments_delta";
    const CLASS: &'static str = "ArgumentsDelta";
    fn fields(&self) -> Vec<(&'static str, &Py<PyAny>)> {
        vec![("id", &self.id), ("json", &self.json)]
    }
}

event_methods!(ArgumentsDelta, ["id", "json"], {
    #[new]
    fn new(py: Python<'_>, id: u64, json: Bound<'_, PyString>) -> PyResult<Self> {
        Ok(ArgumentsDelta {
            id: obj(py, id)?,
            json: json.into_any().unbind(),
        })
    }
});

/// An action closed and validated.
#[pyclass(frozen, get_all, module = "actionstream")]
pub struct ActionComplete {
    id: Py<PyAny>,
    name: Py<PyAny>,
    arguments: Py<PyAny>,
    raw: Py<PyAny>,
    span: Py<PyAny>,
    repairs: Py<PyAny>,
    attributes: Py<PyAny>,
}

impl Fields for ActionComplete {
    const KIND: &'static str = "action_complete";
    const CLASS: &'static str = "ActionComplete";
    fn fields(&self) -> Vec<(&'static str, &Py<PyAny>)> {
        vec![
            ("id", &self.id),
            ("name", &self.name),
            ("arguments", &self.arguments),
            ("raw", &self.raw),
            ("span", &self.span),
            ("repairs", &self.repairs),
            ("attributes", &self.attributes),
        ]
    }
}

event_methods!(
    ActionComplete,
    [
        "id",
        "name",
        "arguments",
        "raw",
        "span",
        "repairs",
        "attributes"
    ],
    {
        #[new]
        #[pyo3(signature = (id, name, arguments, raw, span=None, repairs=None, attributes=None))]
        #[allow(clippy::too_many_arguments)]
        fn new(
            py: Python<'_>,
            id: u64,
            name: String,
            arguments: Bound<'_, PyDict>,
            raw: String,
            span: Option<(u64, u64)>,
            repairs: Option<Vec<String>>,
            attributes: Option<Bound<'_, PyDict>>,
        ) -> PyResult<Self> {
            Ok(ActionComplete {
                id: obj(py, id)?,
                name: obj(py, name)?,
                arguments: arguments.into_any().unbind(),
                raw: obj(py, raw)?,
                span: obj(py, span)?,
                repairs: PyList::new(py, repairs.unwrap_or_default())?
                    .into_any()
                    .unbind(),
                attributes: match attributes {
                    Some(a) => a.into_any().unbind(),
                    None => PyDict::new(py).into_any().unbind(),
                },
            })
        }
    }
);

/// An action that could not be read, was cut off, or did not validate.
#[pyclass(frozen, get_all, module = "actionstream")]
pub struct ActionInvalid {
    id: Py<PyAny>,
    name: Py<PyAny>,
    errors: Py<PyAny>,
    raw: Py<PyAny>,
    span: Py<PyAny>,
}

impl Fields for ActionInvalid {
    const KIND: &'static str = "action_invalid";
    const CLASS: &'static str = "ActionInvalid";
    fn fields(&self) -> Vec<(&'static str, &Py<PyAny>)> {
        vec![
            ("id", &self.id),
            ("name", &self.name),
            ("errors", &self.errors),
            ("raw", &self.raw),
            ("span", &self.span),
        ]
    }
}

event_methods!(ActionInvalid, ["id", "name", "errors", "raw", "span"], {
    #[new]
    #[pyo3(signature = (id, name, errors, raw, span=None))]
    fn new(
        py: Python<'_>,
        id: u64,
        name: Option<String>,
        errors: Vec<String>,
        raw: String,
        span: Option<(u64, u64)>,
    ) -> PyResult<Self> {
        Ok(ActionInvalid {
            id: obj(py, id)?,
            name: obj(py, name)?,
            errors: PyList::new(py, errors)?.into_any().unbind(),
            raw: obj(py, raw)?,
            span: obj(py, span)?,
        })
    }
});

/// A stream-level problem in a provider's stream (malformed SSE or JSON, the
/// provider's error event, a stream cut off before its end).
#[pyclass(frozen, get_all, module = "actionstream")]
pub struct Error {
    message: Py<PyAny>,
}

impl Fields for Error {
    const KIND: &'static str = "error";
    const CLASS: &'static str = "Error";
    fn fields(&self) -> Vec<(&'static str, &Py<PyAny>)> {
        vec![("message", &self.message)]
    }
}

event_methods!(Error, ["message"], {
    #[new]
    fn new(message: Bound<'_, PyString>) -> Self {
        Error {
            message: message.into_any().unbind(),
        }
    }
});

/// A field of an end event's JSON line.
fn line_field(py: Python<'_>, line: &Value, key: &str) -> PyResult<Py<PyAny>> {
    let v = line.get(key).unwrap_or(&Value::Null);
    Ok(match (key, v) {
        // A span is a tuple in Python.
        ("span", Value::Array(pair)) => {
            let items = pair
                .iter()
                .map(|x| value_to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
        ("attributes", Value::Null) => PyDict::new(py).into_any().unbind(),
        _ => value_to_py(py, v)?.unbind(),
    })
}

/// The Python object of an event; `None` for a kind this build does not
/// know (the enum is non-exhaustive).
fn event_to_py(py: Python<'_>, e: &Event) -> PyResult<Option<Py<PyAny>>> {
    let s = |t: &str| PyString::new(py, t).into_any().unbind();
    Ok(Some(match e {
        Event::Narrative(text) => Py::new(py, Narrative { text: s(text) })?.into_any(),
        Event::Reasoning(text) => Py::new(py, Reasoning { text: s(text) })?.into_any(),
        Event::ActionStarted {
            id,
            name,
            syntax,
            tag,
        } => Py::new(
            py,
            ActionStarted {
                id: obj(py, id.0)?,
                name: obj(py, name.as_deref())?,
                syntax: s(syntax.as_str()),
                tag: s(tag),
            },
        )?
        .into_any(),
        Event::ActionDelta { id, text } => Py::new(
            py,
            ActionDelta {
                id: obj(py, id.0)?,
                text: s(text),
            },
        )?
        .into_any(),
        Event::ArgumentsDelta { id, json } => Py::new(
            py,
            ArgumentsDelta {
                id: obj(py, id.0)?,
                json: s(json),
            },
        )?
        .into_any(),
        Event::ActionComplete(_) | Event::ActionInvalid(_) => {
            let Some(line) = actionstream::wire::event_line(e) else {
                return Ok(None);
            };
            let f = |key: &str| line_field(py, &line, key);
            if matches!(e, Event::ActionComplete(_)) {
                Py::new(
                    py,
                    ActionComplete {
                        id: f("id")?,
                        name: f("name")?,
                        arguments: f("arguments")?,
                        raw: f("raw")?,
                        span: f("span")?,
                        repairs: f("repairs")?,
                        attributes: f("attributes")?,
                    },
                )?
                .into_any()
            } else {
                Py::new(
                    py,
                    ActionInvalid {
                        id: f("id")?,
                        name: f("name")?,
                        errors: f("errors")?,
                        raw: f("raw")?,
                        span: f("span")?,
                    },
                )?
                .into_any()
            }
        }
        _ => return Ok(None),
    }))
}

fn events_to_list<'py>(py: Python<'py>, events: &mut Vec<Event>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in events.drain(..) {
        if let Some(o) = event_to_py(py, &e)? {
            list.append(o)?;
        }
    }
    Ok(list)
}

// ---------------------------------------------------------------------------
// Configuration: the CLI's layer of flags, with Python values for files.

/// The parser options both parsers take (the keyword arguments of
/// `Parser` and `SseParser`).
#[derive(Default)]
struct Options {
    dialects: Vec<String>,
    model: Option<String>,
    tools: Option<Value>,
    schema: Option<Value>,
    strict: bool,
    max_block_bytes: Option<usize>,
    argument_deltas: bool,
    action_deltas: bool,
    /// Unset: as the model's family has it.
    reasoning_open: Option<bool>,
    calls_in_reasoning: bool,
    fence_tags: Vec<String>,
    xml_tags: Vec<String>,
    discriminators: Vec<String>,
}

fn config_error(e: ConfigError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

impl Options {
    /// The configuration, as the CLI builds it from the same flags; errors
    /// are `ValueError`s with the CLI's messages (a tool list or schema
    /// given as a value is named `tools` / `schema` where the CLI names the
    /// file).
    fn config(self) -> PyResult<Config> {
        let schemas: Map<String, Value> = match self.schema {
            None => Map::new(),
            Some(v) => serde_json::from_value(v).map_err(|source| {
                config_error(ConfigError::SchemaFile {
                    path: "schema".into(),
                    source,
                })
            })?,
        };
        let tools = match &self.tools {
            None => Vec::new(),
            // Each schema compiles: `ParserSettings::validate` checks it,
            // as it checks every value, for every face.
            Some(list) => actionstream::dialect::tools::tool_schemas(list).map_err(|message| {
                config_error(ConfigError::Tools {
                    path: "tools".into(),
                    message,
                })
            })?,
        };
        let layer = ParserSettings {
            fence_tags: self.fence_tags,
            xml_tags: self.xml_tags,
            discriminators: self.discriminators,
            strict: self.strict.then_some(true),
            max_block_bytes: self.max_block_bytes,
            action_deltas: self.action_deltas.then_some(true),
            schemas,
            dialects: self.dialects,
            model: self.model,
            tools,
            reasoning_open: self.reasoning_open,
            calls_in_reasoning: self.calls_in_reasoning.then_some(true),
            ..ParserSettings::default()
        };
        let config = layer.apply(Config::default()).map_err(config_error)?;
        Ok(if self.argument_deltas {
            config.argument_deltas(true)
        } else {
            config
        })
    }
}

impl Options {
    /// The keyword arguments of `Parser(...)` and `SseParser(...)`, read in
    /// one place. An option given as `None` takes its default; an unknown
    /// keyword or a value of the wrong type is a `TypeError` naming it.
    fn from_kwargs(class: &str, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
        fn arg<'py, T: FromPyObjectOwned<'py>>(
            key: &str,
            value: &Bound<'py, PyAny>,
        ) -> PyResult<T> {
            value.extract::<T>().map_err(|e| {
                let e: PyErr = e.into();
                let message = e.value(value.py()).to_string();
                PyTypeError::new_err(format!("argument '{key}': {message}"))
            })
        }
        let mut o = Options::default();
        let Some(kwargs) = kwargs else {
            return Ok(o);
        };
        for (key, value) in kwargs.iter() {
            let key: String = key.extract()?;
            if value.is_none() {
                // `None` is each option's default.
                match key.as_str() {
                    "dialects" | "model" | "tools" | "schema" | "max_block_bytes"
                    | "reasoning_open" | "fence_tags" | "xml_tags" | "discriminators" => continue,
                    _ => {}
                }
            }
            let v = &value;
            match key.as_str() {
                "dialects" => o.dialects = arg(&key, v)?,
                "model" => o.model = Some(arg(&key, v)?),
                "tools" => o.tools = Some(py_to_value(v)?),
                "schema" => o.schema = Some(py_to_value(v)?),
                "strict" => o.strict = arg(&key, v)?,
                "max_block_bytes" => o.max_block_bytes = Some(arg(&key, v)?),
                "argument_deltas" => o.argument_deltas = arg(&key, v)?,
                "action_deltas" => o.action_deltas = arg(&key, v)?,
                "reasoning_open" => o.reasoning_open = Some(arg(&key, v)?),
                "calls_in_reasoning" => o.calls_in_reasoning = arg(&key, v)?,
                "fence_tags" => o.fence_tags = arg(&key, v)?,
                "xml_tags" => o.xml_tags = arg(&key, v)?,
                "discriminators" => o.discriminators = arg(&key, v)?,
                _ => {
                    return Err(PyTypeError::new_err(format!(
                        "{class}() got an unexpected keyword argument '{key}'"
                    )))
                }
            }
        }
        Ok(o)
    }
}

/// A chunk: `str`, or `bytes` that may end inside a character.
enum Chunk<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

fn chunk<'a>(data: &'a Bound<'_, PyAny>) -> PyResult<Chunk<'a>> {
    if let Ok(s) = data.cast::<PyString>() {
        Ok(Chunk::Text(s.to_str()?))
    } else if let Ok(b) = data.cast::<PyBytes>() {
        Ok(Chunk::Bytes(b.as_bytes()))
    } else {
        Err(PyTypeError::new_err(format!(
            "push takes str or bytes, not {}",
            data.get_type().name()?
        )))
    }
}

// ---------------------------------------------------------------------------
// The parsers.

/// The streaming parser of one response's text.
#[pyclass(module = "actionstream")]
pub struct Parser {
    inner: actionstream::Parser,
    out: Vec<Event>,
}

#[pymethods]
impl Parser {
    /// Options (keyword only): read by `Options::from_kwargs`; the stub
    /// (`actionstream/__init__.pyi`) types them.
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let config = Options::from_kwargs("Parser", options)?.config()?;
        Ok(Parser {
            inner: actionstream::Parser::new(config),
            out: Vec::new(),
        })
    }

    /// Pushes the next piece of the response; returns the events it makes
    /// certain.
    fn push<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let Parser { inner, out } = self;
        match chunk(data)? {
            Chunk::Text(t) if t.len() >= DETACH_BYTES => py.detach(|| inner.push(t, out)),
            Chunk::Text(t) => inner.push(t, out),
            Chunk::Bytes(b) if b.len() >= DETACH_BYTES => py.detach(|| inner.push_bytes(b, out)),
            Chunk::Bytes(b) => inner.push_bytes(b, out),
        }
        events_to_list(py, out)
    }

    /// Ends the response: decides everything still held. The parser is
    /// then ready for a new response (ids count from 0 again).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.inner.finish(&mut self.out);
        events_to_list(py, &mut self.out)
    }

    /// How many invalid UTF-8 sequences in pushed bytes were read as U+FFFD.
    #[getter]
    fn replaced(&self) -> u64 {
        self.inner.replaced()
    }

    /// Bytes of text the parser holds (bounded by the block limit).
    #[getter]
    fn buffered(&self) -> usize {
        self.inner.buffered()
    }

    fn __repr__(&self) -> String {
        format!("Parser(dialects={:?})", self.inner.config().dialect_names())
    }
}

/// The parser of a provider's server-sent-event stream (OpenAI chat
/// completions or Responses, Anthropic Messages, Gemini; told apart by the
/// first event): text deltas are parsed, reasoning and native tool calls
/// reported, stream-level problems are `Error` events.
#[pyclass(module = "actionstream")]
pub struct SseParser {
    inner: RustSseParser,
    items: Vec<SseItem>,
}

#[pymethods]
impl SseParser {
    /// Options (keyword only): read by `Options::from_kwargs`; the stub
    /// (`actionstream/__init__.pyi`) types them.
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let config = Options::from_kwargs("SseParser", options)?.config()?;
        Ok(SseParser {
            inner: RustSseParser::new(config),
            items: Vec::new(),
        })
    }

    /// Pushes the next bytes of the stream (a chunk may end anywhere).
    fn push<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = match chunk(data)? {
            Chunk::Text(t) => t.as_bytes(),
            Chunk::Bytes(b) => b,
        };
        self.inner.push(bytes, &mut self.items);
        self.drain(py)
    }

    /// Ends the stream; the parser is then ready for another.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.inner.finish(&mut self.items);
        self.drain(py)
    }
}

impl SseParser {
    fn drain<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for item in self.items.drain(..) {
            match item {
                SseItem::Event(e) => {
                    if let Some(o) = event_to_py(py, &e)? {
                        list.append(o)?;
                    }
                }
                SseItem::Error(message) => list.append(Py::new(
                    py,
                    Error {
                        message: PyString::new(py, &message).into_any().unbind(),
                    },
                )?)?,
            }
        }
        Ok(list)
    }
}

/// The built-in model dialects' names.
#[pyfunction]
fn dialects() -> Vec<&'static str> {
    actionstream::dialect::BUILTIN.to_vec()
}

/// The dialects a model id's family reads (`ValueError` for an id of no
/// known family, with the CLI's message).
#[pyfunction]
fn dialects_for_model(model: &str) -> PyResult<Vec<&'static str>> {
    actionstream::dialect::family::dialects_for_model(model).map_err(PyValueError::new_err)
}

/// For `bench.py`: seconds to parse `text` in pushes of `chunk` bytes
/// (cut on character boundaries) from Rust, the events dropped: what a
/// push costs without Python. The best of `rounds` runs.
#[pyfunction]
#[pyo3(signature = (text, chunk, rounds=5, **options))]
fn _time_native(
    py: Python<'_>,
    text: &str,
    chunk: usize,
    rounds: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(f64, usize)> {
    let config = match options {
        Some(kw) => py
            .get_type::<Parser>()
            .call((), Some(kw))?
            .cast_into::<Parser>()?
            .borrow()
            .inner
            .config()
            .clone(),
        None => Config::default(),
    };
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + chunk.max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&text[at..end]);
        at = end;
    }
    let best = py.detach(|| {
        let mut best = f64::INFINITY;
        for _ in 0..rounds.max(1) {
            let start = std::time::Instant::now();
            let mut parser = actionstream::Parser::new(config.clone());
            let mut events = Vec::new();
            for p in &pieces {
                parser.push(p, &mut events);
                events.clear();
            }
            parser.finish(&mut events);
            best = best.min(start.elapsed().as_secs_f64());
        }
        best
    });
    Ok((best, pieces.len()))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Parser>()?;
    m.add_class::<SseParser>()?;
    m.add_class::<Narrative>()?;
    m.add_class::<Reasoning>()?;
    m.add_class::<ActionStarted>()?;
    m.add_class::<ActionDelta>()?;
    m.add_class::<ArgumentsDelta>()?;
    m.add_class::<ActionComplete>()?;
    m.add_class::<ActionInvalid>()?;
    m.add_class::<Error>()?;
    m.add_function(wrap_pyfunction!(dialects, m)?)?;
    m.add_function(wrap_pyfunction!(dialects_for_model, m)?)?;
    m.add_function(wrap_pyfunction!(_time_native, m)?)?;
    Ok(())
}
