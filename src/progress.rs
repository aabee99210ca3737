//! The progress bar on standard error: compressed bytes read out of the
//! total, lines per second, time left. Only on a terminal and never with
//! `--quiet`, so cron mail stays clean.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Shared by the reader threads and the workers.
pub struct Progress {
    bar: Option<ProgressBar>,
    bytes: AtomicU64,
    lines: AtomicU64,
    started: Instant,
}

impl Progress {
    /// A bar over `total` input bytes when standard error is a terminal and
    /// `quiet` is off; otherwise a silent counter.
    pub fn new(total: Option<u64>, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = match total {
                Some(total) => {
                    ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
                }
                None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            };
            let style = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg} ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar
        });
        Progress {
            bar,
            bytes: AtomicU64::new(0),
            lines: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// Input bytes consumed since the last call, by one reader.
    pub fn add_bytes(&self, delta: u64) {
        let done = self.bytes.fetch_add(delta, Ordering::Relaxed) + delta;
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// Lines parsed, by one worker.
    pub fn add_lines(&self, delta: u64) {
        let lines = self.lines.fetch_add(delta, Ordering::Relaxed) + delta;
        if let Some(bar) = &self.bar {
            let secs = self.started.elapsed().as_secs_f64().max(0.001);
            bar.set_message(format!("{:.0} lines/s", lines as f64 / secs));
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
