//! The shape reader against the general one: on lines of each kind the
//! tool reads and on those lines changed at random, what a shape learned
//! from one line reads of another is what the general reader reads of it
//! (a shape may decline a line; it may never read one otherwise).

use super::super::json::{CADDY, JsonFormat, NGINX};
use super::super::json_scan::{Level, extract, insert};
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

/// A piece of a random template: a text, or a slot for a scalar value.
enum Piece {
    Text(String),
    Slot(usize),
}

/// Scalar values a slot may hold: every kind, empty strings, escapes,
/// strings across a 16-byte look and a 64-byte block, numbers of every
/// part; a few not valid, a few not scalars (the shape must decline them).
const VALUES: &[&str] = &[
    "\"\"",
    "\"a\"",
    "\"\\\"\"",
    "\"\\\\\"",
    "\"x\\\\\"",
    "\"\\u0041\"",
    "\"\\/\"",
    "\"é\"",
    "\"0123456789abcde\\\"\"",
    "\"0123456789abcd\\\\\"",
    "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abc\\\"x\"",
    "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123\"",
    "0",
    "-0",
    "7",
    "12",
    "1.5",
    "-1.5e3",
    "1E+9",
    "0.000929675",
    "1732352400.123",
    "12345678901234567890",
    "true",
    "false",
    "null",
    // Not valid, or not scalars.
    "01",
    "1.",
    "-",
    "1e",
    "tru",
    "nul",
    "\"\\q\"",
    "\"\\u00\"",
    "{}",
    "[]",
    "[1]",
    "\"a",
];

/// How many of `VALUES` (from the start) are valid scalars.
const VALID_VALUES: usize = 25;

/// Blanks between tokens, most often none.
fn blank(random: &mut Random) -> &'static str {
    match random.below(12) {
        0 => " ",
        1 => "\t",
        2 => "\n ",
        _ => "",
    }
}

fn out_blank(random: &mut Random, template: &mut Vec<Piece>) {
    template.push(Piece::Text(blank(random).to_string()));
}

/// A value of a template: mostly a slot, else an object or an array.
fn template_value(random: &mut Random, depth: usize, slots: &mut usize, out: &mut Vec<Piece>) {
    match random.below(if depth < 3 { 8 } else { 1 }) {
        1 => template_object(random, depth + 1, slots, out),
        2 => {
            out.push(Piece::Text("[".into()));
            let n = random.below(4);
            for i in 0..n {
                if i > 0 {
                    out.push(Piece::Text(format!("{},{}", blank(random), blank(random))));
                }
                template_value(random, depth + 1, slots, out);
            }
            out.push(Piece::Text(format!("{}]", blank(random))));
        }
        _ => {
            out.push(Piece::Slot(*slots));
            *slots += 1;
        }
    }
}

/// An object of a template, of up to five members whose keys are a few
/// of `random_tree`'s and others (one written with an escape).
fn template_object(random: &mut Random, depth: usize, slots: &mut usize, out: &mut Vec<Piece>) {
    const KEYS: &[&str] = &[
        "a",
        "b",
        "c",
        "d",
        "e",
        "x",
        "arr",
        "long_key_name_over_16",
        "\\u0061",
        "zz",
    ];
    out.push(Piece::Text(format!("{{{}", blank(random))));
    let n = random.below(6);
    for i in 0..n {
        if i > 0 {
            out.push(Piece::Text(format!("{},{}", blank(random), blank(random))));
        }
        let key = KEYS[random.below(KEYS.len())];
        out.push(Piece::Text(format!(
            "\"{key}\"{}:{}",
            blank(random),
            blank(random)
        )));
        template_value(random, depth, slots, out);
    }
    out.push(Piece::Text(format!("{}}}", blank(random))));
}

/// The line of `template` with `values` (indices into `VALUES`) in its
/// slots, texts next to each other joined.
fn render(template: &[Piece], values: &[usize]) -> Vec<u8> {
    let mut line = Vec::new();
    for piece in template {
        match piece {
            Piece::Text(text) => line.extend_from_slice(text.as_bytes()),
            Piece::Slot(slot) => line.extend_from_slice(VALUES[values[*slot]].as_bytes()),
        }
    }
    line
}

/// A mapping of keys at three levels, some with both a value kept and
/// members mapped (`c`, `x`).
fn random_tree() -> Level {
    let mut tree = Level::default();
    for (leaf, path) in [
        "a",
        "b",
        "c",
        "c.d",
        "c.e",
        "e",
        "arr",
        "long_key_name_over_16",
        "c.x.d",
        "x.e",
        "x.long_key_name_over_16",
    ]
    .iter()
    .enumerate()
    {
        insert(&mut tree, path, leaf).unwrap();
    }
    tree
}

/// `found` as places in `line`, to compare two readings exactly.
fn places(line: &[u8], found: &[Option<&[u8]>]) -> Vec<Option<(usize, usize)>> {
    found
        .iter()
        .map(|value| {
            value.map(|value| {
                let start = value.as_ptr().addr() - line.as_ptr().addr();
                (start, start + value.len())
            })
        })
        .collect()
}

/// One memory over a sequence of lines, as `JsonFormat::parse_remembering`
/// uses it: every line a shape (whole or settled) reads keeps what the
/// general reader keeps, at the same places. Gives whether a shape read it.
fn read_alike(tree: &Level, memory: &mut ShapeMemory, line: &[u8]) -> bool {
    let line = line.trim_ascii();
    let mut general = [None; 16];
    let result = extract(line, tree, &mut general);
    if line.first() != Some(&b'{') {
        return false;
    }
    let mut by_shape = [None; 16];
    if memory.read(line, &mut by_shape) {
        assert!(
            result.is_ok(),
            "read by shape, refused by the general reader: {}",
            String::from_utf8_lossy(line)
        );
        assert_eq!(
            places(line, &by_shape),
            places(line, &general),
            "{}\nbasis {}",
            String::from_utf8_lossy(line),
            String::from_utf8_lossy(&memory.basis)
        );
        true
    } else {
        if result.is_ok() {
            memory.learn(line, &general);
        }
        false
    }
}

#[test]
fn sequences_of_lines_read_alike_value_for_value() {
    let tree = random_tree();
    let mut random = Random(0xfeed_5eed_1234_5678);
    let mut read = 0usize;
    let mut settled_read = 0usize;
    let mut wide_read = 0usize;
    let mut lines = 0usize;
    // Templates, of a hundred lines each.
    for _ in 0..1_000 {
        let mut slots = 0;
        let mut template = Vec::new();
        if random.below(4) == 0 {
            out_blank(&mut random, &mut template);
        }
        if random.below(8) == 0 {
            // A wide object: about `MAX_VALUES` values, a few more or fewer.
            template.push(Piece::Text("{".into()));
            for i in 0..MAX_VALUES - 3 + random.below(6) {
                let key = ["a", "b", "e", "zz", "long_key_name_over_16"][random.below(5)];
                let comma = if i > 0 { "," } else { "" };
                template.push(Piece::Text(format!("{comma}\"{key}\":")));
                template_value(&mut random, 3, &mut slots, &mut template);
            }
            template.push(Piece::Text("}".into()));
        } else {
            template_object(&mut random, 0, &mut slots, &mut template);
        }
        if random.below(4) == 0 {
            out_blank(&mut random, &mut template);
        }
        let learned: Vec<usize> = (0..slots).map(|_| random.below(VALID_VALUES)).collect();
        let mut values = learned.clone();
        let mut memory = ShapeMemory::default();
        // How often a value changes in this sequence.
        let churn = 1 + random.below(6);
        let wide = slots >= MAX_VALUES - 3;
        for _ in 0..100 {
            let line = match random.below(20) {
                0 => changed(
                    &String::from_utf8(render(&template, &values)).unwrap(),
                    &mut random,
                ),
                1 => render(&template, &learned),
                _ => {
                    for (slot, value) in values.iter_mut().enumerate() {
                        match random.below(60) {
                            c if c < churn => *value = random.below(VALUES.len()),
                            c if c < churn + 1 => *value = learned[slot],
                            _ => {}
                        }
                    }
                    // Keep most lines valid: an invalid value back to a
                    // valid one after it was tried.
                    let line = render(&template, &values);
                    for value in values.iter_mut() {
                        if *value >= VALID_VALUES {
                            *value = random.below(VALID_VALUES);
                        }
                    }
                    line
                }
            };
            let settled_before = memory.settled.is_some();
            if read_alike(&tree, &mut memory, &line) {
                read += 1;
                if settled_before {
                    settled_read += 1;
                }
                if wide {
                    wide_read += 1;
                }
            }
            lines += 1;
        }
    }
    eprintln!(
        "{lines} lines, {read} read by shape, {settled_read} with a settled shape, \
         {wide_read} of about {MAX_VALUES} values"
    );
    assert!(read > lines / 4, "{read} of {lines} read by shape");
    assert!(
        settled_read > lines / 4,
        "{settled_read} by a settled shape"
    );
    assert!(wide_read > 500, "{wide_read} of about {MAX_VALUES} values");
}

#[test]
fn a_settled_shape_of_the_most_values_reads_its_first_and_last_anew() {
    // `MAX_VALUES` values, the first and the last mapped ("a" and "e"):
    // the last one's bit is the top bit of `holes`. One value more and no
    // shape is learned.
    let tree = random_tree();
    let line = |first: &str, last: &str, count: usize| {
        let mut line = format!("{{\"a\":{first}");
        for i in 1..count - 1 {
            line.push_str(&format!(",\"k{i}\":{i}"));
        }
        line.push_str(&format!(",\"e\":{last}}}"));
        line.into_bytes()
    };
    let mut memory = ShapeMemory::default();
    for (first, last, by_shape) in [
        ("\"\"", "\"\"", false),
        ("\"\"", "1", true),
        ("\"\"", "12e5", true),
        ("\"x\"", "12e5", true),
        ("\"\"", "\"\"", true),
        ("\"\"", "\"\\\"\"", true),
        ("\"\"", "-", false),
    ] {
        let line = line(first, last, MAX_VALUES);
        assert_eq!(
            read_alike(&tree, &mut memory, &line),
            by_shape,
            "{first} {last}"
        );
    }
    // The learned line's first and last read anew, the rest as one text.
    assert_eq!(memory.holes, 1 | 1 << (MAX_VALUES - 1));
    assert_eq!(memory.settled.as_ref().map(|s| s.texts.len()), Some(3));
    let mut memory = ShapeMemory::default();
    for _ in 0..3 {
        assert!(!read_alike(
            &tree,
            &mut memory,
            &line("1", "2", MAX_VALUES + 1)
        ));
    }
    assert!(memory.shape.is_none());
}
