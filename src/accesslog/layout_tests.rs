//! Unit tests of time layouts: Apache `%{…}t` arguments, strftime forms of
//! the C locale, and the parts of a time that are no time by themselves.

use super::*;

fn layout(argument: &str) -> TimeLayout {
    match TimeLayout::apache(argument.as_bytes()) {
        Ok(TimePart::Time(layout)) => layout,
        other => panic!("{argument}: {other:?}"),
    }
}

#[test]
fn apache_arguments() {
    // (argument, text, (unix, offset, bytes used, local)); a local
    // time's `unix` is its civil time read as if UTC.
    type Case = (&'static str, &'static str, Option<(i64, i16, usize, bool)>);
    let cases: &[Case] = &[
        (
            "%d/%b/%Y:%H:%M:%S %z",
            "10/Oct/2000:13:55:36 -0700]",
            Some((971_211_336, -420, 26, false)),
        ),
        (
            "begin:%d/%b/%Y:%H:%M:%S %z",
            "10/Oct/2000:13:55:36 -0700",
            Some((971_211_336, -420, 26, false)),
        ),
        (
            "%Y-%m-%dT%H:%M:%S%z",
            "2000-10-10T13:55:36-0700 x",
            Some((971_211_336, -420, 24, false)),
        ),
        (
            "%F %T %z",
            "2000-10-10 13:55:36 +05:45",
            Some((971_165_436, 345, 26, false)),
        ),
        (
            "%d/%b/%Y %T",
            "10/Oct/2000 20:55:36",
            Some((971_211_336, 0, 20, true)),
        ),
        (
            "%a, %e %B %Y %T %Z",
            "Tue,  3 October 2000 20:55:36 GMT",
            Some((970_606_536, 0, 33, false)),
        ),
        (
            // Any other zone name leaves the time local.
            "%a, %e %B %Y %T %Z",
            "Tue,  3 October 2000 20:55:36 CEST",
            Some((970_606_536, 0, 34, true)),
        ),
        (
            "%D %T",
            "10/10/00 20:55:36",
            Some((971_211_336, 0, 17, true)),
        ),
        ("sec", "971211336", Some((971_211_336, 0, 9, false))),
        ("msec", "971211336123", Some((971_211_336, 0, 12, false))),
        (
            "end:usec",
            "971211336123456",
            Some((971_211_336, 0, 15, false)),
        ),
        ("%s", "971211336", Some((971_211_336, 0, 9, false))),
        // The C locale's composite forms, 12-hour clocks, days of the
        // year, centuries, and numbers that carry nothing.
        (
            "%c",
            "Tue Oct 10 20:55:36 2000",
            Some((971_211_336, 0, 24, true)),
        ),
        (
            "%x %X",
            "10/10/00 20:55:36",
            Some((971_211_336, 0, 17, true)),
        ),
        (
            "%Y-%m-%d %r",
            "2000-10-10 08:55:36 PM",
            Some((971_211_336, 0, 22, true)),
        ),
        (
            "%Y-%m-%d %l:%M:%S %P",
            "2000-10-10 12:05:00 am",
            Some((971_136_300, 0, 22, true)),
        ),
        (
            "%Y.%j %k:%M:%S",
            "2000.284 20:55:36",
            Some((971_211_336, 0, 17, true)),
        ),
        (
            "%C%y-%m-%d %H %Ez",
            "1999-12-31 23 +0000",
            Some((946_681_200, 0, 19, false)),
        ),
        (
            "%G-W%V-%u %F %T",
            "2000-W41-2 2000-10-10 20:55:36",
            Some((971_211_336, 0, 30, true)),
        ),
        ("%d/%b/%Y %T", "31/Feb/2000 20:55:36", None),
        ("%d/%b/%Y %T", "10/Oct/2000 20:55", None),
        ("%Y.%j %H", "2001.366 20", None),
        ("%F %I:%M %p", "2000-10-10 13:00 PM", None),
    ];
    for &(argument, text, expected) in cases {
        let got = layout(argument)
            .read(text.as_bytes())
            .map(|(t, n, local)| (t.unix, t.offset_min, n, local));
        assert_eq!(got, expected, "{argument} {text}");
    }
}

#[test]
fn parts_that_are_no_time() {
    let cases: &[(&str, TimePart)] = &[
        ("msec_frac", TimePart::Fraction(3)),
        ("end:usec_frac", TimePart::Fraction(6)),
        ("%z", TimePart::Offset),
        ("%H:%M:%S", TimePart::Opaque),
        ("%A", TimePart::Opaque),
        ("%Y-%m-%d %I:%M", TimePart::Opaque),
        ("", TimePart::Time(TimeLayout::Clf)),
    ];
    for (argument, expected) in cases {
        assert_eq!(
            TimeLayout::apache(argument.as_bytes()).as_ref(),
            Ok(expected),
            "{argument}"
        );
    }
    for argument in ["%d/%b/%Y %Q", "%Y-%m-%d %"] {
        assert!(
            TimeLayout::apache(argument.as_bytes()).is_err(),
            "{argument}"
        );
    }
    assert!(layout("%d/%b/%Y %T").may_be_local());
    assert!(layout("%a, %e %B %Y %T %Z").may_be_local());
    assert!(!layout("%F %T %z").may_be_local());
    assert!(!layout("sec").may_be_local());
}
