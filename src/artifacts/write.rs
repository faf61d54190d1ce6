//! Writing artifacts under a directory without ever leaving it.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::path::{normalize_path, PathError};

/// Why an artifact was not written.
#[derive(Debug)]
pub enum WriteError {
    /// The path is refused (see [`normalize_path`]).
    Path(PathError),
    /// A directory on the way is a symbolic link that leads out of the
    /// output directory.
    Escape(String),
    /// The file itself is a symbolic link: it is not written through.
    Symlink(String),
    /// Something on the way is not a directory, or the file is a directory.
    NotAFile(String),
    /// The file system said no.
    Io(String, io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Path(e) => e.fmt(f),
            WriteError::Escape(p) => write!(f, "{p} leads out of the output directory"),
            WriteError::Symlink(p) => {
                write!(f, "{p} is a symbolic link; not writing through it")
            }
            WriteError::NotAFile(p) => {
                write!(f, "{p} is in the way: not a regular file or directory")
            }
            WriteError::Io(p, e) => write!(f, "cannot write {p}: {e}"),
        }
    }
}

impl std::error::Error for WriteError {}

/// An output directory that artifacts are written under, and never out of.
///
/// Every directory on a path is created one at a time; an existing one that
/// is a symbolic link must lead to a directory inside the output directory;
/// the file's directory, resolved, must be inside it; a file that is a
/// symbolic link is refused. The content goes to a new temporary file that
/// is then renamed over the target, so nothing is written through a link.
///
/// ```
/// use actionstream::artifacts::OutDir;
///
/// let dir = std::env::temp_dir().join(format!("actionstream-doc-{}", std::process::id()));
/// let out = OutDir::create(&dir).unwrap();
/// let written = out.write("src/a.ts", "export {};\n").unwrap();
/// assert_eq!(std::fs::read_to_string(&written).unwrap(), "export {};\n");
/// assert!(out.write("../escape.ts", "x").is_err());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct OutDir {
    root: PathBuf,
}

impl OutDir {
    /// Creates `dir` if needed and resolves it.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("actionstream-doc-c-{}", std::process::id()));
    /// let out = actionstream::artifacts::OutDir::create(&dir).unwrap();
    /// assert!(out.root().is_absolute());
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn create(dir: &Path) -> io::Result<OutDir> {
        fs::create_dir_all(dir)?;
        let root = fs::canonicalize(dir)?;
        if !root.is_dir() {
            return Err(io::Error::other("not a directory"));
        }
        Ok(OutDir { root })
    }

    /// The resolved output directory.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("actionstream-doc-r-{}", std::process::id()));
    /// let out = actionstream::artifacts::OutDir::create(&dir).unwrap();
    /// assert!(out.root().ends_with(dir.file_name().unwrap()));
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Writes `content` to the relative `path` (checked and normalised
    /// first); returns the file written.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("actionstream-doc-w-{}", std::process::id()));
    /// let out = actionstream::artifacts::OutDir::create(&dir).unwrap();
    /// assert!(out.write("/etc/passwd", "x").is_err());
    /// assert!(out.write("a/b/c.txt", "x").is_ok());
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn write(&self, path: &str, content: &str) -> Result<PathBuf, WriteError> {
        let rel = normalize_path(path).map_err(WriteError::Path)?;
        let parts: Vec<&str> = rel.split('/').collect();
        let Some((name, dirs)) = parts.split_last() else {
            return Err(WriteError::Path(PathError::Empty));
        };
        let mut dir = self.root.clone();
        let mut shown = String::new();
        for part in dirs {
            dir.push(part);
            if !shown.is_empty() {
                shown.push('/');
            }
            shown.push_str(part);
            match fs::symlink_metadata(&dir) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let target =
                        fs::canonicalize(&dir).map_err(|_| WriteError::Escape(shown.clone()))?;
                    if !target.starts_with(&self.root) {
                        return Err(WriteError::Escape(shown));
                    }
                    if !target.is_dir() {
                        return Err(WriteError::NotAFile(shown));
                    }
                    dir = target;
                }
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => return Err(WriteError::NotAFile(shown)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if let Err(e) = fs::create_dir(&dir) {
                        if e.kind() != io::ErrorKind::AlreadyExists {
                            return Err(WriteError::Io(shown, e));
                        }
                    }
                }
                Err(e) => return Err(WriteError::Io(shown, e)),
            }
        }
        let parent = fs::canonicalize(&dir).map_err(|e| WriteError::Io(rel.clone(), e))?;
        if !parent.starts_with(&self.root) {
            return Err(WriteError::Escape(rel));
        }
        let target = parent.join(name);
        match fs::symlink_metadata(&target) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(WriteError::Symlink(rel)),
            Ok(meta) if !meta.is_file() => return Err(WriteError::NotAFile(rel)),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(WriteError::Io(rel, e)),
        }
        let temp = parent.join(format!(".{name}.actionstream-{}.tmp", std::process::id()));
        let result = write_new(&temp, content).and_then(|()| fs::rename(&temp, &target));
        if let Err(e) = result {
            let _ = fs::remove_file(&temp);
            return Err(WriteError::Io(rel, e));
        }
        Ok(target)
    }
}

/// Writes a file that must not exist yet (so never through a link); a stale
/// temporary file of ours is removed first.
fn write_new(path: &Path, content: &str) -> io::Result<()> {
    let open = || {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
    };
    let mut file = match open() {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            fs::remove_file(path)?;
            open()?
        }
        other => other?,
    };
    file.write_all(content.as_bytes())?;
    file.flush()
}
