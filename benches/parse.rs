//! Parse throughput: lines per second of `LogFormat::parse` on generated
//! combined lines, and of the whole per-line path a worker runs (chunk line
//! iteration + parse); the same requests as JSON lines (SPEC §1 `json`),
//! against the combined figure: as nginx `escape=json` writes combined's
//! own fields (the like-for-like line) and as Caddy writes them (every
//! header and TLS detail besides, three times the bytes); then the reader's cost over bare
//! inflate + line count on the same gzip data. Inputs are generated here, not committed (STYLE
//! "Benches"). Run with `cargo bench --bench parse`.

use std::hint::black_box;
use std::io::{BufReader, Cursor, Read, Write};
use std::path::Path;
use std::time::Instant;

use flate2::Compression;
use flate2::bufread::MultiGzDecoder;
use flate2::write::GzEncoder;
use robots_audit::accesslog::chunk::READ_SIZE;
use robots_audit::accesslog::json::{CADDY, JsonFormat, NGINX};
use robots_audit::accesslog::open::{GZIP_BUFFER, from_reader};
use robots_audit::accesslog::{Chunk, ChunkReader, LogFormat, LogTz, ShapeMemory};

/// Lines generated, unless `PARSE_BENCH_LINES` says otherwise (a small
/// figure suits a run under callgrind).
const LINES: usize = 1_000_000;
const ROUNDS: usize = 5;

fn line_count() -> usize {
    std::env::var("PARSE_BENCH_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(LINES)
}

/// Combined lines as a busy site writes them: mixed clients, paths, agents.
fn generate(lines: usize) -> Vec<u8> {
    let agents = [
        "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "-",
    ];
    let referers = [
        "-",
        "https://www.seznam.cz/",
        "https://example.cz/clanky/?strana=2",
    ];
    let mut text = Vec::with_capacity(lines * 230);
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for i in 0..lines {
        // xorshift: cheap, repeatable variety.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let r = state;
        let second = i / 50;
        let client = if r.is_multiple_of(7) {
            format!("2a02:598:{:x}::{:x}", r % 4096, (r >> 12) % 65536)
        } else {
            format!(
                "{}.{}.{}.{}",
                77 + r % 100,
                (r >> 8) % 256,
                (r >> 16) % 256,
                (r >> 24) % 256
            )
        };
        let _ = writeln!(
            text,
            "{client} - - [{:02}/Nov/2026:{:02}:{:02}:{:02} +0100] \"GET /clanky/{}/{}?id={} HTTP/1.1\" {} {} \"{}\" \"{}\"",
            1 + second / 86_400 % 28,
            second / 3600 % 24,
            second / 60 % 60,
            second % 60,
            (r >> 32) % 1000,
            "abcdefghij".repeat(1 + (r >> 40) as usize % 3),
            r % 100_000,
            [200, 200, 200, 304, 404, 301][(r >> 20) as usize % 6],
            (r >> 4) % 50_000,
            referers[(r >> 28) as usize % referers.len()],
            agents[(r >> 36) as usize % agents.len()],
        );
    }
    text
}

fn main() {
    let text = generate(line_count());
    let chunk = Chunk {
        first_line: 1,
        line_count: memchr::memchr_iter(b'\n', &text).count() as u64,
        data: text,
        too_long: Vec::new(),
    };
    let lines: Vec<&[u8]> = chunk.lines().map(|l| l.text).collect();
    let bytes = chunk.data.len();
    println!(
        "{} lines, {:.1} MB, {:.0} bytes a line",
        lines.len(),
        bytes as f64 / 1e6,
        bytes as f64 / lines.len() as f64
    );
    let format = LogFormat::new("combined").unwrap_or_default();

    let mut best_parse = f64::MAX;
    let mut best_whole = f64::MAX;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let mut parsed = 0usize;
        for line in &lines {
            if let Ok(entry) = format.parse(black_box(line)) {
                parsed += usize::from(entry.user_agent.is_some());
            }
        }
        black_box(parsed);
        best_parse = best_parse.min(start.elapsed().as_secs_f64());

        let start = Instant::now();
        let mut parsed = 0usize;
        for line in black_box(&chunk).lines() {
            if let Ok(entry) = format.parse(line.text) {
                parsed += usize::from(entry.status == Some(200));
            }
        }
        black_box(parsed);
        best_whole = best_whole.min(start.elapsed().as_secs_f64());
    }
    let n = lines.len() as f64;
    println!(
        "LogFormat::parse (combined): {:.1} M lines/s, {:.1} ns a line",
        n / best_parse / 1e6,
        best_parse / n * 1e9
    );
    println!(
        "chunk lines + parse:         {:.1} M lines/s, {:.1} ns a line, {:.0} MB/s",
        n / best_whole / 1e6,
        best_whole / n * 1e9,
        bytes as f64 / best_whole / 1e6
    );
    compare_zones(&lines);
    compare_json(&chunk.data, best_parse / n);
    compare_reader(&chunk.data);
}

/// Times without an offset (a custom `%{…}t` without `%z`) placed by
/// `--log-tz`: a fixed offset, an IANA zone through the per-hour cache,
/// and, for scale, one jiff zone lookup a line without the cache.
fn compare_zones(lines: &[&[u8]]) {
    let local: Vec<Vec<u8>> = lines
        .iter()
        .map(|line| {
            let at = memchr::memmem::find(line, b" +0100]").unwrap_or(line.len());
            let mut out = line[..at].to_vec();
            out.extend_from_slice(line.get(at + 6..).unwrap_or_default());
            out
        })
        .collect();
    let spec = r#"%h %l %u [%{%d/%b/%Y:%H:%M:%S}t] "%r" %>s %b "%{Referer}i" "%{User-agent}i""#;
    let n = local.len() as f64;
    for zone in ["+0100", "Europe/Prague"] {
        let Ok(tz) = LogTz::parse(zone) else {
            println!("{zone}: no such zone here");
            continue;
        };
        let Ok(format) = LogFormat::new(spec) else {
            return;
        };
        let format = format.with_zone(Some(tz));
        let mut best = f64::MAX;
        for _ in 0..ROUNDS {
            let start = Instant::now();
            let mut parsed = 0usize;
            for line in &local {
                if let Ok(entry) = format.parse(black_box(line)) {
                    parsed += usize::from(entry.time.offset_min == 60);
                }
            }
            black_box(parsed);
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "LogFormat::parse (local time, --log-tz {zone}): {:.1} M lines/s, {:.1} ns a line",
            n / best / 1e6,
            best / n * 1e9
        );
    }
    if let Ok(zone) = jiff::tz::TimeZone::get("Europe/Prague") {
        let start = Instant::now();
        let mut sum = 0i64;
        for i in 0..lines.len() as i64 {
            let civil = jiff::tz::Offset::UTC.to_datetime(
                jiff::Timestamp::from_second(1_793_491_200 + i / 50).unwrap_or_default(),
            );
            sum += i64::from(zone.to_ambiguous_timestamp(black_box(civil)).is_ambiguous());
        }
        black_box(sum);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "jiff zone lookup a line, uncached (Europe/Prague): {:.1} ns a line",
            secs / n * 1e9
        );
    }
}

/// The combined lines rewritten as JSON, parsed by the JSON reader: as
/// nginx `log_format … escape=json` writes the fields of combined under
/// their variable names, and as Caddy writes its access log (its
/// documented fields, headers as arrays).
fn compare_json(text: &[u8], combined_per_line: f64) {
    let format = LogFormat::new("combined").unwrap_or_default();
    let mut caddy = Vec::with_capacity(text.len() * 3);
    let mut nginx = Vec::with_capacity(text.len() * 2);
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let Ok(entry) = format.parse(line) else {
            continue;
        };
        // What changes from request to request besides the combined
        // fields: the client's port, the time taken, the size sent, and
        // what a browser accepts against what a robot does.
        let port = 1024 + (i * 7919) % 64_000;
        let micros = 150 + (i * 104_729) % 90_000;
        let size = 200 + (i * 15_485_863) % 120_000;
        let request = String::from_utf8_lossy(entry.request);
        let mut parts = request.split(' ');
        let (method, uri) = (parts.next().unwrap_or("GET"), parts.next().unwrap_or("/"));
        let ua = String::from_utf8_lossy(entry.user_agent.unwrap_or(b"-"));
        let client = String::from_utf8_lossy(entry.client);
        let status = entry.status.unwrap_or(200);
        let accept = if ua.contains("bot") {
            "*/*"
        } else {
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        };
        let _ = writeln!(
            caddy,
            r#"{{"level":"info","ts":{}.{:03},"logger":"http.log.access","msg":"handled request","request":{{"remote_ip":"{client}","remote_port":"{port}","client_ip":"{client}","proto":"HTTP/1.1","method":"{method}","host":"example.cz","uri":"{uri}","headers":{{"User-Agent":["{ua}"],"Accept":["{accept}"],"Accept-Encoding":["gzip, deflate, br"]}},"tls":{{"resumed":false,"version":772,"cipher_suite":4865,"proto":"h2","server_name":"example.cz"}}}},"bytes_read":0,"user_id":"","duration":0.{micros:09},"size":{size},"status":{status},"resp_headers":{{"Server":["Caddy"],"Content-Type":["text/html; charset=utf-8"]}}}}"#,
            entry.time.unix, entry.time.millis,
        );
        let _ = writeln!(
            nginx,
            r#"{{"time_iso8601":"{}","remote_addr":"{client}","remote_user":"","request":"{request}","status":"{status}","body_bytes_sent":"{size}","http_referer":"{}","http_user_agent":"{ua}"}}"#,
            entry.time.rfc3339(),
            referer(line),
        );
    }
    let combined: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    // `PARSE_BENCH_JSON=nginx` (or `Caddy`) times one schema alone, for
    // callgrind.
    let only = std::env::var("PARSE_BENCH_JSON").ok();
    for (name, mapping, json_text) in [("nginx", NGINX, &nginx), ("Caddy", CADDY, &caddy)] {
        if only.as_deref().is_some_and(|only| only != name) {
            continue;
        }
        let Ok(json) = JsonFormat::new(name, mapping) else {
            return;
        };
        let lines: Vec<&[u8]> = json_text
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        time_json(name, &json, &lines, &format, &combined, combined_per_line);
    }
}

/// The referer of a combined line: the quoted field before the last
/// (the generated lines hold no escaped quote).
fn referer(line: &[u8]) -> String {
    let fields: Vec<&[u8]> = line.split(|&b| b == b'"').collect();
    let referer = fields
        .len()
        .checked_sub(4)
        .map_or(&b""[..], |at| fields[at]);
    String::from_utf8_lossy(referer).replace('-', "")
}

/// One JSON schema against combined, timed in alternating rounds (the
/// machine is shared: both see the same load), the best of each kept.
fn time_json(
    name: &str,
    json: &JsonFormat,
    lines: &[&[u8]],
    format: &LogFormat,
    combined: &[&[u8]],
    combined_per_line: f64,
) {
    let mut best = f64::MAX;
    let mut best_general = f64::MAX;
    let mut best_combined = combined_per_line * combined.len() as f64;
    let mut best_serde = f64::MAX;
    let mut read = 0usize;
    for _ in 0..ROUNDS {
        // As the scan reads a file's lines: in turn, remembering their
        // shape (`ShapeMemory`).
        let start = Instant::now();
        let parsed = remembered_loop(json, lines);
        read = black_box(parsed);
        best = best.min(start.elapsed().as_secs_f64());

        // Each line on its own: the general reader alone.
        let start = Instant::now();
        let mut parsed = 0usize;
        for line in lines {
            if let Ok(entry) = json.parse(black_box(line)) {
                parsed += usize::from(entry.user_agent.is_some());
            }
        }
        black_box(parsed);
        best_general = best_general.min(start.elapsed().as_secs_f64());

        let start = Instant::now();
        let parsed = combined_loop(format, combined);
        black_box(parsed);
        best_combined = best_combined.min(start.elapsed().as_secs_f64());

        // For scale: serde_json checking the same lines, keeping nothing.
        let start = Instant::now();
        let mut valid = 0usize;
        for line in lines {
            valid += usize::from(
                serde_json::from_slice::<serde::de::IgnoredAny>(black_box(line)).is_ok(),
            );
        }
        black_box(valid);
        best_serde = best_serde.min(start.elapsed().as_secs_f64());
    }
    let n = lines.len() as f64;
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let combined_per_line = best_combined / combined.len() as f64;
    println!(
        "JsonFormat::parse ({name}): {:.1} M lines/s, {:.1} ns a line ({:.0} bytes a line, {read} with a user agent), {:.2}x a combined line ({:.1} ns in the same rounds)",
        n / best / 1e6,
        best / n * 1e9,
        bytes as f64 / n,
        best / n / combined_per_line,
        combined_per_line * 1e9
    );
    println!(
        "JsonFormat::parse ({name}), each line on its own (no shape remembered): {:.1} ns a line, {:.2}x a combined line",
        best_general / n * 1e9,
        best_general / n / combined_per_line
    );
    println!(
        "serde_json validation alone (IgnoredAny), same {name} lines: {:.1} ns a line, {:.2}x a combined line",
        best_serde / n * 1e9,
        best_serde / n / combined_per_line
    );
}

/// Bare inflate + count against `open` + `ChunkReader` + count, on the same
/// gzip bytes in memory.
fn compare_reader(text: &[u8]) {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::new(6));
    let _ = encoder.write_all(text);
    let gzip = encoder.finish().unwrap_or_default();

    let mut best_bare = f64::MAX;
    let mut best_reader = f64::MAX;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let mut decoder = MultiGzDecoder::new(BufReader::with_capacity(
            GZIP_BUFFER,
            Cursor::new(gzip.as_slice()),
        ));
        let mut buf = vec![0u8; READ_SIZE];
        let mut lines = 0usize;
        while let Ok(n) = decoder.read(&mut buf) {
            if n == 0 {
                break;
            }
            lines += memchr::memchr_iter(b'\n', &buf[..n]).count();
        }
        black_box(lines);
        best_bare = best_bare.min(start.elapsed().as_secs_f64());

        let start = Instant::now();
        let source = Box::new(Cursor::new(gzip.clone()));
        let mut lines = 0usize;
        if let Ok(input) = from_reader(Path::new("bench.gz"), source, None) {
            let mut reader = ChunkReader::new(input);
            let recycler = reader.recycler();
            while let Some(Ok(chunk)) = reader.next_chunk() {
                lines += chunk.line_count as usize;
                recycler.recycle(chunk.data);
            }
        }
        black_box(lines);
        best_reader = best_reader.min(start.elapsed().as_secs_f64());
    }
    let mb = text.len() as f64 / 1e6;
    println!(
        "gzip {:.1} MB -> {mb:.1} MB: bare inflate+count {:.0} MB/s, open+chunks+lines {:.0} MB/s, ratio {:.3}",
        gzip.len() as f64 / 1e6,
        mb / best_bare,
        mb / best_reader,
        best_reader / best_bare
    );
}

/// The JSON lines read in turn, remembering their shape, as the scan reads
/// a file; how many had a user agent. Never inlined, so that callgrind
/// counts it alone: `PARSE_BENCH_LINES=20000 PARSE_BENCH_JSON=Caddy
/// valgrind --tool=callgrind --toggle-collect='*remembered_loop*' …`.
#[inline(never)]
fn remembered_loop(json: &JsonFormat, lines: &[&[u8]]) -> usize {
    let mut parsed = 0usize;
    let mut memory = ShapeMemory::default();
    for line in lines {
        if let Ok(entry) = json.parse_remembering(black_box(line), Some(&mut memory)) {
            parsed += usize::from(entry.user_agent.is_some());
        }
    }
    parsed
}

/// The combined lines read in turn; how many had a user agent. Never
/// inlined, as `remembered_loop`, the figure it is compared with.
#[inline(never)]
fn combined_loop(format: &LogFormat, combined: &[&[u8]]) -> usize {
    let mut parsed = 0usize;
    for line in combined {
        if let Ok(entry) = format.parse(black_box(line)) {
            parsed += usize::from(entry.user_agent.is_some());
        }
    }
    parsed
}
