//! The one error type of the crate. Every variant names the file it concerns
//! and, where known, the line or byte position, so that the binary can print
//! `robots-audit: <what>: <path>:<line>: <cause>` (STYLE "Errors").

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Where in an input an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Nothing more precise than the file is known.
    File,
    /// A 1-based line number.
    Line(u64),
    /// A byte offset into the (compressed) file.
    Byte(u64),
}

#[derive(Debug)]
pub enum Error {
    /// The file could not be opened (missing, a directory, no permission).
    Open { path: PathBuf, source: io::Error },
    /// Reading failed part way.
    Read {
        path: PathBuf,
        at: Position,
        source: io::Error,
    },
    /// The input is damaged: a corrupt or truncated gzip stream.
    Corrupt {
        path: PathBuf,
        at: Position,
        cause: String,
        /// The damage was found only by the member's checksum: it may lie
        /// anywhere before, and the inflater may have given wrong text
        /// since. Not so for a file that ends early, garbage after its last
        /// whole member, or a stream caught at an invalid code.
        untrusted: bool,
    },
    /// The content does not have the expected form (`--strict` log lines, a
    /// PTR map line, a log format string).
    Format {
        path: PathBuf,
        at: Position,
        cause: String,
    },
    /// An output could not be written.
    Write { path: PathBuf, source: io::Error },
    /// The command line asks for something impossible.
    Usage(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// True when the error is a closed standard output (`| head`): the run
    /// should end quietly rather than complain.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

fn write_place(f: &mut fmt::Formatter<'_>, path: &Path, at: Position) -> fmt::Result {
    match at {
        Position::File => write!(f, "{}", path.display()),
        Position::Line(n) => write!(f, "{}:{}", path.display(), n),
        Position::Byte(n) => write!(f, "{}: at byte {}", path.display(), n),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Open { path, source } => {
                write!(f, "cannot open: {}: {}", path.display(), source)
            }
            Error::Read { path, at, source } => {
                write!(f, "cannot read: ")?;
                write_place(f, path, *at)?;
                write!(f, ": {source}")
            }
            Error::Corrupt {
                path,
                at,
                cause,
                untrusted,
            } => {
                write!(f, "damaged input: ")?;
                write_place(f, path, *at)?;
                write!(f, ": {cause}")?;
                if *untrusted {
                    write!(
                        f,
                        " (found by the checksum at the end of the gzip member: the damage \
                         may lie anywhere before it, and rows of this file after it may come \
                         from damaged text; decompress what is left with `gzip -dc` and check)"
                    )?;
                }
                Ok(())
            }
            Error::Format { path, at, cause } => {
                write!(f, "bad format: ")?;
                write_place(f, path, *at)?;
                write!(f, ": {cause}")
            }
            Error::Write { path, source } => {
                write!(f, "cannot write: {}: {}", path.display(), source)
            }
            Error::Usage(msg) => write!(f, "usage: {msg}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Open { source, .. }
            | Error::Read { source, .. }
            | Error::Write { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// `create_dir_all`'s "File exists" for a path that is a file: said as
/// what it means, that the path is no folder.
pub fn not_a_folder(dir: &std::path::Path, e: io::Error) -> io::Error {
    if e.kind() != io::ErrorKind::AlreadyExists {
        e
    } else if dir.exists() && !dir.is_dir() {
        io::Error::new(
            io::ErrorKind::AlreadyExists,
            "it exists and is no folder (a file is there)",
        )
    } else if !dir.exists() && dir.is_symlink() {
        io::Error::new(
            io::ErrorKind::AlreadyExists,
            "it is a link to a folder that does not exist: make that folder, or give \
             another path",
        )
    } else {
        e
    }
}
