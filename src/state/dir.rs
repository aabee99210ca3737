//! The state folder itself: locked as an `--out` folder is, checked that
//! no other user may write it, read into a [`State`] and written back
//! atomically (temporary files of unguessable names, renamed into place;
//! robots.txt versions written before `state.json` names them; SPEC §6
//! "State": "versioned, written atomically under a lock"). The data it
//! holds is `mod.rs`'s.

use super::fingerprint::{Fingerprint, hex};
use super::stored::{CountJson, MemoryJson, Stored, StoredVersionJson, decode, garbage};
use super::{
    CountMemory, DNS_CACHE, FORMAT, ROBOTS_DIR, STATE_FILE, State, StoredVersion, TEMP_PREFIX,
};
use crate::accesslog::time_given::parse_rfc3339_or_date;
use crate::audit::Kind;
use crate::error::{Error, Position, Result};
use crate::report::lock::OutDir;
use crate::side_file::untrusted;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::{self, DirBuilder, File};
use std::io::{self, BufWriter, Write as _};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A locked state folder.
#[derive(Debug)]
pub struct StateDir {
    dir: PathBuf,
    /// Our own lock on DIR, or `None` when DIR is the `--out` folder and
    /// that lock, held until exit, covers it.
    _lock: Option<OutDir>,
    /// False for a reader that holds no lock (`check`): it neither sweeps
    /// nor writes.
    locked: bool,
}

impl StateDir {
    /// Makes DIR if missing and takes its lock, waiting up to `wait` — the
    /// lock of `report::lock`, so one run at a time updates it. When DIR
    /// is the `--out` folder whose lock the run holds (`out`), that one
    /// lock serves both (a second flock of the same file would wait for
    /// the run itself).
    ///
    /// A folder on a read-only file system can be neither locked nor
    /// saved, and nobody can change it either: it is read unlocked, so
    /// that the night's reports are still written (SPEC §5: every report
    /// that could be written is), and saving it fails (exit 2).
    pub fn lock(dir: &Path, wait: Duration, out: Option<&OutDir>) -> Result<StateDir> {
        match StateDir::take(dir, wait, out) {
            // A missing folder is a fresh state (SPEC §6), so one that
            // cannot be made there is a fresh state that cannot be saved,
            // as an empty folder on that file system is.
            Err(Error::Write { source, .. })
                if source.kind() == io::ErrorKind::ReadOnlyFilesystem
                    && (dir.is_dir() || !dir.exists()) =>
            {
                crate::warn!(
                    "robots-audit: --state {} is on a read-only file system: it is {} but \
                     cannot be saved; the reports are written and the run exits 2",
                    dir.display(),
                    if dir.is_dir() {
                        "read"
                    } else {
                        "missing, so a fresh state,"
                    }
                );
                Ok(StateDir {
                    dir: dir.to_path_buf(),
                    _lock: None,
                    locked: false,
                })
            }
            taken => taken,
        }
    }

    fn take(dir: &Path, wait: Duration, out: Option<&OutDir>) -> Result<StateDir> {
        crate::report::lock::make_folder(dir)
            .map_err(|e| crate::error::not_a_folder(dir, e))
            .map_err(|source| Error::Write {
                path: dir.to_path_buf(),
                source,
            })?;
        // Refused before anything is made in it (its lock).
        check_trust(dir)?;
        let same =
            out.is_some_and(
                |out| match (fs::canonicalize(out.path()), fs::canonicalize(dir)) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => false,
                },
            );
        let lock = if same {
            None
        } else {
            Some(OutDir::lock(dir, wait)?)
        };
        Ok(StateDir {
            dir: dir.to_path_buf(),
            _lock: lock,
            locked: true,
        })
    }

    /// Reads a state without its lock and without making or changing
    /// anything (for `check`): `state.json` is replaced by a rename, so
    /// the reader sees one whole state; a missing folder is a fresh state.
    pub fn read_unlocked(dir: &Path) -> Result<State> {
        check_trust(dir)?;
        StateDir {
            dir: dir.to_path_buf(),
            _lock: None,
            locked: false,
        }
        .load()
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Whether the run holds the folder's lock and may save it.
    pub fn is_locked(&self) -> bool {
        self.locked
    }

    /// Where the DNS cache lives when `--dns-cache` does not say.
    pub fn dns_cache(dir: &Path) -> PathBuf {
        dir.join(DNS_CACHE)
    }

    fn state_file(&self) -> PathBuf {
        self.dir.join(STATE_FILE)
    }

    fn robots_file(&self, sha256: &str) -> PathBuf {
        self.dir.join(ROBOTS_DIR).join(format!("{sha256}.txt"))
    }

    /// Reads the state: no `state.json` is a fresh state; one that cannot
    /// be read, or that a later format wrote, is an error naming it.
    /// Leftovers of a killed run are removed first (the lock is held).
    pub fn load(&self) -> Result<State> {
        // The folder and state.json were judged when the state was taken
        // (`check_trust`): not ours to believe, nor to clean, if others
        // may write them.
        if self.locked {
            self.sweep();
        }
        let path = self.state_file();
        // Never a FIFO or a device: one would hang the run, holding the
        // lock, the other fill the memory. Judged by the file opened, so
        // that a name swapped after the check cannot slip another in.
        let read = match crate::side_file::open_regular(&path) {
            Ok((_, meta)) if let Some(why) = untrusted(&meta) => {
                return Err(not_trusted(&path, why));
            }
            Ok((mut file, _)) => {
                let mut text = String::new();
                io::Read::read_to_string(&mut file, &mut text).map(|_| text)
            }
            Err(refusal) => Err(refusal.into_io()),
        };
        let text = match read {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                dangling(&path)?;
                if self.locked {
                    self.warn_of_versions_unnamed();
                }
                return Ok(State::default());
            }
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                return Err(garbage(&path, Position::File, "it is not UTF-8 text"));
            }
            Err(source) => {
                return Err(Error::Read {
                    path,
                    at: Position::File,
                    source,
                });
            }
        };
        let stored = decode(&path, &text)?;
        for night in &stored.nights {
            let bad = |why: String| garbage(&path, Position::File, &why);
            if !is_date(&night.night) {
                return Err(bad(format!("a night of {:?}, no date", night.night)));
            }
            if let Some(kind) = night
                .violations
                .keys()
                .find(|kind| !Kind::ALL.iter().any(|k| k.as_str() == kind.as_str()))
            {
                return Err(bad(format!(
                    "violations of a kind {kind:?} no audit gives, in the night {}",
                    night.night
                )));
            }
        }
        if let Some(why) = stored.fingerprints.iter().find_map(damaged_fingerprint) {
            return Err(garbage(&path, Position::File, &why));
        }
        let mut versions = Vec::with_capacity(stored.versions.len());
        for v in stored.versions {
            let file = self.robots_file(&v.sha256);
            // A version file state.json names that is gone or no file: the
            // state is damaged, and said to be so (it is left as it is).
            let missing = |why: String| {
                garbage(
                    &path,
                    Position::File,
                    &format!(
                        "it names the robots.txt version {}, which {why}",
                        file.display()
                    ),
                )
            };
            crate::robots::versions::regular_file(&file)
                .map_err(|e| missing(format!("is missing or no regular file ({e})")))?;
            let bytes = fs::read(&file).map_err(|e| missing(format!("cannot be read: {e}")))?;
            if hex(&Sha256::digest(&bytes)) != v.sha256 {
                return Err(garbage(
                    &file,
                    Position::File,
                    "its bytes do not have the SHA-256 its name and state.json give",
                ));
            }
            let in_force_from = parse_rfc3339_or_date(&v.in_force_from).ok_or_else(|| {
                garbage(
                    &path,
                    Position::File,
                    &format!("bad in_force_from {:?}", v.in_force_from),
                )
            })?;
            versions.push(StoredVersion {
                bytes: bytes.into(),
                in_force_from,
                file,
            });
        }
        let mut counts = BTreeMap::new();
        for (name, c) in stored.counts {
            let memory = c.robots_txt.into_memory(&path)?;
            counts.insert(
                name,
                CountMemory {
                    robots_txt: memory,
                    fetch_times_ms: c.fetch_times_ms.into_owned(),
                    proven_times_ms: c.proven_fetch_times_ms.map(Cow::into_owned),
                },
            );
        }
        Ok(State {
            versions,
            counts,
            fingerprints: stored.fingerprints,
            nights: stored.nights,
        })
    }

    /// Writes the state atomically (the layout is in `mod.rs`); the
    /// pipeline uses `prepare` and `commit` instead.
    pub fn save(&self, state: &State) -> Result<()> {
        self.prepare(state)?.commit()
    }

    /// The first half of `save`: writes every file the new state needs —
    /// robots.txt versions under their hashes, and `state.json` under a
    /// temporary name, synced — and leaves only its rename to `commit`.
    /// A run prepares before it commits its reports, so that a state that
    /// cannot be written (a full disk) is known while `run.json` can still
    /// say exit 2 (SPEC §6: the state is updated only after the reports).
    pub fn prepare(&self, state: &State) -> Result<PreparedState<'_>> {
        if !self.locked {
            return Err(Error::Write {
                path: self.state_file(),
                source: io::Error::new(
                    io::ErrorKind::ReadOnlyFilesystem,
                    "the state was read without its lock (a read-only file system)",
                ),
            });
        }
        let robots_dir = self.dir.join(ROBOTS_DIR);
        make_private_dir(&robots_dir)?;
        let mut stored_versions = Vec::new();
        for v in &state.versions {
            let sha256 = hex(&Sha256::digest(&v.bytes));
            let file = self.robots_file(&sha256);
            // (A FIFO put in its place would never answer: it is replaced.)
            let present = crate::robots::versions::regular_file(&file).is_ok()
                && fs::read(&file).is_ok_and(|b| *b == *v.bytes);
            if !present {
                // Named by its hash: no state names it before the commit.
                write_replacing(&file, &v.bytes)?;
            }
            stored_versions.push(StoredVersionJson {
                in_force_from: v.in_force_from.rfc3339(),
                robots_version: crate::robots::matcher::version_of(&v.bytes).to_string(),
                sha256,
            });
        }
        let stored = Stored {
            format: FORMAT,
            versions: stored_versions,
            counts: state
                .counts
                .iter()
                .map(|(name, c)| {
                    (
                        name.clone(),
                        CountJson {
                            robots_txt: MemoryJson::of(&c.robots_txt),
                            fetch_times_ms: Cow::Borrowed(&c.fetch_times_ms),
                            proven_fetch_times_ms: c.proven_times_ms.as_deref().map(Cow::Borrowed),
                        },
                    )
                })
                .collect(),
            fingerprints: state.fingerprints.clone(),
            nights: state.nights.clone(),
        };
        // Written as it is made: the text of a busy count's million times
        // is some 20 MB.
        let temp = write_temporary(&self.state_file(), |file| {
            serde_json::to_writer_pretty(&mut *file, &stored)?;
            file.write_all(b"\n")
        })?;
        let named = stored
            .versions
            .iter()
            .map(|v| format!("{}.txt", v.sha256))
            .collect();
        Ok(PreparedState {
            dir: self,
            temp,
            named,
        })
    }

    /// A fresh state beside robots.txt versions is what a first run
    /// killed before its `state.json` leaves, but also a used state
    /// whose `state.json` was lost: then the logs it knew are audited
    /// again. Said, so that the second is not passed over (the run that
    /// saves the fresh state removes those versions).
    fn warn_of_versions_unnamed(&self) {
        let versions = fs::read_dir(self.dir.join(ROBOTS_DIR)).map_or(0, |entries| {
            entries
                .flatten()
                .filter(|e| is_version_file_name(&e.file_name().to_string_lossy()))
                .count()
        });
        if versions > 0 {
            crate::warn!(
                "robots-audit: warning: --state {} has no state.json but holds {versions} \
                 robots.txt version(s): read as a fresh state (as a first run killed before \
                 saving leaves it); if state.json was lost, the logs it knew are audited again",
                self.dir.display()
            );
        }
    }

    /// Removes the temporary files of runs that were killed.
    fn sweep(&self) {
        let versions = self.dir.join(ROBOTS_DIR);
        // Never through a link: a versions folder that is one is refused
        // when the state is saved, and swept by nobody.
        let versions_real = fs::symlink_metadata(&versions).is_ok_and(|m| m.is_dir());
        for dir in [self.dir.clone(), versions] {
            if dir != self.dir && !versions_real {
                continue;
            }
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
    }
}

/// A state written but not yet in force: `commit` renames it into place;
/// dropped uncommitted, it leaves the old state (and its temporary file
/// goes with it).
pub struct PreparedState<'d> {
    dir: &'d StateDir,
    temp: tempfile::NamedTempFile,
    /// The version files the new state names.
    named: Vec<String>,
}

impl PreparedState<'_> {
    pub fn commit(self) -> Result<()> {
        put_in_place(self.temp, &self.dir.state_file())?;
        // Only now may the files of versions no longer named go.
        let robots_dir = self.dir.dir.join(ROBOTS_DIR);
        if let Ok(entries) = fs::read_dir(&robots_dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if is_version_file_name(&name) && !self.named.contains(&name) {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        Ok(())
    }
}

pub(super) fn is_version_file_name(name: &str) -> bool {
    name.strip_suffix(".txt")
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Why a log's fingerprint cannot be one this tool wrote, if it cannot:
/// a digest that is not lower-case hex of its length, or a checkpoint
/// past the lines and bytes it covers. Such a fingerprint matches no log,
/// so an edited or damaged one would have its log audited again, its
/// rows written twice across nights, without a word.
fn damaged_fingerprint(print: &Fingerprint) -> Option<String> {
    let digest = |text: &str, digits: usize| {
        text.len() == digits && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    if !digest(&print.sha256, 64) {
        return Some(format!("a log's SHA-256 {:?} is no digest", print.sha256));
    }
    if let Some(tail) = &print.tail
        && !digest(&tail.sha256, 64)
    {
        return Some(format!("a log's SHA-256 {:?} is no digest", tail.sha256));
    }
    print
        .checkpoints
        .iter()
        .find(|c| !digest(&c.prefix, 16) || c.lines > print.lines || c.bytes > print.bytes)
        .map(|c| {
            format!(
                "a log's checkpoint ({} lines, {} bytes, {:?}) does not fit its fingerprint \
                 ({} lines, {} bytes)",
                c.lines, c.bytes, c.prefix, print.lines, print.bytes
            )
        })
}

/// `YYYY-MM-DD`, a day of the calendar.
pub(super) fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && text.parse::<jiff::civil::Date>().is_ok()
}

/// A `state.json` that could not be opened for want of a file: an error
/// when the name is there all the same, a link to nothing (a state kept
/// on a disk not mounted). Read as a fresh state, it would be replaced,
/// and the versions and fingerprints it names lost, without a word.
pub(super) fn dangling(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Error::Read {
            path: path.to_path_buf(),
            at: Position::File,
            source: io::Error::new(
                io::ErrorKind::NotFound,
                "it is a link to a file that does not exist",
            ),
        }),
        _ => Ok(()),
    }
}

/// The state folder and its `state.json`, where they are, must be this
/// user's and writable by no other (`side_file::untrusted`): judged before
/// the run makes its lock or sweeps anything there, so that a refused
/// state is left exactly as it is. (`load` judges the `state.json` it
/// opens once more, by the file opened.)
pub fn check_trust(dir: &Path) -> Result<()> {
    // A folder still to be made is the run's own; a file in its place is
    // said where the folder is made.
    let Ok(meta) = fs::metadata(dir) else {
        return Ok(());
    };
    if !meta.is_dir() {
        return Ok(());
    }
    if let Some(why) = untrusted(&meta) {
        return Err(not_trusted(dir, why));
    }
    let path = dir.join(STATE_FILE);
    match crate::side_file::open_regular(&path) {
        Ok((_, meta)) => match untrusted(&meta) {
            Some(why) => Err(not_trusted(&path, why)),
            None => Ok(()),
        },
        Err(crate::side_file::Refusal::Unreadable(e)) if e.kind() == io::ErrorKind::NotFound => {
            dangling(&path)
        }
        // A FIFO or a device: refused as `load` would, before anything
        // is made or swept.
        Err(refusal) => Err(Error::Read {
            path,
            at: Position::File,
            source: refusal.into_io(),
        }),
    }
}

/// A state folder or `state.json` that another user may write: refused,
/// never read (SPEC §6 "a state that cannot be read is an error").
pub(super) fn not_trusted(path: &Path, why: &str) -> Error {
    Error::Read {
        path: path.to_path_buf(),
        at: Position::File,
        source: io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{why}; not trusted: whoever may write the state may hide a night's \
                 violations. It is left as it is: make it yours and writable by you \
                 alone (chown, chmod go-w), or give another --state"
            ),
        ),
    }
}

/// Makes `dir` (mode 755 whatever the umask), or checks the one there: it
/// must be a real directory, not a link, that other users may not write,
/// or whoever may write it could swap the robots.txt versions the next
/// night judges by.
pub(super) fn make_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let fail = |source: io::Error| Error::Write {
        path: dir.to_path_buf(),
        source,
    };
    match DirBuilder::new().mode(0o755).create(dir) {
        Ok(()) => {
            return fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).map_err(fail);
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(source) => return Err(fail(source)),
    }
    let meta = fs::symlink_metadata(dir).map_err(fail)?;
    let why = if !meta.is_dir() {
        "is not a directory"
    } else if meta.mode() & 0o022 != 0 {
        "is writable by other users"
    } else {
        return Ok(());
    };
    Err(fail(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{why}; not trusted"),
    )))
}

/// Writes `path` whole or not at all: a temporary file beside it, created
/// exclusively under an unguessable name, flushed, renamed over it, and
/// the folder flushed so the rename survives a crash.
pub(super) fn write_replacing(path: &Path, bytes: &[u8]) -> Result<()> {
    let temp = write_temporary(path, |file| file.write_all(bytes))?;
    put_in_place(temp, path)
}

/// The first half of `write_replacing`: what `write` writes, in a new file
/// of an unguessable name beside `path`, flushed to disk.
pub(super) fn write_temporary(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<&mut File>) -> io::Result<()>,
) -> Result<tempfile::NamedTempFile> {
    let fail = |source: io::Error| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(fail)?;
    let mut file = BufWriter::new(temp.as_file_mut());
    write(&mut file).map_err(fail)?;
    file.flush().map_err(fail)?;
    drop(file);
    temp.as_file().sync_all().map_err(fail)?;
    Ok(temp)
}

/// The second half: the file renamed over `path`, and the folder flushed.
pub(super) fn put_in_place(temp: tempfile::NamedTempFile, path: &Path) -> Result<()> {
    let fail = |source: io::Error| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    temp.persist(path).map_err(|e| fail(e.error))?;
    // Renamed, the new file is in force: an error now is no "not
    // written" (exit 2 says the state was left as it was, and a rerun
    // would find this night already audited), only a rename a crash might
    // still undo. Said, not hidden.
    if let Err(error) = File::open(dir).and_then(|d| d.sync_all()) {
        crate::warn!(
            "robots-audit: warning: {} was written, but its folder could not be flushed to \
             disk ({error}): a crash before the system writes it may bring back the one before",
            path.display()
        );
    }
    Ok(())
}
