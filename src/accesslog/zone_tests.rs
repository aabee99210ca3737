//! Unit tests of `LogTz`: the forms `--log-tz` takes, the DST edges of
//! Europe/Prague, and the per-hour cache held against jiff over many
//! instants and around every transition of zones with odd rules.

use super::*;
use jiff::tz::AmbiguousOffset;
use proptest::prelude::*;

/// Zones with DST of an hour, of half an hour (Lord Howe), offsets of
/// odd minutes (Kathmandu, St John's), a day skipped (Apia, 2011), and
/// none.
const ZONES: &[&str] = &[
    "Europe/Prague",
    "America/New_York",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
    "America/St_Johns",
    "Pacific/Apia",
    "Europe/Dublin",
    "UTC",
];

/// Seconds of a local civil time, read as if UTC.
fn local(y: i16, mo: i8, d: i8, h: i8, mi: i8, s: i8) -> i64 {
    let civil = jiff::civil::DateTime::new(y, mo, d, h, mi, s, 0).unwrap();
    Offset::UTC.to_timestamp(civil).unwrap().as_second()
}

/// What jiff says of a local time: the earlier instant when it occurs
/// twice, none when it does not occur; with the offset in minutes.
fn reference(zone: &TimeZone, local: i64) -> Option<(i64, i16)> {
    let civil = Offset::UTC.to_datetime(jiff::Timestamp::from_second(local).unwrap());
    let ambiguous = zone.to_ambiguous_timestamp(civil);
    if let AmbiguousOffset::Gap { .. } = ambiguous.offset() {
        return None;
    }
    let instant = ambiguous.earlier().unwrap();
    let offset = zone.to_offset(instant).seconds().div_euclid(60);
    Some((instant.as_second(), offset as i16))
}

fn ours(tz: &LogTz, local: i64) -> Option<(i64, i16)> {
    tz.from_local_seconds(local).map(|t| (t.unix, t.offset_min))
}

#[test]
fn forms() {
    let cases: &[(&str, Option<&str>)] = &[
        ("Europe/Prague", Some("Europe/Prague")),
        (" America/New_York ", Some("America/New_York")),
        ("UTC", Some("+00:00")),
        ("utc", Some("+00:00")),
        ("Z", Some("+00:00")),
        ("+0100", Some("+01:00")),
        ("-09:30", Some("-09:30")),
        ("+0545", Some("+05:45")),
        ("Europe/Nowhere", None),
        ("+2500", None),
        ("+01", None),
        ("", None),
        ("../../etc/passwd", None),
    ];
    for &(text, expected) in cases {
        let got = LogTz::parse(text).map(|tz| tz.name()).ok();
        assert_eq!(got.as_deref(), expected, "{text}");
    }
    let err = LogTz::parse("Europe/Nowhere").unwrap_err();
    assert!(err.contains("Europe/Nowhere"), "{err}");
}

#[test]
fn prague_across_both_changes_of_2026() {
    let tz = LogTz::parse("Europe/Prague").unwrap();
    let cases: &[(i64, Option<&str>)] = &[
        // Spring, Sunday 29 March: 02:00 CET jumps to 03:00 CEST.
        (
            local(2026, 3, 29, 1, 59, 59),
            Some("2026-03-29T01:59:59+01:00"),
        ),
        (local(2026, 3, 29, 2, 0, 0), None),
        (local(2026, 3, 29, 2, 30, 0), None),
        (local(2026, 3, 29, 2, 59, 59), None),
        (
            local(2026, 3, 29, 3, 0, 0),
            Some("2026-03-29T03:00:00+02:00"),
        ),
        // Autumn, Sunday 25 October: 03:00 CEST falls back to 02:00 CET;
        // 02:00–02:59 happen twice and the first time is taken.
        (
            local(2026, 10, 25, 1, 59, 59),
            Some("2026-10-25T01:59:59+02:00"),
        ),
        (
            local(2026, 10, 25, 2, 0, 0),
            Some("2026-10-25T02:00:00+02:00"),
        ),
        (
            local(2026, 10, 25, 2, 30, 0),
            Some("2026-10-25T02:30:00+02:00"),
        ),
        (
            local(2026, 10, 25, 2, 59, 59),
            Some("2026-10-25T02:59:59+02:00"),
        ),
        (
            local(2026, 10, 25, 3, 0, 0),
            Some("2026-10-25T03:00:00+01:00"),
        ),
        (
            local(2026, 11, 30, 0, 0, 1),
            Some("2026-11-30T00:00:01+01:00"),
        ),
        (
            local(2026, 7, 1, 12, 0, 0),
            Some("2026-07-01T12:00:00+02:00"),
        ),
    ];
    // Twice over, so the second round reads from the per-hour cache.
    for _ in 0..2 {
        for &(local, expected) in cases {
            let got = tz.from_local_seconds(local).map(|t| t.rfc3339());
            assert_eq!(got.as_deref(), expected, "{local}");
        }
    }
    let civil = jiff::civil::DateTime::new(2026, 10, 25, 2, 30, 0, 123_456_789).unwrap();
    let time = tz.timestamp(civil).unwrap();
    assert_eq!(time.rfc3339(), "2026-10-25T02:30:00.123+02:00");
    let skipped = jiff::civil::DateTime::new(2026, 3, 29, 2, 30, 0, 0).unwrap();
    assert_eq!(tz.timestamp(skipped), None);
}

#[test]
fn fixed_offsets_never_skip() {
    let tz = LogTz::parse("-0930").unwrap();
    let t = tz
        .from_local_seconds(local(2023, 12, 31, 14, 30, 0))
        .unwrap();
    assert_eq!((t.unix, t.offset_min), (1_704_067_200, -570));
}

#[test]
fn every_transition_of_odd_zones_agrees_with_jiff() {
    // Every minute from three hours before to three hours after each
    // transition from 1970 to 2040, in time order as a log is read, so the
    // cache is reused right up to the change and must not be past it.
    let start = jiff::Timestamp::from_second(0).unwrap();
    let end = jiff::Timestamp::from_second(2_208_988_800).unwrap();
    for name in ZONES {
        let zone = TimeZone::get(name).unwrap();
        let tz = LogTz::parse(name).unwrap();
        for transition in zone.following(start) {
            let at = transition.timestamp();
            if at > end {
                break;
            }
            let after = i64::from(transition.offset().seconds());
            let just_before = jiff::Timestamp::from_second(at.as_second() - 1).unwrap();
            let before = i64::from(zone.to_offset(just_before).seconds());
            for base in [at.as_second() + before, at.as_second() + after] {
                for step in -180..=180 {
                    let local = base + step * 60 - 1 + step.rem_euclid(2);
                    assert_eq!(
                        ours(&tz, local),
                        reference(&zone, local),
                        "{name} local {local}"
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Runs of local times, each near the one before as in a log, over
    /// 1900–2100 in every zone of the list.
    #[test]
    fn agrees_with_jiff(
        zone in prop::sample::select(ZONES),
        first in -2_208_988_800i64..4_102_444_800,
        steps in prop::collection::vec(-7_200i64..7_200, 1..64),
    ) {
        let reference_zone = TimeZone::get(zone).unwrap();
        let tz = LogTz::parse(zone).unwrap();
        let mut local = first;
        for step in steps {
            local += step;
            prop_assert_eq!(ours(&tz, local), reference(&reference_zone, local), "{} {}", zone, local);
        }
    }
}
