//! Reading a robots.txt as given (`--robots`, `lint`, `check`): takes a
//! path, gives its bytes, at most one past the 500 KiB limit, and the
//! metadata of the very file that was read (SPEC §1; README "Hostile and
//! broken input": a pipe that never ends is read to the limit).
//!
//! A regular file is read as it is. Anything else (a FIFO, the pipe of a
//! shell's `<(curl …)`, a device) is opened without waiting for a writer
//! and read as its data comes, for at most `PIPE_WAIT` in all: a FIFO
//! whose writer never comes, or comes and neither writes nor ends, is an
//! error naming it, never a nightly run that waits for ever without a
//! word (each night would add one more).

use std::fs::Metadata;
use std::io::{self, Read};
use std::path::Path;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

use super::parse::SIZE_LIMIT;
use crate::error::{Error, Position, Result};
use crate::side_file::{kind_of, open_without_waiting};

/// How long a robots.txt that is no regular file may take to come whole.
pub const PIPE_WAIT: Duration = Duration::from_secs(60);

/// Reads `path` to the limit, waiting at most `PIPE_WAIT` for a pipe.
pub fn read(path: &Path) -> Result<(Vec<u8>, Metadata)> {
    read_waiting(path, PIPE_WAIT)
}

fn read_waiting(path: &Path, wait: Duration) -> Result<(Vec<u8>, Metadata)> {
    let open_error = |source| Error::Open {
        path: path.to_path_buf(),
        source,
    };
    let read_error = |source| Error::Read {
        path: path.to_path_buf(),
        at: Position::File,
        source,
    };
    // Opened as a FIFO would wait for a writer, for ever if none came.
    let (file, metadata) = open_without_waiting(path).map_err(open_error)?;
    if metadata.is_dir() {
        return Err(open_error(io::Error::from(io::ErrorKind::IsADirectory)));
    }
    let limit = SIZE_LIMIT + 1;
    let mut bytes = Vec::new();
    if metadata.is_file() {
        (&file)
            .take(limit as u64)
            .read_to_end(&mut bytes)
            .map_err(read_error)?;
        return Ok((bytes, metadata));
    }
    // A FIFO opened without waiting reads as ended (0 bytes) while no
    // writer has come: it is read only when `poll` says there is data or
    // the writer has gone. Linux reports no hang-up for a FIFO whose
    // writer never came, so that case waits here, to the deadline.
    let deadline = Instant::now() + wait;
    let mut buffer = vec![0u8; 64 * 1024];
    while bytes.len() < limit {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(read_error(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "it is {} and no whole robots.txt came through it within {} s (its \
                     writer never came, or neither wrote nor ended): give the file itself",
                    kind_of(&metadata),
                    wait.as_secs()
                ),
            )));
        }
        let timeout = Timespec {
            tv_sec: left.as_secs() as _,
            tv_nsec: left.subsec_nanos() as _,
        };
        let mut fds = [PollFd::new(&file, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => continue,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(read_error(e.into())),
        }
        let want = buffer.len().min(limit - bytes.len());
        match (&file).read(&mut buffer[..want]) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buffer[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(read_error(e)),
        }
    }
    Ok((bytes, metadata))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn fifo(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("robots.fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        path
    }

    #[test]
    fn a_fifo_is_read_as_its_writer_writes_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(dir.path());
        let writer_path = path.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            let mut w = std::fs::OpenOptions::new()
                .write(true)
                .open(writer_path)
                .unwrap();
            w.write_all(b"User-agent: *\n").unwrap();
            std::thread::sleep(Duration::from_millis(50));
            w.write_all(b"Disallow: /x\n").unwrap();
        });
        let (bytes, meta) = read_waiting(&path, Duration::from_secs(20)).unwrap();
        writer.join().unwrap();
        assert_eq!(bytes, b"User-agent: *\nDisallow: /x\n");
        assert!(!meta.is_file());
    }

    #[test]
    fn a_fifo_whose_writer_never_comes_or_never_ends_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(dir.path());
        let wait = Duration::from_millis(300);
        let started = Instant::now();
        let err = read_waiting(&path, wait).unwrap_err().to_string();
        assert!(started.elapsed() >= wait);
        assert!(err.contains("robots.fifo") && err.contains("FIFO"), "{err}");

        // A writer that opens it, writes part and holds it open.
        let (hold, holding) = std::sync::mpsc::channel::<()>();
        let writer_path = path.clone();
        let writer = std::thread::spawn(move || {
            let mut w = std::fs::OpenOptions::new()
                .write(true)
                .open(writer_path)
                .unwrap();
            w.write_all(b"User-agent: *\n").unwrap();
            let _ = holding.recv();
        });
        let err = read_waiting(&path, wait).unwrap_err().to_string();
        assert!(err.contains("within"), "{err}");
        drop(hold);
        writer.join().unwrap();
    }

    #[test]
    fn a_device_is_read_to_the_limit() {
        let (bytes, _) = read_waiting(Path::new("/dev/zero"), Duration::from_secs(20)).unwrap();
        assert_eq!(bytes.len(), SIZE_LIMIT + 1);
        let (bytes, _) = read_waiting(Path::new("/dev/null"), Duration::from_secs(20)).unwrap();
        assert!(bytes.is_empty());
    }
}
