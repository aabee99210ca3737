//! Writing a report file whole or not at all (SPEC §5): the bytes go to a
//! temporary file beside the target, are flushed to disk, and only then
//! renamed over it. A run that fails or is interrupted leaves any earlier
//! report untouched and no temporary file behind.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::columns::Report;
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

fn temporary_path(target: &Path, kind: &str) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    target.with_file_name(format!(".{name}.{}.{kind}", std::process::id()))
}

fn stage(temp: &Path, target: &Path, report: &Report<'_>) -> Result<()> {
    let fail = |source: io::Error| Error::Write {
        path: target.to_path_buf(),
        source,
    };
    let mut file = File::create(temp).map_err(fail)?;
    report(&mut file).map_err(fail)?;
    file.sync_all().map_err(fail)
}

/// Writes several files so that each is whole or absent, and none is
/// replaced unless all are: all are staged first; the reports they replace
/// are kept (as hard links) until every rename has been made, and put back
/// if one fails. On failure no temporary file is left behind.
pub fn write_all(files: &[(PathBuf, &Report<'_>)]) -> Result<()> {
    let mut pending = PENDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let result = stage_and_rename(files, &mut pending);
    for temp in pending.drain(..) {
        let _ = fs::remove_file(temp);
    }
    result
}

fn stage_and_rename(files: &[(PathBuf, &Report<'_>)], pending: &mut Vec<PathBuf>) -> Result<()> {
    for (target, report) in files {
        let temp = temporary_path(target, "tmp");
        pending.push(temp.clone());
        stage(&temp, target, report)?;
    }
    // The earlier reports, kept under another name until the new set is
    // complete. `None`: there was none.
    let mut earlier: Vec<Option<PathBuf>> = Vec::with_capacity(files.len());
    for (target, _) in files {
        let kept = temporary_path(target, "old");
        pending.push(kept.clone());
        let _ = fs::remove_file(&kept);
        earlier.push(match fs::hard_link(target, &kept) {
            Ok(()) => Some(kept),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(Error::Write {
                    path: target.clone(),
                    source,
                });
            }
        });
    }
    for (done, (target, _)) in files.iter().enumerate() {
        if let Err(source) = fs::rename(temporary_path(target, "tmp"), target) {
            // Put back what the renames before this one replaced.
            for ((target, _), kept) in files[..done].iter().zip(&earlier) {
                let _ = match kept {
                    Some(kept) => fs::rename(kept, target),
                    None => fs::remove_file(target),
                };
            }
            return Err(Error::Write {
                path: target.clone(),
                source,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn writes_whole_files_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        write_all(&[
            (a.clone(), &|w: &mut dyn Write| w.write_all(b"one\n")),
            (b.clone(), &|w: &mut dyn Write| w.write_all(b"two\n")),
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
        let err = write_all(&[
            (a.clone(), &|w: &mut dyn Write| w.write_all(b"new\n")),
            (missing, &|w: &mut dyn Write| w.write_all(b"x")),
        ]);
        assert!(err.is_err());
        assert_eq!(fs::read(&a).unwrap(), b"old\n");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
