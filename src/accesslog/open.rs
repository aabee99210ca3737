//! Opening an access log: takes a path (`-` for standard input) and gives an
//! `Input`, a byte stream of the log's text whether the file is plain or gzip
//! (told by its first bytes, not its name; every member of a multi-member
//! gzip is read), with a counter of the file bytes consumed for a progress
//! bar (SPEC §1 "Access logs").

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use flate2::Crc;
use flate2::bufread::DeflateDecoder;

use crate::error::{Error, Position, Result};

/// The first two bytes of every gzip member (RFC 1952 §2.3.1).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The first bytes of a gzip member: the magic and the deflate method,
/// the only one gzip has.
pub const GZIP_MEMBER_START: [u8; 3] = [GZIP_MAGIC[0], GZIP_MAGIC[1], 8];

/// How many compressed bytes are handed to the inflater at a time. Large
/// enough that the per-call overhead of the decoder and of the read system
/// call vanish; the benchmark baseline (`examples/inflate_count.rs`) uses the
/// same figure.
pub const GZIP_BUFFER: usize = 256 * 1024;

/// How the file is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Plain,
    Gzip,
}

/// How far reading has come, shared with whoever draws a progress bar.
#[derive(Debug, Clone)]
pub struct ReadCount {
    /// Bytes of the file (compressed bytes for gzip) consumed so far.
    pub consumed: Arc<AtomicU64>,
    /// The size of the file, when it is a regular file.
    pub size: Option<u64>,
}

/// An opened log: its text as a stream, and what is known about the file.
pub struct Input {
    /// The path as given (`-` for standard input), for messages.
    pub path: PathBuf,
    pub compression: Compression,
    pub progress: ReadCount,
    /// The log's text (inflated when the file is gzip).
    pub reader: Box<dyn Read + Send>,
    /// Set when the file itself failed to read, so that a failing gzip read
    /// can be told apart from damaged gzip data.
    source_failed: Arc<AtomicBool>,
    /// The opened file's device and inode (Unix), so that a log read again
    /// can be told to be the same file.
    pub file_id: Option<(u64, u64)>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input")
            .field("path", &self.path)
            .field("compression", &self.compression)
            .field("progress", &self.progress)
            .finish_non_exhaustive()
    }
}

/// Counts the bytes a reader hands out, and remembers whether it failed.
struct Counted<R> {
    inner: R,
    consumed: Arc<AtomicU64>,
    failed: Arc<AtomicBool>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.consumed.fetch_add(n as u64, Ordering::Relaxed);
                Ok(n)
            }
            Err(e) => {
                if e.kind() != io::ErrorKind::Interrupted {
                    self.failed.store(true, Ordering::Relaxed);
                }
                Err(e)
            }
        }
    }
}

/// Counts the compressed bytes the inflater has actually used (not merely
/// buffered), so that the position of damage is exact to the inflater's
/// input block, and remembers whether the file failed to read.
struct CountedBuf<R> {
    inner: R,
    consumed: Arc<AtomicU64>,
    failed: Arc<AtomicBool>,
}

impl<R: BufRead> Read for CountedBuf<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for CountedBuf<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self.inner.fill_buf() {
            Ok(buf) => Ok(buf),
            Err(e) => {
                if e.kind() != io::ErrorKind::Interrupted {
                    self.failed.store(true, Ordering::Relaxed);
                }
                Err(e)
            }
        }
    }

    fn consume(&mut self, amount: usize) {
        self.consumed.fetch_add(amount as u64, Ordering::Relaxed);
        self.inner.consume(amount);
    }
}

/// What follows the last whole gzip member when it is not another member:
/// the marker inside the `io::Error` that `Members` gives.
#[derive(Debug)]
struct TrailingGarbage;

impl std::fmt::Display for TrailingGarbage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("garbage after the last gzip member")
    }
}

impl std::error::Error for TrailingGarbage {}

/// Every member of a gzip file in turn (RFC 1952 §2.2: a file is a series
/// of members, as `cat a.gz b.gz` and logrotate make), like flate2's
/// `MultiGzDecoder`, with two differences. It looks at what follows each
/// member before starting another: bytes that cannot start a member are
/// reported as `TrailingGarbage` where they start, rather than as a gzip
/// header cut short at the end of the file. And text inflated before
/// damage is given before the error (SPEC §5: every line before the
/// damage is audited): a read that meets damage gives what it inflated
/// first, and the error at the next read, where a gzip reader drops the
/// whole read's output with the error.
struct Members<R: BufRead> {
    state: Member<R>,
    /// The damage met by a read that still gave text: the next read's.
    damage: Option<io::Error>,
}

enum Member<R: BufRead> {
    /// At the start of a member: its header next.
    Header(R),
    /// Inflating a member's data; its CRC-32 and length so far.
    Body(DeflateDecoder<R>, Crc),
    /// After a member's trailer: another member, zero padding, the end,
    /// or garbage.
    Between(R),
    /// The end, or an error already given.
    Over,
}

impl<R: BufRead> Members<R> {
    fn new(reader: R) -> Members<R> {
        Members {
            state: Member::Header(reader),
            damage: None,
        }
    }
}

impl<R: BufRead> Read for Members<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(damage) = self.damage.take() {
            return Err(damage);
        }
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match std::mem::replace(&mut self.state, Member::Over) {
                Member::Header(mut reader) => {
                    gzip_header(&mut reader)?;
                    self.state = Member::Body(DeflateDecoder::new(reader), Crc::new());
                }
                Member::Body(mut inflate, mut crc) => {
                    let before = inflate.total_out();
                    match inflate.read(buf) {
                        Ok(0) => {
                            // The data ended (or the file did: the trailer
                            // read then says so); the trailer checks it.
                            let mut reader = inflate.into_inner();
                            gzip_trailer(&mut reader, &crc)?;
                            self.state = Member::Between(reader);
                        }
                        Ok(n) => {
                            crc.update(&buf[..n]);
                            self.state = Member::Body(inflate, crc);
                            return Ok(n);
                        }
                        Err(damage) => {
                            // The inflater counts what it wrote into `buf`
                            // before it met the damage.
                            let inflated = usize::try_from(inflate.total_out() - before)
                                .unwrap_or(0)
                                .min(buf.len());
                            if inflated == 0 {
                                return Err(damage);
                            }
                            self.damage = Some(damage);
                            return Ok(inflated);
                        }
                    }
                }
                Member::Between(mut reader) => {
                    let available = reader.fill_buf()?;
                    match available {
                        [] => return Ok(0),
                        // A lone 0x1f may be a magic number cut by the
                        // buffer's end; the header check tells.
                        [0x1f, 0x8b, ..] | [0x1f] => self.state = Member::Header(reader),
                        // Zero bytes after a member, as tar and block
                        // devices pad a file: passed over, as `gzip -d`
                        // and Python's gzip pass them; then another
                        // member, the end, or garbage, as after a trailer.
                        [0, ..] => {
                            let zeros = available.iter().take_while(|&&b| b == 0).count();
                            reader.consume(zeros);
                            self.state = Member::Between(reader);
                        }
                        _ => {
                            return Err(io::Error::new(
                                io::ErrorKind::InvalidData,
                                TrailingGarbage,
                            ));
                        }
                    }
                }
                Member::Over => return Ok(0),
            }
        }
    }
}

fn bad_header() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "invalid gzip header")
}

/// The file ended inside a member's header or trailer.
fn ends_early() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "gzip data ends early")
}

/// Reads exactly `buf.len()` bytes; the file ending first is
/// `UnexpectedEof` (a gzip file cut short).
fn read_exact_gz<R: BufRead>(reader: &mut R, buf: &mut [u8]) -> io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Err(ends_early());
        }
        let n = available.len().min(buf.len() - filled);
        buf[filled..filled + n].copy_from_slice(&available[..n]);
        reader.consume(n);
        filled += n;
    }
    Ok(())
}

/// Reads bytes up to a zero byte (a header's file name or comment).
fn read_to_zero<R: BufRead>(reader: &mut R, crc: &mut Crc) -> io::Result<()> {
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Err(ends_early());
        }
        match memchr::memchr(0, available) {
            Some(at) => {
                crc.update(&available[..=at]);
                reader.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = available.len();
                crc.update(available);
                reader.consume(n);
            }
        }
    }
}

/// A member's header (RFC 1952 §2.3): the magic number, deflate, no
/// reserved flag; its extra field, name and comment passed over; its
/// header CRC checked when it has one.
fn gzip_header<R: BufRead>(reader: &mut R) -> io::Result<()> {
    const FHCRC: u8 = 0x02;
    const FEXTRA: u8 = 0x04;
    const FNAME: u8 = 0x08;
    const FCOMMENT: u8 = 0x10;
    let mut fixed = [0u8; 10];
    read_exact_gz(reader, &mut fixed)?;
    let flags = fixed[3];
    if fixed[..2] != GZIP_MAGIC || fixed[2] != 8 || flags & 0xE0 != 0 {
        return Err(bad_header());
    }
    let mut crc = Crc::new();
    crc.update(&fixed);
    if flags & FEXTRA != 0 {
        let mut xlen = [0u8; 2];
        read_exact_gz(reader, &mut xlen)?;
        crc.update(&xlen);
        let mut extra = vec![0u8; usize::from(u16::from_le_bytes(xlen))];
        read_exact_gz(reader, &mut extra)?;
        crc.update(&extra);
    }
    if flags & FNAME != 0 {
        read_to_zero(reader, &mut crc)?;
    }
    if flags & FCOMMENT != 0 {
        read_to_zero(reader, &mut crc)?;
    }
    if flags & FHCRC != 0 {
        let mut header_crc = [0u8; 2];
        read_exact_gz(reader, &mut header_crc)?;
        if u16::from_le_bytes(header_crc) != (crc.sum() & 0xFFFF) as u16 {
            return Err(bad_header());
        }
    }
    Ok(())
}

/// A member's trailer: the CRC-32 and the length (modulo 2^32) of its text.
fn gzip_trailer<R: BufRead>(reader: &mut R, crc: &Crc) -> io::Result<()> {
    let mut trailer = [0u8; 8];
    read_exact_gz(reader, &mut trailer)?;
    let sum = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let amount = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    if sum != crc.sum() || amount != crc.amount() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "corrupt gzip stream does not have a matching checksum",
        ));
    }
    Ok(())
}

/// Reads until `buf` is full or the stream ends; gives the bytes read.
fn read_prefix(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The tool of a file compressed otherwise than with gzip, told by its
/// first bytes (logrotate's `compresscmd` is often xz or zstd): such a
/// file fits no log format, and saying why beats "give --log-format".
fn other_compression(magic: &[u8]) -> Option<&'static str> {
    match magic {
        [0xFD, b'7', b'z', b'X', b'Z', 0x00] => Some("xz"),
        [0x28, 0xB5, 0x2F, 0xFD, ..] => Some("zstd"),
        // "BZh", the block size, then the first block's magic.
        [b'B', b'Z', b'h', b'1'..=b'9', 0x31, 0x41] => Some("bzip2"),
        [0x04, 0x22, 0x4D, 0x18, ..] => Some("lz4"),
        _ => None,
    }
}

/// Whether the log at `path` can be read again from its start: a regular
/// file. Standard input, a pipe (`<(zcat …)`) or a FIFO gives its bytes
/// once; opened again, it gives the rest of the stream, or waits.
pub fn rereadable(path: &Path) -> bool {
    path != Path::new("-") && std::fs::metadata(path).is_ok_and(|meta| meta.is_file())
}

/// Opens a log file, or standard input for `-`.
///
/// A missing file, a directory or a file without read permission is
/// `Error::Open`; failing to read the first bytes is `Error::Read`.
pub fn open(path: &Path) -> Result<Input> {
    let open_error = |source| Error::Open {
        path: path.to_path_buf(),
        source,
    };
    let mut file_id = None;
    let (source, size): (Box<dyn Read + Send>, Option<u64>) = if path == Path::new("-") {
        (Box::new(io::stdin()), None)
    } else {
        let file = File::open(path).map_err(open_error)?;
        let meta = file.metadata().map_err(open_error)?;
        // On Unix a directory opens; reading it then fails. Say so now, as
        // an open error, rather than as a read error or an empty log.
        if meta.is_dir() {
            return Err(open_error(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )));
        }
        let size = meta.is_file().then_some(meta.len());
        file_id = file_id_of(&meta);
        (Box::new(file), size)
    };
    let mut input = from_reader(path, source, size)?;
    input.file_id = file_id;
    Ok(input)
}

#[cfg(unix)]
fn file_id_of(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id_of(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// What makes two log arguments one log: the same file, whatever the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Identity {
    /// Device and inode.
    File(u64, u64),
    /// Standard input whose file could not be asked.
    Stdin,
}

/// The file behind a log argument; `None` when it cannot be asked (a
/// missing file is reported when it is opened).
#[cfg(unix)]
fn identity(path: &Path) -> Option<Identity> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let meta = if path == Path::new("-") {
        // Standard input may itself be one of the other files
        // (`--log - --log access.log < access.log`).
        let asked = io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .map(File::from)
            .and_then(|file| file.metadata());
        match asked {
            Ok(meta) => meta,
            Err(_) => return Some(Identity::Stdin),
        }
    } else {
        std::fs::metadata(path).ok()?
    };
    Some(Identity::File(meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<Identity> {
    if path == Path::new("-") {
        return Some(Identity::Stdin);
    }
    use std::hash::{Hash, Hasher};
    let canonical = std::fs::canonicalize(path).ok()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    canonical.hash(&mut hasher);
    Some(Identity::File(0, hasher.finish()))
}

/// Refuses a log given twice (SPEC §1): the same file under any path — a
/// symlink, `./a.log` and `a.log`, a hard link — or `-` twice. Read twice,
/// every fetch would count twice and rates would break that were kept.
pub fn check_distinct(paths: &[PathBuf]) -> Result<()> {
    let mut seen: Vec<(Identity, &Path)> = Vec::new();
    for path in paths {
        let Some(id) = identity(path) else {
            continue;
        };
        if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == id) {
            let what = if first == path {
                format!("--log {} is given twice", path.display())
            } else {
                format!(
                    "--log {} and --log {} are the same file",
                    first.display(),
                    path.display()
                )
            };
            return Err(Error::Usage(format!("{what}: a log is read once")));
        }
        seen.push((id, path));
    }
    Ok(())
}

/// Wraps any byte source as an `Input`, telling gzip from plain text by the
/// first bytes. `path` is only used in messages.
pub fn from_reader(
    path: &Path,
    mut source: Box<dyn Read + Send>,
    size: Option<u64>,
) -> Result<Input> {
    let mut magic = [0u8; 6];
    let got = read_prefix(&mut source, &mut magic).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        at: Position::Byte(0),
        source,
    })?;
    if let Some(tool) = other_compression(&magic[..got]) {
        return Err(Error::Format {
            path: path.to_path_buf(),
            at: Position::File,
            cause: format!(
                "compressed with {tool}: only gzip is read; decompress it first \
                 ({tool} -dc FILE | robots-audit --log - …)"
            ),
        });
    }
    let consumed = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicBool::new(false));
    // The sniffed bytes go back in front of the rest of the stream.
    let prefix = io::Cursor::new(magic[..got].to_vec());
    let whole = prefix.chain(source);
    let (compression, reader): (Compression, Box<dyn Read + Send>) = if magic[..2] == GZIP_MAGIC {
        let buffered = BufReader::with_capacity(GZIP_BUFFER, whole);
        let counted = CountedBuf {
            inner: buffered,
            consumed: Arc::clone(&consumed),
            failed: Arc::clone(&failed),
        };
        (Compression::Gzip, Box::new(Members::new(counted)))
    } else {
        let counted = Counted {
            inner: whole,
            consumed: Arc::clone(&consumed),
            failed: Arc::clone(&failed),
        };
        (Compression::Plain, Box::new(counted))
    };
    Ok(Input {
        path: path.to_path_buf(),
        compression,
        progress: ReadCount { consumed, size },
        reader,
        source_failed: failed,
        file_id: None,
    })
}

impl Input {
    /// Turns a failed read of the text into the crate's error: damaged gzip
    /// data becomes `Error::Corrupt` at the compressed byte where the
    /// inflater stopped; a failing file or pipe stays `Error::Read`.
    pub fn read_error(&self, error: io::Error) -> Error {
        let at = Position::Byte(self.progress.consumed.load(Ordering::Relaxed));
        let path = self.path.clone();
        if self.compression == Compression::Plain || self.source_failed.load(Ordering::Relaxed) {
            return Error::Read {
                path,
                at,
                source: error,
            };
        }
        let garbage = error
            .get_ref()
            .is_some_and(|inner| inner.is::<TrailingGarbage>());
        // What was inflated before the damage is the log's text when the
        // file only ends early or a member ends and garbage follows. A
        // damage found only by the member's checksum (a flipped bit that
        // still inflates) may lie anywhere before: the message says so.
        let (cause, untrusted) = if garbage {
            // The position is exact: where the last member ended.
            ("garbage after the last gzip member".to_string(), false)
        } else if error.kind() == io::ErrorKind::UnexpectedEof {
            ("gzip data ends early (truncated file)".to_string(), false)
        } else if error.to_string().contains("header") {
            // After a complete member, anything but another member is
            // garbage; at the start it means a damaged header.
            (
                "not a gzip member (damaged header, or garbage after the last member)".to_string(),
                false,
            )
        } else {
            let checksum = error.to_string().contains("matching checksum");
            (format!("corrupt gzip data: {error}"), checksum)
        };
        Error::Corrupt {
            path,
            at,
            cause,
            untrusted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression as Level;
    use flate2::write::GzEncoder;
    use std::io::Write;

    /// Inflate is most of the run's work: zlib-rs must be built with its
    /// `std` feature, which turns on run-time CPU detection (the SIMD CRC-32
    /// and copy loops). flate2 alone leaves it off; Cargo.toml names
    /// zlib-rs to turn it on, and this fails if that is ever lost.
    #[test]
    fn zlib_rs_is_built_with_cpu_detection() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        // The host target, the one built: `--target all` would also need
        // the wasm-only dependencies (plotters' web-sys), which a host
        // build never downloads, and `--offline` would then fail.
        let out = std::process::Command::new(cargo)
            .args(["tree", "--offline", "--locked", "-e", "features,normal"])
            .args(["-i", "zlib-rs"])
            .output()
            .expect("cargo tree runs");
        let tree = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            tree.contains("zlib-rs feature \"std\""),
            "zlib-rs is built without its std feature:\n{tree}"
        );
    }

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Level::default());
        let _ = encoder.write_all(text);
        encoder.finish().unwrap_or_default()
    }

    fn read_all(input: &mut Input) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        input.reader.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn tells_gzip_from_plain_by_content() {
        let cases: &[(Vec<u8>, Compression, &[u8])] = &[
            (b"a\nb\n".to_vec(), Compression::Plain, b"a\nb\n"),
            (b"".to_vec(), Compression::Plain, b""),
            (b"\x1f".to_vec(), Compression::Plain, b"\x1f"),
            (gzip(b"a\nb\n"), Compression::Gzip, b"a\nb\n"),
            (
                [gzip(b"a\n"), gzip(b"b\n")].concat(),
                Compression::Gzip,
                b"a\nb\n",
            ),
        ];
        for (bytes, compression, text) in cases {
            let size = bytes.len() as u64;
            let mut input = from_reader(
                Path::new("t"),
                Box::new(io::Cursor::new(bytes.clone())),
                Some(size),
            )
            .unwrap();
            assert_eq!(input.compression, *compression);
            assert_eq!(read_all(&mut input).unwrap(), *text);
            assert_eq!(input.progress.consumed.load(Ordering::Relaxed), size);
        }
    }

    #[test]
    fn garbage_after_the_last_member_is_named_where_it_starts() {
        let whole = [gzip(b"a\n"), gzip(b"b\n")].concat();
        let end = Position::Byte(whole.len() as u64);
        // (what follows the members, the cause of the damage if any)
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"", None),
            (b"GARBAGE", Some("garbage after the last gzip member")),
            // Zero padding (tar, a preallocated file) is no member and no
            // damage: `gzip -d` ignores it silently.
            (b"\0\0\0\0", None),
            (&[0; 70_000], None),
            (b"\0\0GARBAGE", Some("garbage after the last gzip member")),
            (b"\0\0\x1f\x8bjunk", Some("")),
            (
                b"<html>not gzip</html>\n",
                Some("garbage after the last gzip member"),
            ),
            // A magic number, then no valid header: a damaged member.
            (b"\x1f", Some("ends early")),
            (b"\x1f\x8bjunk", Some("")),
        ];
        for &(tail, cause) in cases {
            let bytes = [whole.clone(), tail.to_vec()].concat();
            let mut input =
                from_reader(Path::new("t.gz"), Box::new(io::Cursor::new(bytes)), None).unwrap();
            let mut text = Vec::new();
            let result = input.reader.read_to_end(&mut text);
            assert_eq!(text, b"a\nb\n", "{tail:?}");
            match (result, cause) {
                (Ok(_), None) => {}
                (Err(error), Some(cause)) => match input.read_error(error) {
                    Error::Corrupt { at, cause: got, .. } => {
                        assert!(got.contains(cause), "{tail:?}: {got}");
                        if cause.starts_with("garbage") {
                            // Where the first byte that is no padding is.
                            let padding = tail.iter().take_while(|&&b| b == 0).count() as u64;
                            let Position::Byte(end) = end else {
                                unreachable!()
                            };
                            assert_eq!(at, Position::Byte(end + padding), "{tail:?}");
                        }
                    }
                    other => panic!("{tail:?}: {other:?}"),
                },
                (result, _) => panic!("{tail:?}: {result:?}"),
            }
        }
    }

    #[test]
    fn other_compressions_are_named() {
        let cases: [(&[u8], Option<&str>); 6] = [
            (b"\xFD7zXZ\x00\x00\x04", Some("xz")),
            (b"\x28\xB5\x2F\xFD\x24\x00", Some("zstd")),
            (b"BZh91AY&SY", Some("bzip2")),
            (b"\x04\x22\x4D\x18\x64\x40", Some("lz4")),
            (b"BZh9 - - [30/Nov", None),
            (b"77.75.77.1 - -", None),
        ];
        for (bytes, tool) in cases {
            let got = from_reader(
                Path::new("a.log"),
                Box::new(io::Cursor::new(bytes.to_vec())),
                None,
            );
            match (got, tool) {
                (Err(Error::Format { cause, .. }), Some(tool)) => {
                    assert!(
                        cause.contains(&format!("compressed with {tool}")),
                        "{cause}"
                    );
                }
                (Ok(_), None) => {}
                (got, _) => panic!("{bytes:?}: {:?}", got.map(|i| i.compression)),
            }
        }
    }

    /// A flipped byte in a stored block inflates without a word: only the
    /// member's CRC-32 finds it, at the end, and the error says the damage
    /// may lie anywhere before. A cut file is not so.
    #[test]
    fn damage_found_by_the_checksum_says_it_may_lie_anywhere_before() {
        let text = b"line one\nline two\nline three\n";
        let mut encoder = GzEncoder::new(Vec::new(), Level::none());
        encoder.write_all(text).unwrap();
        let mut bytes = encoder.finish().unwrap();
        let at = bytes.windows(3).position(|w| w == b"two").unwrap();
        bytes[at] ^= 0x01;
        let mut input = from_reader(
            Path::new("t.gz"),
            Box::new(io::Cursor::new(bytes.clone())),
            None,
        )
        .unwrap();
        let error = read_all(&mut input).unwrap_err();
        let error = input.read_error(error);
        match &error {
            Error::Corrupt { at, untrusted, .. } => {
                assert!(*untrusted);
                assert_eq!(*at, Position::Byte(bytes.len() as u64));
            }
            other => panic!("{other:?}"),
        }
        assert!(
            error.to_string().contains("may lie anywhere before"),
            "{error}"
        );
        let whole = gzip(text);
        let mut cut = from_reader(
            Path::new("t.gz"),
            Box::new(io::Cursor::new(whole[..whole.len() - 3].to_vec())),
            None,
        )
        .unwrap();
        let error = read_all(&mut cut).unwrap_err();
        assert!(matches!(
            cut.read_error(error),
            Error::Corrupt {
                untrusted: false,
                ..
            }
        ));
    }

    #[test]
    fn truncated_gzip_is_corrupt() {
        let whole = gzip(b"line one\nline two\n");
        let cut = whole[..whole.len() - 4].to_vec();
        let mut input =
            from_reader(Path::new("t.gz"), Box::new(io::Cursor::new(cut)), None).unwrap();
        let error = read_all(&mut input).unwrap_err();
        match input.read_error(error) {
            Error::Corrupt { at, .. } => assert_eq!(at, Position::Byte(whole.len() as u64 - 4)),
            other => panic!("{other:?}"),
        }
    }
}
