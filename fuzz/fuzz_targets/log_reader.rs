//! A whole log file of any bytes through `open`'s sniffing (plain or gzip,
//! several members, damage anywhere) and the line cutter: never a panic,
//! never a hang, and the lines numbered 1, 2, 3… A gzip input may inflate
//! far beyond its size; the budget counts inflated bytes too.
#![no_main]

use std::io::Cursor;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use robots_audit::accesslog::{ChunkReader, open::from_reader};
use robots_audit_fuzz::within_linear_budget;

fuzz_target!(|data: &[u8]| {
    let started = robots_audit_fuzz::thread_cpu_time();
    let Ok(input) = from_reader(
        Path::new("fuzz"),
        Box::new(Cursor::new(data.to_vec())),
        None,
    ) else {
        return;
    };
    let mut next = 1;
    let mut inflated = 0usize;
    for chunk in ChunkReader::new(input) {
        let Ok(chunk) = chunk else {
            break;
        };
        inflated += chunk.data.len();
        for line in chunk.lines() {
            assert_eq!(line.number, next);
            next += 1;
        }
    }
    within_linear_budget(started, data.len() + inflated / 16);
});
