//! Every sentence of SPEC §6 "The robots.txt the crawler may rely on", as
//! a case: a sequence of one count's fetches and what each one gets.

use super::*;
use crate::accesslog::time_given::parse_rfc3339_or_date;
use crate::robots::versions::{Entry, Origin};

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

fn t(s: &str) -> Timestamp {
    parse_rfc3339_or_date(s).unwrap()
}

/// v0 disallows /a from 2026-11-29 00:00 +01:00; v1, from 2026-11-30
/// 12:00 +01:00, disallows /b too (the edit of the night).
fn versions() -> Versions {
    let entry = |bytes: &str, time: &str| Entry {
        bytes: bytes.as_bytes().into(),
        in_force_from: t(time),
        origin: Origin::History(time.into()),
    };
    Versions::merge(vec![
        entry("User-agent: *\nDisallow: /a\n", "2026-11-29T00:00:00+01:00"),
        entry(
            "User-agent: *\nDisallow: /a\nDisallow: /b\n",
            "2026-11-30T12:00:00+01:00",
        ),
    ])
    .unwrap()
}

/// What a fetch gets, in short: `allowed`, `accuse v1`, `excused v1 by v0`
/// (the version in force, and those of the window that allowed it),
/// `no rows` (a 4xx period: not even rates), or the unreachable rule.
fn outcome(
    versions: &Versions,
    tracker: &mut Tracker,
    time: &str,
    target: &str,
    status: u16,
) -> String {
    let time = t(time);
    // A target written `… (unverified)`: a fetch by a client only its
    // user agent names the crawler.
    let (target, trusted) = match target.strip_suffix(" (unverified)") {
        Some(target) => (target, false),
        None => (target, true),
    };
    let standing = tracker.judge_as(time, target.as_bytes(), Some(status), trusted);
    let decision = decide(
        versions,
        &standing,
        time.instant_ms(),
        target.as_bytes(),
        |v| {
            !v.robots()
                .rules_for(b"SeznamBot")
                .judge(target.as_bytes())
                .allowed
        },
    );
    match decision {
        _ if !standing.judges_limits() => {
            assert_eq!(decision, Decision::Allowed);
            "no rows".into()
        }
        Decision::Allowed => "allowed".into(),
        Decision::Accuse(v) => format!("accuse v{}", v.index()),
        Decision::Excused { now, by } => {
            let by: Vec<String> = by.iter().map(|v| format!("v{}", v.index())).collect();
            format!("excused v{} by {}", now.index(), by.join("+"))
        }
        Decision::Unreachable(rule) => rule,
    }
}

/// (what the case shows, grace, fetches as (time, target, status,
/// expected outcome)).
type Case = (
    &'static str,
    i64,
    Vec<(&'static str, &'static str, u16, &'static str)>,
);

fn cases() -> Vec<Case> {
    let mut cases = spec_cases();
    // A busy newer night, then an older log: its own 404 still spares
    // the fetch after it, past more fetches than the memory once kept.
    let mut busy: Vec<(&'static str, &'static str, u16, &'static str)> = (0..20)
        .map(|i| {
            let time: &'static str =
                Box::leak(format!("2026-12-01T{i:02}:00:00+01:00").into_boxed_str());
            (time, "/robots.txt", 200, "allowed")
        })
        .collect();
    busy.push(("2026-11-30T10:00:00+01:00", "/robots.txt", 404, "allowed"));
    busy.push(("2026-11-30T10:01:00+01:00", "/a", 200, "no rows"));
    cases.push((
        "an older log's own 404 spares after many newer fetches",
        DAY,
        busy,
    ));
    // More unverified 4xx than are kept, all after the fetch: what stood
    // at its time may have been let go, so the last one still spares.
    let mut flood: Vec<(&'static str, &'static str, u16, &'static str)> =
        vec![("2026-11-30T12:30:00+01:00", "/robots.txt", 200, "allowed")];
    flood.extend((0..=RECENT_UNVERIFIED).map(|i| {
        let time: &'static str = Box::leak(
            format!("2026-11-30T{:02}:{:02}:00+01:00", 15 + i / 60, i % 60).into_boxed_str(),
        );
        // After the first, each stands in the 4xx period it began.
        let got = if i == 0 { "allowed" } else { "no rows" };
        (time, "/robots.txt (unverified)", 404, got)
    }));
    flood.push(("2026-11-30T13:00:00+01:00", "/b", 200, "no rows"));
    cases.push((
        "a fetch older than more unverified 4xx than are kept",
        DAY,
        flood,
    ));
    cases
}

fn spec_cases() -> Vec<Case> {
    vec![
        (
            "a fetch from before the last fetch of /robots.txt known (last night's line \
             written late), no 2xx known before it: L unknown, the whole grace",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T13:59:58+01:00", "/b", 200, "excused v1 by v0"),
            ],
        ),
        (
            "a line written late after a 2xx known before it: that 2xx is L, as one run \
             over the logs has it, though a 5xx came after the fetch",
            DAY,
            vec![
                ("2026-11-30T12:30:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 503, "allowed"),
                ("2026-11-30T13:59:58+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "the same with the 2xx of an older log taken in after: L is the later one",
            DAY,
            vec![
                ("2026-11-30T11:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 503, "allowed"),
                ("2026-11-30T12:30:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T13:59:58+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "a 5xx known from after the fetch is no outage at its time",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 503, "allowed"),
                ("2026-11-30T13:59:58+01:00", "/c", 200, "allowed"),
            ],
        ),
        (
            "a 4xx known from after the fetch may have begun before it: no rows",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T13:59:58+01:00", "/a", 200, "no rows"),
            ],
        ),
        (
            "a 2xx known before the fetch and a 4xx after it: the 4xx period began after \
             it, so the fetch is judged, as one run over the logs judges it",
            DAY,
            vec![
                ("2026-11-30T12:30:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T13:59:58+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "a 4xx on a line dated years ahead (a server's clock) hides nothing of the \
             nights before it",
            DAY,
            vec![
                ("2026-11-30T12:30:00+01:00", "/robots.txt", 200, "allowed"),
                ("2036-01-01T00:00:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T13:00:00+01:00", "/b", 200, "accuse v1"),
                ("2026-12-01T10:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-12-01T11:00:00+01:00", "/b", 200, "accuse v1"),
                ("2026-12-01T11:30:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-12-01T11:31:00+01:00", "/b", 200, "no rows"),
            ],
        ),
        (
            "a fetch of /robots.txt older than what is known changes nothing",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T13:00:00+01:00", "/robots.txt", 503, "allowed"),
                ("2026-11-30T14:00:01+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "an older log's own 4xx before a fetch: no rows, as in one run",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T10:00:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T10:01:00+01:00", "/a", 200, "no rows"),
                ("2026-11-30T10:02:00+01:00", "/robots.txt", 304, "no rows"),
                ("2026-11-30T10:03:00+01:00", "/a", 200, "accuse v0"),
                ("2026-11-30T10:04:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T10:05:00+01:00", "/a", 200, "no rows"),
                ("2026-11-30T14:00:01+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "no fetch of /robots.txt known: L = −∞, the window is [t − G, t]",
            DAY,
            vec![
                ("2026-11-30T13:00:00+01:00", "/b", 200, "excused v1 by v0"),
                ("2026-12-01T11:59:59+01:00", "/b", 200, "excused v1 by v0"),
                // t − G is the instant v1 came into force: v0 is no longer in
                // force at any moment of the window.
                ("2026-12-01T12:00:00+01:00", "/b", 200, "accuse v1"),
                ("2026-12-01T12:00:01+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "every version of the window disallows: a violation naming the version at t",
            DAY,
            vec![
                ("2026-11-30T13:00:00+01:00", "/a", 200, "accuse v1"),
                ("2026-11-29T13:00:00+01:00", "/a", 200, "accuse v0"),
            ],
        ),
        (
            "the version at t allows: no row, whatever older versions said",
            DAY,
            vec![
                ("2026-11-30T13:00:00+01:00", "/c", 200, "allowed"),
                ("2026-11-30T13:00:00+01:00", "/robots.txt", 200, "allowed"),
            ],
        ),
        (
            "L, the last 2xx fetch of /robots.txt, narrows the window to [L, t]",
            DAY,
            vec![
                ("2026-11-30T13:59:59+01:00", "/b", 200, "excused v1 by v0"),
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T14:00:01+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "a same-second fetch logged before the fetch of /robots.txt comes before it",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/b", 200, "excused v1 by v0"),
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T14:00:00+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "L before v1 came into force: v0 is in the window until t − G passes it",
            DAY,
            vec![
                ("2026-11-30T11:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T13:00:00+01:00", "/b", 200, "excused v1 by v0"),
            ],
        ),
        (
            "L older than t − G: the grace bounds the window",
            DAY,
            vec![
                ("2026-11-29T01:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-12-01T12:00:01+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "a grace of 0: only the version at t",
            0,
            vec![("2026-11-30T13:00:00+01:00", "/b", 200, "accuse v1")],
        ),
        (
            "only a 2xx sets L; a 304 does not",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 304, "allowed"),
                ("2026-11-30T14:00:01+01:00", "/b", 200, "excused v1 by v0"),
                ("2026-11-30T15:00:00+01:00", "/robots.txt", 203, "allowed"),
                ("2026-11-30T15:00:01+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "/robots.txt with a query is another resource and does not set L",
            DAY,
            vec![
                (
                    "2026-11-30T14:00:00+01:00",
                    "/robots.txt?x=1",
                    200,
                    "allowed",
                ),
                ("2026-11-30T14:00:01+01:00", "/b", 200, "excused v1 by v0"),
            ],
        ),
        (
            "an absolute URL of /robots.txt is cut down and sets L",
            DAY,
            vec![
                (
                    "2026-11-30T14:00:00+01:00",
                    "https://www.example.cz/robots.txt",
                    200,
                    "allowed",
                ),
                ("2026-11-30T14:00:01+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "4xx: no rows (not even rates) until the next fetch of /robots.txt",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T14:00:01+01:00", "/a", 200, "no rows"),
                ("2026-12-20T14:00:01+01:00", "/a", 200, "no rows"),
                // The fetch that ends the period is judged by the period.
                ("2026-12-20T15:00:00+01:00", "/robots.txt", 200, "no rows"),
                ("2026-12-20T15:00:01+01:00", "/a", 200, "accuse v1"),
            ],
        ),
        (
            "4xx then 4xx: the period goes on",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 410, "allowed"),
                ("2026-11-30T15:00:00+01:00", "/robots.txt", 403, "no rows"),
                ("2026-11-30T15:00:01+01:00", "/a", 200, "no rows"),
            ],
        ),
        (
            "a 1xx or 3xx ends a 4xx period",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T15:00:00+01:00", "/robots.txt", 301, "no rows"),
                ("2026-11-30T15:00:01+01:00", "/a", 200, "accuse v1"),
                ("2026-11-30T16:00:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T17:00:00+01:00", "/robots.txt", 101, "no rows"),
                // A 3xx sets no L: the window still reaches back past v1.
                ("2026-11-30T17:00:01+01:00", "/b", 200, "excused v1 by v0"),
            ],
        ),
        (
            "5xx: every fetch but /robots.txt is disallowed, naming the last 5xx in the log's offset",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 503, "allowed"),
                (
                    "2026-11-30T14:00:01+01:00",
                    "/c",
                    200,
                    "robots.txt unreachable: 503 at 2026-11-30T14:00:00+01:00",
                ),
                ("2026-11-30T14:30:00+01:00", "/robots.txt", 500, "allowed"),
                (
                    "2026-11-30T14:30:01+01:00",
                    "/",
                    404,
                    "robots.txt unreachable: 500 at 2026-11-30T14:30:00+01:00",
                ),
                (
                    "2026-11-30T15:30:00-05:00",
                    "/c",
                    200,
                    "robots.txt unreachable: 500 at 2026-11-30T14:30:00+01:00",
                ),
            ],
        ),
        (
            "a 1xx or 3xx does not end an outage; a 2xx does",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 503, "allowed"),
                ("2026-11-30T15:00:00+01:00", "/robots.txt", 304, "allowed"),
                (
                    "2026-11-30T15:00:01+01:00",
                    "/c",
                    200,
                    "robots.txt unreachable: 503 at 2026-11-30T14:00:00+01:00",
                ),
                ("2026-11-30T16:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T16:00:01+01:00", "/c", 200, "allowed"),
                ("2026-11-30T16:00:02+01:00", "/b", 200, "accuse v1"),
            ],
        ),
        (
            "a 4xx ends an outage and starts a 4xx period",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 503, "allowed"),
                ("2026-11-30T15:00:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T15:00:01+01:00", "/a", 200, "no rows"),
            ],
        ),
        (
            "30 days after the first 5xx of an outage the versions apply again",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 503, "allowed"),
                ("2026-12-20T14:00:00+01:00", "/robots.txt", 503, "allowed"),
                (
                    "2026-12-30T14:00:00+01:00",
                    "/c",
                    200,
                    "robots.txt unreachable: 503 at 2026-12-20T14:00:00+01:00",
                ),
                ("2026-12-30T14:00:00.001+01:00", "/c", 200, "allowed"),
                ("2026-12-30T14:00:00.002+01:00", "/a", 200, "accuse v1"),
                // Still the same outage: its first 5xx is past 30 days.
                ("2026-12-31T14:00:00+01:00", "/robots.txt", 503, "allowed"),
                ("2026-12-31T14:00:01+01:00", "/c", 200, "allowed"),
            ],
        ),
        (
            "statuses that tell nothing (none, outside 100-599) change nothing",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 404, "allowed"),
                ("2026-11-30T15:00:00+01:00", "/robots.txt", 600, "no rows"),
                ("2026-11-30T15:00:00+01:00", "/robots.txt", 0, "no rows"),
                ("2026-11-30T15:00:01+01:00", "/a", 200, "no rows"),
            ],
        ),
        (
            "nginx's 499 is a 4xx: it starts a 4xx period, as SPEC words it",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots.txt", 200, "allowed"),
                ("2026-11-30T14:00:01+01:00", "/a", 200, "accuse v1"),
                ("2026-11-30T15:00:00+01:00", "/robots.txt", 499, "allowed"),
                ("2026-11-30T15:00:01+01:00", "/a", 200, "no rows"),
            ],
        ),
        (
            "an escaped /robots.txt is no fetch of it, though always allowed",
            DAY,
            vec![
                ("2026-11-30T14:00:00+01:00", "/robots%2Etxt", 503, "allowed"),
                ("2026-11-30T14:00:01+01:00", "/a", 200, "accuse v1"),
                ("2026-11-30T15:00:00+01:00", "/robots.txt", 503, "allowed"),
                ("2026-11-30T15:00:01+01:00", "/robots%2Etxt", 200, "allowed"),
                (
                    "2026-11-30T15:00:02+01:00",
                    "/a",
                    200,
                    "robots.txt unreachable: 503 at 2026-11-30T15:00:00+01:00",
                ),
            ],
        ),
    ]
}

#[test]
fn spec_six_sentence_by_sentence() {
    let versions = versions();
    for (what, grace, fetches) in cases() {
        let mut tracker = Tracker::new(grace);
        for (i, (time, target, status, expected)) in fetches.iter().enumerate() {
            let got = outcome(&versions, &mut tracker, time, target, *status);
            assert_eq!(
                got, *expected,
                "{what}: fetch {i} ({time} {target} {status})"
            );
        }
    }
}

#[test]
fn resumed_from_memory_a_night_later_gives_the_same_answers() {
    // Cutting any case after any fetch and resuming from the memory gives
    // what one tracker over the whole sequence gives.
    let versions = versions();
    for (what, grace, fetches) in cases() {
        for cut in 0..=fetches.len() {
            let mut first = Tracker::new(grace);
            let mut got = Vec::new();
            for (time, target, status, _) in &fetches[..cut] {
                got.push(outcome(&versions, &mut first, time, target, *status));
            }
            let mut second = Tracker::resume(*first.memory(), grace);
            for (time, target, status, _) in &fetches[cut..] {
                got.push(outcome(&versions, &mut second, time, target, *status));
            }
            let expected: Vec<&str> = fetches.iter().map(|f| f.3).collect();
            assert_eq!(got, expected, "{what}, cut after {cut}");
        }
    }
}

#[test]
fn a_missing_status_changes_nothing() {
    let mut tracker = Tracker::new(DAY);
    tracker.observe(t("2026-11-30T14:00:00Z"), b"/robots.txt", Some(503));
    let before = *tracker.memory();
    tracker.observe(t("2026-11-30T15:00:00Z"), b"/robots.txt", None);
    assert_eq!(*tracker.memory(), before);
}

#[test]
fn rates_and_delays_are_judged_except_in_a_4xx_period() {
    let last = RobotsFetch {
        time: t("2026-11-30T14:00:00Z"),
        status: 503,
    };
    assert!(Standing::Versions { window_from_ms: 0 }.judges_limits());
    assert!(Standing::Unreachable(last).judges_limits());
    assert!(
        !Standing::Unrestricted(RobotsFetch {
            status: 404,
            ..last
        })
        .judges_limits()
    );
}

#[test]
fn what_is_a_fetch_of_robots_txt() {
    let cases: [(&str, bool); 10] = [
        ("/robots.txt", true),
        ("http://www.example.cz/robots.txt", true),
        ("HTTPS://example.cz:443/robots.txt", true),
        // The same resource after SPEC §3's normalisation, which makes it
        // always allowed, but not how a crawler asks: SPEC §6 "exactly".
        ("/robots%2Etxt", false),
        ("/robots.txt?x", false),
        ("/robots.txt?", false),
        ("/Robots.txt", false),
        ("/robots.txt/", false),
        ("/cz/robots.txt", false),
        ("http://www.example.cz/robots.txt?a=b", false),
    ];
    for (target, expected) in cases {
        assert_eq!(is_robots_fetch(target.as_bytes()), expected, "{target}");
    }
}

#[test]
fn decide_asks_the_version_at_t_first_and_stops_when_it_allows() {
    let versions = versions();
    let t_ms = t("2026-11-30T13:00:00+01:00").instant_ms();
    let mut asked = Vec::new();
    let decision = decide(
        &versions,
        &Standing::Versions {
            window_from_ms: t_ms - DAY,
        },
        t_ms,
        b"/x",
        |v| {
            asked.push(v.index());
            false
        },
    );
    assert_eq!(decision, Decision::Allowed);
    assert_eq!(asked, vec![1]);
}

/// SPEC §6 read the slow way: for each fetch, look back over every fetch
/// of `/robots.txt` before it, as the sentences say, instead of keeping a
/// running memory.
fn reference(grace: i64, fetches: &[(Timestamp, bool, u16)], i: usize) -> Standing {
    let t_ms = fetches[i].0.instant_ms();
    let prior: Vec<RobotsFetch> = fetches[..i]
        .iter()
        .filter(|(_, robots, status)| *robots && tells(Some(*status)).is_some())
        .map(|&(time, _, status)| RobotsFetch { time, status })
        .collect();
    let is = |f: &RobotsFetch, lo: u16, hi: u16| (lo..=hi).contains(&f.status);
    // The 5xx fetches since the last 2xx or 4xx make the outage.
    let since_end = prior
        .iter()
        .rposition(|f| is(f, 200, 299) || is(f, 400, 499))
        .map_or(0, |p| p + 1);
    let fives: Vec<&RobotsFetch> = prior[since_end..]
        .iter()
        .filter(|f| is(f, 500, 599))
        .collect();
    if let (Some(first), Some(last)) = (fives.first(), fives.last())
        && t_ms - first.time.instant_ms() <= OUTAGE_LIMIT_MS
    {
        return Standing::Unreachable(**last);
    }
    if let Some(last) = prior.last()
        && is(last, 400, 499)
    {
        return Standing::Unrestricted(*last);
    }
    let l = prior
        .iter()
        .rev()
        .find(|f| is(f, 200, 299))
        .map(|f| f.time.instant_ms());
    Standing::Versions {
        window_from_ms: l.map_or(t_ms - grace, |l| l.max(t_ms - grace)),
    }
}

proptest::proptest! {
    #[test]
    fn the_running_memory_agrees_with_reading_back(
        grace in proptest::sample::select(vec![0i64, HOUR, DAY]),
        steps in proptest::collection::vec(
            (
                // Gaps from none to beyond the 30 days of an outage.
                proptest::sample::select(vec![0i64, 1, 1000, HOUR, DAY, 20 * DAY]),
                proptest::bool::ANY,
                proptest::sample::select(vec![100u16, 200, 204, 301, 304, 404, 410, 499, 500, 503, 600]),
            ),
            1..40,
        ),
    ) {
        let mut instant = t("2026-11-29T00:00:00+01:00").instant_ms();
        let fetches: Vec<(Timestamp, bool, u16)> = steps
            .iter()
            .map(|&(gap, robots, status)| {
                instant += gap;
                let time = Timestamp {
                    unix: instant.div_euclid(1000),
                    millis: instant.rem_euclid(1000) as u16,
                    offset_min: 60,
                };
                (time, robots, status)
            })
            .collect();
        let mut tracker = Tracker::new(grace);
        for (i, &(time, robots, status)) in fetches.iter().enumerate() {
            let target: &[u8] = if robots { b"/robots.txt" } else { b"/page" };
            let got = tracker.judge(time, target, Some(status));
            proptest::prop_assert_eq!(got, reference(grace, &fetches, i), "fetch {}", i);
        }
    }
}

/// A fetch of /robots.txt whose client only claims the crawler (any
/// user agent can) may spare rows, never make them: its 5xx starts no
/// outage, its 2xx sets no L and ends no 4xx period; its 4xx starts one,
/// and its 2xx ends an outage.
#[test]
fn an_unverified_fetch_of_robots_txt_only_spares_rows() {
    let versions = versions();
    let mut tracker = Tracker::new(DAY);
    // A fetch of /robots.txt by a client that only claims the crawler.
    let claimed = |tracker: &mut Tracker, at: &str, status: u16| {
        tracker.observe_as(t(at), b"/robots.txt", Some(status), false);
    };
    // An attacker's `FOO /robots.txt` answered 501: no outage.
    claimed(&mut tracker, "2026-11-30T14:00:00+01:00", 501);
    assert!(matches!(
        tracker.standing(t("2026-11-30T14:00:01+01:00").instant_ms()),
        Standing::Versions { .. }
    ));
    // Its 200 narrows no grace: v0 still in the window, /b excused.
    claimed(&mut tracker, "2026-11-30T14:00:02+01:00", 200);
    assert_eq!(
        outcome(
            &versions,
            &mut tracker,
            "2026-11-30T14:00:03+01:00",
            "/b",
            200
        ),
        "excused v1 by v0"
    );
    // Its 404 starts a 4xx period (no rows); its later 200 ends none.
    claimed(&mut tracker, "2026-11-30T15:00:00+01:00", 404);
    claimed(&mut tracker, "2026-11-30T15:00:01+01:00", 200);
    assert_eq!(
        outcome(
            &versions,
            &mut tracker,
            "2026-11-30T15:00:02+01:00",
            "/a",
            200
        ),
        "no rows"
    );
    // The crawler's own 200 ends it.
    tracker.observe(t("2026-11-30T15:00:03+01:00"), b"/robots.txt", Some(200));
    assert_eq!(
        outcome(
            &versions,
            &mut tracker,
            "2026-11-30T15:00:04+01:00",
            "/a",
            200
        ),
        "accuse v1"
    );
    // An outage the crawler saw is ended by anyone's 200 (fewer rows).
    tracker.observe(t("2026-11-30T16:00:00+01:00"), b"/robots.txt", Some(503));
    claimed(&mut tracker, "2026-11-30T16:00:01+01:00", 200);
    assert!(matches!(
        tracker.standing(t("2026-11-30T16:00:02+01:00").instant_ms()),
        Standing::Versions { .. }
    ));
}

/// An excused fetch names every version of the window that allowed it,
/// oldest first, and none that disallowed it: the page counts them as
/// used by the night though they were in force only before it.
#[test]
fn an_excuse_names_each_version_that_allowed_the_fetch() {
    let entry = |bytes: &str, time: &str| Entry {
        bytes: bytes.as_bytes().into(),
        in_force_from: t(time),
        origin: Origin::History(time.into()),
    };
    let versions = Versions::merge(vec![
        entry("User-agent: *\nDisallow: /a\n", "2026-11-29T00:00:00+01:00"),
        entry(
            "User-agent: *\nDisallow: /a\nDisallow: /b\n",
            "2026-11-29T12:00:00+01:00",
        ),
        entry(
            "User-agent: *\nDisallow: /a\nDisallow: /b\nDisallow: /c\n",
            "2026-11-30T12:00:00+01:00",
        ),
    ])
    .unwrap();
    let mut tracker = Tracker::new(2 * DAY);
    let mut at = |time: &str, target: &str| outcome(&versions, &mut tracker, time, target, 200);
    assert_eq!(at("2026-11-30T13:00:00+01:00", "/c"), "excused v2 by v0+v1");
    assert_eq!(at("2026-11-30T13:00:01+01:00", "/b"), "excused v2 by v0");
    assert_eq!(at("2026-11-30T13:00:02+01:00", "/a"), "accuse v2");
}

/// A fetch older than the latest fetch of /robots.txt known, a 404: its
/// memory tells that no 4xx period stood at the fetch only when it kept
/// every fetch of /robots.txt since its 2xx before the fetch, as this run
/// keeps them, and that 2xx was alone at its instant.
#[test]
fn a_memory_tells_what_stood_only_when_it_kept_everything_alike() {
    let versions = versions();
    let fetch = |at: &str, status| RobotsFetch {
        time: t(at),
        status,
    };
    // Fills a memory: (time, status, trusted) fetches of /robots.txt.
    let filled = |fetches: &[(&str, u16, bool)]| {
        let mut tracker = Tracker::new(DAY);
        for &(at, status, trusted) in fetches {
            tracker.observe_as(t(at), b"/robots.txt", Some(status), trusted);
        }
        *tracker.memory()
    };
    // The night after: `memory` taken over by a run that `verifies`, the
    // crawler's 200 at 10:05 in an older log, then its fetch of /a.
    let after = |memory: Memory, verifies: bool| {
        let mut tracker = Tracker::resume(memory, DAY);
        tracker.take_over(verifies);
        tracker.observe(t("2026-11-30T10:05:00+01:00"), b"/robots.txt", Some(200));
        outcome(
            &versions,
            &mut tracker,
            "2026-11-30T10:30:00+01:00",
            "/a",
            200,
        )
    };
    let kept = filled(&[
        ("2026-11-30T10:00:00+01:00", 200, true),
        ("2026-11-30T12:00:00+01:00", 404, true),
    ]);
    assert_eq!(
        after(
            Memory {
                verifying: Some(true),
                ..kept
            },
            true
        ),
        "accuse v0"
    );
    // An earlier version's memory, or one carried from another --rate-by:
    // the latest alone, the 404 at 10:15 between forgotten.
    let latest_only = Memory {
        last_fetch: Some(fetch("2026-11-30T12:00:00+01:00", 404)),
        ..Memory::default()
    };
    assert_eq!(after(latest_only, true), "no rows");
    assert_eq!(after(latest_only, false), "no rows");
    // A fetch of /a at `at` after `memory`, taken over by a run that
    // verifies or not (`Some`), or resumed as it is (`None`).
    let judged = |memory: Memory, verifies: Option<bool>, at: &str| {
        let mut tracker = Tracker::resume(memory, DAY);
        if let Some(verifies) = verifies {
            tracker.take_over(verifies);
        }
        outcome(&versions, &mut tracker, at, "/a", 200)
    };
    // Filled by a run that verified nobody, where an unverified client's
    // 200 at 10:02 counted as the crawler's: to a run that verifies it
    // ends no 4xx period begun at 10:01; to one that does not, it does.
    let trusting = Memory {
        verifying: Some(false),
        ..filled(&[
            ("2026-11-30T10:01:00+01:00", 404, true),
            ("2026-11-30T10:02:00+01:00", 200, true),
            ("2026-11-30T12:00:00+01:00", 404, true),
        ])
    };
    let at = "2026-11-30T10:03:00+01:00";
    assert_eq!(judged(trusting, Some(true), at), "no rows");
    assert_eq!(judged(trusting, Some(false), at), "accuse v0");
    // The crawler's 200 and an unverified client's 404 at one instant:
    // their order is not kept, so the 404 may have come last.
    let tied = filled(&[
        ("2026-11-30T10:00:00+01:00", 200, true),
        ("2026-11-30T10:00:00+01:00", 404, false),
        ("2026-11-30T12:00:00+01:00", 404, true),
    ]);
    let at = "2026-11-30T10:30:00+01:00";
    assert_eq!(judged(tied, None, at), "no rows");
    // A 503 known before the fetch: one run over the logs has it in an
    // outage, whose rows the memory does not keep; the 404 after spares.
    let outage = filled(&[
        ("2026-11-30T10:00:00+01:00", 503, true),
        ("2026-11-30T12:00:00+01:00", 404, true),
    ]);
    assert_eq!(judged(outage, None, at), "no rows");
}
