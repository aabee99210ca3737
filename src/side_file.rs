//! Reading a side file (`--ptr-map`, `--profiles`, the DNS cache; SPEC §1
//! "Side files … are read to a size limit (16 MiB) and never hang on a
//! FIFO or a device"). Takes a path; gives its bytes and the metadata of
//! the very file that was read, or why it was refused. The robots.txt
//! sources, the state folder and the mail open their files through it too,
//! so no input of the run can hang on a FIFO.
//!
//! The file is opened with `O_NONBLOCK` and judged by `fstat` on the open
//! descriptor, not by a `stat` of the path before: a FIFO then opens at
//! once instead of waiting for a writer, and a path swapped between the
//! check and the read cannot slip another file in.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The most a side file may hold (SPEC §1).
pub const LIMIT: u64 = 16 * 1024 * 1024;

/// Why a side file was not read.
#[derive(Debug)]
pub enum Refusal {
    /// It could not be opened or read (missing, no permission).
    Unreadable(io::Error),
    /// It is no regular file: a FIFO, a device, a directory, a socket.
    NotRegular(&'static str),
    /// It holds more than `LIMIT` bytes.
    TooLarge,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Unreadable(e) => write!(f, "{e}"),
            Refusal::NotRegular(kind) => write!(f, "is {kind}, not a regular file"),
            Refusal::TooLarge => write!(f, "larger than {} MiB", LIMIT >> 20),
        }
    }
}

impl Refusal {
    /// As an I/O error, for the `Error::Open` that names the file.
    pub fn into_io(self) -> io::Error {
        match self {
            Refusal::Unreadable(e) => e,
            other => io::Error::new(io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

/// What kind of file `meta` is, said as in a message ("a FIFO").
pub fn kind_of(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Why a file or folder whose content decides a verdict cannot be trusted,
/// if it cannot: whoever else may write it may plant what verifies an
/// impostor (the DNS cache, SPEC §1 "one that other users may write … is
/// not trusted") or hides a night's violations (the state, SPEC §6).
pub fn untrusted(meta: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::MetadataExt;
    if meta.uid() != rustix::process::geteuid().as_raw() {
        Some("owned by another user")
    } else if meta.mode() & 0o022 != 0 {
        Some("writable by other users")
    } else {
        None
    }
}

/// Opens a file the tool reads whole only if it is a regular file (a FIFO
/// opens at once and is refused, never waited on).
pub fn open_regular(path: &Path) -> Result<(File, Metadata), Refusal> {
    let (file, meta) = open_without_waiting(path).map_err(Refusal::Unreadable)?;
    if !meta.is_file() {
        return Err(Refusal::NotRegular(kind_of(&meta)));
    }
    Ok((file, meta))
}

/// Opens `path` for reading without waiting for a FIFO's writer (and
/// without taking a terminal as the controlling one), with the metadata
/// of the very file opened.
pub fn open_without_waiting(path: &Path) -> io::Result<(File, Metadata)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    Ok((file, meta))
}

/// Reads a side file whole, or refuses it.
pub fn read(path: &Path) -> Result<(Vec<u8>, Metadata), Refusal> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > LIMIT {
        return Err(Refusal::TooLarge);
    }
    // The size said may be wrong (a file still growing, or one of /proc
    // that says 0): the limit holds for what is read.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&file as &File)
        .take(LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(Refusal::Unreadable)?;
    if bytes.len() as u64 > LIMIT {
        return Err(Refusal::TooLarge);
    }
    // A byte-order mark, as Windows editors save a text file, is no part
    // of its first line (as in robots.txt, SPEC §1).
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    Ok((bytes, meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_devices_and_directories_are_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let cases = [
            (fifo.as_path(), "a FIFO"),
            (Path::new("/dev/zero"), "a device"),
            (dir.path(), "a directory"),
        ];
        for (path, kind) in cases {
            match read(path) {
                Err(Refusal::NotRegular(k)) => assert_eq!(k, kind, "{}", path.display()),
                other => panic!("{}: {other:?}", path.display()),
            }
        }
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ptr-map.txt");
        std::fs::write(&path, b"\xEF\xBB\xBF77.75.77.1 a.seznam.cz\r\n").unwrap();
        assert_eq!(read(&path).unwrap().0, b"77.75.77.1 a.seznam.cz\r\n");
        // Only at the start, and only whole.
        std::fs::write(&path, b"\xEF\xBBx\xEF\xBB\xBF").unwrap();
        assert_eq!(read(&path).unwrap().0, b"\xEF\xBBx\xEF\xBB\xBF");
    }

    #[test]
    fn the_limit_is_16_mib() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let file = File::create(&path).unwrap();
        file.set_len(LIMIT).unwrap();
        assert_eq!(read(&path).unwrap().0.len() as u64, LIMIT);
        file.set_len(LIMIT + 1).unwrap();
        assert!(matches!(read(&path), Err(Refusal::TooLarge)));
    }
}
