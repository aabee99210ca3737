//! `report.html` through the real binary (SPEC §7): log text written by
//! strangers — targets, PTR names, file names, robots.txt lines — never
//! reaches the page as markup. The page is read back with a small
//! tokenizer: every `<` in it must open one of the page's own elements,
//! no attribute may be an event handler or hold a URL other than `#…`,
//! and each payload must be there, shown as text.

use crate::support::audit as common;

use common::{SEZNAM_UA, Site, clf, combined};

/// Payloads an attacker can put in a request target.
const TARGETS: [&str; 6] = [
    "/a<script>alert(1)</script>",
    "/b\"><img src=x onerror=alert(1)>",
    "/javascript:alert(1)",
    "/c</style><script>alert(2)</script>",
    "/d\u{202E}fdp.exe",
    "/e'><svg onload=alert(3)>",
];

/// The elements the page itself writes (plotters' SVG included).
const OWN_ELEMENTS: [&str; 34] = [
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "span",
    "nav", "a", "section", "div", "table", "thead", "tbody", "tr", "th", "td", "ul", "li",
    "footer", "svg", "rect", "polyline", "line", "text", "circle", "path", "g", "wbr",
];

/// One start tag: its name and attributes (name, value).
#[derive(Debug)]
struct Tag {
    name: String,
    attributes: Vec<(String, String)>,
}

/// Every start tag of an HTML document, as a browser's tokenizer would see
/// them outside raw-text elements (the page's only raw text is its style,
/// which holds no `<`).
fn start_tags(page: &str) -> Vec<Tag> {
    let mut tags = Vec::new();
    let mut rest = page;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        if rest.starts_with('!') || rest.starts_with('/') {
            continue;
        }
        let end = rest.find('>').expect("every tag is closed");
        let inside = &rest[..end];
        let name_end = inside
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(inside.len());
        let name = inside[..name_end].to_ascii_lowercase();
        let mut attributes = Vec::new();
        let mut attrs = inside[name_end..].trim_start_matches('/').trim();
        while !attrs.is_empty() {
            let key_end = attrs
                .find(|c: char| c == '=' || c.is_whitespace())
                .unwrap_or(attrs.len());
            let key = attrs[..key_end].to_ascii_lowercase();
            attrs = attrs[key_end..].trim_start();
            let mut value = String::new();
            if let Some(after) = attrs.strip_prefix('=') {
                let after = after.trim_start();
                let (v, next) = match after.strip_prefix('"') {
                    Some(quoted) => {
                        let close = quoted.find('"').expect("a closing quote");
                        (&quoted[..close], &quoted[close + 1..])
                    }
                    None => {
                        let stop = after.find(char::is_whitespace).unwrap_or(after.len());
                        (&after[..stop], &after[stop..])
                    }
                };
                value = v.to_string();
                attrs = next.trim_start().trim_start_matches('/').trim_start();
            }
            if !key.is_empty() {
                attributes.push((key, value));
            }
        }
        tags.push(Tag { name, attributes });
    }
    tags
}

fn hostile_site() -> Site {
    let mut log = String::new();
    for (i, target) in TARGETS.iter().enumerate() {
        let request = format!("GET {} HTTP/1.1", target.replace('"', "\\\""));
        // Genuine by the PTR map, so every target is a crawler's fetch.
        log.push_str(&combined(
            "77.75.77.1",
            &clf(i as u32 * 40),
            &request,
            200,
            SEZNAM_UA,
        ));
        // And the same from an impostor whose PTR name is a payload too.
        log.push_str(&combined(
            "203.0.113.7",
            &clf(i as u32 * 40 + 1),
            &request,
            200,
            SEZNAM_UA,
        ));
    }
    Site::new()
        .with(
            "robots.txt",
            "# <script>alert('robots')</script>\nUser-agent: *\nDisallow: /\n\
             Disallow: /<img src=x onerror=alert(4)>\nDisallow: /a\\b;=c\n\
             # tab\there \x1b[0m\n",
        )
        .with("a<b>\"x.log", log)
        .with(
            "ptr-map.txt",
            "77.75.77.1 fulltextrobot-77-75-77-1.seznam.cz\n\
             203.0.113.7 <img/src=x/onerror=alert(5)>.example\n",
        )
}

#[test]
fn no_payload_from_a_log_reaches_the_page_as_markup() {
    let site = hostile_site();
    let run = site.run(&[
        "--log",
        "a<b>\"x.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
        "--out",
        "out",
        "--quiet",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let page = std::fs::read_to_string(site.path("out/report.html")).unwrap();

    let tags = start_tags(&page);
    assert!(tags.len() > 100, "the tokenizer read the page");
    for tag in &tags {
        assert!(
            OWN_ELEMENTS.contains(&tag.name.as_str()),
            "an element the page does not write: {tag:?}"
        );
        for (key, value) in &tag.attributes {
            assert!(!key.starts_with("on"), "an event handler: {tag:?}");
            assert!(
                ![
                    "src",
                    "srcset",
                    "action",
                    "formaction",
                    "style",
                    "xmlns",
                    "xlink:href"
                ]
                .contains(&key.as_str()),
                "{tag:?}"
            );
            if key == "href" {
                assert!(
                    value.starts_with('#'),
                    "a link that leaves the page: {tag:?}"
                );
            }
            assert!(
                !value.contains("://") && !value.to_ascii_lowercase().contains("javascript:"),
                "a URL in an attribute: {tag:?}"
            );
        }
    }
    assert_eq!(tags.iter().filter(|t| t.name == "style").count(), 1);
    // The policy comes before the style (SPEC §7).
    let csp = page.find("http-equiv=\"Content-Security-Policy\"").unwrap();
    assert!(csp < page.find("<style>").unwrap());

    // Each payload is on the page, as text.
    for shown in [
        "/a&lt;script&gt;alert(1)&lt;/script&gt;",
        "/b&quot;&gt;&lt;img src=x onerror=alert(1)&gt;",
        "/javascript:alert(1)",
        "/c&lt;/style&gt;&lt;script&gt;alert(2)&lt;/script&gt;",
        "/e'&gt;&lt;svg onload=alert(3)&gt;",
        // The robots.txt as written, the impostor's PTR name, the file.
        "# &lt;script&gt;alert('robots')&lt;/script&gt;",
        "&lt;img/src=x/onerror=alert(5)&gt;.example",
        "a&lt;b&gt;&quot;x.log",
    ] {
        assert!(page.contains(shown), "{shown} is not shown as text");
    }
    // A bidi control is written as the CSVs write it, never raw.
    assert!(page.contains("/d\\u{202E}fdp.exe"));
    assert!(!page.contains('\u{202E}'));
    // robots.txt lines are shown as written, only their controls escaped
    // (README): a `\` and a `;` are the file's own, not the CSV's
    // `\\` and `\x3B`.
    assert!(page.contains("Disallow: /a\\b;=c<"), "robots.txt line");
    assert!(page.contains("# tab\\x09here \\x1B[0m<"), "controls");
}

/// The page of a night under three robots.txt versions, the third the
/// first again (SPEC §6: a revert is three versions): the chart draws and
/// names the Request-rate of each version in force, the reverted text is
/// shown once with its count (four rows, not four twice), and the health
/// line lists the versions the night used, a version unused apart.
#[test]
fn a_night_of_reverted_versions_is_drawn_by_the_version_in_force() {
    let v1 = "User-agent: *\nDisallow: /a\nRequest-rate: 30/1m\n";
    let v2 = "User-agent: *\nDisallow: /b\nRequest-rate: 6/1m\n";
    let old = "User-agent: *\nDisallow: /old\n";
    let fetch = |hour: u32, minute: u32, target: &str| {
        combined(
            "77.75.77.1",
            &format!("29/Nov/2026:{hour:02}:{minute:02}:30 +0100"),
            &format!("GET {target} HTTP/1.1"),
            200,
            SEZNAM_UA,
        )
    };
    let log = [
        fetch(10, 0, "/a"),
        fetch(10, 1, "/a"),
        fetch(13, 0, "/b"),
        fetch(20, 0, "/a"),
        fetch(20, 1, "/a"),
    ]
    .concat();
    let site = Site::new()
        .with("h/2026-11-01T00:00:00+01:00.txt", old)
        .with("h/2026-11-29T00:00:00+01:00.txt", v1)
        .with("h/2026-11-29T12:00:00+01:00.txt", v2)
        .with("h/2026-11-29T18:00:00+01:00.txt", v1)
        .with("a.log", log);
    // No grace: each fetch is judged by the version in force then alone.
    let page = audit_history_without_grace(&site);
    let text = page_text(&page);
    let (v1, v2, old) = (
        common::robots_version(v1.as_bytes()),
        common::robots_version(v2.as_bytes()),
        common::robots_version(old.as_bytes()),
    );
    assert!(
        text.contains(&format!(
            "allowed: Request-rate: 30/1m (line 3 of robots.txt {v1} ); \
             Request-rate: 6/1m (line 3 of robots.txt {v2} )"
        )),
        "{text}"
    );
    assert_eq!(page.matches(&format!("id=\"robots-{v1}\"")).count(), 1);
    assert!(
        text.contains("1 User-agent: * 2 4 Disallow: /a 3 Request-rate: 30/1m"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "robots.txt versions used: {v1} in force from 2026-11-29T00:00:00+01:00, \
             {v2} in force from 2026-11-29T12:00:00+01:00, \
             {v1} in force from 2026-11-29T18:00:00+01:00 (and 1 more known"
        )),
        "{text}"
    );
    assert!(!text.contains(&format!("{old} in force")), "{text}");
}

/// A version back in force is used at its last coming only when the night
/// lies wholly after it: the rows name the version in force at their time
/// (SPEC §6), so its earlier coming, over before the night began, decided
/// none of them.
#[test]
fn an_earlier_coming_of_a_reverted_version_is_not_used_by_a_later_night() {
    let v1 = "User-agent: *\nDisallow: /a\n";
    let v2 = "User-agent: *\nDisallow: /b\n";
    let fetch = |hour: u32, target: &str| {
        seznam_fetch(&format!("30/Nov/2026:{hour:02}:00:00 +0000"), target)
    };
    let site = Site::new()
        .with("h/20261101T000000Z.txt", v1)
        .with("h/20261120T000000Z.txt", v2)
        .with("h/20261130T120000Z.txt", v1)
        .with("a.log", [fetch(13, "/a/1"), fetch(14, "/a/2")].concat());
    // No grace: v2, in force until noon, would excuse the fetches.
    let text = page_text(&audit_history_without_grace(&site));
    let v1 = common::robots_version(v1.as_bytes());
    assert!(
        text.contains(&format!(
            "robots.txt versions used: {v1} in force from 2026-11-30T12:00:00+00:00 \
             (and 2 more known"
        )),
        "{text}"
    );
}

/// The page of an audit of `a.log` under the versions of folder `h`,
/// without grace, which must find violations.
fn audit_history_without_grace(site: &Site) -> String {
    let run = site.run(&[
        "--log",
        "a.log",
        "--robots-history",
        "h",
        "--robots-grace",
        "0",
        "--out",
        "out",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    std::fs::read_to_string(site.path("out/report.html")).unwrap()
}

/// Past the five versions shown, the page tells apart the versions the
/// night used from those the run only knew: eight versions each deciding
/// a row are none of them "not used tonight".
#[test]
fn versions_used_past_the_five_shown_are_not_called_unused() {
    let mut site = Site::new();
    let mut log = String::new();
    for n in 1..=8u32 {
        let text = format!("User-agent: *\nDisallow: /v{n}/\n");
        // v1..v7 from history, a minute apart; v8 is --robots.
        site = match n {
            8 => site.with("robots.txt", &text),
            _ => site.with(&format!("h/20261130T00{n:02}00Z.txt"), &text),
        };
        log.push_str(&seznam_fetch(
            &format!("30/Nov/2026:00:{n:02}:30 +0000"),
            &format!("/v{n}/a"),
        ));
    }
    // One more version, before the night and deciding nothing.
    let site = site
        .with("h/20261101T000000Z.txt", "User-agent: *\nDisallow: /old/\n")
        .with("a.log", log);
    let run = site.run(&[
        "--log",
        "a.log",
        "--robots",
        "robots.txt",
        "--robots-since",
        "2026-11-30T00:08:00Z",
        "--robots-history",
        "h",
        "--robots-grace",
        "0",
        "--out",
        "out",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let rows = std::fs::read_to_string(site.path("out/violations.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + 8, "{rows}");
    let text = page_text(&std::fs::read_to_string(site.path("out/report.html")).unwrap());
    assert!(
        text.contains(
            "in force from 2026-11-30T00:08:00+00:00 (and 3 more used tonight, 1 more known, \
             not used tonight: run.json lists them)"
        ),
        "{text}"
    );
}

/// A version in force only before the night is used when it allowed a
/// fetch the cache grace excused (SPEC §6: the fetch is judged against
/// every version of its window): the page lists it, not "not used".
#[test]
fn a_version_that_excused_a_fetch_is_used_though_in_force_before_the_night() {
    let old = "User-agent: *\nDisallow: /private\n";
    let new = "User-agent: *\nDisallow: /x\n";
    let fetch = |minute: u32, target: &str| {
        seznam_fetch(&format!("30/Nov/2026:10:{minute:02}:00 +0100"), target)
    };
    let site = Site::new()
        .with("h/20261129T000000Z.txt", old)
        .with("robots.txt", new)
        .with(
            "a.log",
            [
                fetch(30, "/x"),
                fetch(31, "/private/1"),
                fetch(40, "/robots.txt"),
                fetch(41, "/x"),
            ]
            .concat(),
        );
    let run = site.run(&[
        "--log",
        "a.log",
        "--robots",
        "robots.txt",
        "--robots-since",
        "2026-11-30T09:00:00Z",
        "--robots-history",
        "h",
        "--out",
        "out",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = std::fs::read_to_string(site.path("out/run.json")).unwrap();
    assert!(json.contains("\"excused_by_cache_grace\": 1"), "{json}");
    let text = page_text(&std::fs::read_to_string(site.path("out/report.html")).unwrap());
    let (old, new) = (
        common::robots_version(old.as_bytes()),
        common::robots_version(new.as_bytes()),
    );
    assert!(
        text.contains(&format!(
            "robots.txt versions used: {old} in force from 2026-11-29T00:00:00+00:00 and \
             before (the oldest version), {new} in force from 2026-11-30T09:00:00+00:00"
        )),
        "{text}"
    );
    assert!(!text.contains("not used tonight"), "{text}");
}

/// A fetch by SeznamBot's user agent from a Seznam address at `time`
/// (as `%t` writes it) of `target`.
fn seznam_fetch(time: &str, target: &str) -> String {
    combined(
        "77.75.77.1",
        time,
        &format!("GET {target} HTTP/1.1"),
        200,
        SEZNAM_UA,
    )
}

/// The page as text: each tag a blank, entities as they stand, runs of
/// blanks one space.
fn page_text(page: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in page.chars() {
        match c {
            '<' => {
                in_tag = true;
                text.push(' ');
            }
            '>' => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A Request-rate line another always wins over (SPEC §4: the first in
/// the file among lines without a window) is not named as what the
/// crawler is allowed: the audit never judges by it.
#[test]
fn a_request_rate_that_never_applies_is_not_named_as_allowed() {
    let robots = "User-agent: SeznamBot\nRequest-rate: 10/1m\n\n\
                  User-agent: SeznamBot\nRequest-rate: 1/10s\nRequest-rate: 1/1m 0100-0200\n";
    let log: String = (0..12)
        .map(|s| {
            combined(
                "77.75.77.1",
                &format!("29/Nov/2026:10:00:{s:02} +0100"),
                &format!("GET /a{s} HTTP/1.1"),
                200,
                SEZNAM_UA,
            )
        })
        .collect();
    let site = Site::new().with("robots.txt", robots).with("a.log", log);
    let run = site.run(&[
        "--log",
        "a.log",
        "--robots",
        "robots.txt",
        "--robots-since",
        "2020-01-01",
        "--out",
        "out",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let text = page_text(&std::fs::read_to_string(site.path("out/report.html")).unwrap());
    assert!(
        text.contains(
            "allowed: Request-rate: 10/1m (line 2); Request-rate: 1/1m 0100-0200 (line 6)"
        ),
        "{text}"
    );
    assert!(
        !text.contains("allowed: Request-rate: 10/1m (line 2); Request-rate: 1/10s"),
        "{text}"
    );
}

/// A crawler whose profile does not read Request-rate is allowed any rate
/// (its rows of the line only inform): its chart names no Request-rate as
/// allowed and draws none.
#[test]
fn a_crawler_that_reads_no_request_rate_is_charted_against_none() {
    let profiles = "crawler: Yan\ntoken: Yandex\nuser-agent: YandexBot\nreads: Crawl-delay\n";
    let robots = "User-agent: *\nDisallow: /p/\nRequest-rate: 2/1m\n";
    let log: String = (0..6)
        .map(|s| {
            combined(
                "192.0.2.7",
                &format!("29/Nov/2026:10:00:{s:02} +0100"),
                &format!("GET /a{s} HTTP/1.1"),
                200,
                "Mozilla/5.0 (compatible; YandexBot/3.0)",
            )
        })
        .collect();
    let site = Site::new()
        .with("robots.txt", robots)
        .with("profiles", profiles)
        .with("a.log", log);
    let run = site.run(&[
        "--log",
        "a.log",
        "--robots",
        "robots.txt",
        "--robots-since",
        "2020-01-01",
        "--profiles",
        "profiles",
        "--out",
        "out",
    ]);
    // Its request-rate rows only inform.
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = std::fs::read_to_string(site.path("out/report.html")).unwrap();
    let text = page_text(&page);
    assert!(
        text.contains("Yan 6 fetches, 0 violations ; robots.txt sets no Request-rate it reads."),
        "{text}"
    );
    // No allowed line (drawn green) in its chart.
    assert!(!page.contains("stroke=\"#2E8B57\""), "{page}");
}

/// Crawlers that share one count (SPEC §4) are also charted together, as
/// the rate is judged: four fetches a minute each under `Request-rate:
/// 6/1m` break it only together. The key names only what a chart draws.
#[test]
fn a_count_shared_by_crawlers_is_charted_whole() {
    let fresh_ua = "Mozilla/5.0 (compatible; FreshBot/1.0; +http://napoveda.seznam.cz/)";
    let log: String = (0..8)
        .map(|s| {
            let ua = if s % 2 == 0 { SEZNAM_UA } else { fresh_ua };
            combined(
                "77.75.77.1",
                &format!("29/Nov/2026:10:00:{s:02} +0100"),
                &format!("GET /a{s} HTTP/1.1"),
                200,
                ua,
            )
        })
        .collect();
    let site = Site::new()
        .with("robots.txt", "User-agent: SeznamBot\nRequest-rate: 6/1m\n")
        .with("clean.txt", "User-agent: *\nAllow: /\n")
        .with("a.log", log);
    let audit = |robots: &str, out: &str| {
        site.run(&[
            "--log",
            "a.log",
            "--robots",
            robots,
            "--robots-since",
            "2020-01-01",
            "--out",
            out,
        ])
    };
    let run = audit("robots.txt", "out");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let page = std::fs::read_to_string(site.path("out/report.html")).unwrap();
    let text = page_text(&page);
    assert!(
        text.contains("FreshBot + SeznamBot (one count) 8 fetches, 2 violations ; allowed: Request-rate: 6/1m (line 2)"),
        "{text}"
    );
    assert!(text.contains("SeznamBot 4 fetches"), "{text}");
    assert!(!page.contains("sw sw-w"), "no window drawn: {text}");
    assert!(
        text.contains("request-rate violations in that step"),
        "{text}"
    );
    let run = audit("clean.txt", "clean");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = std::fs::read_to_string(site.path("clean/report.html")).unwrap();
    let text = page_text(&page);
    assert!(
        text.contains("FreshBot + SeznamBot (one count) 8 fetches, 0 violations"),
        "{text}"
    );
    for drawn_nowhere in [
        "allowed per minute",
        "violations in that step",
        "A fetch breaks",
    ] {
        assert!(!text.contains(drawn_nowhere), "{drawn_nowhere}: {text}");
    }
    assert!(
        !page.contains("sw sw-w") && page.contains("sw sw-f"),
        "{text}"
    );
}
