//! The zone of times written without a UTC offset: takes `--log-tz` (an
//! IANA name such as `Europe/Prague`, `UTC`, or `+HHMM`) and gives `LogTz`,
//! which turns a local civil time into an instant in the offset the zone
//! had then (SPEC §1 "Times").
//!
//! A local time that occurs twice (the hour a DST change repeats) takes the
//! earlier instant; one that does not exist (the hour skipped in spring) is
//! no time. The zone rules are jiff's, from the system's time zone database.
//! Looking a zone up for every line costs more than reading the line, so the
//! offset of the last local hour read is kept per thread: an hour is reused
//! only when both its ends have the same single offset, so a DST hour is
//! always worked out line by line.

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use jiff::tz::{AmbiguousOffset, Offset, TimeZone};

use super::time::Timestamp;
use super::time_given::parse_offset;

/// Seconds in an hour.
const HOUR: i64 = 3600;

/// A zone for times logged without an offset. Cheap to clone; immutable.
#[derive(Clone)]
pub struct LogTz {
    kind: Kind,
    /// Tells zones apart in the per-thread cache; clones share it.
    id: u64,
}

#[derive(Clone)]
enum Kind {
    /// A fixed offset from UTC, in minutes.
    Fixed(i16),
    /// A zone of the time zone database, with the name it was given by.
    Zone(TimeZone, String),
}

/// Gives each zone made its own cache key; 0 is "no zone" in the cache.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// (zone id, local hour, offset in seconds) of the last hour whose
    /// offset was the same from its first second to its last.
    static LAST_HOUR: Cell<(u64, i64, i32)> = const { Cell::new((0, 0, 0)) };
}

impl LogTz {
    /// Reads `UTC`, `Z`, `+HHMM`, `-HHMM`, `+HH:MM`, or an IANA zone name.
    /// The error says what was expected.
    pub fn parse(s: &str) -> Result<LogTz, String> {
        let s = s.trim();
        let kind = if s.eq_ignore_ascii_case("utc") {
            Kind::Fixed(0)
        } else if let Some(minutes) = parse_offset(s) {
            Kind::Fixed(minutes)
        } else if s.starts_with(['+', '-']) || s.is_empty() {
            return Err(format!(
                "expected an IANA zone name such as Europe/Prague, UTC, or +HHMM, got {s:?}"
            ));
        } else {
            let zone = TimeZone::get(s).map_err(|e| {
                format!("{s:?} is no time zone of this system's time zone database: {e}")
            })?;
            Kind::Zone(zone, s.to_string())
        };
        Ok(LogTz {
            kind,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The zone as it was given (`Europe/Prague`, `+01:00`).
    pub fn name(&self) -> String {
        match &self.kind {
            Kind::Fixed(minutes) => format_offset(*minutes),
            Kind::Zone(_, name) => name.clone(),
        }
    }

    /// The instant of a local time given as seconds since 1970-01-01T00:00
    /// read as if it were UTC (what the log readers compute from the civil
    /// fields), with the zone's offset then. `None` for a local time the
    /// zone skips.
    ///
    /// The instant is exact; the offset kept for writing it back is in
    /// whole minutes, so the few offsets of odd seconds (local mean time,
    /// before about 1920) are written floored to the minute.
    #[inline]
    pub fn from_local_seconds(&self, local: i64) -> Option<Timestamp> {
        let offset = match &self.kind {
            Kind::Fixed(minutes) => i32::from(*minutes) * 60,
            Kind::Zone(zone, _) => {
                let hour = local.div_euclid(HOUR);
                let (id, cached_hour, offset) = LAST_HOUR.get();
                if id == self.id && cached_hour == hour {
                    offset
                } else {
                    let offset = local_offset(zone, local)?;
                    let start = hour * HOUR;
                    if local_offset(zone, start) == Some(offset)
                        && local_offset(zone, start + HOUR - 1) == Some(offset)
                        && unambiguous(zone, start)
                        && unambiguous(zone, start + HOUR - 1)
                    {
                        LAST_HOUR.set((self.id, hour, offset));
                    }
                    offset
                }
            }
        };
        Some(Timestamp {
            unix: local.checked_sub(i64::from(offset))?,
            millis: 0,
            offset_min: i16::try_from(offset.div_euclid(60)).ok()?,
        })
    }

    /// The zone's offset from UTC, in minutes, at an instant.
    pub fn offset_at(&self, unix: i64) -> i16 {
        match &self.kind {
            Kind::Fixed(minutes) => *minutes,
            Kind::Zone(zone, _) => {
                let instant = jiff::Timestamp::from_second(unix).unwrap_or(if unix < 0 {
                    jiff::Timestamp::MIN
                } else {
                    jiff::Timestamp::MAX
                });
                // In range: zone offsets stay below 26 hours.
                (zone.to_offset(instant).seconds().div_euclid(60)) as i16
            }
        }
    }

    /// The instant of a civil date and time in this zone (for formats that
    /// write `date-local` and the like); the fraction is kept to the
    /// millisecond. `None` for a local time the zone skips or a year out of
    /// 0..=9999.
    pub fn timestamp(&self, civil: jiff::civil::DateTime) -> Option<Timestamp> {
        if !(0..=9999).contains(&civil.year()) {
            return None;
        }
        let as_utc = Offset::UTC.to_timestamp(civil).ok()?;
        let mut time = self.from_local_seconds(as_utc.as_second())?;
        // In range: a subsecond is below one second.
        time.millis = (civil.subsec_nanosecond() / 1_000_000) as u16;
        Some(time)
    }
}

/// The offset, in seconds, that `zone` gives the local time `local`
/// (seconds, read as if UTC): the earlier instant's offset when the time
/// occurs twice, `None` when it does not occur.
fn local_offset(zone: &TimeZone, local: i64) -> Option<i32> {
    let offset = match resolve(zone, local)? {
        AmbiguousOffset::Unambiguous { offset } => offset,
        // Before a fall-back change the offset is the larger one, so its
        // instant is the earlier.
        AmbiguousOffset::Fold { before, after } => {
            if before.seconds() >= after.seconds() {
                before
            } else {
                after
            }
        }
        AmbiguousOffset::Gap { .. } => return None,
    };
    Some(offset.seconds())
}

fn unambiguous(zone: &TimeZone, local: i64) -> bool {
    matches!(
        resolve(zone, local),
        Some(AmbiguousOffset::Unambiguous { .. })
    )
}

fn resolve(zone: &TimeZone, local: i64) -> Option<AmbiguousOffset> {
    let as_utc = jiff::Timestamp::from_second(local).ok()?;
    let civil = Offset::UTC.to_datetime(as_utc);
    Some(zone.to_ambiguous_timestamp(civil).offset())
}

/// An offset as RFC 3339 writes it: `+01:00`, `-03:30`.
pub fn format_offset(minutes: i16) -> String {
    let sign = if minutes < 0 { '-' } else { '+' };
    let minutes = minutes.unsigned_abs();
    format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

impl fmt::Debug for LogTz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LogTz({})", self.name())
    }
}

/// Two zones are the same when given by the same name or offset.
impl PartialEq for LogTz {
    fn eq(&self, other: &LogTz) -> bool {
        match (&self.kind, &other.kind) {
            (Kind::Fixed(a), Kind::Fixed(b)) => a == b,
            (Kind::Zone(_, a), Kind::Zone(_, b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for LogTz {}

#[cfg(test)]
#[path = "zone_tests.rs"]
mod tests;
