//! The bare baseline for the benchmarks: inflates a gzip log with the same
//! flate2 backend and reader settings the tool uses (multi-member decoder
//! over a buffer of `open::GZIP_BUFFER` bytes, reads of `chunk::READ_SIZE`)
//! and counts its lines, nothing else. The tool's whole run is measured
//! against this (STYLE "Benches").
//!
//! Usage: `cargo run --release --example inflate_count -- FILE.gz`

use std::fs::File;
use std::io::{BufReader, Read};
use std::process::ExitCode;

use flate2::bufread::MultiGzDecoder;
use robots_audit::accesslog::chunk::READ_SIZE;
use robots_audit::accesslog::open::GZIP_BUFFER;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: inflate_count FILE.gz");
        return ExitCode::from(2);
    };
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("inflate_count: {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let mut decoder = MultiGzDecoder::new(BufReader::with_capacity(GZIP_BUFFER, file));
    let mut buf = vec![0u8; READ_SIZE];
    let mut lines: u64 = 0;
    loop {
        match decoder.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                eprintln!("inflate_count: {}: {e}", path.to_string_lossy());
                return ExitCode::from(2);
            }
        }
    }
    println!("{lines}");
    ExitCode::SUCCESS
}
