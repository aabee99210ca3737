//! Writing a report file whole or not at all (SPEC §5): the bytes go to a
//! temporary file beside the target, are flushed to disk, and only then
//! renamed over it. A run that fails or is interrupted leaves any earlier
//! report untouched and no temporary file behind.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};

/// Temporary files not yet renamed. The lock is held for the whole of
/// `write_all`, so an interrupt handler that takes it sees every temporary
/// file either still pending or already renamed, never half made.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes every temporary file not yet renamed and keeps the lock held, so
/// that no further report file is made. For the interrupt handler, which
/// ends the process right after.
pub fn abandon() {
    let pending = PENDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    for path in pending.iter() {
        let _ = fs::remove_file(path);
    }
    std::mem::forget(pending);
}

fn temporary_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    target.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

fn stage(temp: &Path, target: &Path, bytes: &[u8]) -> Result<()> {
    let fail = |source: io::Error| Error::Write {
        path: target.to_path_buf(),
        source,
    };
    let mut file = File::create(temp).map_err(fail)?;
    file.write_all(bytes).map_err(fail)?;
    file.sync_all().map_err(fail)
}

/// Writes several files so that each is whole or absent, and none is
/// replaced unless all could be written: all are staged first, then
/// renamed. On failure no temporary file is left behind.
pub fn write_all(files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    let mut pending = PENDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut result = Ok(());
    for (target, bytes) in files {
        let temp = temporary_path(target);
        pending.push(temp.clone());
        result = stage(&temp, target, bytes);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        for (target, _) in files {
            let temp = temporary_path(target);
            result = fs::rename(&temp, target).map_err(|source| Error::Write {
                path: target.clone(),
                source,
            });
            if result.is_err() {
                break;
            }
            pending.retain(|p| *p != temp);
        }
    }
    for temp in pending.drain(..) {
        let _ = fs::remove_file(temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_files_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        write_all(&[
            (a.clone(), b"one\n".to_vec()),
            (b.clone(), b"two\n".to_vec()),
        ])
        .unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"one\n");
        assert_eq!(fs::read(&b).unwrap(), b"two\n");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn a_failed_write_leaves_the_old_report() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        fs::write(&a, b"old\n").unwrap();
        let missing = dir.path().join("no-such-dir").join("b.csv");
        let err = write_all(&[(a.clone(), b"new\n".to_vec()), (missing, b"x".to_vec())]);
        assert!(err.is_err());
        assert_eq!(fs::read(&a).unwrap(), b"old\n");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
