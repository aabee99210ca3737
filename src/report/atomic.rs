//! Switching the set of reports in `--out DIR` as one (SPEC §5: "a reader
//! of DIR sees the whole earlier set or the whole new one, never a mix,
//! never half a file — also when the run is killed"). Takes the locked
//! `OutDir` and the reports; gives a new set in place, or the earlier one
//! untouched.
//!
//! Layout: each set is a folder `DIR/.robots-audit/set-<random>`; the link
//! `DIR/.robots-audit/current` names the set in force; `DIR/violations.csv`
//! and the others are links to `.robots-audit/current/violations.csv` and
//! so on. A new set is written whole into a fresh folder (made with mkdir,
//! under a name nobody can guess, its files created exclusively), flushed,
//! and put in force by renaming one new link over `current`: rename(2) is
//! atomic, so at every instant `current` names one whole set. Every name
//! this code creates in DIR or in the state folder is new and random, so a
//! link planted by someone else is never written through; renaming over a
//! planted link replaces the link, not what it points to.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::columns::Report;
use super::lock::{CURRENT, CURRENT_TEMP_PREFIX, LINK_TEMP_PREFIX, OutDir, SET_PREFIX, STATE_DIR};
use crate::error::{Error, Result};

/// Random characters in each name: guessing one is hopeless.
const RANDOM_LEN: usize = 16;

/// How far the reports of this run got, for the interrupt handler, which
/// must say only what is true.
#[derive(Debug)]
enum Phase {
    /// Nothing of this run's reports has been made yet.
    Idle,
    /// A new set is being written into this folder; the earlier set is in
    /// force.
    Staging(PathBuf),
    /// The report is being written to standard output.
    Streaming,
    /// The new set, this folder, is in force in this directory.
    Switched { dir: PathBuf, set: PathBuf },
    /// The report went whole to standard output.
    Streamed,
}

/// The phase; held across the switch, so that the handler sees the set
/// either not yet in force or in force, never half switched.
static PHASE: Mutex<Phase> = Mutex::new(Phase::Idle);

/// The directory where a set of this run was put in force, once one was:
/// a set written after it (`amend`) is no first report of the run, and an
/// interrupt while it is written must not say none was written.
static WRITTEN: Mutex<Option<PathBuf>> = Mutex::new(None);

fn written() -> Option<PathBuf> {
    WRITTEN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// What an interrupted run leaves, as the handler found it.
#[derive(Debug, PartialEq, Eq)]
pub enum Abandoned {
    /// No report of this run was made; the earlier ones are untouched.
    Nothing,
    /// Part of the report went to standard output.
    PartOfStdout,
    /// The whole new set is in force in this directory.
    Written(PathBuf),
    /// The whole report went to standard output.
    WrittenToStdout,
}

fn hold_phase() -> std::sync::MutexGuard<'static, Phase> {
    PHASE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes a set being written and keeps the phase locked, so that no set
/// is put in force after; says what the run leaves. For the interrupt
/// handler, which ends the process right after unless the reports are
/// whole already.
pub fn abandon() -> Abandoned {
    let phase = hold_phase();
    let left = match &*phase {
        // An amended copy that failed leaves the set of this run in force.
        Phase::Idle => match written() {
            Some(dir) => Abandoned::Written(dir),
            None => Abandoned::Nothing,
        },
        Phase::Staging(set) => {
            // A set of this run is in force already (the one an amended
            // copy replaces): the copy being written is left to the run,
            // which finishes it.
            if let Some(dir) = written() {
                drop(phase);
                return Abandoned::Written(dir);
            }
            // The main thread may still be creating reports in the set:
            // removing it in place could race with a new file and leave
            // the folder behind. Renamed first, it takes no new file (they
            // are created by the old path), so it can be removed whole; a
            // leftover keeps the set prefix for the next run's sweep.
            let mut gone = set.clone().into_os_string();
            gone.push("-abandoned");
            let gone = PathBuf::from(gone);
            let target = if fs::rename(set, &gone).is_ok() {
                &gone
            } else {
                set
            };
            let _ = fs::remove_dir_all(target);
            Abandoned::Nothing
        }
        Phase::Streaming => Abandoned::PartOfStdout,
        Phase::Switched { dir, set } => {
            // The earlier sets may still be there; nobody needs them.
            remove_other_sets(set);
            Abandoned::Written(dir.clone())
        }
        Phase::Streamed => Abandoned::WrittenToStdout,
    };
    // A run whose reports are whole is let finish (the handler does not
    // end it): nothing of the reports changes after, so the phase need not
    // stay held.
    if !matches!(left, Abandoned::Written(_) | Abandoned::WrittenToStdout) {
        std::mem::forget(phase);
    }
    left
}

/// Marks the start of writing the report to standard output.
pub fn begin_streaming() {
    *hold_phase() = Phase::Streaming;
}

/// Marks the report on standard output as whole.
pub fn end_streaming() {
    *hold_phase() = Phase::Streamed;
}

/// Writes the reports as one new set and puts it in force. On failure the
/// earlier set stays in force and nothing of the new one is left behind.
pub fn write_set(out: &OutDir, files: &[(&str, &Report<'_>)]) -> Result<()> {
    let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
    let staging = Staging::begin(out, &names)?;
    for (name, report) in files {
        staging.write(name, report)?;
    }
    staging.finish()
}

/// Puts in force a copy of the set in force with the reports `replaced`
/// written anew, the others hard links to its files (a sealed report never
/// changes). For a run whose last step failed once its set was in force
/// (the state's rename): the set then says how the run ends. On failure
/// the set in force stays as it was.
pub fn amend(out: &OutDir, replaced: &[(&str, &Report<'_>)]) -> Result<()> {
    let in_force = fs::read_link(out.state().join(CURRENT))
        .map(|set| out.state().join(set))
        .map_err(write_error(out.path()))?;
    let mut names: Vec<String> = fs::read_dir(&in_force)
        .map_err(write_error(out.path()))?
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let all: Vec<&str> = names.iter().map(String::as_str).collect();
    let staging = Staging::begin(out, &all)?;
    for name in &all {
        if !replaced.iter().any(|(new, _)| new == name) {
            fs::hard_link(in_force.join(name), staging.set.join(name))
                .map_err(staging.fail(name))?;
        }
    }
    for (name, report) in replaced {
        staging.write(name, report)?;
    }
    staging.finish()
}

/// A new set being written, file by file, while the earlier set stays in
/// force; `finish` puts it in force. Dropped unfinished, it is removed and
/// the earlier set stays.
pub struct Staging<'o> {
    out: &'o OutDir,
    set: PathBuf,
    finished: bool,
    /// The report names whose links wait for this set: names the set in
    /// force does not hold (all of them in a folder with no set yet, some
    /// in a set adopted from an earlier version's files). Placed while the
    /// set is written, they would name files that do not exist for that
    /// long, and after a run that failed.
    links_later: Vec<String>,
}

impl<'o> Staging<'o> {
    /// Makes ready to write the reports `names` (every name the set will
    /// hold): the links of the names the set in force holds are placed
    /// first, so that the switch is one rename; the others right before
    /// it (`finish`).
    pub fn begin(out: &'o OutDir, names: &[&str]) -> Result<Staging<'o>> {
        check_names(out, names)?;
        adopt_earlier(out, names)?;
        pause_at("adopted");
        let earlier = fs::read_link(out.state().join(CURRENT)).ok();
        let (now, later): (Vec<&str>, Vec<&str>) = names.iter().partition(|name| {
            earlier
                .as_ref()
                .is_some_and(|set| fs::symlink_metadata(out.state().join(set).join(name)).is_ok())
        });
        place_links(out, &now)?;
        pause_at("linked");
        let set = make_set(out)?;
        Ok(Staging {
            out,
            set,
            finished: false,
            links_later: later.iter().map(|name| (*name).to_string()).collect(),
        })
    }

    /// The error for a report the user knows as `DIR/name`.
    pub fn fail(&self, name: &str) -> impl FnOnce(io::Error) -> Error + use<> {
        write_error(&self.out.path().join(name))
    }

    /// A report file of the set, created exclusively, never through a link.
    pub fn create(&self, name: &str) -> Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(self.set.join(name))
            .map_err(self.fail(name))
    }

    /// Writes the report `name` of the set whole: created, written by
    /// `report`, flushed to disk.
    pub fn write(&self, name: &str, report: &Report<'_>) -> Result<()> {
        let mut file = self.create(name)?;
        report(&mut file).map_err(self.fail(name))?;
        self.seal(name, file)
    }

    /// Flushes a written report to disk.
    pub fn seal(&self, name: &str, file: File) -> Result<()> {
        file.sync_all().map_err(self.fail(name))?;
        pause_at("staging");
        Ok(())
    }

    /// Puts the set in force once every report is sealed.
    pub fn finish(mut self) -> Result<()> {
        File::open(&self.set)
            .and_then(|dir| dir.sync_all())
            .map_err(write_error(self.out.path()))?;
        pause_at("staged");
        let done = Phase::Switched {
            dir: self.out.path().to_path_buf(),
            set: self.set.clone(),
        };
        // The names the set in force does not hold are placed right before
        // the switch, under one hold of the phase: they name no file for
        // the few system calls until the switch makes them name the new
        // set's, so a reader (or a `kill -9`) never finds some of the new
        // reports without the rest, and an interrupt sees them either not
        // yet placed or in force.
        let mut phase = hold_phase();
        let names: Vec<&str> = self.links_later.iter().map(String::as_str).collect();
        let switched = place_links_held(self.out, &names).and_then(|()| {
            // Only `kill -9` may stop here: the phase is held.
            pause_at("named");
            switch_held(self.out, &self.set, done, &mut phase)
        });
        if let Err(e) = switched {
            // A name that cannot be placed (no inode left, a folder in the
            // way), or a switch that cannot be made: the new names go, and
            // the set is removed as any unfinished one is.
            for name in &names {
                let path = self.out.path().join(name);
                if fs::read_link(&path).is_ok_and(|t| t == link_target(name)) {
                    let _ = fs::remove_file(&path);
                }
            }
            drop(phase);
            return Err(e);
        }
        self.finished = true;
        drop(phase);
        pause_at("switched");
        remove_other_sets(&self.set);
        Ok(())
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        if !self.finished {
            let mut phase = hold_phase();
            let _ = fs::remove_dir_all(&self.set);
            *phase = Phase::Idle;
        }
    }
}

/// Where a test may stop the run to kill it there (`kill -9` leaves no
/// chance to clean up: tests/suite/hostile_signals.rs), or to change a
/// file under it (logrotate while a log is read: tests/suite/nights_state.rs).
/// With `ROBOTS_AUDIT_PAUSE_AT=POINT` in the environment the run says
/// `paused at POINT` on standard error and sleeps until killed, or, with
/// `ROBOTS_AUDIT_RESUME_WHEN=PATH` too, until PATH exists; without them,
/// nothing happens.
pub(crate) fn pause_at(point: &str) {
    if std::env::var_os("ROBOTS_AUDIT_PAUSE_AT").is_some_and(|p| p == point) {
        crate::warn!("robots-audit: paused at {point}");
        let resume = std::env::var_os("ROBOTS_AUDIT_RESUME_WHEN").map(PathBuf::from);
        loop {
            match &resume {
                Some(path) if path.exists() => return,
                Some(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
                None => std::thread::sleep(std::time::Duration::from_secs(3600)),
            }
        }
    }
}

fn write_error(path: &Path) -> impl FnOnce(io::Error) -> Error + use<> {
    let path = path.to_path_buf();
    move |source| Error::Write { path, source }
}

/// The link each report name in DIR holds.
fn link_target(name: &str) -> PathBuf {
    Path::new(STATE_DIR).join(CURRENT).join(name)
}

/// Refuses, before anything changes, a report name that is a directory
/// or anything else no link may replace.
fn check_names(out: &OutDir, names: &[&str]) -> Result<()> {
    for name in names {
        let path = out.path().join(name);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() || meta.is_symlink() => {}
            Ok(_) => {
                return Err(write_error(&path)(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "in the way: not a report file, not replaced",
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(write_error(&path)(e)),
        }
    }
    Ok(())
}

/// Reports of an earlier version of the tool are plain files in DIR. Before
/// they are replaced by links one at a time, they become a set of their
/// own (hard links, so nothing is copied) and that set is put in force:
/// readers then see the earlier set throughout, never old and new mixed.
fn adopt_earlier(out: &OutDir, names: &[&str]) -> Result<()> {
    let current = out.state().join(CURRENT);
    if fs::symlink_metadata(&current).is_ok() {
        return Ok(());
    }
    let plain: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| fs::symlink_metadata(out.path().join(name)).is_ok_and(|meta| meta.is_file()))
        .collect();
    if plain.is_empty() {
        return Ok(());
    }
    let set = make_set(out)?;
    let mut result = Ok(());
    for name in plain {
        if let Err(e) = fs::hard_link(out.path().join(name), set.join(name)) {
            result = Err(write_error(&out.path().join(name))(e));
            break;
        }
    }
    // The adopted set says what the earlier files said: as far as a reader
    // or an interrupt can tell, nothing of this run is written yet.
    let result = result.and_then(|()| switch(out, &set, Phase::Idle));
    if result.is_err() {
        let mut phase = hold_phase();
        let _ = fs::remove_dir_all(&set);
        *phase = Phase::Idle;
    }
    result
}

/// Makes each report name in DIR the link to its file in the set in force,
/// where it is not that link already.
fn place_links(out: &OutDir, names: &[&str]) -> Result<()> {
    // Held so that an interrupt never ends the process between making a
    // temporary link and renaming it: no link is left behind.
    let _phase = hold_phase();
    place_links_held(out, names)
}

/// `place_links`, the phase held by the caller.
fn place_links_held(out: &OutDir, names: &[&str]) -> Result<()> {
    for name in names {
        let path = out.path().join(name);
        let target = link_target(name);
        if fs::read_link(&path).is_ok_and(|t| t == target) {
            continue;
        }
        let link = tempfile::Builder::new()
            .prefix(LINK_TEMP_PREFIX)
            .rand_bytes(RANDOM_LEN)
            .make_in(out.path(), |temp| std::os::unix::fs::symlink(&target, temp))
            .map_err(write_error(&path))?;
        link.persist(&path)
            .map_err(|e| write_error(&path)(e.error))?;
    }
    Ok(())
}

/// A fresh, empty set folder, under a name nobody can guess, registered
/// so that an interrupt removes it.
fn make_set(out: &OutDir) -> Result<PathBuf> {
    let mut phase = hold_phase();
    let set = tempfile::Builder::new()
        .prefix(SET_PREFIX)
        .rand_bytes(RANDOM_LEN)
        .permissions(fs::Permissions::from_mode(0o755))
        .tempdir_in(out.state())
        .map_err(write_error(out.path()))?
        .keep();
    *phase = Phase::Staging(set.clone());
    // Whatever the umask: nobody else may add to or replace a report.
    if let Err(e) = fs::set_permissions(&set, fs::Permissions::from_mode(0o755)) {
        let _ = fs::remove_dir_all(&set);
        *phase = Phase::Idle;
        return Err(write_error(out.path())(e));
    }
    Ok(set)
}

/// Puts the set in force: a new link under a random name, renamed over
/// `current`. Holds the phase throughout, so an interrupt waits for the
/// rename or prevents it; `then` is the phase once it is made.
fn switch(out: &OutDir, set: &Path, then: Phase) -> Result<()> {
    let mut phase = hold_phase();
    switch_held(out, set, then, &mut phase)
}

/// `switch`, the phase held by the caller.
fn switch_held(out: &OutDir, set: &Path, then: Phase, phase: &mut Phase) -> Result<()> {
    let current = out.state().join(CURRENT);
    let fail = write_error(out.path());
    let Some(name) = set.file_name() else {
        return Err(fail(io::Error::other("set folder without a name")));
    };
    let link = tempfile::Builder::new()
        .prefix(CURRENT_TEMP_PREFIX)
        .rand_bytes(RANDOM_LEN)
        .make_in(out.state(), |temp| std::os::unix::fs::symlink(name, temp))
        .map_err(write_error(out.path()))?;
    link.persist(&current)
        .map_err(|e| write_error(out.path())(e.error))?;
    // The rename is on disk before the run says the reports are written.
    let _ = File::open(out.state()).and_then(|dir| dir.sync_all());
    if let Phase::Switched { dir, .. } = &then {
        *WRITTEN
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(dir.clone());
    }
    *phase = then;
    Ok(())
}

/// Removes the sets beside `keep`, the one in force.
fn remove_other_sets(keep: &Path) {
    let (Some(state), Some(keep)) = (keep.parent(), keep.file_name()) else {
        return;
    };
    let Ok(entries) = fs::read_dir(state) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(SET_PREFIX) && name.as_os_str() != keep {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::Duration;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_whole_files_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::lock(dir.path(), Duration::ZERO).unwrap();
        for round in ["one", "two"] {
            write_set(
                &out,
                &[
                    ("a.csv", &|w: &mut dyn Write| writeln!(w, "a {round}")),
                    ("b.csv", &|w: &mut dyn Write| writeln!(w, "b {round}")),
                ],
            )
            .unwrap();
            assert_eq!(
                fs::read_to_string(dir.path().join("a.csv")).unwrap(),
                format!("a {round}\n")
            );
            assert_eq!(
                fs::read_to_string(dir.path().join("b.csv")).unwrap(),
                format!("b {round}\n")
            );
            assert_eq!(names(dir.path()), [STATE_DIR, "a.csv", "b.csv"]);
            let state = names(out.state());
            assert_eq!(state.len(), 3, "{state:?}");
            assert_eq!(&state[..2], [CURRENT, "lock"]);
        }
    }

    #[test]
    fn a_failed_write_leaves_the_earlier_set() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::lock(dir.path(), Duration::ZERO).unwrap();
        let old = |w: &mut dyn Write| w.write_all(b"old\n");
        write_set(&out, &[("a.csv", &old), ("b.csv", &old)]).unwrap();
        let before = names(out.state());
        let err = write_set(
            &out,
            &[
                ("a.csv", &|w: &mut dyn Write| w.write_all(b"new\n")),
                ("b.csv", &|_: &mut dyn Write| {
                    Err(io::Error::other("disk full"))
                }),
            ],
        );
        assert!(err.is_err());
        for name in ["a.csv", "b.csv"] {
            assert_eq!(fs::read(dir.path().join(name)).unwrap(), b"old\n");
        }
        assert_eq!(names(out.state()), before);
    }

    #[test]
    fn plain_reports_of_the_earlier_version_are_adopted_as_a_set() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.csv"), b"old a\n").unwrap();
        fs::write(dir.path().join("b.csv"), b"old b\n").unwrap();
        let out = OutDir::lock(dir.path(), Duration::ZERO).unwrap();
        adopt_earlier(&out, &["a.csv", "b.csv"]).unwrap();
        place_links(&out, &["a.csv", "b.csv"]).unwrap();
        assert_eq!(fs::read(dir.path().join("a.csv")).unwrap(), b"old a\n");
        assert_eq!(fs::read(dir.path().join("b.csv")).unwrap(), b"old b\n");
        assert!(
            fs::symlink_metadata(dir.path().join("a.csv"))
                .unwrap()
                .is_symlink()
        );
    }

    #[test]
    fn leftovers_are_swept_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::lock(dir.path(), Duration::ZERO).unwrap();
        let one = |w: &mut dyn Write| w.write_all(b"1\n");
        write_set(&out, &[("a.csv", &one)]).unwrap();
        let kept = names(out.state());
        fs::create_dir(out.state().join("set-leftover")).unwrap();
        fs::write(out.state().join("set-leftover").join("a.csv"), b"x").unwrap();
        std::os::unix::fs::symlink("set-leftover", out.state().join(".current-x")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join(".robots-audit-link-x")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join(".a.csv.123.tmp")).unwrap();
        fs::write(dir.path().join(".a.csv.123.old"), b"x").unwrap();
        fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
        drop(out);
        let out = OutDir::lock(dir.path(), Duration::ZERO).unwrap();
        assert_eq!(names(out.state()), kept);
        assert_eq!(names(dir.path()), [STATE_DIR, "a.csv", "notes.txt"]);
        assert_eq!(fs::read(dir.path().join("a.csv")).unwrap(), b"1\n");
    }
}
