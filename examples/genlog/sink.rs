//! Where generated lines go: takes whole lines, gives a plain or gzip file
//! (or standard output), optionally shuffling lines a little first, as when
//! several front-end servers' logs are merged (SPEC §4 says order must not
//! matter). Gzip runs on its own thread so that making lines and
//! compressing them use two cores.

use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::rng::Rng;

/// Lines are handed to the compressor in buffers of about this size.
const CHUNK: usize = 1 << 20;

/// How many lines may overtake each other under `--out-of-order`.
pub const SHUFFLE_WINDOW: usize = 16;

enum Output {
    Plain(io::BufWriter<Box<dyn Write + Send>>),
    Gzip {
        buf: Vec<u8>,
        full: Option<SyncSender<Vec<u8>>>,
        empty: Receiver<Vec<u8>>,
        worker: JoinHandle<io::Result<()>>,
    },
}

/// Holds up to `SHUFFLE_WINDOW` lines and lets a random one out for each
/// one that comes in: every line moves only a few places.
struct Shuffle {
    rng: Rng,
    slots: Vec<Vec<u8>>,
}

pub struct Sink {
    output: Output,
    shuffle: Option<Shuffle>,
    written: u64,
}

fn compress(
    file: Box<dyn Write + Send>,
    level: u32,
    full: Receiver<Vec<u8>>,
    empty: SyncSender<Vec<u8>>,
) -> io::Result<()> {
    let mut gz = GzEncoder::new(
        io::BufWriter::with_capacity(CHUNK, file),
        Compression::new(level),
    );
    for mut buf in full {
        gz.write_all(&buf)?;
        buf.clear();
        // The generator may have finished and dropped its end; that is fine.
        let _ = empty.send(buf);
    }
    gz.finish()?.flush()
}

impl Sink {
    /// `level` is `Some` for gzip. `shuffle` seeds `--out-of-order`.
    pub fn new(file: Box<dyn Write + Send>, level: Option<u32>, shuffle: Option<Rng>) -> Sink {
        let output = match level {
            None => Output::Plain(io::BufWriter::with_capacity(CHUNK, file)),
            Some(level) => {
                let (full_tx, full_rx) = sync_channel::<Vec<u8>>(3);
                let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(4);
                for _ in 0..3 {
                    let _ = empty_tx.send(Vec::with_capacity(CHUNK + 4096));
                }
                let worker = std::thread::spawn(move || compress(file, level, full_rx, empty_tx));
                Output::Gzip {
                    buf: Vec::with_capacity(CHUNK + 4096),
                    full: Some(full_tx),
                    empty: empty_rx,
                    worker,
                }
            }
        };
        Sink {
            output,
            shuffle: shuffle.map(|rng| Shuffle {
                rng,
                slots: Vec::with_capacity(SHUFFLE_WINDOW),
            }),
            written: 0,
        }
    }

    /// Takes one whole line, newline included.
    pub fn push(&mut self, line: &[u8]) -> io::Result<()> {
        let Some(shuffle) = &mut self.shuffle else {
            return emit(&mut self.output, &mut self.written, line);
        };
        if shuffle.slots.len() < SHUFFLE_WINDOW {
            shuffle.slots.push(line.to_vec());
            return Ok(());
        }
        let i = shuffle.rng.below(SHUFFLE_WINDOW as u64) as usize;
        let slot = &mut shuffle.slots[i];
        emit(&mut self.output, &mut self.written, slot)?;
        slot.clear();
        slot.extend_from_slice(line);
        Ok(())
    }

    /// Lets out what is held, ends the file, and tells how many
    /// (uncompressed) bytes were written.
    pub fn finish(mut self) -> io::Result<u64> {
        if let Some(mut shuffle) = self.shuffle.take() {
            while !shuffle.slots.is_empty() {
                let i = shuffle.rng.below(shuffle.slots.len() as u64) as usize;
                let line = shuffle.slots.swap_remove(i);
                emit(&mut self.output, &mut self.written, &line)?;
            }
        }
        match self.output {
            Output::Plain(mut w) => w.flush()?,
            Output::Gzip {
                buf,
                mut full,
                empty,
                worker,
            } => {
                // A send fails only when the worker stopped on an error,
                // which join reports below. The sender is dropped here
                // either way, which ends the worker's loop.
                if let Some(tx) = full.take()
                    && !buf.is_empty()
                {
                    let _ = tx.send(buf);
                }
                drop(full);
                drop(empty);
                match worker.join() {
                    Ok(result) => result?,
                    Err(_) => return Err(io::Error::other("the gzip thread failed")),
                }
            }
        }
        Ok(self.written)
    }
}

fn emit(output: &mut Output, written: &mut u64, line: &[u8]) -> io::Result<()> {
    *written += line.len() as u64;
    match output {
        Output::Plain(w) => w.write_all(line),
        Output::Gzip {
            buf, full, empty, ..
        } => {
            buf.extend_from_slice(line);
            if buf.len() < CHUNK {
                return Ok(());
            }
            let lost = || io::Error::other("the gzip thread stopped");
            let next = empty.recv().map_err(|_| lost())?;
            let done = std::mem::replace(buf, next);
            match full {
                Some(tx) => tx.send(done).map_err(|_| lost()),
                None => Err(lost()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::sync::{Arc, Mutex};

    /// A `Write` whose bytes the test can read back after the sink is gone.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn run(level: Option<u32>, shuffle: bool, lines: usize) -> Vec<u8> {
        let shared = Shared::default();
        let mut sink = Sink::new(
            Box::new(shared.clone()),
            level,
            shuffle.then(|| Rng::new(1)),
        );
        for i in 0..lines {
            sink.push(format!("line {i:06} {}\n", "x".repeat(i % 300)).as_bytes())
                .unwrap();
        }
        sink.finish().unwrap();
        let bytes = shared.0.lock().unwrap().clone();
        if level.is_none() {
            return bytes;
        }
        let mut plain = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut plain)
            .unwrap();
        plain
    }

    #[test]
    fn every_line_arrives_once() {
        let lines = 20_000; // several chunks
        let plain = run(None, false, lines);
        for (level, shuffle) in [(Some(1), false), (None, true), (Some(6), true)] {
            let other = run(level, shuffle, lines);
            assert_eq!(other.len(), plain.len());
            if shuffle {
                let mut a: Vec<&[u8]> = plain.split(|&b| b == b'\n').collect();
                let mut b: Vec<&[u8]> = other.split(|&b| b == b'\n').collect();
                assert_ne!(a, b, "shuffled output should differ");
                a.sort();
                b.sort();
                assert_eq!(a, b);
            } else {
                assert_eq!(other, plain);
            }
        }
    }
}
