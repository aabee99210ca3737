//! The audit of a large, shuffled, two-file log held against a slow,
//! obviously-correct model of SPEC §4 and §5 written here: every row of
//! violations.csv, impostors.csv and summary.csv, byte for byte, at one
//! and at four threads. The logs span several chunks, so workers share
//! each file and the rows of one count come from different workers.

use crate::support::audit as common;

use std::collections::{BTreeMap, BTreeSet};

use common::{
    BROWSER_UA, FRESH_UA, IMPOSTORS_HEADER, SEZNAM_UA, SUMMARY_HEADER, Site, TEST_UA,
    VIOLATIONS_HEADER, clf, combined, csv, rfc3339,
};

const ROBOTS: &str = "\
User-agent: *
Disallow: /

User-agent: SeznamBot
Disallow: /private/
Request-rate: 5/10s
Crawl-delay: 1.5
";

/// A small linear congruential generator: the same log on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

#[derive(Debug, Clone)]
struct Line {
    t: u32,
    client: &'static str,
    ua: &'static str,
    path: String,
}

/// Who a line is, as SPEC §2 decides with the PTR map below.
fn crawler_of(line: &Line) -> Option<(&'static str, bool)> {
    let claimed = match line.ua {
        SEZNAM_UA => "SeznamBot",
        FRESH_UA => "FreshBot",
        TEST_UA => "SeznamBot-test",
        _ => return None,
    };
    // 203.0.113.9 is named evil.example.com: spoofed.
    Some((claimed, line.client == "203.0.113.9"))
}

struct Fetch<'a> {
    t: u32,
    file: usize,
    number: usize,
    line: &'a Line,
    crawler: &'static str,
}

#[test]
fn a_large_shuffled_audit_matches_the_model() {
    let mut rng = Lcg(0x5eed);
    let clients = ["77.75.77.1", "77.75.77.2", "203.0.113.9", "198.51.100.7"];
    let uas = [
        SEZNAM_UA, SEZNAM_UA, FRESH_UA, TEST_UA, BROWSER_UA, BROWSER_UA,
    ];
    let mut files: [Vec<Line>; 2] = [Vec::new(), Vec::new()];
    for i in 0..20_000u32 {
        let line = Line {
            t: rng.below(30_000) as u32,
            client: clients[rng.below(4) as usize],
            ua: uas[rng.below(6) as usize],
            path: if rng.below(10) == 0 {
                format!("/private/{}", rng.below(50))
            } else {
                format!("/page/{i}")
            },
        };
        files[rng.below(2) as usize].push(line);
    }
    // Loosely in time order, as front-end servers write: sort, then swap
    // neighbours now and then.
    for file in &mut files {
        file.sort_by_key(|l| l.t);
        for i in 1..file.len() {
            if rng.below(3) == 0 {
                file.swap(i - 1, i);
            }
        }
    }
    let names = ["front1.log", "front2.log"];
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("ptr-map.txt", "203.0.113.9 evil.example.com\n");
    for (name, lines) in names.iter().zip(&files) {
        let text: String = lines
            .iter()
            .map(|l| {
                combined(
                    l.client,
                    &clf(l.t),
                    &format!("GET {} HTTP/1.1", l.path),
                    200,
                    l.ua,
                )
            })
            .collect();
        site.write(name, text);
    }
    assert!(std::fs::metadata(site.path("front1.log")).unwrap().len() > 1 << 20);

    // The model.
    let mut counted: Vec<Fetch<'_>> = Vec::new();
    let mut spoofed: Vec<Fetch<'_>> = Vec::new();
    for (file, lines) in files.iter().enumerate() {
        for (index, line) in lines.iter().enumerate() {
            if let Some((crawler, is_spoofed)) = crawler_of(line) {
                let fetch = Fetch {
                    t: line.t,
                    file,
                    number: index + 1,
                    line,
                    crawler,
                };
                if is_spoofed {
                    spoofed.push(fetch);
                } else {
                    counted.push(fetch);
                }
            }
        }
    }
    let key = |f: &Fetch<'_>| (f.t, f.file, f.number);
    counted.sort_by_key(key);
    spoofed.sort_by_key(key);

    // (fetch index, kind, rule line, rule, detail). Seznam's crawlers do
    // not read Crawl-delay: its rows carry a note (SPEC §3).
    let mut rows: Vec<(usize, &str, u32, &str, String)> = Vec::new();
    for (i, fetch) in counted.iter().enumerate() {
        if i > 0 {
            let gap = fetch.t - counted[i - 1].t;
            if gap * 1000 < 1500 {
                rows.push((
                    i,
                    "crawl-delay",
                    7,
                    "Crawl-delay: 1.5",
                    format!("{gap} s after the previous fetch; allowed every 1.5 s"),
                ));
            }
        }
        if fetch.line.path.starts_with("/private/") {
            rows.push((i, "disallow", 5, "Disallow: /private/", String::new()));
        }
        let inside = counted[..=i].iter().filter(|f| f.t + 10 > fetch.t).count();
        if inside > 5 {
            rows.push((
                i,
                "request-rate",
                6,
                "Request-rate: 5/10s",
                format!("{inside} fetches in 10 s; allowed 5/10s"),
            ));
        }
    }
    let violations: Vec<String> = rows
        .iter()
        .map(|(i, kind, rule_line, rule, detail)| {
            let f = &counted[*i];
            let note = if *kind == "crawl-delay" {
                "not-read-by-crawler"
            } else {
                ""
            };
            format!(
                "{},{},{},{},{},unverified,ua,GET,{},200,{kind},SeznamBot,{rule_line},{rule},{detail},{note}",
                rfc3339(f.t),
                names[f.file],
                f.number,
                f.line.client,
                f.crawler,
                f.line.path
            )
        })
        .collect();
    let impostors: Vec<String> = spoofed
        .iter()
        .map(|f| {
            format!(
                "{},{},{},203.0.113.9,evil.example.com,{},GET,{},200,{}",
                rfc3339(f.t),
                names[f.file],
                f.number,
                f.crawler,
                f.line.path,
                f.line.ua
            )
        })
        .collect();
    let mut summary = Vec::new();
    let crawlers: BTreeSet<&str> = counted.iter().map(|f| f.crawler).collect();
    for crawler in crawlers {
        let fetches = counted.iter().filter(|f| f.crawler == crawler).count();
        for kind in ["crawl-delay", "disallow", "request-rate"] {
            let mine: Vec<&Fetch<'_>> = rows
                .iter()
                .filter(|r| r.1 == kind && counted[r.0].crawler == crawler)
                .map(|r| &counted[r.0])
                .collect();
            let targets: BTreeMap<&str, ()> =
                mine.iter().map(|f| (f.line.path.as_str(), ())).collect();
            let time = |f: Option<&&Fetch<'_>>| f.map(|f| rfc3339(f.t)).unwrap_or_default();
            summary.push(format!(
                "{crawler},{kind},{fetches},{},{},{},{}",
                mine.len(),
                targets.len(),
                time(mine.first()),
                time(mine.last())
            ));
        }
    }
    assert!(rows.iter().filter(|r| r.1 == "request-rate").count() > 100);
    assert!(rows.iter().filter(|r| r.1 == "crawl-delay").count() > 100);

    let report = site.audit(&[
        "--log",
        names[0],
        "--log",
        names[1],
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
        "--quiet",
    ]);
    report.assert_code(1);
    report.assert_reports(
        &csv(VIOLATIONS_HEADER, &violations),
        &csv(IMPOSTORS_HEADER, &impostors),
        &csv(SUMMARY_HEADER, &summary),
    );
}
