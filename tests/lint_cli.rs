//! `robots-audit lint` run as a user runs it: each robots.txt under
//! `tests/data/lint/` against its expected text and JSON reports, byte for
//! byte, and the exit status (0 clean, 1 findings, 2 unreadable file).
//!
//! To rewrite the expected files after a deliberate change, run with
//! `LINT_BLESS=1` and review the diff.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lint")
}

fn lint(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .current_dir(data())
        .arg("lint")
        .args(args)
        .output()
        .expect("run robots-audit")
}

/// Compares `actual` with the expected file, or writes it when blessing.
fn compare(actual: &[u8], expected_name: &str) {
    let path = data().join(expected_name);
    if std::env::var_os("LINT_BLESS").is_some() {
        std::fs::write(&path, actual).expect("write expected output");
        return;
    }
    let expected = std::fs::read(&path).expect("read expected output");
    assert!(
        actual == expected.as_slice(),
        "{expected_name} differs\n--- expected\n{}\n--- actual\n{}",
        String::from_utf8_lossy(&expected),
        String::from_utf8_lossy(actual)
    );
}

#[test]
fn reports_match_byte_for_byte() {
    // (fixture, exit status)
    let cases: &[(&str, i32)] = &[
        ("clean", 0),
        ("crlf-bom", 0),
        ("allow-all", 0),
        ("rates", 1),
        ("mistakes", 1),
        ("html", 1),
        ("utf16", 1),
    ];
    for &(name, status) in cases {
        let file = format!("{name}.robots.txt");
        for (format, expected) in [
            ("text", format!("{name}.txt")),
            ("json", format!("{name}.json")),
        ] {
            let output = lint(&[&file, "--format", format]);
            assert_eq!(
                output.status.code(),
                Some(status),
                "{file} --format {format}"
            );
            assert!(output.stderr.is_empty(), "{file}: {:?}", output.stderr);
            compare(&output.stdout, &format!("expected/{expected}"));
        }
    }
}

#[test]
fn text_is_the_default_format() {
    let default = lint(&["mistakes.robots.txt"]);
    let text = lint(&["mistakes.robots.txt", "--format", "text"]);
    assert_eq!(default.stdout, text.stdout);
    assert_eq!(default.status.code(), Some(1));
}

#[test]
fn an_unreadable_file_exits_2() {
    for file in ["no-such-file.txt", "."] {
        let output = lint(&[file]);
        assert_eq!(output.status.code(), Some(2), "{file}");
        assert!(output.stdout.is_empty(), "{file}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with("robots-audit: "), "{stderr}");
        assert!(stderr.contains(file), "{stderr}");
    }
}

#[test]
fn a_bad_format_exits_2() {
    let output = lint(&["clean.robots.txt", "--format", "csv"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_file_past_500_kib_is_reported_whole() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("robots.txt");
    let mut text = String::from("User-agent: *\n");
    let mut n = 0;
    while text.len() <= 512_000 {
        text.push_str(&format!("Disallow: /private/{n}/\n"));
        n += 1;
    }
    std::fs::write(&path, &text).expect("write robots.txt");
    let output = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("lint")
        .arg(&path)
        .output()
        .expect("run robots-audit");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let expected = format!(
        "file: error: file-too-large: The file is {} bytes; crawlers read only the first 512000 \
         (500 KiB), so everything after line",
        text.len()
    );
    assert!(stdout.contains(&expected), "{stdout}");
}
