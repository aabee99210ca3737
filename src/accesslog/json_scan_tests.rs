//! The one-pass reader against serde_json's full parse: on generated
//! objects written with every escape JSON allows (`\uXXXX`, surrogate
//! pairs, `\"`, `\/`, escaped keys) and blanks anywhere, on those lines
//! damaged, and on the real and documented lines of `tests/data/logs/`,
//! every mapped value it keeps is the value serde_json finds at that path.

use super::*;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Caddy's paths, a path that is both a leaf and a parent, and short
/// keys the generator writes often.
const PATHS: [&str; 12] = [
    "request.remote_ip",
    "request.client_ip",
    "ts",
    "request.method",
    "request.uri",
    "status",
    "request.headers.User-Agent",
    "request.headers.X-Forwarded-For",
    "request.host",
    "a",
    "a.b",
    "é.\"q\"",
];

fn tree(paths: &[&str]) -> Level {
    let mut nodes = Level::default();
    for (leaf, path) in paths.iter().enumerate() {
        insert(&mut nodes, path, leaf).expect("distinct paths");
    }
    nodes
}

/// What serde_json finds at a dotted path: objects only, as the mapping
/// reads it.
fn at_path<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(value, |v, key| v.as_object().and_then(|o| o.get(key)))
}

/// Checks `line` both ways: when serde_json reads it, the reader does too
/// and keeps, for every path, the value serde_json has there; when the
/// reader refuses it, so does serde_json.
fn agrees(line: &[u8], paths: &[&str]) -> Result<(), String> {
    let nodes = tree(paths);
    let mut found = vec![None; paths.len()];
    let fast = extract(line, &nodes, &mut found);
    let full: Result<Value, _> = serde_json::from_slice(line);
    let shown = String::from_utf8_lossy(line);
    match (fast, full) {
        (Ok(()), Ok(full)) if full.is_object() => {
            for (path, raw) in paths.iter().zip(&found) {
                let kept = raw.map(|raw| {
                    serde_json::from_slice::<Value>(raw)
                        .map_err(|e| format!("{path}: kept {raw:?}, no JSON value: {e}"))
                });
                let kept = kept.transpose()?;
                if kept.as_ref() != at_path(&full, path) {
                    return Err(format!(
                        "{path}: kept {kept:?}, serde_json has {:?} in {shown}",
                        at_path(&full, path)
                    ));
                }
            }
            Ok(())
        }
        (Ok(()), Ok(_)) => Err(format!("not an object, yet read: {shown}")),
        (Err(Malformed), Ok(full)) if full.is_object() => {
            Err(format!("serde_json reads it, the reader refused: {shown}"))
        }
        // The reader does not look inside strings it skips (control
        // bytes, UTF-8): it may read what serde_json refuses.
        (_, _) => Ok(()),
    }
}

/// How a generated value is written.
#[derive(Debug, Clone, Copy)]
struct Style {
    /// Every character past ASCII as `\uXXXX`, astral ones as surrogate
    /// pairs.
    ascii_only: bool,
    /// `/` as `\/`, as some encoders write it.
    escape_slash: bool,
    /// Keys' letters as `\u00XX`.
    escape_keys: bool,
    /// Blanks around every token.
    blanks: bool,
}

fn write_string(out: &mut String, text: &str, style: Style, key: bool) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if style.escape_slash => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if key && style.escape_keys && c.is_ascii_alphabetic() => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c if !c.is_ascii() && style.ascii_only => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write(out: &mut String, value: &Value, style: Style) {
    let blank = |out: &mut String| {
        if style.blanks {
            out.push_str(" \t");
        }
    };
    blank(out);
    match value {
        Value::Object(map) => {
            out.push('{');
            for (i, (key, inner)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                blank(out);
                write_string(out, key, style, true);
                blank(out);
                out.push(':');
                write(out, inner, style);
            }
            blank(out);
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, inner) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, inner, style);
            }
            blank(out);
            out.push(']');
        }
        Value::String(text) => write_string(out, text, style, false),
        other => out.push_str(&other.to_string()),
    }
    blank(out);
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "request",
            "remote_ip",
            "client_ip",
            "ts",
            "method",
            "uri",
            "status",
            "headers",
            "User-Agent",
            "X-Forwarded-For",
            "host",
            "a",
            "b",
            "é",
            "\"q\"",
        ])
        .prop_map(str::to_string),
        "[a-z_]{1,6}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,12}",
        "[a\"\\\\/é€😀\u{1}\n\t ]{0,8}",
        any::<String>().prop_map(|s| s.chars().take(10).collect()),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Eighths: written and read back exactly.
        (-1_000_000_000i64..1_000_000_000).prop_map(|n| Value::from(n as f64 / 8.0)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn object() -> impl Strategy<Value = Value> {
    prop::collection::vec((key(), value()), 0..8)
        .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>()))
}

fn style() -> impl Strategy<Value = Style> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(ascii_only, escape_slash, escape_keys, blanks)| Style {
            ascii_only,
            escape_slash,
            escape_keys,
            blanks,
        },
    )
}

/// `value` written in `style`, then cut at, or given `byte` before or in
/// place of the byte at, the place `cut` picks (`how` 0, 1, 2).
fn damaged(value: &Value, style: Style, cut: prop::sample::Index, byte: u8, how: u8) -> Vec<u8> {
    let mut line = String::new();
    write(&mut line, value, style);
    let mut bytes = line.into_bytes();
    let at = cut.index(bytes.len().max(1)).min(bytes.len());
    match how {
        0 => bytes.truncate(at),
        1 => bytes.insert(at, byte),
        _ => {
            if at < bytes.len() {
                bytes[at] = byte;
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn generated_objects_agree_with_serde_json(value in object(), style in style()) {
        let mut line = String::new();
        write(&mut line, &value, style);
        // The writer is right: serde_json reads back what was generated.
        let back: Value = serde_json::from_str(&line).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &value);
        agrees(line.as_bytes(), &PATHS).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn damaged_objects_agree_with_serde_json(
        value in object(),
        style in style(),
        cut in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        how in 0..3u8,
    ) {
        let bytes = damaged(&value, style, cut, byte, how);
        agrees(&bytes, &PATHS).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The other way round from `agrees`: where the damage puts no control
    /// byte into a string (which serde_json refuses and the reader, not
    /// looking inside strings, reads), the reader refuses exactly the lines
    /// serde_json refuses, so no fast path lets a broken line through.
    #[test]
    fn damaged_objects_are_refused_as_serde_json_refuses_them(
        value in object(),
        style in style(),
        cut in any::<prop::sample::Index>(),
        byte in 0x20u8..=0xff,
        how in 0..3u8,
    ) {
        let bytes = damaged(&value, style, cut, byte, how);
        let nodes = tree(&PATHS);
        let mut found = vec![None; PATHS.len()];
        let read = extract(&bytes, &nodes, &mut found).is_ok();
        let valid = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok()
            && bytes.trim_ascii_start().first() == Some(&b'{');
        prop_assert_eq!(read, valid, "{}", String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn escapes_and_nested_paths() {
    let paths = ["request.headers.User-Agent", "request.uri", "ts"];
    for line in [
        // \uXXXX, a surrogate pair, \" inside a string.
        r#"{"request":{"uri":"/a\u0026b?q=\"x\"","headers":{"User-Agent":["Seznam\ud83d\ude00Bot","x"]}},"ts":1.5e3}"#,
        // An escaped key names the same field.
        r#"{"request":{"h\u006fst":"a","headers":{"User\u002DAgent":["b"]}},"ts":-0}"#,
        // A mapped object that is no object, and a leaf that is one.
        r#"{"request":["uri"],"ts":{"a":[1,{"b":null}]}}"#,
        "{ }",
        " {\"ts\" : true } ",
    ] {
        agrees(line.as_bytes(), &paths).unwrap_or_else(|e| panic!("{e}"));
    }
    let mut found = [None; 3];
    assert_eq!(extract(b"[]", &tree(&paths), &mut found), Err(Malformed));
    for bad in [
        "",
        "{",
        r#"{"ts":1,}"#,
        r#"{"ts" 1}"#,
        r#"{"ts":01}"#,
        r#"{"ts":1.}"#,
        r#"{"ts":tru}"#,
        r#"{"ts":"\x"}"#,
        r#"{"ts":"\u12G4"}"#,
        r#"{"ts":"open}"#,
        r#"{"ts":1} x"#,
        r#"{"ts":[1 2]}"#,
    ] {
        let mut found = [None; 3];
        assert_eq!(
            extract(bad.as_bytes(), &tree(&paths), &mut found),
            Err(Malformed),
            "{bad}"
        );
        assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad}");
    }
}

#[test]
fn nesting_is_bounded() {
    let deep = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    let mut found = [None; 1];
    assert_eq!(
        extract(deep.as_bytes(), &tree(&["a"]), &mut found),
        Err(Malformed)
    );
}

#[test]
fn the_first_element_of_an_array() {
    assert_eq!(
        first_element(br#"[ "a\"" , 1 ]"#),
        Ok(Some(&br#""a\"""#[..]))
    );
    assert_eq!(first_element(b"[ ]"), Ok(None));
    assert_eq!(first_element(b"\"a\""), Err(Malformed));
}

#[test]
fn real_lines_agree_with_serde_json() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/logs");
    let mut lines = 0;
    for name in [
        "caddy.log",
        "traefik.log",
        "traefik-no-headers.log",
        "nginx-json.log",
    ] {
        let text = std::fs::read(dir.join(name)).expect("a sample");
        for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            for (_, mapping) in super::super::json::KNOWN {
                let paths: Vec<&str> = mapping
                    .split(',')
                    .filter_map(|pair| pair.split_once('=').map(|(_, p)| p))
                    .flat_map(|p| p.split('|'))
                    .collect();
                agrees(line, &paths).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            let mut found = [None; 1];
            assert_eq!(
                extract(line, &tree(&["x"]), &mut found),
                Ok(()),
                "{name}: a well-formed line"
            );
            lines += 1;
        }
    }
    assert!(lines >= 15, "{lines} lines");
}

#[test]
fn arrays_read_in_place_of_the_skipper() {
    // Arrays of one string take their own path in `object`; every other
    // shape goes on in the skipper from the element it reached.
    let paths = ["a", "b.c"];
    for line in [
        r#"{"a":["x"],"b":{"c":["y"]}}"#,
        r#"{"a":[],"b":{"c":[ ]}}"#,
        r#"{"a":[ "x" , 1 ,{"d":[2,"z"]}],"b":{"c":["y",["w"]]}}"#,
        r#"{"a":[1,"x"],"b":{"c":[{"d":"x"}]}}"#,
        r#"{"a":["x\"]"],"b":{"c":["\\"]}}"#,
    ] {
        agrees(line.as_bytes(), &paths).unwrap_or_else(|e| panic!("{e}"));
        let mut found = [None; 2];
        assert_eq!(extract(line.as_bytes(), &tree(&paths), &mut found), Ok(()));
        assert!(found.iter().all(Option::is_some), "{line}");
    }
    for bad in [
        r#"{"a":["x" 1]}"#,
        r#"{"a":["x",]}"#,
        r#"{"a":["x"}"#,
        r#"{"a":["x",1}"#,
        r#"{"a":["x"#,
        r#"{"a":[,"x"]}"#,
    ] {
        let mut found = [None; 2];
        assert_eq!(
            extract(bad.as_bytes(), &tree(&paths), &mut found),
            Err(Malformed),
            "{bad}"
        );
        assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad}");
    }
}

#[test]
fn keys_told_apart_by_length_then_by_bytes() {
    // Keys of 63 bytes and more share one length bit: they are told apart
    // by their bytes, as shorter keys of one length are.
    let long = "k".repeat(70);
    let longer = format!("{long}x");
    let paths = [long.as_str(), "ab"];
    let line = format!(r#"{{"{longer}":1,"{long}":2,"ba":3,"ab":4,"abc":5}}"#);
    let mut found = [None; 2];
    assert_eq!(extract(line.as_bytes(), &tree(&paths), &mut found), Ok(()));
    assert_eq!(found, [Some(&b"2"[..]), Some(&b"4"[..])]);
    agrees(line.as_bytes(), &paths).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_crowded_level_finds_each_of_its_keys_and_no_other() {
    // Sixty keys at one level, many of one length and with the same first
    // and last bytes, so that several share an entry of the table; and
    // lengths around the word sizes (8, 16) the comparison splits at.
    let mut keys: Vec<String> = Vec::new();
    for len in [1, 2, 7, 8, 9, 15, 16, 17, 24, 40] {
        for middle in ["a", "b", "c", "d", "e", "f"] {
            let key = match len {
                1 => middle.to_string(),
                _ => format!("x{}y", middle.repeat(len - 2)),
            };
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    let paths: Vec<&str> = keys.iter().map(String::as_str).collect();
    let level = tree(&paths);
    // Every key of the mapping, and keys one byte off from them, each as
    // the only member of a line: found exactly when mapped, at its leaf.
    let mut others = vec!["x".to_string(), "xay".to_string(), "z".to_string()];
    for key in &keys {
        for at in 0..key.len() {
            let mut off = key.clone().into_bytes();
            off[at] = b'q';
            others.push(String::from_utf8(off).expect("ASCII"));
        }
    }
    for key in keys.iter().chain(&others) {
        let line = format!(r#"{{"{key}":"v"}}"#);
        let mut found = vec![None; paths.len()];
        assert_eq!(extract(line.as_bytes(), &level, &mut found), Ok(()));
        let expected: Vec<Option<&[u8]>> = paths
            .iter()
            .map(|path| (*path == key).then_some(&b"\"v\""[..]))
            .collect();
        assert_eq!(found, expected, "{key}");
    }
}

#[test]
fn digits_end_agrees_with_a_byte_by_byte_walk() {
    let walk = |text: &[u8], mut at: usize| {
        while at < text.len() && text[at].is_ascii_digit() {
            at += 1;
        }
        at
    };
    // Every byte value in every place of runs of digits long enough for
    // two words and a tail, and after bytes that carry when six is added.
    for len in [0, 1, 7, 8, 9, 16, 17, 23] {
        for place in 0..len {
            for value in 0..=255u8 {
                for fill in [b'0', b'9', 0xFF] {
                    let mut text = vec![b'5'; len];
                    text[place] = value;
                    if place + 1 < len {
                        text[place + 1] = fill;
                    }
                    for from in [0, 1] {
                        assert_eq!(
                            digits_end(&text, from),
                            walk(&text, from),
                            "{text:?} from {from}"
                        );
                    }
                }
            }
        }
    }
    assert_eq!(digits_end(b"1764111600.123", 0), 10);
    assert_eq!(digits_end(b"12", 5), 5);
}
