//! Reading real files through `accesslog::open` and `ChunkReader`: plain and
//! gzip (one member or many), damaged gzip (truncated, corrupt, garbage
//! after the last member), an empty file, a directory, a missing file, and
//! lines too long to keep (SPEC §1 "Access logs", §5 damaged input).
//! Fixtures are written by the tests themselves.

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;
use robots_audit::Error;
use robots_audit::accesslog::chunk::MAX_LINE;
use robots_audit::accesslog::open::Compression as Stored;
use robots_audit::accesslog::{ChunkReader, open};
use robots_audit::error::Position;

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    encoder.write_all(text).unwrap();
    encoder.finish().unwrap()
}

/// Lines a test log holds: numbered, varied, some long.
fn log_text(lines: usize) -> Vec<u8> {
    let mut text = Vec::new();
    for i in 1..=lines {
        writeln!(
            text,
            "10.0.{}.{} - - [10/Oct/2000:13:55:36 -0700] \"GET /page/{i}?{} HTTP/1.1\" 200 {} \"-\" \"ua {i}\"",
            i % 256,
            i % 199,
            "x".repeat(i % 300),
            i * 7
        )
        .unwrap();
    }
    text
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Every line read, with its number and too-long mark, then the error that
/// ended the reading, if any.
struct Read {
    lines: Vec<(u64, Vec<u8>, bool)>,
    error: Option<Error>,
    chunks: usize,
}

fn read(path: &Path) -> Read {
    let input = open(path).unwrap();
    let mut reader = ChunkReader::new(input);
    let mut read = Read {
        lines: Vec::new(),
        error: None,
        chunks: 0,
    };
    for chunk in &mut reader {
        match chunk {
            Ok(chunk) => {
                read.chunks += 1;
                for line in chunk.lines() {
                    read.lines
                        .push((line.number, line.text.to_vec(), line.too_long));
                }
            }
            Err(e) => {
                assert!(read.error.is_none(), "two errors");
                read.error = Some(e);
            }
        }
    }
    read
}

fn plain_lines(text: &[u8]) -> Vec<(u64, Vec<u8>, bool)> {
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l.to_vec(), false))
        .collect()
}

#[test]
fn plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(20_000);
    let path = write_file(dir.path(), "access.log", &text);
    let input = open(&path).unwrap();
    assert_eq!(input.compression, Stored::Plain);
    assert_eq!(input.progress.size, Some(text.len() as u64));
    let got = read(&path);
    assert!(got.error.is_none());
    assert!(got.chunks > 1, "a multi-MiB log comes in several chunks");
    assert_eq!(got.lines, plain_lines(&text));
}

#[test]
fn gzip_is_told_by_content_not_name() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(3_000);
    for name in ["access.log", "access.log.gz", "access.txt.bz2"] {
        let path = write_file(dir.path(), name, &gzip(&text));
        assert_eq!(open(&path).unwrap().compression, Stored::Gzip, "{name}");
        let got = read(&path);
        assert!(got.error.is_none());
        assert_eq!(got.lines, plain_lines(&text), "{name}");
    }
    let path = write_file(dir.path(), "plain.gz", &text);
    assert_eq!(open(&path).unwrap().compression, Stored::Plain);
}

#[test]
fn multi_member_gzip_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(12_000);
    // Members cut mid-line too, as `cat a.gz b.gz` of arbitrary pieces makes.
    let (a, rest) = text.split_at(1_000_001);
    let (b, c) = rest.split_at(2_345_678.min(rest.len() / 2));
    let bytes = [gzip(a), gzip(b), gzip(b""), gzip(c)].concat();
    let path = write_file(dir.path(), "multi.gz", &bytes);
    let got = read(&path);
    assert!(got.error.is_none(), "{:?}", got.error);
    assert_eq!(got.lines, plain_lines(&text));
    let input = open(&path).unwrap();
    let progress = input.progress.clone();
    let mut reader = ChunkReader::new(input);
    while let Some(chunk) = reader.next_chunk() {
        chunk.unwrap();
    }
    assert_eq!(
        progress.consumed.load(std::sync::atomic::Ordering::Relaxed),
        bytes.len() as u64
    );
}

/// The lines read before damage are the log's first lines, complete.
fn assert_prefix(got: &Read, text: &[u8]) {
    let all = plain_lines(text);
    assert!(
        !got.lines.is_empty(),
        "lines before the damage are delivered"
    );
    assert!(got.lines.len() <= all.len());
    assert_eq!(got.lines[..], all[..got.lines.len()]);
}

#[test]
fn truncated_gzip_gives_its_lines_then_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(12_000);
    let whole = gzip(&text);
    for cut in [whole.len() / 3, whole.len() - 9, whole.len() - 1] {
        let path = write_file(dir.path(), "cut.gz", &whole[..cut]);
        let got = read(&path);
        match &got.error {
            Some(Error::Corrupt {
                path: p,
                at,
                cause,
                untrusted,
            }) => {
                assert_eq!(p, &path);
                assert_eq!(*at, Position::Byte(cut as u64));
                assert!(cause.contains("ends early"), "{cause}");
                // What came before the cut is the log's own text.
                assert!(!untrusted);
            }
            other => panic!("cut at {cut}: {other:?}"),
        }
        assert_prefix(&got, &text);
        if cut == whole.len() / 3 {
            assert!(got.lines.len() < 6_000, "a cut log is not read whole");
        }
    }
}

#[test]
fn corrupt_gzip_gives_its_lines_then_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(12_000);
    let mut bytes = gzip(&text);
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..middle + 64] {
        *b = !*b;
    }
    let path = write_file(dir.path(), "corrupt.gz", &bytes);
    let got = read(&path);
    match &got.error {
        Some(Error::Corrupt {
            at: Position::Byte(at),
            untrusted,
            ..
        }) => {
            assert!(*at >= middle as u64 && *at <= bytes.len() as u64, "{at}");
            // Found by the checksum at the end of the member (the message
            // then says the damage may lie anywhere before), or at an
            // invalid code where it was caught.
            assert!(!*untrusted || *at == bytes.len() as u64, "{at}");
        }
        other => panic!("{other:?}"),
    }
    // Lines decoded before the damage are delivered, numbered from 1.
    assert!(got.lines.len() > 1000);
    let all = plain_lines(&text);
    assert_eq!(got.lines[..1000], all[..1000]);
}

#[test]
fn garbage_after_the_last_member_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(5_000);
    for garbage in [&b"this is not gzip\n"[..], b"\0\0not gzip", b"\x1f\x8bjunk"] {
        let bytes = [gzip(&text), garbage.to_vec()].concat();
        let path = write_file(dir.path(), "trailing.gz", &bytes);
        let got = read(&path);
        assert_eq!(got.lines, plain_lines(&text), "all real lines come first");
        match &got.error {
            Some(Error::Corrupt {
                untrusted: false, ..
            }) => {}
            other => panic!("{garbage:?}: {other:?}"),
        }
    }
}

/// Zero bytes after a member are padding (tar, a preallocated file), as
/// `gzip -d` and Python's gzip read them: no damage, and a member after
/// them is read.
#[test]
fn zero_padding_between_and_after_members_is_no_damage() {
    let dir = tempfile::tempdir().unwrap();
    let text = log_text(5_000);
    let cut = text[..text.len() / 2]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let (head, tail) = text.split_at(cut);
    for bytes in [
        [gzip(&text), vec![0; 512]].concat(),
        [gzip(head), vec![0; 100_000], gzip(tail), vec![0; 3]].concat(),
    ] {
        let path = write_file(dir.path(), "padded.gz", &bytes);
        let got = read(&path);
        assert!(got.error.is_none(), "{:?}", got.error);
        assert_eq!(got.lines, plain_lines(&text));
    }
}

#[test]
fn empty_files() {
    let dir = tempfile::tempdir().unwrap();
    for bytes in [Vec::new(), gzip(b"")] {
        let path = write_file(dir.path(), "empty", &bytes);
        let got = read(&path);
        assert!(got.error.is_none());
        assert!(got.lines.is_empty());
        assert_eq!(got.chunks, 0);
    }
}

#[test]
fn directories_and_missing_files_cannot_be_opened() {
    let dir = tempfile::tempdir().unwrap();
    for path in [dir.path().to_path_buf(), dir.path().join("missing.log")] {
        match open(&path) {
            Err(Error::Open { path: p, .. }) => assert_eq!(p, path),
            other => panic!("{}: {other:?}", path.display()),
        }
    }
}

#[cfg(unix)]
#[test]
fn unreadable_files_cannot_be_opened() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "secret.log", b"x\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&path).is_ok() {
        // Running as root: permissions do not apply.
        return;
    }
    assert!(matches!(open(&path), Err(Error::Open { .. })));
}

#[test]
fn very_long_lines_are_marked_and_numbering_holds() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = log_text(10);
    let long_at = 11;
    text.extend(std::iter::repeat_n(b'L', 3 * MAX_LINE + 5));
    text.push(b'\n');
    text.extend_from_slice(&log_text(10));
    text.extend(std::iter::repeat_n(b'M', MAX_LINE + 1));
    for (name, bytes) in [("long.log", text.clone()), ("long.gz", gzip(&text))] {
        let path = write_file(dir.path(), name, &bytes);
        let got = read(&path);
        assert!(got.error.is_none());
        assert_eq!(got.lines.len(), 22, "{name}");
        for (i, (number, line, too_long)) in got.lines.iter().enumerate() {
            assert_eq!(*number, i as u64 + 1);
            let long = *number == long_at || *number == 22;
            assert_eq!(*too_long, long, "{name} line {number}");
            if long {
                assert!(line.is_empty());
            }
        }
        assert_eq!(got.lines[11].1, plain_lines(&log_text(1))[0].1);
    }
}
