//! The clock a night's Request-rate windows were read in, over the minutes
//! report.html's charts draw (SPEC §4 "windows", §7 charts): takes
//! `--window-tz` and the charts' span (or, under `local`, the lines' own
//! offsets as they changed); gives the offset in force from each minute
//! on, so that a chart across a DST change shades each window where its
//! rows were judged.

use super::{Traffic, WindowClock};
use crate::accesslog::zone::format_offset;
use crate::config::WindowTz;

/// The clock windows were read in, over the minutes the charts draw.
pub(super) fn window_clock(
    tz: &WindowTz,
    charts: &[Traffic],
    first_offset: Option<i16>,
    offsets: Option<Vec<(i64, i16)>>,
) -> WindowClock {
    let (first, last) = super::charts_span(charts);
    match tz {
        WindowTz::Utc => WindowClock {
            name: "UTC".into(),
            offsets: vec![(i64::MIN, 0)],
        },
        WindowTz::Fixed(minutes) => WindowClock {
            name: format!("UTC{}", format_offset(*minutes)),
            offsets: vec![(i64::MIN, *minutes)],
        },
        WindowTz::Local => match offsets {
            Some(offsets) => WindowClock {
                name: "each line's own offset".into(),
                offsets,
            },
            None => WindowClock {
                name: "each line's own offset (the lines' offsets change too often to \
                       draw: shaded at the first fetch's)"
                    .into(),
                offsets: vec![(i64::MIN, first_offset.unwrap_or(0))],
            },
        },
        WindowTz::Zone(zone) => WindowClock {
            name: zone.name(),
            offsets: match (first, last) {
                (Some(first), Some(last)) => {
                    zone_offsets(|minute| zone.offset_at(minute * 60), first, last)
                }
                _ => vec![(i64::MIN, 0)],
            },
        },
    }
}

/// A zone's offset from each minute on, over minutes `first..=last`: its
/// changes found by probing every quarter of an hour (a zone's offset
/// changes on a quarter hour at the finest), the exact minute then found;
/// over a period so long that probes would be many, changes are placed to
/// the probe (a chart step there is far longer).
pub(super) fn zone_offsets(
    offset_at: impl Fn(i64) -> i16,
    first: i64,
    last: i64,
) -> Vec<(i64, i16)> {
    const PROBES: i64 = 20_000;
    let probe = ((last - first) / PROBES).max(15);
    let mut offsets = vec![(i64::MIN, offset_at(first))];
    let mut at = first;
    while at < last {
        let next = at.saturating_add(probe).min(last);
        let now = offset_at(next);
        // The offset at `at`: the last one found.
        let was = offsets.last().map_or(now, |&(_, was)| was);
        if was != now {
            // The first minute past `at` at the new offset.
            let from = if probe == 15 {
                (at + 1..=next)
                    .find(|&m| offset_at(m) != was)
                    .unwrap_or(next)
            } else {
                next
            };
            offsets.push((from, offset_at(from)));
        }
        at = next;
    }
    offsets
}
