//! The `file` handler: writes or appends to a file under a root directory,
//! and refuses every path that leads out of it.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::handler::{Handler, HandlerResult};
use crate::event::Action;

/// Why the `file` handler refused a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathRefused {
    /// The path is empty.
    #[error("the path is empty")]
    Empty,
    /// The path holds a NUL byte.
    #[error("the path holds a NUL byte")]
    Nul,
    /// The path is absolute (`/x`, `\x`, `C:\x`, `C:x`).
    #[error("the path is absolute; give a path relative to the root")]
    Absolute,
    /// The path holds a backslash (a Windows separator, refused everywhere).
    #[error("the path holds a backslash; use '/'")]
    Backslash,
    /// The path holds a `..` component.
    #[error("the path holds a '..' component")]
    ParentDir,
    /// The path names a directory, not a file.
    #[error("the path names no file")]
    NoFileName,
    /// A directory on the way is a symbolic link that leads out of the root.
    #[error("'{0}' leads out of the root")]
    Escapes(String),
    /// The file itself is a symbolic link.
    #[error("'{0}' is a symbolic link")]
    Symlink(String),
    /// A directory on the way is not a directory, or cannot be read.
    #[error("'{0}': {1}")]
    Io(String, String),
}

/// Writes or appends a file under a root directory.
///
/// Arguments: `{"path": "notes/today.md", "content": "...", "mode":
/// "write"|"append"}` (`filename` is read where `path` is absent, as in the
/// seeds; without either, `output.md`; the mode defaults to `append`, which
/// adds a line ending after the content, as the seeds do). Missing
/// directories under the root are created. Output: `{"path": "...", "mode":
/// "...", "bytes": N}` with the path relative to the root.
///
/// Refused, before anything is written: an empty path, a NUL byte, an
/// absolute path (also `\x` and `C:\x`), a backslash, a `..` component, a
/// directory on the way that is a symbolic link leading out of the root
/// (each existing directory is canonicalized and must stay under the
/// canonical root), and a final path that is an existing symbolic link. (A
/// link swapped in between the check and the write is not caught: do not
/// give the model a root that others write into.)
///
/// ```
/// use actionstream::dispatch::{FileHandler, PathRefused};
///
/// let root = std::env::temp_dir().join(format!("actionstream-doc-{}", std::process::id()));
/// let h = FileHandler::new(&root);
/// assert_eq!(h.resolve("../etc/passwd"), Err(PathRefused::ParentDir));
/// assert_eq!(h.resolve("/etc/passwd"), Err(PathRefused::Absolute));
/// assert!(h.resolve("notes/today.md").unwrap().ends_with("notes/today.md"));
/// # let _ = std::fs::remove_dir_all(&root);
/// ```
#[derive(Debug, Clone)]
pub struct FileHandler {
    root: PathBuf,
}

impl FileHandler {
    /// A handler that writes under `root` (created when missing).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        FileHandler { root: root.into() }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Checks `path` and returns where it leads under the canonical root,
    /// creating missing directories on the way (the root too).
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathRefused> {
        let rel = check_lexically(path)?;
        std::fs::create_dir_all(&self.root)
            .map_err(|e| PathRefused::Io(self.root.display().to_string(), e.to_string()))?;
        let root = self
            .root
            .canonicalize()
            .map_err(|e| PathRefused::Io(self.root.display().to_string(), e.to_string()))?;
        let mut comps: Vec<&std::ffi::OsStr> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s),
                _ => None,
            })
            .collect();
        let file = comps.pop().ok_or(PathRefused::NoFileName)?;
        let mut dir = root.clone();
        let mut shown = PathBuf::new();
        for c in comps {
            shown.push(c);
            let next = dir.join(c);
            let err =
                |e: std::io::Error| PathRefused::Io(shown.display().to_string(), e.to_string());
            match std::fs::symlink_metadata(&next) {
                Ok(_) => {
                    let real = next.canonicalize().map_err(err)?;
                    if !real.starts_with(&root) {
                        return Err(PathRefused::Escapes(shown.display().to_string()));
                    }
                    if !real.is_dir() {
                        return Err(PathRefused::Io(
                            shown.display().to_string(),
                            "not a directory".into(),
                        ));
                    }
                    dir = real;
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    std::fs::create_dir(&next).map_err(err)?;
                    dir = next;
                }
                Err(e) => return Err(err(e)),
            }
        }
        shown.push(file);
        let target = dir.join(file);
        if let Ok(m) = std::fs::symlink_metadata(&target) {
            if m.file_type().is_symlink() {
                return Err(PathRefused::Symlink(shown.display().to_string()));
            }
            if m.is_dir() {
                return Err(PathRefused::NoFileName);
            }
        }
        Ok(target)
    }

    fn write(&self, arguments: &Value) -> HandlerResult {
        let path = match arguments.get("path").or_else(|| arguments.get("filename")) {
            None => "output.md",
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err("`path` must be a string".into()),
        };
        let append = match arguments.get("mode") {
            None => true,
            Some(Value::String(m)) if m == "append" => true,
            Some(Value::String(m)) if m == "write" => false,
            Some(other) => {
                return Err(format!(
                    "`mode` must be \"write\" or \"append\", not {other}"
                ));
            }
        };
        let mut content = match arguments.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => return Err("`content` is missing".into()),
            Some(other) => other.to_string(),
        };
        if append {
            content.push('\n');
        }
        let target = self
            .resolve(path)
            .map_err(|e| format!("refused path '{}': {e}", path.escape_debug()))?;
        let mut options = std::fs::OpenOptions::new();
        options.create(true);
        if append {
            options.append(true);
        } else {
            options.write(true).truncate(true);
        }
        let mut f = options
            .open(&target)
            .map_err(|e| format!("cannot open '{path}': {e}"))?;
        f.write_all(content.as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| format!("cannot write '{path}': {e}"))?;
        let mode = if append { "append" } else { "write" };
        Ok(json!({"path": path, "mode": mode, "bytes": content.len()}))
    }
}

/// The checks that need no file system.
fn check_lexically(path: &str) -> Result<&Path, PathRefused> {
    if path.is_empty() {
        return Err(PathRefused::Empty);
    }
    if path.contains('\0') {
        return Err(PathRefused::Nul);
    }
    let b = path.as_bytes();
    if b[0] == b'/' || b[0] == b'\\' || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
    {
        return Err(PathRefused::Absolute);
    }
    if path.contains('\\') {
        return Err(PathRefused::Backslash);
    }
    let p = Path::new(path);
    for c in p.components() {
        match c {
            Component::ParentDir => return Err(PathRefused::ParentDir),
            Component::RootDir | Component::Prefix(_) => return Err(PathRefused::Absolute),
            Component::CurDir | Component::Normal(_) => {}
        }
    }
    if path.ends_with('/') {
        return Err(PathRefused::NoFileName);
    }
    Ok(p)
}

impl Handler for FileHandler {
    fn call(&self, action: Action) -> BoxFuture<'static, HandlerResult> {
        let this = self.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || this.write(&action.arguments))
                .await
                .map_err(|e| format!("the file write did not finish: {e}"))?
        })
    }
}
