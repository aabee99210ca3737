//! `robots-audit check` run as a webmaster runs it: whole outputs compared
//! byte for byte, in every format, and the exit status of each outcome.

use std::process::Command;

const ROBOTS: &str = "tests/data/check/robots.txt";
const SEZNAM_UA: &str =
    "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)";

fn check(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("check")
        .args(args)
        .output()
        .expect("run robots-audit");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn text_names_the_group_and_the_deciding_line() {
    let (code, stdout, _) = check(&[
        "--robots",
        ROBOTS,
        "--user-agent",
        SEZNAM_UA,
        "/cz/chat/room",
        "https://www.example.cz/cz/news?id=1",
        "/robots.txt",
        "/cz/doc.pdf",
        "/en/",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "SeznamBot: uses group \"SeznamBot\" (line 5)\n\
         DISALLOWED  /cz/chat/room                        Disallow: /cz/chat/ (line 6)\n\
         allowed     https://www.example.cz/cz/news?id=1  Allow: /cz/ (line 7)\n\
         allowed     /robots.txt                          /robots.txt is always allowed\n\
         DISALLOWED  /cz/doc.pdf                          Disallow: /*.pdf$ (line 8)\n\
         allowed     /en/                                 no rule matches\n"
    );
}

#[test]
fn every_target_allowed_exits_zero() {
    let (code, stdout, _) = check(&["--robots", ROBOTS, "/cz/", "/cz/doc.pdf?x=1"]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn other_agents_fall_back_to_the_default_group() {
    let (code, stdout, _) = check(&[
        "--robots",
        ROBOTS,
        "--user-agent",
        "Googlebot/2.1",
        "--format",
        "csv",
        "/cz/",
        "/robots.txt",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "target,path,verdict,group,rule_line,rule\n\
         /cz/,/cz/,disallowed,*,3,Disallow: /\n\
         /robots.txt,/robots.txt,allowed,*,,\n"
    );
}

#[test]
fn json_output() {
    let (code, stdout, _) = check(&["--robots", ROBOTS, "--format", "json", "/cz/chat/"]);
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "{\"token\":\"SeznamBot\",\"results\":[{\"target\":\"/cz/chat/\",\"path\":\"/cz/chat/\",\"verdict\":\"disallowed\",\"allowed\":false,\
         \"group\":\"SeznamBot\",\"rule_line\":6,\"rule\":\"Disallow: /cz/chat/\",\"reason\":\"Disallow: /cz/chat/ (line 6)\"}]}\n"
    );
}

#[test]
fn errors_exit_two() {
    let (code, _, stderr) = check(&["--robots", "tests/data/check/missing.txt", "/"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("tests/data/check/missing.txt"), "{stderr}");
    let (code, _, _) = check(&["--robots", ROBOTS]);
    assert_eq!(code, 2, "no target is an error");
}

/// robots.txt and targets are a stranger's text: `check` and `lint` print
/// them with control characters and bidi controls escaped, so a terminal
/// runs no escape sequence (SPEC §5's rule for the reports, kept on the
/// screen too).
#[test]
fn check_and_lint_print_no_terminal_escape() {
    let dir = tempfile::tempdir().unwrap();
    let robots = dir.path().join("robots.txt");
    std::fs::write(
        &robots,
        "User-agent: *\nDisallow: /cz/\u{1b}]0;owned\u{7}\u{202e}\n",
    )
    .unwrap();
    let robots = robots.to_str().unwrap();
    let (code, stdout, _) = check(&["--robots", robots, "/cz/\u{1b}]0;owned\u{7}\u{202e}"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains(r"\x1B]0;owned\x07\u{202E}"), "{stdout}");
    let out = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .args(["lint", robots])
        .output()
        .expect("run robots-audit lint");
    let lint = String::from_utf8_lossy(&out.stdout).into_owned();
    for text in [&stdout, &lint] {
        assert!(
            !text
                .chars()
                .any(|c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c)),
            "{text:?}"
        );
    }
}

/// Regression: a target's literal `*` and `$` were compared as the three
/// octets `%2A` and `%24`, so a wildcard could end inside them and `/*A`
/// disallowed `/*`, a target with no `A` (SPEC §3). The conformance
/// review's command, with the targets shown as written.
#[test]
fn literal_star_and_dollar_in_a_target_are_one_character() {
    let dir = tempfile::tempdir().unwrap();
    let robots = dir.path().join("robots.txt");
    std::fs::write(
        &robots,
        "User-agent: SeznamBot\nDisallow: /*A\nDisallow: /*4$\nDisallow: /a%2Ab\n",
    )
    .unwrap();
    let robots = robots.to_str().unwrap();
    let (code, stdout, stderr) = check(&[
        "--robots", robots, "--format", "csv", "/*", "/q*", "/x$", "/q$", "/%2A", "/x%24", "/a*b",
        "/a%2Ab", "/aXb",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout,
        "target,path,verdict,group,rule_line,rule\n\
         /*,/*,allowed,SeznamBot,,\n\
         /q*,/q*,allowed,SeznamBot,,\n\
         /x$,/x$,allowed,SeznamBot,,\n\
         /q$,/q$,allowed,SeznamBot,,\n\
         /%2A,/%2A,disallowed,SeznamBot,2,Disallow: /*A\n\
         /x%24,/x%24,disallowed,SeznamBot,3,Disallow: /*4$\n\
         /a*b,/a*b,disallowed,SeznamBot,4,Disallow: /a%2Ab\n\
         /a%2Ab,/a%2Ab,disallowed,SeznamBot,4,Disallow: /a%2Ab\n\
         /aXb,/aXb,allowed,SeznamBot,,\n"
    );
}

/// A robots.txt that is no robots.txt (UTF-16 text, an HTML error page)
/// is read as any is: most such files hold no line a crawler reads, so
/// everything is allowed, but an HTML page may wrap real rules. `check`
/// says what the file looks like on standard error, beside its verdicts.
#[test]
fn a_file_that_is_no_robots_txt_is_said_to_be_none() {
    let dir = tempfile::tempdir().expect("temporary folder");
    // With its byte-order mark, as Windows editors save it.
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "User-agent: *\nDisallow: /profile\n"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    let html = b"<!DOCTYPE html>\n<html><head><title>404</title></head></html>\n".to_vec();
    let wrapped =
        b"<html><body><pre>\nUser-agent: *\nDisallow: /profile\n</pre></body></html>\n".to_vec();
    let plain = b"User-agent: *\nDisallow: /profile\n".to_vec();
    for (name, bytes, said, exit) in [
        ("utf16.txt", utf16, true, 0),
        ("html.txt", html, true, 0),
        ("wrapped.txt", wrapped, true, 1),
        ("plain.txt", plain, false, 1),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        let (code, _, stderr) =
            check(&["--robots", path.to_str().expect("UTF-8 path"), "/profile"]);
        assert_eq!(
            stderr.contains("not a robots.txt"),
            said,
            "{name}: {stderr}"
        );
        assert_eq!(code, exit, "{name}");
    }
}

/// A target that is not UTF-8, as a log may hold it, gets the verdict the
/// audit gives the same bytes: its bytes read as their `%XX` (SPEC §3's
/// normalisation), never a refusal of the argument.
#[test]
fn a_target_that_is_not_utf8_is_judged_as_its_percent_form() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let robots = dir.path().join("robots.txt");
    std::fs::write(&robots, "User-agent: *\nDisallow: /%E9\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("check")
        .arg("--robots")
        .arg(&robots)
        .arg(std::ffi::OsStr::from_bytes(b"/\xE9x"))
        .arg(std::ffi::OsStr::from_bytes("/é".as_bytes()))
        .output()
        .expect("run robots-audit");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("DISALLOWED  /%E9x  Disallow: /%E9 (line 2)"),
        "{stdout}"
    );
    assert!(stdout.contains("allowed     /é"), "{stdout}");
}

/// SPEC §3: "A token that names no known crawler reads only `Allow` and
/// `Disallow`"; one that names a crawler of `--profiles` reads what its
/// profile says, though its user-agent pattern (`YandexBot`,
/// `SeznamBot/<version>`) is not in the token: `check` groups the file as
/// the audit groups it for that crawler's fetches.
#[test]
fn a_profiles_token_reads_as_its_crawler() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let profiles = write(
        "profiles.txt",
        "crawler: Yan\ntoken: Yandex\nuser-agent: YandexBot\nreads: Crawl-delay\n\n\
         crawler: SeznamBot\nuser-agent: SeznamBot/<version>\nhost: fulltextrobot-<address>.seznam.cz\n\
         reads: Request-rate, Robot-version\nrate-floor: 1/30s\nhomepage-exception: yes\n",
    );
    // Yandex reads Crawl-delay, which ends its run of user-agent lines;
    // SeznamBot does not, so for it lines 1 and 3 open one group, which
    // its Request-rate ends.
    let robots = write(
        "robots.txt",
        "User-agent: Yandex\nCrawl-delay: 5\nUser-agent: SeznamBot\nRequest-rate: 1/10s\n\
         User-agent: *\nDisallow: /x\n",
    );
    let check_as = |agent: &str| {
        check(&[
            "--robots",
            &robots,
            "--profiles",
            &profiles,
            "--user-agent",
            agent,
            "/x",
        ])
    };
    let cases = [
        ("Yandex", "Yandex: uses group \"Yandex\" (line 1)\n"),
        (
            "Mozilla/5.0 (compatible; YandexBot/3.0)",
            "Yandex: uses group \"Yandex\" (line 1)\n",
        ),
        ("Yan", "Yandex: uses group \"Yandex\" (line 1)\n"),
        (
            "SeznamBot",
            "SeznamBot: uses group \"Yandex|SeznamBot\" (line 1)\n",
        ),
        (
            "Mozilla/5.0 (compatible; SeznamBot/4.0)",
            "SeznamBot: uses group \"Yandex|SeznamBot\" (line 1)\n",
        ),
    ];
    for (agent, heading) in cases {
        let (code, stdout, stderr) = check_as(agent);
        assert_eq!(code, 0, "{agent}: {stdout}{stderr}");
        assert!(stdout.starts_with(heading), "{agent}: {stdout}");
    }
    // A token no crawler has still reads only Allow and Disallow.
    let (code, stdout, _) = check_as("Otherbot");
    assert_eq!(code, 1, "{stdout}");
}

/// `check --format csv` writes text as the reports do (SPEC §5): a group
/// or a target a spreadsheet would run as a formula gets its `'`, and a
/// robots.txt byte outside UTF-8 is `\xNN`, once.
#[test]
fn csv_cells_never_open_as_formulas() {
    let dir = tempfile::tempdir().unwrap();
    let robots = dir.path().join("robots.txt");
    std::fs::write(
        &robots,
        b"User-agent: =cmd|' /C calc'!A0\nUser-agent: SeznamBot\nDisallow: /hled\xe1n\xed\nDisallow: /-a\n",
    )
    .unwrap();
    let (code, stdout, stderr) = check(&[
        "--robots",
        robots.to_str().unwrap(),
        "--format",
        "csv",
        "/-a",
        "/hled%E1n%ED",
        "=1+1",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout,
        "target,path,verdict,group,rule_line,rule\n\
         /-a,/-a,disallowed,'=cmd|' /C calc'!A0|SeznamBot,4,Disallow: /-a\n\
         /hled%E1n%ED,/hled%E1n%ED,disallowed,'=cmd|' /C calc'!A0|SeznamBot,3,Disallow: /hled\\xE1n\\xED\n\
         '=1+1,'=1+1,no-target,,,\n"
    );
}
