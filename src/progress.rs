//! The progress bar on standard error, only on a terminal and never with
//! `--quiet` (SPEC §1), so cron mail stays clean. It takes the sizes of the logs and
//! what the readers report, and tells the truth about both:
//! - when every log is a file of known size, a bar over the work, counted
//!   in bytes of log text: a gzip file's text is estimated from the
//!   expansion seen so far, so with plain and gzip files mixed the time
//!   left follows the work left; the bytes shown are those on disk, and
//!   gzip ones are labelled as compressed;
//! - otherwise (standard input, a pipe), no bar and no time left: the bytes
//!   read and the rate.
//!
//! Ctrl-C clears it (`clear_on_interrupt`), so the message that follows
//! stands on a clean line.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use console::Term;
use indicatif::{HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

use crate::accesslog::open::{Compression, GZIP_MAGIC};

/// How many bytes of text a byte of gzip is taken to hold before any has
/// been read: access logs compress about that well.
const PRIOR_EXPANSION: f64 = 8.0;

/// Compressed bytes read before the expansion seen replaces the prior.
const EXPANSION_SAMPLE: u64 = 64 * 1024;

/// The bar being drawn, for the Ctrl-C handler to clear.
static DRAWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// What is known of the input before reading: a log's size on disk and
/// how it is stored, or nothing (standard input, a pipe).
pub type Size = Option<(u64, Compression)>;

/// What the progress display can promise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// Some input has no known size: bytes read and the rate, no bar.
    Counter,
    /// Every size is known: a bar with the time left. Totals on disk.
    Bar { plain: u64, gzip: u64 },
}

impl Shape {
    /// The shape for these logs.
    pub fn of(sizes: &[Size]) -> Shape {
        let mut plain = 0;
        let mut gzip = 0;
        for size in sizes {
            match size {
                None => return Shape::Counter,
                Some((n, Compression::Plain)) => plain += n,
                Some((n, Compression::Gzip)) => gzip += n,
            }
        }
        Shape::Bar { plain, gzip }
    }

    /// The bar's position and length, in bytes of text, after `done`.
    /// Never shorter than the position, and it moves as the gzip
    /// estimate firms up.
    pub fn work(self, done: Done) -> (u64, u64) {
        let Shape::Bar { plain, gzip } = self else {
            return (done.on_disk(), 0);
        };
        let expansion = if done.gzip_disk >= EXPANSION_SAMPLE {
            done.gzip_text as f64 / done.gzip_disk as f64
        } else {
            PRIOR_EXPANSION
        };
        let gzip_left = gzip.saturating_sub(done.gzip_disk) as f64 * expansion;
        let position = done.plain + done.gzip_text;
        let length = plain.max(done.plain) + done.gzip_text + gzip_left as u64;
        (position, length)
    }

    /// The words beside the bar: bytes read on disk out of the total, with
    /// gzip bytes named as compressed.
    pub fn label(self, done: Done, gzip_seen: bool) -> String {
        match self {
            Shape::Bar { plain, gzip } => {
                let read = format!(
                    "{}/{}",
                    HumanBytes(done.on_disk()),
                    HumanBytes(plain + gzip)
                );
                match (plain, gzip) {
                    (_, 0) => read,
                    (0, _) => format!("{read} compressed"),
                    _ => format!("{read}, gzip compressed"),
                }
            }
            Shape::Counter if gzip_seen => "(gzip: compressed bytes)".to_string(),
            Shape::Counter => String::new(),
        }
    }
}

/// What the readers have read so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Done {
    /// Bytes of plain files.
    pub plain: u64,
    /// Compressed bytes of gzip files.
    pub gzip_disk: u64,
    /// The text those compressed bytes held.
    pub gzip_text: u64,
}

impl Done {
    fn on_disk(self) -> u64 {
        self.plain + self.gzip_disk
    }
}

/// Each log's size and storage, where it is a regular file: the first two
/// bytes tell gzip (SPEC §1), as the reader will. Standard input, pipes and
/// devices have none.
pub fn measure(logs: &[PathBuf]) -> Vec<Size> {
    logs.iter().map(|path| measure_one(path)).collect()
}

fn measure_one(path: &Path) -> Size {
    if path == Path::new("-") {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut magic = [0u8; 2];
    let mut file = File::open(path).ok()?;
    let read = file.read(&mut magic).ok()?;
    // A file of one byte cannot hold the magic number.
    let compression = if read == 2 && magic == GZIP_MAGIC {
        Compression::Gzip
    } else {
        Compression::Plain
    };
    Some((meta.len(), compression))
}

/// Shared by the reader threads and the workers.
pub struct Progress {
    bar: Option<ProgressBar>,
    shape: Shape,
    plain: AtomicU64,
    gzip_disk: AtomicU64,
    gzip_text: AtomicU64,
    gzip_seen: AtomicBool,
    lines: AtomicU64,
    started: Instant,
}

impl Progress {
    /// A display for logs of these sizes when standard error is a terminal
    /// and `quiet` is off; otherwise a silent counter.
    pub fn new(sizes: &[Size], quiet: bool) -> Progress {
        let shape = Shape::of(sizes);
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| draw(shape));
        if let (Some(bar), Ok(mut drawn)) = (&bar, DRAWN.lock()) {
            *drawn = Some(bar.clone());
        }
        Progress {
            bar,
            shape,
            plain: AtomicU64::new(0),
            gzip_disk: AtomicU64::new(0),
            gzip_text: AtomicU64::new(0),
            gzip_seen: AtomicBool::new(false),
            lines: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// One reader consumed `disk` more bytes of a file stored as
    /// `compression`, which held `text` bytes of log text.
    pub fn add_read(&self, compression: Compression, disk: u64, text: u64) {
        match compression {
            Compression::Plain => {
                self.plain.fetch_add(disk, Ordering::Relaxed);
            }
            Compression::Gzip => {
                self.gzip_seen.store(true, Ordering::Relaxed);
                self.gzip_disk.fetch_add(disk, Ordering::Relaxed);
                self.gzip_text.fetch_add(text, Ordering::Relaxed);
            }
        }
        self.redraw();
    }

    /// Lines parsed, by one worker.
    pub fn add_lines(&self, delta: u64) {
        self.lines.fetch_add(delta, Ordering::Relaxed);
        self.redraw();
    }

    fn redraw(&self) {
        let Some(bar) = &self.bar else {
            return;
        };
        let done = Done {
            plain: self.plain.load(Ordering::Relaxed),
            gzip_disk: self.gzip_disk.load(Ordering::Relaxed),
            gzip_text: self.gzip_text.load(Ordering::Relaxed),
        };
        let (position, length) = self.shape.work(done);
        let label = self
            .shape
            .label(done, self.gzip_seen.load(Ordering::Relaxed));
        if let Shape::Bar { .. } = self.shape {
            // The time left says how fast it goes; the line stays short
            // enough for an 80-column terminal.
            bar.set_length(length);
            bar.set_position(position);
            bar.set_message(label);
        } else {
            bar.set_position(position);
            let lines = self.lines.load(Ordering::Relaxed);
            let secs = self.started.elapsed().as_secs_f64().max(0.001);
            let rate = HumanCount((lines as f64 / secs) as u64);
            bar.set_message(format!("{label} {rate} lines/s"));
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if let Ok(mut drawn) = DRAWN.lock() {
            *drawn = None;
        }
    }
}

/// The bar or the counter, drawn on standard error.
fn draw(shape: Shape) -> ProgressBar {
    let (length, template) = match shape {
        // A bar of fixed width leaves the end of the line free, so the `^C`
        // the terminal echoes stays on it and is cleared with it.
        Shape::Bar { .. } => (Some(0), "{spinner} {elapsed:>4} {bar:20} {msg}, ETA {eta}"),
        // No length, so no bar that looks full and no "ETA 0s".
        Shape::Counter => (
            None,
            "{spinner} {elapsed:>4} {bytes} read, {bytes_per_sec} {msg}",
        ),
    };
    let target = ProgressDrawTarget::term_like_with_hz(Box::new(Narrow(Term::stderr())), 20);
    let bar = ProgressBar::with_draw_target(length, target);
    let style =
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    if shape == Shape::Counter {
        // A pipe may be slow to give anything: the spinner shows the run lives.
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    bar
}

/// Standard error as indicatif sees it, two columns narrower than it is.
/// indicatif pads its line to the terminal's width, leaving the cursor in
/// the last column; the `^C` a terminal echoes on Ctrl-C then wraps onto a
/// new line, and clearing that line leaves the bar above it. Two free
/// columns keep the `^C` on the bar's line, which is cleared with it.
#[derive(Debug)]
struct Narrow(Term);

impl TermLike for Narrow {
    fn width(&self) -> u16 {
        self.0.size().1.saturating_sub(2).max(1)
    }

    fn height(&self) -> u16 {
        self.0.size().0
    }

    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        self.0.move_cursor_up(n)
    }

    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        self.0.move_cursor_down(n)
    }

    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        self.0.move_cursor_right(n)
    }

    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        self.0.move_cursor_left(n)
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.0.write_line(s)
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.0.write_str(s)
    }

    fn clear_line(&self) -> io::Result<()> {
        self.0.clear_line()
    }

    fn flush(&self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Clears the bar, if one is drawn, before the process ends on Ctrl-C or
/// SIGTERM, so the terminal is left with a clean line.
pub fn clear_on_interrupt() {
    if let Ok(mut drawn) = DRAWN.lock()
        && let Some(bar) = drawn.take()
    {
        bar.finish_and_clear();
        // The readers and workers still running must not draw it again
        // before the process ends.
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_only_when_every_size_is_known() {
        let cases: &[(&[Size], Shape)] = &[
            (&[], Shape::Bar { plain: 0, gzip: 0 }),
            (
                &[Some((10, Compression::Plain)), Some((5, Compression::Gzip))],
                Shape::Bar { plain: 10, gzip: 5 },
            ),
            (&[None], Shape::Counter),
            (&[Some((10, Compression::Plain)), None], Shape::Counter),
        ];
        for (sizes, shape) in cases {
            assert_eq!(Shape::of(sizes), *shape, "{sizes:?}");
        }
    }

    #[test]
    fn labels_name_compressed_bytes() {
        let done = Done {
            plain: 1024,
            gzip_disk: 0,
            gzip_text: 0,
        };
        let cases = [
            (
                Shape::Bar {
                    plain: 2048,
                    gzip: 0,
                },
                false,
                "1.00 KiB/2.00 KiB",
            ),
            (
                Shape::Bar {
                    plain: 0,
                    gzip: 2048,
                },
                true,
                "1.00 KiB/2.00 KiB compressed",
            ),
            (
                Shape::Bar {
                    plain: 1024,
                    gzip: 1024,
                },
                true,
                "1.00 KiB/2.00 KiB, gzip compressed",
            ),
            (Shape::Counter, true, "(gzip: compressed bytes)"),
            (Shape::Counter, false, ""),
        ];
        for (shape, gzip_seen, label) in cases {
            assert_eq!(shape.label(done, gzip_seen), label, "{shape:?}");
        }
    }

    #[test]
    fn the_work_left_follows_the_text_still_to_read() {
        // 1 MiB plain and 1 MiB gzip that turns out to hold 10 MiB of text.
        const MIB: u64 = 1 << 20;
        let shape = Shape::Bar {
            plain: MIB,
            gzip: MIB,
        };
        // Before any gzip was read, the prior expansion stands in.
        let (position, length) = shape.work(Done {
            plain: MIB,
            ..Done::default()
        });
        assert_eq!((position, length), (MIB, MIB + 8 * MIB));
        // Half the gzip read, at 10 to 1: the other half holds 5 MiB more.
        let (position, length) = shape.work(Done {
            plain: MIB,
            gzip_disk: MIB / 2,
            gzip_text: 5 * MIB,
        });
        assert_eq!((position, length), (6 * MIB, 11 * MIB));
        // Everything read: the bar is full.
        let (position, length) = shape.work(Done {
            plain: MIB,
            gzip_disk: MIB,
            gzip_text: 10 * MIB,
        });
        assert_eq!(position, length);
        // Plain bytes weigh as much as gzip text: one half-done plain file
        // beside an unread gzip one is far from half done.
        let (position, length) = shape.work(Done {
            plain: MIB / 2,
            ..Done::default()
        });
        assert!(position * 10 < length, "{position}/{length}");
    }

    #[test]
    fn a_counter_has_no_length() {
        let done = Done {
            plain: 7,
            gzip_disk: 3,
            gzip_text: 30,
        };
        assert_eq!(Shape::Counter.work(done), (10, 0));
    }

    #[test]
    fn sizes_and_storage_of_files_and_nothing_for_standard_input() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("a.log");
        let gz = dir.path().join("b.log");
        std::fs::write(&plain, b"line\n").unwrap();
        std::fs::write(&gz, [0x1f, 0x8b, 8, 0]).unwrap();
        let sizes = measure(&[plain, gz, PathBuf::from("-"), dir.path().to_path_buf()]);
        assert_eq!(
            sizes,
            [
                Some((5, Compression::Plain)),
                Some((4, Compression::Gzip)),
                None,
                None
            ]
        );
    }
}
