//! Unit tests of the log time readers: CLF, ISO 8601, epochs, `--since`/
//! `--until`, writing back, and the per-line calendar held against jiff.

use super::*;
use crate::accesslog::time_given::{parse_offset, parse_rfc3339_or_date, rfc3339_or_date_ms_up};

#[test]
fn day_counts_agree_with_jiff() {
    // Every day from year 0 to 9999: the hand-written count and month
    // lengths of the per-line readers against jiff's calendar.
    let epoch = jiff::civil::date(1970, 1, 1);
    let mut date = jiff::civil::date(0, 1, 1);
    let last = jiff::civil::date(9999, 12, 31);
    loop {
        let (year, month, day) = (
            i64::from(date.year()),
            date.month() as u32,
            date.day() as u32,
        );
        let expected = i64::from((date - epoch).get_days());
        assert_eq!(days_from_civil(year, month, day), expected, "{date}");
        assert_eq!(days_in_month(year, month), date.days_in_month() as u32);
        if date == last {
            break;
        }
        date = date.tomorrow().unwrap();
    }
}

/// What jiff makes of a civil time at an offset: the instant, or
/// `None` when the date does not exist.
fn jiff_instant(fields: (i16, i8, i8, i8, i8, i8), offset_min: i32) -> Option<i64> {
    let (y, mo, d, h, mi, s) = fields;
    let civil = jiff::civil::DateTime::new(y, mo, d, h, mi, s, 0).ok()?;
    let offset = jiff::tz::Offset::from_seconds(offset_min * 60).ok()?;
    Some(offset.to_timestamp(civil).ok()?.as_second())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    /// The per-line readers (CLF with its per-thread date cache, ISO
    /// 8601) against jiff, over every year they read, days past the
    /// month's end included.
    #[test]
    fn hot_path_agrees_with_jiff(
        y in 0i16..=9999, mo in 1i8..=12, d in 1i8..=31,
        h in 0i8..24, mi in 0i8..60, s in 0i8..60,
        offset_min in -1439i32..=1439,
    ) {
        let expected = jiff_instant((y, mo, d, h, mi, s), offset_min);
        let sign = if offset_min < 0 { '-' } else { '+' };
        let (oh, om) = (offset_min.abs() / 60, offset_min.abs() % 60);
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let clf = format!(
            "{d:02}/{}/{y:04}:{h:02}:{mi:02}:{s:02} {sign}{oh:02}{om:02}",
            MONTHS[(mo - 1) as usize]
        );
        proptest::prop_assert_eq!(parse_clf(clf.as_bytes()).map(|t| t.unix), expected, "{}", clf);
        // Read again: answered by the per-thread memory of the last time.
        proptest::prop_assert_eq!(parse_clf(clf.as_bytes()).map(|t| t.unix), expected, "{}", clf);
        let iso = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{sign}{oh:02}:{om:02}");
        proptest::prop_assert_eq!(parse_iso8601(iso.as_bytes()).map(|t| t.unix), expected, "{}", iso);
        // And written back through jiff, then read again.
        if let Some(t) = parse_iso8601(iso.as_bytes()) {
            proptest::prop_assert_eq!(t.rfc3339(), iso.clone());
            proptest::prop_assert_eq!(parse_rfc3339_or_date(&iso), Some(t));
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    /// The fixed-size reader of `…T…±HH:MM` gives what the long reader
    /// gives, or leaves the text to it: on times damaged in one or two
    /// places (any byte at any place), each read twice so that the
    /// per-thread date cache answers the second time, after a read of
    /// another date.
    #[test]
    fn fixed_iso_reader_agrees_with_the_long_one(
        y in 0i16..=9999, mo in 0i8..=13, d in 0i8..=32,
        h in 0i8..26, mi in 0i8..62, s in 0i8..62,
        oh in 0i8..26, om in 0i8..62, minus in proptest::bool::ANY,
        damage in proptest::collection::vec((0usize..25, proptest::num::u8::ANY), 0..3),
    ) {
        let sign = if minus { '-' } else { '+' };
        let mut text = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{sign}{oh:02}:{om:02}")
            .into_bytes();
        for (at, byte) in damage {
            text[at] = byte;
        }
        let fixed: &[u8; 25] = text.first_chunk::<25>().expect("25 bytes");
        for _ in 0..2 {
            let fast = rfc3339_seconds(fixed);
            // Read again at once: answered by the memory of the last time.
            proptest::prop_assert_eq!(rfc3339_seconds(fixed), fast, "{:?}", text);
            if let Some(time) = fast {
                proptest::prop_assert_eq!(iso8601_long(&text), Some((time, 25)), "{:?}", text);
            }
            proptest::prop_assert_eq!(
                iso8601_prefix(&text),
                fast.map(|t| (t, 25)).or_else(|| iso8601_long(&text)),
                "{:?}", text
            );
            // Another date in between, so that the cache is refilled.
            let _ = rfc3339_seconds(b"2001-02-03T04:05:06+07:00");
        }
    }
}

#[test]
fn rfc3339_arguments_refuse_offsets_of_a_day_or_more() {
    assert!(parse_rfc3339_or_date("2026-11-30T10:00:00+23:59").is_some());
    assert!(parse_rfc3339_or_date("2026-11-30T10:00:00+24:00").is_none());
    assert!(parse_rfc3339_or_date("2026-11-30T10:00:00+25:00").is_none());
    assert!(parse_rfc3339_or_date("2026-11-30T10:00:00-25:00").is_none());
}

/// Times whose date is NUL bytes (a log padded with zeros after a crash),
/// read first on a thread: the per-thread memories start empty, not as a
/// date of zeros.
#[test]
fn a_date_of_nul_bytes_is_no_date() {
    std::thread::spawn(|| {
        assert_eq!(parse_clf(b"\0\0\0\0\0\0\0\0\0\0\0:12:00:00 +0000"), None);
        assert_eq!(parse_iso8601(b"\0\0\0\0\0\0\0\0\0\0T12:00:00+00:00"), None);
        assert_eq!(parse_clf(&[0; 26]), None);
        assert_eq!(rfc3339_seconds(&[0; 25]), None);
    })
    .join()
    .unwrap();
}

#[test]
fn clf_times() {
    let cases: &[(&str, Option<(i64, i16)>)] = &[
        ("10/Oct/2000:13:55:36 -0700", Some((971_211_336, -420))),
        ("10/oct/2000:13:55:36 -0700", Some((971_211_336, -420))),
        ("10/OCT/2000:13:55:36 -0700", Some((971_211_336, -420))),
        ("01/Jan/1970:00:00:00 +0000", Some((0, 0))),
        ("31/Dec/1969:23:59:59 +0000", Some((-1, 0))),
        // Nepal and Marquesas: odd offsets.
        ("01/Jan/2024:05:45:00 +0545", Some((1_704_067_200, 345))),
        ("31/Dec/2023:14:30:00 -0930", Some((1_704_067_200, -570))),
        ("29/Feb/2024:12:00:00 +0000", Some((1_709_208_000, 0))),
        ("01/Jan/0000:00:00:00 +0000", Some((-62_167_219_200, 0))),
        ("31/Dec/9999:23:59:59 +0000", Some((253_402_300_799, 0))),
        ("29/Feb/2023:12:00:00 +0000", None),
        ("29/Feb/1900:12:00:00 +0000", None),
        ("31/Apr/2024:12:00:00 +0000", None),
        ("00/Jan/2024:12:00:00 +0000", None),
        ("10/Oct/2000:24:00:00 -0700", None),
        ("10/Oct/2000:23:60:00 -0700", None),
        ("10/Oct/2000:13:55:36 -2400", None),
        ("10/Oct/2000:13:55:36 -0760", None),
        ("10/Okt/2000:13:55:36 -0700", None),
        ("10/Oct/2000:13:55:36 0700", None),
        ("10/Oct/2000:13:55:36", None),
        ("1/Oct/2000:13:55:36 -0700", None),
        ("10/Oct/20x0:13:55:36 -0700", None),
        ("", None),
    ];
    for &(text, expected) in cases {
        let got = parse_clf(text.as_bytes()).map(|t| (t.unix, t.offset_min));
        assert_eq!(got, expected, "{text}");
    }
}

#[test]
fn iso_times() {
    let cases: &[(&str, Option<(i64, i16)>)] = &[
        ("2000-10-10T13:55:36-07:00", Some((971_211_336, -420))),
        ("2000-10-10T20:55:36+00:00", Some((971_211_336, 0))),
        ("2000-10-10T20:55:36Z", Some((971_211_336, 0))),
        ("2000-10-10t20:55:36z", Some((971_211_336, 0))),
        ("2000-10-10 20:55:36Z", Some((971_211_336, 0))),
        ("2000-10-10T20:55:36.999Z", Some((971_211_336, 0))),
        ("2000-10-10T13:55:36-0700", Some((971_211_336, -420))),
        ("2024-01-01T05:45:00+05:45", Some((1_704_067_200, 345))),
        ("1969-12-31T23:59:59.5Z", Some((-1, 0))),
        ("2016-12-31T23:59:60Z", Some((1_483_228_800, 0))),
        ("0000-01-01T00:00:00Z", Some((-62_167_219_200, 0))),
        ("9999-12-31T23:59:59+00:00", Some((253_402_300_799, 0))),
        ("2000-10-10T13:55:36", None),
        ("2000-10-10T13:55:36.Z", None),
        ("2000-13-10T13:55:36Z", None),
        ("2000-10-10X13:55:36Z", None),
        ("2000-10-10T13:55:36+24:00", None),
        ("+2000-10-10T13:55:36Z", None),
        ("2000-10-10T13:55:36Zjunk", None),
    ];
    for &(text, expected) in cases {
        let got = parse_iso8601(text.as_bytes()).map(|t| (t.unix, t.offset_min));
        assert_eq!(got, expected, "{text}");
    }
}

#[test]
fn since_until() {
    let cases: &[(&str, Option<(i64, i16)>)] = &[
        ("2026-11-30", Some((1_795_996_800, 0))),
        ("2026-11-30T00:00:01+01:00", Some((1_795_993_201, 60))),
        (" 2026-11-30 ", Some((1_795_996_800, 0))),
        ("2026-02-30", None),
        ("2026-11-3", None),
        ("yesterday", None),
        ("", None),
        ("99999-01-01", None),
        ("2026-11-30T00:00:01", None),
        ("2026-11-30T00:00:01.5Z", Some((1_795_996_801, 0))),
        ("9999-12-31T23:59:59-23:59", Some((253_402_387_139, -1439))),
    ];
    for &(text, expected) in cases {
        let got = parse_rfc3339_or_date(text).map(|t| (t.unix, t.offset_min));
        assert_eq!(got, expected, "{text}");
    }
    // As bounds of a period, in milliseconds, a finer fraction rounded up:
    // a fetch at `.400` is before `.4001` and before `.4009` alike.
    let at = 1_795_942_811_000;
    for (text, ms) in [
        ("2026-11-29T09:00:11Z", Some(at)),
        ("2026-11-29T09:00:11.4Z", Some(at + 400)),
        ("2026-11-29T09:00:11.400000Z", Some(at + 400)),
        ("2026-11-29T09:00:11.4001Z", Some(at + 401)),
        ("2026-11-29T09:00:11.4009Z", Some(at + 401)),
        ("2026-11-29T09:00:11.999999999Z", Some(at + 1000)),
        ("2026-11-29T10:00:11.0000001+01:00", Some(at + 1)),
        // RFC 3339 sets no limit to the digits of a fraction.
        ("2026-11-29T09:00:11.1234567890Z", Some(at + 124)),
        ("2026-11-29T09:00:11.4000000000000Z", Some(at + 400)),
        ("2026-11-29T09:00:11.4000000000001Z", Some(at + 401)),
        ("2026-11-29T09:00:11,4000000001Z", Some(at + 401)),
        ("2026-11-29", Some(1_795_910_400_000)),
        ("yesterday", None),
    ] {
        assert_eq!(rfc3339_or_date_ms_up(text), ms, "{text}");
    }
}

#[test]
fn written_back_in_the_logs_offset() {
    let cases: &[(&str, &str)] = &[
        ("30/Nov/2026:00:00:01 +0100", "2026-11-30T00:00:01+01:00"),
        ("10/Oct/2000:13:55:36 -0700", "2000-10-10T13:55:36-07:00"),
        ("01/Jan/1970:00:00:00 +0000", "1970-01-01T00:00:00+00:00"),
        ("01/Jan/2024:05:45:00 +0545", "2024-01-01T05:45:00+05:45"),
        ("31/Dec/2023:14:30:00 -0930", "2023-12-31T14:30:00-09:30"),
        ("01/Jan/0000:00:00:00 +0000", "0000-01-01T00:00:00+00:00"),
        ("31/Dec/9999:23:59:59 -2359", "9999-12-31T23:59:59-23:59"),
    ];
    for &(clf, expected) in cases {
        let t = parse_clf(clf.as_bytes());
        assert_eq!(t.map(|t| t.rfc3339()).as_deref(), Some(expected), "{clf}");
    }
}

#[test]
fn absurd_values_never_panic() {
    for unix in [i64::MIN, i64::MIN + 1, -1, 0, i64::MAX - 1, i64::MAX] {
        for offset_min in [i16::MIN, -1439, 0, 1439, i16::MAX] {
            let t = Timestamp {
                unix,
                millis: 0,
                offset_min,
            };
            let _ = t.rfc3339();
            assert!(t.minute_of_day_local() < 1440);
            assert!(t.minute_of_day_utc() < 1440);
        }
    }
    assert_eq!(epoch_prefix(b"9999999999999999999", 1), None);
    assert_eq!(epoch_prefix(b"999999999999999999", 1), None);
}

#[test]
fn epochs() {
    type Case = (&'static str, i64, Option<(i64, usize)>);
    let cases: &[Case] = &[
        ("1700000000.123", 1, Some((1_700_000_000, 14))),
        ("1700000000 x", 1, Some((1_700_000_000, 10))),
        ("1700000000123", 1000, Some((1_700_000_000, 13))),
        ("1700000000123456", 1_000_000, Some((1_700_000_000, 16))),
        ("-1", 1, None),
        ("x", 1, None),
    ];
    for &(text, scale, expected) in cases {
        let got = epoch_prefix(text.as_bytes(), scale).map(|(t, n)| (t.unix, n));
        assert_eq!(got, expected, "{text}");
    }
}

#[test]
fn minutes_of_day() {
    let cases: &[(&str, u16, u16)] = &[
        ("30/Nov/2026:00:30:01 +0100", 23 * 60 + 30, 30),
        ("30/Nov/2026:23:59:59 -0930", 9 * 60 + 29, 23 * 60 + 59),
        ("01/Jan/1970:00:00:00 +0000", 0, 0),
    ];
    for &(clf, utc, local) in cases {
        let t = parse_clf(clf.as_bytes()).map(|t| (t.minute_of_day_utc(), t.minute_of_day_local()));
        assert_eq!(t, Some((utc, local)), "{clf}");
    }
}

#[test]
fn offsets() {
    let cases: &[(&str, Option<i16>)] = &[
        ("+0100", Some(60)),
        ("-09:30", Some(-570)),
        ("Z", Some(0)),
        ("+2400", None),
        ("0100", None),
        ("+01", None),
        ("+0100x", None),
    ];
    for &(text, expected) in cases {
        assert_eq!(parse_offset(text), expected, "{text}");
    }
}

/// Every day from 0000-01-01 to 9999-12-31, as the report writer dates
/// it, against jiff's calendar walked one day at a time.
#[test]
fn civil_from_days_agrees_with_jiff_on_every_day() {
    let mut date = jiff::civil::date(0, 1, 1);
    for days in -719_528..=2_932_896 {
        let expected = (
            i64::from(date.year()),
            i64::from(date.month()),
            i64::from(date.day()),
        );
        assert_eq!(civil_from_days(days), expected, "day {days}");
        assert_eq!(
            days_from_civil(expected.0, expected.1 as u32, expected.2 as u32),
            days
        );
        if days < 2_932_896 {
            date = date.tomorrow().expect("within 9999");
        }
    }
}

#[test]
fn rfc3339_writes_milliseconds_and_negative_offsets() {
    let t = Timestamp {
        unix: 1_700_000_000,
        millis: 7,
        offset_min: -570,
    };
    assert_eq!(t.rfc3339(), "2023-11-14T12:43:20.007-09:30");
    let t = Timestamp {
        unix: -1,
        millis: 999,
        offset_min: 0,
    };
    assert_eq!(t.rfc3339(), "1969-12-31T23:59:59.999+00:00");
}

/// A leap second rolls over into the next minute, except past the end of
/// 9999-12-31 (in the time's own clock), where it would be the year 10000:
/// a bad time, never a day early.
#[test]
fn a_leap_second_past_the_year_9999_is_no_time() {
    assert!(clf_prefix(b"31/Dec/9999:23:59:60 +0000").is_none());
    assert!(clf_prefix(b"31/Dec/9999:23:59:60 -0100").is_none());
    assert!(iso8601_prefix(b"9999-12-31T23:59:60+00:00").is_none());
    assert!(iso8601_prefix(b"9999-12-31T23:59:60+01:00").is_none());
    assert!(iso8601_prefix(b"9999-12-31T23:59:60.5Z").is_none());
    // The last second of 9999 is a time; a leap second of an ordinary
    // year is the next minute's first.
    let last = clf_prefix(b"31/Dec/9999:23:59:59 +0000").map(|(t, _)| t.unix);
    assert_eq!(last, Some(YEAR_10000 - 1));
    let rolled = clf_prefix(b"31/Dec/2026:23:59:60 +0100").map(|(t, _)| t.rfc3339());
    assert_eq!(rolled.as_deref(), Some("2027-01-01T00:00:00+01:00"));
    let rolled = iso8601_prefix(b"2026-12-31T23:59:60+01:00").map(|(t, _)| t.rfc3339());
    assert_eq!(rolled.as_deref(), Some("2027-01-01T00:00:00+01:00"));
}
