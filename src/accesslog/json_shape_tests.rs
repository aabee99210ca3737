//! The shape reader against the general one: on lines of each kind the
//! tool reads and on those lines changed at random, what a shape learned
//! from one line reads of another is what the general reader reads of it
//! (a shape may decline a line; it may never read one otherwise).

use super::super::json::{CADDY, JsonFormat, NGINX};
use super::*;

fn nginx() -> JsonFormat {
    JsonFormat::new("nginx", NGINX).unwrap()
}

fn caddy() -> JsonFormat {
    JsonFormat::new("Caddy", CADDY).unwrap()
}

const NGINX_LINE: &str = r#"{"time_iso8601":"2026-11-23T10:00:00+01:00","remote_addr":"77.75.77.123","remote_user":"","request":"GET /a?b=1 HTTP/1.1","status":"200","body_bytes_sent":"512","http_referer":"","http_user_agent":"Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)"}"#;

const CADDY_LINE: &str = r#"{"level":"info","ts":1732352400.123,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"77.75.77.123","remote_port":"41342","client_ip":"77.75.77.123","proto":"HTTP/1.1","method":"GET","host":"example.cz","uri":"/a","headers":{"User-Agent":["SeznamBot/4.0"],"Accept":["*/*"]},"tls":{"resumed":false,"version":772}},"bytes_read":0,"user_id":"","duration":0.000929675,"size":10900,"status":200,"resp_headers":{"Server":["Caddy"]}}"#;

/// A line of every kind of value, in objects and arrays, with blanks.
const LITERALS_LINE: &str = r#"{"a": true, "b":false,"c":null,"d":-1.5e3,"e":[1,"x",{"f":"g"},[]],"t":"2026-11-23T10:00:00Z","ip":"77.75.77.1","r":"GET /a HTTP/1.1","n":0}"#;

fn literals() -> JsonFormat {
    JsonFormat::new("custom", "client=ip,time=t,request=r,status=n").unwrap()
}

/// What each reader gives for `line` once a shape was learned from
/// `learned`: the general reader's entry, and the shape reader's (or
/// `None` when the shape declines the line).
fn both(format: &JsonFormat, learned: &str, line: &[u8]) -> (String, Option<String>) {
    let general = format!("{:?}", format.parse(line));
    let mut memory = ShapeMemory::default();
    format
        .parse_remembering(learned.as_bytes(), Some(&mut memory))
        .unwrap();
    assert!(memory.shape.is_some(), "no shape learned from {learned}");
    let mut found = [None; 24];
    let by_shape = memory
        .read(line.trim_ascii(), &mut found)
        .then(|| format!("{:?}", format.parse_remembering(line, Some(&mut memory))));
    (general, by_shape)
}

#[test]
fn a_line_of_the_learned_shape_reads_as_the_general_reader_reads_it() {
    let format = nginx();
    let other = NGINX_LINE
        .replace("77.75.77.123", "2a02:598:2::1")
        .replace("\"200\"", "\"404\"")
        .replace("GET /a?b=1", "HEAD /x\\\"y\\u0041")
        .replace("SeznamBot/4.0", "curl/8");
    let (general, by_shape) = both(&format, NGINX_LINE, other.as_bytes());
    assert_eq!(by_shape.as_deref(), Some(general.as_str()));
    assert_eq!(
        format.parse(other.as_bytes()).unwrap().client,
        b"2a02:598:2::1"
    );

    let format = caddy();
    let other = CADDY_LINE
        .replace("1732352400.123", "1732352401")
        .replace("\"status\":200", "\"status\":301")
        .replace("\"resumed\":false", "\"resumed\":true")
        .replace("[\"SeznamBot/4.0\"]", "[\"Mozilla\"]");
    let (general, by_shape) = both(&format, CADDY_LINE, other.as_bytes());
    assert_eq!(by_shape.as_deref(), Some(general.as_str()));
    let entry = format.parse(other.as_bytes()).unwrap();
    assert_eq!(entry.user_agent, Some(&b"Mozilla"[..]));
    assert_eq!(entry.status, Some(301));
}

#[test]
fn a_line_of_another_shape_is_declined() {
    let format = nginx();
    for other in [
        // A key renamed, one more member, one fewer, a value of another
        // kind (an object, an array), blanks added, a line cut short, a
        // line longer, a string left open.
        NGINX_LINE.replace("remote_user", "remote_usex"),
        NGINX_LINE.replace("{\"time", "{\"x\":1,\"time"),
        NGINX_LINE.replace("\"remote_user\":\"\",", ""),
        NGINX_LINE.replace("\"status\":\"200\"", "\"status\":{}"),
        NGINX_LINE.replace("\"status\":\"200\"", "\"status\":[200]"),
        NGINX_LINE.replace("\",\"", "\", \""),
        NGINX_LINE[..NGINX_LINE.len() - 1].to_string(),
        format!("{NGINX_LINE}}}"),
        NGINX_LINE.replace("\"200\"", "\"200"),
        NGINX_LINE.replace("\"200\"", "\"2\\q00\""),
    ] {
        let (_, by_shape) = both(&format, NGINX_LINE, other.as_bytes());
        assert_eq!(by_shape, None, "{other}");
    }
    // Each literal and number cut short or run on.
    let format = literals();
    for (from, to) in [
        ("true", "tru"),
        ("true", "trux"),
        ("false", "fals"),
        ("false", "falsey"),
        ("null", "nul"),
        ("null", "nulll"),
        ("-1.5e3", "-1.5e"),
        ("-1.5e3", "-1."),
        ("-1.5e3", "-"),
        ("-1.5e3", "01"),
        ("-1.5e3", "1x"),
        ("\"n\":0", "\"n\":00"),
    ] {
        let other = LITERALS_LINE.replacen(from, to, 1);
        let (_, by_shape) = both(&format, LITERALS_LINE, other.as_bytes());
        assert_eq!(by_shape, None, "{other}");
    }
    // And the same places holding other values of any kind are read.
    for (from, to) in [
        ("true", "false"),
        ("false", "\"no\""),
        ("null", "-0.5E+7"),
        ("-1.5e3", "true"),
        ("\"n\":0", "\"n\":404"),
    ] {
        let other = LITERALS_LINE.replacen(from, to, 1);
        let (general, by_shape) = both(&format, LITERALS_LINE, other.as_bytes());
        assert_eq!(by_shape.as_deref(), Some(general.as_str()), "{other}");
    }
}

/// A small generator of random bytes (xorshift), so that the test needs
/// no seed file and every run tries the same lines.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Bytes a changed line is made of: JSON's structure, the starts and ends
/// of every kind of value, escapes, blanks.
const PIECES: &[&str] = &[
    "\"", "\\", "\\\"", "\\u00", ":", ",", "{", "}", "[", "]", " ", "0", "1", "-", ".", "e", "E",
    "+", "true", "false", "null", "x", "\"\"", "\"a\"", "\\n", "\\q", "\t", "é",
];

/// `line` with one to three random changes: a byte taken out, a piece put
/// in, or a piece put in place of a byte.
fn changed(line: &str, random: &mut Random) -> Vec<u8> {
    let mut bytes = line.as_bytes().to_vec();
    for _ in 0..1 + random.below(3) {
        let at = random.below(bytes.len() + 1);
        let piece = PIECES[random.below(PIECES.len())].as_bytes();
        match random.below(3) {
            0 if at < bytes.len() => {
                bytes.remove(at);
            }
            1 if at < bytes.len() => {
                bytes.splice(at..at + 1, piece.iter().copied());
            }
            _ => {
                bytes.splice(at..at, piece.iter().copied());
            }
        }
    }
    bytes
}

#[test]
fn on_lines_changed_at_random_the_shape_never_reads_otherwise() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let mut read = 0;
    for (format, line) in [
        (nginx(), NGINX_LINE),
        (caddy(), CADDY_LINE),
        (literals(), LITERALS_LINE),
    ] {
        for _ in 0..20_000 {
            let other = changed(line, &mut random);
            let (general, by_shape) = both(&format, line, &other);
            if let Some(by_shape) = by_shape {
                assert_eq!(by_shape, general, "{}", String::from_utf8_lossy(&other));
                read += 1;
            }
        }
    }
    // Most changes land in a value and keep the shape: the test reads many
    // lines by shape, not only declines.
    assert!(read > 5_000, "{read} lines read by shape");
}

#[test]
fn a_file_of_lines_reads_alike_with_and_without_memory() {
    // Lines of two shapes interleaved, most of one, and damaged ones:
    // every line's entry the same with the memory as without.
    let format = caddy();
    let mut random = Random(7);
    let mut memory = ShapeMemory::default();
    let other_shape = CADDY_LINE.replace(
        "\"Accept\":[\"*/*\"]",
        "\"Accept\":[\"*/*\"],\"DNT\":[\"1\"]",
    );
    for n in 0..5_000 {
        let line = match n % 10 {
            0 => changed(&other_shape, &mut random),
            1 => other_shape.as_bytes().to_vec(),
            2 => changed(CADDY_LINE, &mut random),
            _ => CADDY_LINE.replace("41342", &n.to_string()).into_bytes(),
        };
        assert_eq!(
            format!("{:?}", format.parse_remembering(&line, Some(&mut memory))),
            format!("{:?}", format.parse(&line)),
            "{}",
            String::from_utf8_lossy(&line)
        );
    }
    assert!(memory.hits > 1_000, "{} lines read by shape", memory.hits);
}

#[test]
fn shapes_stop_being_learned_when_they_do_not_pay() {
    let format = nginx();
    let mut memory = ShapeMemory::default();
    // Every line of another shape: a member more each time.
    let mut line = NGINX_LINE.to_string();
    for n in 0..200 {
        line = line.replacen('{', &format!("{{\"k{n}\":1,"), 1);
        format
            .parse_remembering(line.as_bytes(), Some(&mut memory))
            .unwrap();
    }
    assert_eq!(memory.hits, 0);
    assert_eq!(memory.misses, 200);
    // Learned while learning was free, then no more: the last shape is
    // that of line 16.
    let sixteenth = memory.shape.expect("a shape");
    assert_eq!(sixteenth.texts.len(), 8 + 16 + 1);
}

/// The JSON logs of `tests/data/logs` (real ones, README there), each line
/// with the schema that reads it.
fn real_lines() -> Vec<(JsonFormat, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/logs");
    let mut lines = Vec::new();
    for file in [
        "caddy.log",
        "nginx-json.log",
        "traefik.log",
        "traefik-no-headers.log",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for line in text.lines().filter(|l| l.starts_with('{')) {
            let format = super::super::json::KNOWN
                .iter()
                .map(|(name, mapping)| JsonFormat::new(name, mapping).unwrap())
                .find(|format| format.parse(line.as_bytes()).is_ok());
            if let Some(format) = format {
                lines.push((format, line.to_string()));
            }
        }
    }
    assert!(lines.len() >= 12, "{} real JSON lines", lines.len());
    lines
}

#[test]
fn real_lines_changed_at_random_read_alike_by_shape() {
    let mut random = Random(0x5eed);
    let mut read = 0;
    for (format, line) in real_lines() {
        for _ in 0..2_000 {
            let other = changed(&line, &mut random);
            let (general, by_shape) = both(&format, &line, &other);
            if let Some(by_shape) = by_shape {
                assert_eq!(
                    by_shape,
                    general,
                    "{line}\n{}",
                    String::from_utf8_lossy(&other)
                );
                read += 1;
            }
        }
    }
    assert!(read > 3_000, "{read} lines read by shape");
}

#[test]
fn shapes_stop_being_tried_when_they_do_not_pay() {
    // Lines of two shapes in turn: a shape learned from one misses the
    // next. Past the free lines the memory stops trying, and every line
    // still reads as the general reader reads it.
    let format = caddy();
    let other = CADDY_LINE.replace(",\"Accept\":[\"*/*\"]", "");
    let mut memory = ShapeMemory::default();
    for n in 0..200 {
        let line = if n % 2 == 0 {
            CADDY_LINE
        } else {
            other.as_str()
        };
        assert_eq!(
            format!(
                "{:?}",
                format.parse_remembering(line.as_bytes(), Some(&mut memory))
            ),
            format!("{:?}", format.parse(line.as_bytes())),
        );
    }
    assert_eq!(memory.hits, 0);
    assert_eq!(memory.misses, 200);
    assert!(!memory.pays());
}

/// What each reader gives for `line` once a shape was learned from
/// `learned` and settled by `second` (a line of its shape whose changed
/// values are then read anew, the others compared as text), with only
/// the settled shape left to read: the general reader's entry, and the
/// settled shape's (or `None` when it declines the line).
fn both_settled(
    format: &JsonFormat,
    learned: &str,
    second: &str,
    line: &[u8],
) -> (String, Option<String>) {
    let general = format!("{:?}", format.parse(line));
    let mut memory = ShapeMemory::default();
    format
        .parse_remembering(learned.as_bytes(), Some(&mut memory))
        .unwrap();
    // Read by the shape, which is all this needs: its entry may be an
    // error (another logger, a bad time).
    let _ = format.parse_remembering(second.as_bytes(), Some(&mut memory));
    assert_eq!(
        memory.hits, 1,
        "{second} not read by the shape of {learned}"
    );
    assert!(memory.settled.is_some());
    memory.shape = None;
    let hits = memory.hits;
    let entry = format!("{:?}", format.parse_remembering(line, Some(&mut memory)));
    (general, (memory.hits > hits).then_some(entry))
}

/// Lines to learn from, each with a second line of its shape in which a
/// few values changed.
fn settled_pairs() -> Vec<(JsonFormat, &'static str, String)> {
    vec![
        (
            nginx(),
            NGINX_LINE,
            NGINX_LINE
                .replace("77.75.77.123", "77.75.77.9")
                .replace("GET /a?b=1", "GET /c"),
        ),
        (
            caddy(),
            CADDY_LINE,
            CADDY_LINE
                .replace("1732352400.123", "1732352401.5")
                .replace("41342", "5")
                .replace("\"uri\":\"/a\"", "\"uri\":\"/robots.txt\""),
        ),
        (
            literals(),
            LITERALS_LINE,
            LITERALS_LINE
                .replace("\"n\":0", "\"n\":12")
                .replace("true", "null"),
        ),
    ]
}

#[test]
fn a_settled_shape_reads_its_changed_values_and_compares_the_rest() {
    let (format, learned, second) = &settled_pairs()[1];
    let mut memory = ShapeMemory::default();
    for line in [*learned, second.as_str()] {
        format
            .parse_remembering(line.as_bytes(), Some(&mut memory))
            .unwrap();
    }
    // Three values changed: three read anew, between four texts.
    assert_eq!(memory.holes.count_ones(), 3);
    assert_eq!(memory.settled.as_ref().map(|s| s.texts.len()), Some(4));
    // A third line changing them again reads by the settled shape alone.
    let third = CADDY_LINE
        .replace("1732352400.123", "1732352402")
        .replace("41342", "60000")
        .replace("\"uri\":\"/a\"", "\"uri\":\"/b?c=\\\"d\\\"\"");
    let (general, by_settled) = both_settled(format, learned, second, third.as_bytes());
    assert_eq!(by_settled.as_deref(), Some(general.as_str()));
    // A value settled as the learned line's, changed: declined by the
    // settled shape, read by the whole one, and read anew from then on.
    let fourth = third.replace("\"method\":\"GET\"", "\"method\":\"POST\"");
    let (_, by_settled) = both_settled(format, learned, second, fourth.as_bytes());
    assert_eq!(by_settled, None);
    let mut memory = ShapeMemory::default();
    for line in [*learned, second.as_str(), &fourth] {
        assert_eq!(
            format!(
                "{:?}",
                format.parse_remembering(line.as_bytes(), Some(&mut memory))
            ),
            format!("{:?}", format.parse(line.as_bytes()))
        );
    }
    assert_eq!((memory.hits, memory.misses), (2, 1));
    assert_eq!(memory.holes.count_ones(), 4);
    assert_eq!(memory.settled.as_ref().map(|s| s.texts.len()), Some(5));
}

#[test]
fn on_lines_changed_at_random_a_settled_shape_never_reads_otherwise() {
    let mut random = Random(0x51e7_71ed);
    let mut read = 0;
    for (format, learned, second) in settled_pairs() {
        for _ in 0..20_000 {
            // Damage to the learned line (most of which the settled shape
            // holds as text) and to the second (whose changed values it
            // reads anew).
            let base = if random.below(2) == 0 {
                learned
            } else {
                second.as_str()
            };
            let other = changed(base, &mut random);
            let (general, by_settled) = both_settled(&format, learned, &second, &other);
            if let Some(by_settled) = by_settled {
                assert_eq!(by_settled, general, "{}", String::from_utf8_lossy(&other));
                read += 1;
            }
        }
    }
    // Most changes land in the settled texts and are declined; enough
    // land in the values read anew.
    assert!(read > 500, "{read} lines read by a settled shape");
}

#[test]
fn real_lines_changed_at_random_read_alike_by_a_settled_shape() {
    // Each real line settled by a damaged copy the whole shape reads.
    let mut random = Random(0x5e771e);
    let mut read = 0;
    for (format, line) in real_lines() {
        let second = (0..1_000)
            .map(|_| changed(&line, &mut random))
            .find(|other| {
                let (_, by_shape) = both(&format, &line, other);
                by_shape.is_some() && other.as_slice() != line.as_bytes()
            });
        let Some(second) = second else { continue };
        let second = String::from_utf8(second).unwrap_or_default();
        if second.is_empty() {
            continue;
        }
        for _ in 0..2_000 {
            let other = changed(&line, &mut random);
            let (general, by_settled) = both_settled(&format, &line, &second, &other);
            if let Some(by_settled) = by_settled {
                assert_eq!(
                    by_settled,
                    general,
                    "{line}\n{second}\n{}",
                    String::from_utf8_lossy(&other)
                );
                read += 1;
            }
        }
    }
    assert!(read > 300, "{read} lines read by a settled shape");
}
