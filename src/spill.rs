//! Sorting more records than memory holds (SPEC §5: "peak memory stays
//! within `--memory` … sorted runs spill to a temporary folder"). Takes
//! records from many threads and a budget in bytes; gives them back in
//! order, merged from sorted runs on disk and the last run in memory.
//! Records that sort equal are merged into one (`Record::absorb`), so
//! counting distinct values stays exact at any budget.
//!
//! The folder for runs is made on the first spill only, exclusively, under
//! a name nobody can guess, and holds a locked file while its run lives:
//! a later run removes folders whose lock is free (their run was killed).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Position, Result};

/// A record that can be sorted on disk.
pub trait Record: Send + Sized {
    /// The order records come back in.
    fn order(&self, other: &Self) -> Ordering;
    /// Bytes of memory the record holds.
    fn size(&self) -> usize;
    fn encode(&self, out: &mut Vec<u8>);
    fn decode(bytes: &[u8]) -> Option<Self>;
    /// Takes in `other`, which sorts equal to `self`. Records whose order
    /// is unique never meet here.
    fn absorb(&mut self, other: Self);
}

/// The spill folders in use: a run ended by Ctrl-C or SIGTERM exits from
/// the signal handler without unwinding, so no `Drop` removes them; the
/// handler does (`remove_in_use`).
static IN_USE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Set by an interrupt: no new run file is made from then on.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Removes the spill folders in use, just before the process exits on an
/// interrupt (SPEC §5: a run leaves no temporary file behind). Workers may
/// still be writing a run: no new one is made once this began, and a
/// folder that is not empty once its runs are gone keeps its lock file, so
/// that the next run removes it at once (its lock is free by then).
pub fn remove_in_use() {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
    let paths = std::mem::take(&mut *IN_USE.lock().unwrap_or_else(|e| e.into_inner()));
    for path in paths {
        if let Ok(entries) = fs::read_dir(&path) {
            for entry in entries.flatten() {
                if entry.file_name() != LOCK {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        let only_the_lock = fs::read_dir(&path)
            .is_ok_and(|entries| entries.flatten().all(|entry| entry.file_name() == LOCK));
        if only_the_lock {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// Prefix of the folders runs spill into; the sweep looks for it.
const PREFIX: &str = "robots-audit-spill-";
/// The file a live run keeps locked inside its folder.
const LOCK: &str = "lock";
/// Runs merged at once: each holds a read buffer open.
const FAN_IN: usize = 64;
const READ_BUFFER: usize = 64 * 1024;

/// Where runs go: a folder made on the first spill, removed with the value.
pub struct SpillDir {
    parent: PathBuf,
    made: Mutex<Option<Made>>,
}

struct Made {
    path: PathBuf,
    /// Held open and locked for as long as the folder is in use.
    _lock: File,
    next: u64,
}

impl SpillDir {
    /// Runs will go into a new folder inside `parent`; leftovers of killed
    /// runs there are removed now.
    pub fn new(parent: &Path) -> SpillDir {
        sweep(parent);
        SpillDir {
            parent: parent.to_path_buf(),
            made: Mutex::new(None),
        }
    }

    /// A new run file, created exclusively.
    fn create(&self) -> Result<(PathBuf, File)> {
        if INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(Error::Write {
                path: self.parent.clone(),
                source: io::Error::new(io::ErrorKind::Interrupted, "interrupted"),
            });
        }
        let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        let made = match &mut *made {
            Some(made) => made,
            empty => empty.insert(self.make().map_err(|source| Error::Write {
                path: self.parent.clone(),
                source,
            })?),
        };
        made.next += 1;
        let path = made.path.join(format!("run-{}", made.next));
        let file = OpenOptions::new()
            .write(true)
            .read(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|source| Error::Write {
                path: path.clone(),
                source,
            })?;
        Ok((path, file))
    }

    fn make(&self) -> io::Result<Made> {
        // $TMPDIR (or the state folder) is the user's: a missing one is
        // said, never made.
        if !self.parent.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no such folder to spill sorted runs into ($TMPDIR, or the --state folder)",
            ));
        }
        // A sweep of another run may take a folder still without its
        // held lock for a killed run's: it removes only what it holds the
        // lock of, and a folder it took is made anew here. Runs starting
        // together may take several in a row (a test of four threads
        // each starting 200 runs once lost 8): the attempts are many, and
        // each costs a folder made and removed.
        let mut last = None;
        for _ in 0..MAKE_ATTEMPTS {
            let path = tempfile::Builder::new()
                .prefix(PREFIX)
                .rand_bytes(12)
                .tempdir_in(&self.parent)?
                .keep();
            match hold(&path) {
                Ok(lock) => {
                    IN_USE
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(path.clone());
                    return Ok(Made {
                        path,
                        _lock: lock,
                        next: 0,
                    });
                }
                Err(e) => {
                    // Ours still, unless a sweep holds it: then it is the
                    // sweep's to remove.
                    if e.kind() != io::ErrorKind::AlreadyExists {
                        let _ = fs::remove_dir_all(&path);
                    }
                    last = Some(e);
                }
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no spill folder could be made")))
    }
}

/// Folders `SpillDir::make` makes before it gives up.
const MAKE_ATTEMPTS: usize = 256;

/// The lock of the new folder `path`, created and held: an error when a
/// sweep made it first (`AlreadyExists`) or removed it before it was held.
fn hold(path: &Path) -> io::Result<File> {
    let lock = make_lock(path)?;
    lock.try_lock().map_err(io::Error::other)?;
    if !still_there(path, &lock) {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "the spill folder was removed as it was made",
        ));
    }
    Ok(lock)
}

/// The lock file of folder `path`, made exclusively: an error when one is
/// there already.
fn make_lock(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path.join(LOCK))
}

/// Whether `lock`, held, is still the lock file of folder `path`: a sweep
/// that held it first removed it.
fn still_there(path: &Path, lock: &File) -> bool {
    match (fs::symlink_metadata(path.join(LOCK)), lock.metadata()) {
        (Ok(named), Ok(held)) => named.dev() == held.dev() && named.ino() == held.ino(),
        _ => false,
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let made = self.made.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(made) = made.take() {
            IN_USE
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|p| *p != made.path);
            let _ = fs::remove_dir_all(&made.path);
        }
    }
}

/// Removes the spill folders of runs that were killed: ours, not links,
/// whose lock it can hold. A folder without its lock file (a run killed
/// as it made it, or one being made now) gets one made here, held while
/// the folder is removed: a run making its folder finds its lock taken
/// and makes another (`make`), so a live run's folder is never removed.
fn sweep(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    let me = rustix::process::geteuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != me {
            continue;
        }
        let lock = File::open(path.join(LOCK)).or_else(|_| make_lock(&path));
        let Ok(lock) = lock else {
            continue;
        };
        if lock.try_lock().is_ok() && still_there(&path, &lock) {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// Records gathered from many threads; sorted runs spill to disk when the
/// buffer passes its budget.
pub struct Sorter<'d, T> {
    budget: usize,
    dir: &'d SpillDir,
    inner: Mutex<Inner<T>>,
}

struct Inner<T> {
    buffer: Vec<T>,
    bytes: usize,
    /// The largest record added, in bytes: the merge holds one record a
    /// run at once, so its fan-in is cut to what the budget holds.
    largest: usize,
    runs: Vec<PathBuf>,
    error: Option<Error>,
}

impl<'d, T: Record> Sorter<'d, T> {
    pub fn new(budget: usize, dir: &'d SpillDir) -> Sorter<'d, T> {
        Sorter {
            budget: budget.max(1),
            dir,
            inner: Mutex::new(Inner {
                buffer: Vec::new(),
                bytes: 0,
                largest: 0,
                runs: Vec::new(),
                error: None,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<T>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds records; may write a sorted run to disk, in the calling thread,
    /// while other threads go on adding.
    pub fn extend(&self, records: impl IntoIterator<Item = T>) {
        let full = {
            let mut inner = self.lock();
            for record in records {
                let size = record.size();
                inner.bytes += size;
                inner.largest = inner.largest.max(size);
                inner.buffer.push(record);
            }
            // Half the budget a buffer: while one is sorted and written,
            // the next one fills.
            if inner.bytes < self.budget / 2 {
                return;
            }
            inner.bytes = 0;
            std::mem::take(&mut inner.buffer)
        };
        let written = write_run(self.dir, sorted(full));
        let mut inner = self.lock();
        match written {
            Ok(path) => inner.runs.push(path),
            Err(e) => {
                inner.error.get_or_insert(e);
            }
        }
    }

    /// How many runs went to disk so far.
    pub fn runs(&self) -> usize {
        self.lock().runs.len()
    }

    /// Every record added, in order, equal ones merged.
    pub fn finish(self) -> Result<Merged<T>> {
        let inner = self.inner.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(error) = inner.error {
            return Err(error);
        }
        let mut runs = inner.runs;
        // Few open files at once, and the records at their heads within a
        // quarter of the budget (a record may be a mebibyte: a whole
        // target): runs beyond the fan-in are merged into longer runs
        // first.
        let fan_in = (self.budget / 4 / inner.largest.max(1)).clamp(2, FAN_IN);
        while runs.len() > fan_in {
            let rest = runs.split_off(fan_in);
            let merged: Merged<T> = Merged::open(std::mem::take(&mut runs), Vec::new())?;
            let path = write_run_from(self.dir, merged)?;
            runs = rest;
            runs.push(path);
        }
        Merged::open(runs, sorted(inner.buffer))
    }
}

/// Sorts a buffer and merges records that sort equal. On a worker of the
/// pipeline's pool the sort is shared with the other workers (the last
/// buffer is sorted while nothing else runs); elsewhere it stays on the
/// calling thread, so that no thread outside `--threads` is ever started.
/// Both sorts are stable: equal records merge in the same order.
fn sorted<T: Record>(mut buffer: Vec<T>) -> Vec<T> {
    if rayon::current_thread_index().is_some() {
        use rayon::slice::ParallelSliceMut;
        buffer.par_sort_by(T::order);
    } else {
        buffer.sort_by(T::order);
    }
    let mut out: Vec<T> = Vec::with_capacity(buffer.len());
    for record in buffer {
        match out.last_mut() {
            Some(last) if last.order(&record) == Ordering::Equal => last.absorb(record),
            _ => out.push(record),
        }
    }
    out
}

fn write_run<T: Record>(dir: &SpillDir, records: Vec<T>) -> Result<PathBuf> {
    write_run_from(dir, records.into_iter().map(Ok))
}

fn write_run_from<T: Record>(
    dir: &SpillDir,
    records: impl Iterator<Item = Result<T>>,
) -> Result<PathBuf> {
    let (path, file) = dir.create()?;
    let fail = |source| Error::Write {
        path: path.clone(),
        source,
    };
    let mut out = BufWriter::with_capacity(READ_BUFFER, file);
    let mut bytes = Vec::new();
    for record in records {
        bytes.clear();
        record?.encode(&mut bytes);
        let len =
            u32::try_from(bytes.len()).map_err(|_| fail(io::Error::other("record too long")))?;
        out.write_all(&len.to_le_bytes()).map_err(fail)?;
        out.write_all(&bytes).map_err(fail)?;
    }
    out.flush().map_err(fail)?;
    Ok(path)
}

/// One sorted run read back from disk.
struct RunReader {
    path: PathBuf,
    input: BufReader<File>,
    bytes: Vec<u8>,
}

impl RunReader {
    fn next<T: Record>(&mut self) -> Result<Option<T>> {
        let fail = |source| Error::Read {
            path: self.path.clone(),
            at: Position::File,
            source,
        };
        let mut len = [0u8; 4];
        match self.input.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(fail(e)),
        }
        self.bytes.resize(u32::from_le_bytes(len) as usize, 0);
        self.input.read_exact(&mut self.bytes).map_err(fail)?;
        T::decode(&self.bytes).map(Some).ok_or_else(|| {
            fail(io::Error::other(
                "a sorted run was damaged while the audit ran",
            ))
        })
    }
}

/// Where the next record of the merge comes from.
enum Source<T> {
    Disk(RunReader),
    Memory(std::vec::IntoIter<T>),
}

struct Head<T> {
    record: T,
    source: usize,
}

impl<T: Record> PartialEq for Head<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<T: Record> Eq for Head<T> {}
impl<T: Record> PartialOrd for Head<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: Record> Ord for Head<T> {
    /// Reversed, for a min-heap; ties by source, so the merge is the same
    /// whatever the heap does.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .record
            .order(&self.record)
            .then(other.source.cmp(&self.source))
    }
}

/// The records of every run, in order, equal ones merged. Run files are
/// removed as the merge opens them (the folder goes with `SpillDir`).
pub struct Merged<T> {
    sources: Vec<Source<T>>,
    heap: BinaryHeap<Head<T>>,
    failed: bool,
}

impl<T: Record> Merged<T> {
    fn open(runs: Vec<PathBuf>, memory: Vec<T>) -> Result<Merged<T>> {
        let mut sources = Vec::with_capacity(runs.len() + 1);
        for path in runs {
            let file = File::open(&path).map_err(|source| Error::Read {
                path: path.clone(),
                at: Position::File,
                source,
            })?;
            // The open file keeps its bytes; the name is no longer needed.
            let _ = fs::remove_file(&path);
            sources.push(Source::Disk(RunReader {
                path,
                input: BufReader::with_capacity(READ_BUFFER, file),
                bytes: Vec::new(),
            }));
        }
        sources.push(Source::Memory(memory.into_iter()));
        let mut merged = Merged {
            sources,
            heap: BinaryHeap::new(),
            failed: false,
        };
        for source in 0..merged.sources.len() {
            if let Some(record) = merged.pull(source)? {
                merged.heap.push(Head { record, source });
            }
        }
        Ok(merged)
    }

    fn pull(&mut self, source: usize) -> Result<Option<T>> {
        match &mut self.sources[source] {
            Source::Disk(run) => run.next(),
            Source::Memory(records) => Ok(records.next()),
        }
    }

    fn next_record(&mut self) -> Result<Option<T>> {
        let Some(Head { mut record, source }) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(next) = self.pull(source)? {
            self.heap.push(Head {
                record: next,
                source,
            });
        }
        // Equal records of other runs join this one.
        while self
            .heap
            .peek()
            .is_some_and(|head| head.record.order(&record) == Ordering::Equal)
        {
            let Some(Head {
                record: same,
                source,
            }) = self.heap.pop()
            else {
                break;
            };
            record.absorb(same);
            if let Some(next) = self.pull(source)? {
                self.heap.push(Head {
                    record: next,
                    source,
                });
            }
        }
        Ok(Some(record))
    }
}

impl<T: Record> Iterator for Merged<T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        if self.failed {
            return None;
        }
        match self.next_record() {
            Ok(record) => record.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cmp::Ordering;

    use super::{Record, Sorter, SpillDir};

    /// A word and how often it was added.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Word(Vec<u8>, u64);

    impl Record for Word {
        fn order(&self, other: &Self) -> Ordering {
            self.0.cmp(&other.0)
        }
        fn size(&self) -> usize {
            self.0.len() + 32
        }
        fn encode(&self, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.1.to_le_bytes());
            out.extend_from_slice(&self.0);
        }
        fn decode(bytes: &[u8]) -> Option<Self> {
            let (count, word) = bytes.split_first_chunk::<8>()?;
            Some(Word(word.to_vec(), u64::from_le_bytes(*count)))
        }
        fn absorb(&mut self, other: Self) {
            self.1 += other.1;
        }
    }

    /// Words of a simple generator, many repeated.
    fn words(n: u64) -> Vec<Word> {
        (0..n)
            .map(|i| Word(format!("w{}", (i * 7919) % 1009).into_bytes(), 1))
            .collect()
    }

    /// The plain answer: sort everything in memory and count.
    fn expected(words: &[Word]) -> Vec<Word> {
        let mut all: Vec<Vec<u8>> = words.iter().map(|w| w.0.clone()).collect();
        all.sort();
        let mut out: Vec<Word> = Vec::new();
        for w in all {
            match out.last_mut() {
                Some(last) if last.0 == w => last.1 += 1,
                _ => out.push(Word(w, 1)),
            }
        }
        out
    }

    #[test]
    fn any_budget_gives_the_same_records() {
        let input = words(20_000);
        let want = expected(&input);
        let parent = tempfile::tempdir().unwrap();
        // From everything in memory to a run of every few records, past the
        // fan-in so that runs are merged in two rounds.
        for budget in [usize::MAX, 100_000, 2_000, 300] {
            let dir = SpillDir::new(parent.path());
            let sorter = Sorter::new(budget, &dir);
            for batch in input.chunks(97) {
                sorter.extend(batch.iter().cloned());
            }
            let spilled = sorter.runs();
            let got: Vec<Word> = sorter.finish().unwrap().map(Result::unwrap).collect();
            assert_eq!(got, want, "budget {budget}");
            if budget == 300 {
                assert!(spilled > super::FAN_IN, "{spilled} runs");
            }
            drop(dir);
            // Nothing left behind.
            assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
        }
    }

    /// A key and, in the order they were added, the places of the
    /// records merged into it: a merge that took equal records out of
    /// their order would show.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Placed(u32, Vec<u32>);

    impl Record for Placed {
        fn order(&self, other: &Self) -> Ordering {
            self.0.cmp(&other.0)
        }
        fn size(&self) -> usize {
            4 * self.1.len() + 32
        }
        fn encode(&self, out: &mut Vec<u8>) {
            for n in std::iter::once(self.0).chain(self.1.iter().copied()) {
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        fn decode(bytes: &[u8]) -> Option<Self> {
            let (words, rest) = bytes.as_chunks::<4>();
            let mut words = words.iter().map(|w| u32::from_le_bytes(*w));
            let key = words.next()?;
            rest.is_empty().then(|| Placed(key, words.collect()))
        }
        fn absorb(&mut self, other: Self) {
            self.1.extend(other.1);
        }
    }

    /// On a pool's worker the last buffer is sorted by the pool: the
    /// records come back as a stable sort on one thread gives them.
    #[test]
    fn a_sort_shared_by_a_pool_keeps_equal_records_in_order() {
        let input: Vec<Placed> = (0..50_000u32)
            .map(|i| Placed((i * 7919) % 613, vec![i]))
            .collect();
        let mut want: Vec<Placed> = Vec::new();
        let mut sorted = input.clone();
        sorted.sort_by_key(|p| p.0);
        for p in sorted {
            match want.last_mut() {
                Some(last) if last.0 == p.0 => last.1.extend(p.1),
                _ => want.push(p),
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let parent = tempfile::tempdir().unwrap();
        let dir = SpillDir::new(parent.path());
        let sorter = Sorter::new(usize::MAX, &dir);
        sorter.extend(input);
        let got: Vec<Placed> = pool.install(|| {
            assert!(rayon::current_thread_index().is_some());
            sorter.finish().unwrap().map(Result::unwrap).collect()
        });
        assert_eq!(got, want);
    }

    #[test]
    fn a_killed_runs_folder_is_swept_a_live_ones_is_not() {
        let parent = tempfile::tempdir().unwrap();
        let live = SpillDir::new(parent.path());
        let sorter = Sorter::new(1, &live);
        sorter.extend(words(3));
        assert!(sorter.runs() > 0);
        // A killed run: its folder, with a lock file nobody holds.
        let dead = parent.path().join(format!("{}dead", super::PREFIX));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join(super::LOCK), b"").unwrap();
        std::fs::write(dead.join("run-1"), b"x").unwrap();
        let _next = SpillDir::new(parent.path());
        assert!(!dead.exists());
        let left: Vec<_> = std::fs::read_dir(parent.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "the live run's folder stays");
        let got: Vec<Word> = sorter.finish().unwrap().map(Result::unwrap).collect();
        assert_eq!(got, expected(&words(3)));
    }

    /// A run killed as it made its folder leaves it without a lock file:
    /// the next run removes it at once. A folder being made while another
    /// run sweeps is never removed under its run: many runs making and
    /// sweeping at once all spill and read back every record.
    #[test]
    fn a_folder_without_its_lock_is_swept_and_sweeps_never_take_a_live_one() {
        let parent = tempfile::tempdir().unwrap();
        let born = parent.path().join(format!("{}born", super::PREFIX));
        std::fs::create_dir(&born).unwrap();
        drop(SpillDir::new(parent.path()));
        assert!(!born.exists());
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..200 {
                        let dir = SpillDir::new(parent.path());
                        let sorter = Sorter::new(1, &dir);
                        sorter.extend(words(2));
                        assert!(sorter.runs() > 0);
                        let got: Vec<Word> = sorter.finish().unwrap().map(Result::unwrap).collect();
                        assert_eq!(got, expected(&words(2)));
                    }
                });
            }
        });
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
    }
}
