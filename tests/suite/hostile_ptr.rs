//! A `--ptr-map` full of malformed lines, through the real binary (SPEC §1
//! "Address → name"): the good pairs still name their addresses, every bad
//! line is skipped with its line number and a reason (the first five shown,
//! then a count), nothing from the file is echoed raw to the terminal, and
//! the run goes on. A name is taken as written, whatever bytes it holds
//! (SPEC §2): one with bytes that are not UTF-8 is a known name that
//! matches no crawler, so a claim from its address is an impostor's; only
//! a comma or a space, which separate the fields, makes a line bad. A side
//! file (`--ptr-map`, `--profiles`) that is a FIFO, a device or past
//! 16 MiB is an error naming it, at once: the run never hangs on it.

use crate::support::hostile as common;

use common::*;

#[test]
fn a_ptr_map_with_malformed_lines_keeps_its_good_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let long_name = format!("{}.example.com", ["=a,\"b\"|c"; 30].join("."));
    let mut map: Vec<u8> = Vec::new();
    map.extend_from_slice(b"# a map with every kind of damage\n");
    map.extend_from_slice(b"77.75.77.123 fulltextrobot-77-75-77-123.seznam.cz\n");
    map.extend_from_slice(b"\x00\x01\x02 binary\n");
    map.extend_from_slice(b"6.6.6.6 \xff\xfe.example.com\n");
    map.extend_from_slice(b"6.6.6.6\n");
    map.extend_from_slice(b"6.6.6.6 a.example.com b.example.com\n");
    map.extend_from_slice(b"999.1.1.1 host.example.com\n");
    map.extend_from_slice(format!("6.6.6.6 {long_name}\n").as_bytes());
    map.extend_from_slice(b"6.6.6.6 =cmd|' /C calc'!A0\n");
    map.extend_from_slice(b"\x1b[31mred\x1b[0m 1.2.3.4\n");
    map.extend_from_slice(&[b'x'; 100_000]);
    map.push(b'\n');
    map.extend_from_slice(b"2A02:598:A:0::78:90,fulltextrobot-2a02-598-a--78-90.seznam.cz.\r\n");
    map.extend_from_slice(b"6.6.6.7 host.example.com");
    let map = write(dir.path(), "ptr-map.txt", &map);

    let mut log = seznam_fetch(1, "/cz/chat/a");
    log.push_str(&line(
        "2a02:598:a::78:90",
        "30/Nov/2026:00:00:02 +0100",
        "GET /cz/chat/b HTTP/1.1",
        BROWSER_UA,
    ));
    log.push_str(&line(
        "6.6.6.7",
        "30/Nov/2026:00:00:03 +0100",
        "GET /cz/chat/c HTTP/1.1",
        SEZNAM_UA,
    ));
    log.push_str(&line(
        "6.6.6.6",
        "30/Nov/2026:00:00:04 +0100",
        "GET /cz/chat/d HTTP/1.1",
        SEZNAM_UA,
    ));
    let log = write(dir.path(), "access.log", log);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let run = run(&[
        "--log",
        s(&log),
        "--robots",
        s(&robots),
        "--ptr-map",
        s(&map),
        "--out",
        s(&out),
    ]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    let violations = rows(&std::fs::read(out.join("violations.csv")).unwrap());
    let got: Vec<(&str, &str, &str)> = violations[1..]
        .iter()
        .map(|r| (r[3].as_str(), r[5].as_str(), r[6].as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("77.75.77.123", "ptr-only", "ua+ptr"),
            ("2a02:598:a::78:90", "ptr-only", "ptr"),
        ]
    );
    let impostors = rows(&std::fs::read(out.join("impostors.csv")).unwrap());
    let clients: Vec<&str> = impostors[1..].iter().map(|r| r[3].as_str()).collect();
    assert_eq!(clients, ["6.6.6.7", "6.6.6.6"]);
    assert_eq!(impostors[1][4], "host.example.com");
    // 6.6.6.6's one name fits no crawler: it is shown as written, bytes
    // that are not UTF-8 as `\xNN`, escaped once (SPEC §5).
    assert_eq!(impostors[2][4], "\\xFF\\xFE.example.com");

    // Bad lines are named by number and reason; five are shown.
    let shown: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("ptr-map.txt:") && !l.contains("more bad lines"))
        .collect();
    assert_eq!(shown.len(), 5, "{}", run.stderr);
    assert!(
        shown[0].ends_with("ptr-map.txt:3: not an IP address"),
        "{shown:?}"
    );
    assert!(
        run.stderr.contains("ptr-map.txt: 3 more bad lines"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains('\u{1b}'), "terminal escapes echoed");
    assert!(!run.stderr.contains("calc"), "map text echoed");
}

#[test]
fn a_ptr_name_reads_back_to_its_bytes() {
    // The byte 0xFF and the text `\xFF` are two names: the reports write
    // them apart (SPEC §5, every written value reads back to one byte
    // string), in impostors.csv and impostor-addresses.csv alike.
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let map = write(
        dir.path(),
        "ptr-map.txt",
        &b"6.6.6.6 a\\xFFb.example.net\n6.6.6.7 a\xffb.example.net\n"[..],
    );
    let mut log = String::new();
    for (second, client) in [(1, "6.6.6.6"), (2, "6.6.6.7")] {
        log.push_str(&line(
            client,
            &format!("30/Nov/2026:00:00:0{second} +0100"),
            "GET /cz/chat/a HTTP/1.1",
            SEZNAM_UA,
        ));
    }
    let log = write(dir.path(), "access.log", log);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let run = run(&[
        "--log",
        s(&log),
        "--robots",
        s(&robots),
        "--ptr-map",
        s(&map),
        "--out",
        s(&out),
    ]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    let impostors = rows(&std::fs::read(out.join("impostors.csv")).unwrap());
    let names: Vec<(&str, &str)> = impostors[1..]
        .iter()
        .map(|r| (r[3].as_str(), r[4].as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("6.6.6.6", "a\\\\xFFb.example.net"),
            ("6.6.6.7", "a\\xFFb.example.net"),
        ]
    );
    let addresses = rows(&std::fs::read(out.join("impostor-addresses.csv")).unwrap());
    let mut names: Vec<(&str, &str)> = addresses[1..]
        .iter()
        .map(|r| (r[0].as_str(), r[3].as_str()))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ("6.6.6.6", "a\\\\xFFb.example.net"),
            ("6.6.6.7", "a\\xFFb.example.net"),
        ]
    );
}

/// SPEC §1: side files are read to 16 MiB and never hang on a FIFO or a
/// device. A FIFO nobody writes to held the run forever; `/dev/zero` and a
/// file of 17 MiB were read whole into memory first.
#[test]
fn a_side_file_that_is_a_fifo_a_device_or_too_big_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let log = write(dir.path(), "access.log", seznam_fetch(1, "/cz/chat/a"));
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.unwrap().success());
    let big = dir.path().join("big-map");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(17 << 20)
        .unwrap();
    let cases = [
        (fifo.as_path(), "FIFO"),
        (std::path::Path::new("/dev/zero"), "device"),
        (big.as_path(), "larger than 16 MiB"),
    ];
    for flag in ["--ptr-map", "--profiles"] {
        for (path, why) in cases {
            let run = run_within(
                &["--log", s(&log), "--robots", s(&robots), flag, s(path)],
                std::time::Duration::from_secs(30),
            );
            assert_eq!(
                run.code(),
                Some(2),
                "{flag} {}: {}",
                path.display(),
                run.stderr
            );
            assert!(run.stderr.contains(s(path)), "{flag}: {}", run.stderr);
            assert!(run.stderr.contains(why), "{flag}: {}", run.stderr);
            assert!(run.stdout.is_empty());
        }
    }
}

/// A map saved with CR alone as its line end names its addresses (read as
/// one line, its first `#` made the whole map a comment and the spoofer
/// it names a SeznamBot row); a map that names no address says so, even
/// under `--quiet`.
#[test]
fn a_map_with_cr_line_ends_names_its_spoofer_and_an_empty_one_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let map = write(
        dir.path(),
        "ptr-cr.txt",
        "# address name\r6.6.6.6 spoofer.example.net\r",
    );
    let log = write(
        dir.path(),
        "access.log",
        line(
            "6.6.6.6",
            "30/Nov/2026:00:00:04 +0100",
            "GET /cz/chat/d HTTP/1.1",
            SEZNAM_UA,
        ),
    );
    for (map, impostors) in [(map, 1), (write(dir.path(), "empty.txt", "# none\n"), 0)] {
        let out = dir.path().join(format!("out-{impostors}"));
        std::fs::create_dir(&out).unwrap();
        let args = [
            "--log",
            s(&log),
            "--robots",
            s(&robots),
            "--ptr-map",
            s(&map),
            "--out",
            s(&out),
            "-q",
        ];
        let run = run(&args);
        let accused = rows(&std::fs::read(out.join("violations.csv")).unwrap()).len() - 1;
        let spoofed = rows(&std::fs::read(out.join("impostors.csv")).unwrap()).len() - 1;
        assert_eq!(
            (accused, spoofed),
            (1 - impostors, impostors),
            "{}",
            run.stderr
        );
        assert_eq!(
            run.stderr.contains("the PTR map names no address"),
            impostors == 0,
            "{}",
            run.stderr
        );
    }
}
