//! The lock on `--out DIR` (SPEC §5: "a lock, taken before the first log
//! line is read and held until exit, keeps them apart; the second waits up
//! to `--lock-wait` seconds, default 0, then exits 2"). Takes the directory
//! and how long to wait; gives an `OutDir` that proves the lock is held,
//! after removing what a killed run left behind.
//!
//! The lock is an `flock` on `DIR/.robots-audit/lock`. That folder holds
//! the report sets (see `atomic`); it must be a real directory of this
//! user that nobody else may write, or anyone could plant links in it.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The folder inside DIR that holds the lock and the report sets.
pub const STATE_DIR: &str = ".robots-audit";

/// The link in the state folder that names the set in force (`atomic`).
pub(super) const CURRENT: &str = "current";
/// Prefixes of what `atomic` creates; the sweep removes what a killed
/// run left of them.
pub(super) const SET_PREFIX: &str = "set-";
pub(super) const CURRENT_TEMP_PREFIX: &str = ".current-";
pub(super) const LINK_TEMP_PREFIX: &str = ".robots-audit-link-";

/// How often a waiting run tries the lock again.
const RETRY: Duration = Duration::from_millis(100);

/// An `--out` directory whose lock this process holds; the lock goes with
/// the value (or with the process, however it ends).
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    state: PathBuf,
    _lock: File,
}

impl OutDir {
    /// Makes DIR (parents and all: a nightly job may name a fresh folder
    /// per run) and takes its lock, waiting up to `wait`; then removes the
    /// leftovers of earlier runs that were killed.
    pub fn lock(dir: &Path, wait: Duration) -> Result<OutDir> {
        let fail = |path: &Path| {
            let path = path.to_path_buf();
            move |source: io::Error| Error::Write { path, source }
        };
        make_folder(dir)
            .map_err(|e| crate::error::not_a_folder(dir, e))
            .map_err(fail(dir))?;
        let state = dir.join(STATE_DIR);
        match DirBuilder::new().mode(0o755).create(&state) {
            // A umask of 002 would make it group-writable, which the check
            // below refuses: the mode is set whatever the umask.
            Ok(()) => fs::set_permissions(&state, fs::Permissions::from_mode(0o755))
                .map_err(fail(&state))?,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(fail(&state)(e)),
        }
        check_state_dir(&state).map_err(fail(&state))?;
        let lock_path = state.join("lock");
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o600)
            // Never through a link, whoever put it there.
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&lock_path)
            .map_err(fail(&lock_path))?;
        let started = Instant::now();
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(fs::TryLockError::WouldBlock) => {
                    let waited = started.elapsed();
                    if waited >= wait {
                        return Err(fail(dir)(io::Error::new(
                            io::ErrorKind::WouldBlock,
                            format!(
                                "another robots-audit run holds this folder (its reports \
                                 or its state); gave up after {} s (see --lock-wait)",
                                wait.as_secs()
                            ),
                        )));
                    }
                    std::thread::sleep(RETRY.min(wait - waited));
                }
                Err(fs::TryLockError::Error(e)) => return Err(fail(&lock_path)(e)),
            }
        }
        let out = OutDir {
            dir: dir.to_path_buf(),
            state,
            _lock: lock,
        };
        sweep(&out);
        Ok(out)
    }

    /// DIR as given.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// `DIR/.robots-audit`.
    pub fn state(&self) -> &Path {
        &self.state
    }
}

/// Makes `dir` and the folders above it that are missing, each 755 less
/// what the umask takes away, and never writable by group or others: under
/// a umask of 002 `dir` would be group-writable, which a `--state` folder
/// must not be (so that a folder the tool made is never refused by it on
/// the next night). A folder that was there keeps its mode, also one the
/// path reaches by `..` (`/tmp/new/..` is `/tmp`, never made here).
pub fn make_folder(dir: &Path) -> io::Result<()> {
    if fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Ok(());
    }
    // The folders above it that it makes are never open to others either
    // (mode 755 less the umask): whoever may write a state's parent may
    // move the state away, and the next night would start afresh.
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(parent)
            .map_err(|e| {
                // A file where a folder above it should be: said so, not
                // as the bare "File exists" of making it.
                let file = parent
                    .ancestors()
                    .find(|a| fs::metadata(a).is_ok_and(|m| !m.is_dir()));
                match (e.kind(), file) {
                    (io::ErrorKind::AlreadyExists, Some(file)) => io::Error::new(
                        io::ErrorKind::NotADirectory,
                        format!("{} is a file, not a folder", file.display()),
                    ),
                    _ => e,
                }
            })?;
    }
    match DirBuilder::new().mode(0o755).create(dir) {
        // Made with 755 less the umask: at most 755, so never writable
        // by others; the set keeps a 077 umask's 700.
        Ok(()) => {
            let made = fs::metadata(dir)?.mode() & 0o7777;
            fs::set_permissions(dir, fs::Permissions::from_mode(made & !0o022))
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// The state folder must be a directory (not a link to one) of this user
/// that no other user may write.
fn check_state_dir(state: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(state)?;
    let why = if !meta.is_dir() {
        "is not a directory"
    } else if meta.uid() != rustix::process::geteuid().as_raw() {
        "is owned by another user"
    } else if meta.mode() & 0o022 != 0 {
        "is writable by other users"
    } else {
        return Ok(());
    };
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{why}; not trusted"),
    ))
}

/// Removes what runs killed part way left behind (SPEC §5: "leftovers of a
/// killed run are removed by the next"): sets not in force, temporary
/// links, and the temporary files of the earlier version of this code
/// (`.violations.csv.<pid>.tmp` and `.old`). Runs under the lock, so no
/// other run is writing them.
fn sweep(out: &OutDir) {
    let in_force = fs::read_link(out.state().join(CURRENT)).ok();
    if let Ok(entries) = fs::read_dir(out.state()) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(SET_PREFIX) {
                if in_force.as_deref() != Some(Path::new(&entry.file_name())) {
                    let _ = fs::remove_dir_all(entry.path());
                }
            } else if name.starts_with(CURRENT_TEMP_PREFIX) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    if let Ok(entries) = fs::read_dir(out.path()) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let ours = name.starts_with(LINK_TEMP_PREFIX)
                && entry.file_type().is_ok_and(|t| t.is_symlink());
            if ours || is_earlier_temporary(&name) {
                // Removes the entry itself; a link is never followed.
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

/// `.NAME.csv.PID.tmp` or `.NAME.csv.PID.old`, as the earlier version named
/// its temporary files.
fn is_earlier_temporary(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let Some(rest) = rest
        .strip_suffix(".tmp")
        .or_else(|| rest.strip_suffix(".old"))
    else {
        return false;
    };
    rest.rsplit_once('.').is_some_and(|(report, pid)| {
        report.ends_with(".csv") && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file where a folder above `--out` should be is named as such, not
    /// as the bare "File exists" of making the folder.
    #[test]
    fn a_file_above_the_folder_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("afile");
        fs::write(&file, "x").unwrap();
        let err = make_folder(&file.join("x")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotADirectory);
        assert!(
            err.to_string().contains("afile is a file, not a folder"),
            "{err}"
        );
    }

    /// Only a folder this call made gets mode 755: one the path reaches
    /// through `..`, or one that was there, keeps its own.
    #[test]
    fn a_folder_that_was_there_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared");
        fs::create_dir(&shared).unwrap();
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().mode() & 0o7777;
        make_folder(&shared.join("night/..")).unwrap();
        assert_eq!(mode(&shared), 0o1777);
        make_folder(&shared).unwrap();
        assert_eq!(mode(&shared), 0o1777);
        let made = shared.join("a/b");
        make_folder(&made).unwrap();
        assert_eq!(mode(&made), 0o755);
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o700)).unwrap();
    }

    /// A link to a folder that is not there is said as such, not as
    /// "File exists".
    #[test]
    fn a_link_to_no_folder_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nothere"), &link).unwrap();
        let err = OutDir::lock(&link, Duration::ZERO).unwrap_err().to_string();
        assert!(
            err.contains("a link to a folder that does not exist"),
            "{err}"
        );
        assert!(!dir.path().join("nothere").exists());
    }

    #[test]
    fn a_second_lock_waits_then_gives_up() {
        let dir = tempfile::tempdir().unwrap();
        let first = OutDir::lock(dir.path(), Duration::ZERO).unwrap();
        let second = OutDir::lock(dir.path(), Duration::ZERO).unwrap_err();
        assert!(
            second
                .to_string()
                .contains("another robots-audit run holds"),
            "{second}"
        );
        drop(first);
        OutDir::lock(dir.path(), Duration::ZERO).unwrap();
    }

    #[test]
    fn a_state_folder_others_may_write_or_a_link_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        fs::create_dir_all(out.join(STATE_DIR)).unwrap();
        fs::set_permissions(out.join(STATE_DIR), fs::Permissions::from_mode(0o777)).unwrap();
        let err = OutDir::lock(&out, Duration::ZERO).unwrap_err();
        assert!(err.to_string().contains("writable by other users"), "{err}");

        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let linked = dir.path().join("linked");
        fs::create_dir(&linked).unwrap();
        std::os::unix::fs::symlink(&elsewhere, linked.join(STATE_DIR)).unwrap();
        let err = OutDir::lock(&linked, Duration::ZERO).unwrap_err();
        assert!(err.to_string().contains("not a directory"), "{err}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn earlier_temporary_names() {
        assert!(is_earlier_temporary(".violations.csv.4242.tmp"));
        assert!(is_earlier_temporary(".summary.csv.1.old"));
        assert!(!is_earlier_temporary(".summary.csv.x1.old"));
        assert!(!is_earlier_temporary("violations.csv.1.tmp"));
        assert!(!is_earlier_temporary(".notes.txt.1.tmp"));
    }
}
