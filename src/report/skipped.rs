//! What standard error says about log lines that did not parse (SPEC §1):
//! takes each file's line counts and the first skipped lines, gives the
//! messages — the first five with file and line number, then how many more;
//! one warning for a file in which more than 1% of the lines were skipped,
//! shown even with `--quiet`; and an error (exit 2) for a file in which no
//! line parsed, an empty file included, since a log that was not read must
//! never pass for a clean night.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::accesslog::{Skip, Timestamp};
use crate::error::{Error, Position};

/// How many unparsable lines are shown one by one.
pub const SHOWN: usize = 5;

/// The lines of one log file, as the workers counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Every line read, blank ones included.
    pub lines: u64,
    /// Lines with nothing on them: neither parsed nor skipped.
    pub blank: u64,
    /// Lines that did not parse.
    pub skipped: u64,
    /// JSON lines that are no request (Caddy's runtime messages): neither
    /// parsed fetches nor skipped (SPEC §1).
    pub not_requests: u64,
    /// The first line that did not parse, and why.
    pub first_skip: Option<(u64, Skip)>,
    /// The last line that did not parse (whether a log's unfinished last
    /// line was read: `state::fingerprint::Tail::parsed`).
    pub last_skip: Option<u64>,
    /// Lines that did not parse, by reason, indexed like `Skip::ALL`.
    pub reasons: [u64; Skip::ALL.len()],
    /// The earliest and latest time of a line that parsed, by instant.
    pub first_time: Option<Timestamp>,
    pub last_time: Option<Timestamp>,
    /// Lines that parsed with a user agent (not `-`): none in a file means
    /// its crawlers can be found by address only.
    pub with_user_agent: u64,
    /// Lines that parsed with a forwarded-for value (or the server's own
    /// forwarded reading): none in a file means `--trusted-proxy` can do
    /// nothing there.
    pub with_forwarded: u64,
    /// The first line whose time carries no UTC offset, read without a
    /// zone: such a file is not read (SPEC §1 "Times").
    pub first_no_offset: Option<u64>,
    /// The first skipped line holding the start of a gzip member (`1f 8b
    /// 08`): compressed data inside the log (`cat access.log
    /// access.log.1.gz`), whose lines were never read.
    pub first_gzip: Option<u64>,
}

impl Tally {
    /// Lines that parsed.
    pub fn parsed(&self) -> u64 {
        self.lines - self.blank - self.skipped - self.not_requests
    }

    /// Notes the time of a line that parsed.
    pub fn saw(&mut self, time: Timestamp) {
        let at = time.instant_ms();
        if self.first_time.is_none_or(|t| at < t.instant_ms()) {
            self.first_time = Some(time);
        }
        if self.last_time.is_none_or(|t| at >= t.instant_ms()) {
            self.last_time = Some(time);
        }
    }

    /// Notes one line that did not parse.
    pub fn skip(&mut self, line: u64, skip: Skip) {
        self.skipped += 1;
        if let Some(at) = Skip::ALL.iter().position(|s| *s == skip) {
            self.reasons[at] += 1;
        }
        if self.first_skip.is_none_or(|(first, _)| line < first) {
            self.first_skip = Some((line, skip));
        }
        self.last_skip = self.last_skip.max(Some(line));
        if skip == Skip::NoOffset {
            self.first_no_offset = earliest(self.first_no_offset, Some(line));
        }
    }

    /// Notes a skipped line that holds the start of a gzip member.
    pub fn gzip_at(&mut self, line: u64) {
        self.first_gzip = earliest(self.first_gzip, Some(line));
    }

    /// Adds the counts of another part of the same file.
    pub fn merge(&mut self, other: &Tally) {
        self.lines += other.lines;
        self.blank += other.blank;
        self.not_requests += other.not_requests;
        self.with_user_agent += other.with_user_agent;
        self.with_forwarded += other.with_forwarded;
        self.first_no_offset = earliest(self.first_no_offset, other.first_no_offset);
        self.first_gzip = earliest(self.first_gzip, other.first_gzip);
        if let Some((line, _)) = other.first_skip
            && self.first_skip.is_none_or(|(first, _)| line < first)
        {
            self.first_skip = other.first_skip;
        }
        self.last_skip = self.last_skip.max(other.last_skip);
        self.skipped += other.skipped;
        for (mine, theirs) in self.reasons.iter_mut().zip(other.reasons) {
            *mine += theirs;
        }
        for time in [other.first_time, other.last_time].into_iter().flatten() {
            self.saw(time);
        }
    }

    /// More than 1% of the lines skipped: worth a warning.
    fn too_many_skipped(&self) -> bool {
        self.skipped.saturating_mul(100) > self.lines
    }
}

/// The earlier of two first lines, either unknown.
fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    a.into_iter().chain(b).min()
}

/// New lines of a log audited before that must all fail to parse for the
/// night to be exit 2 ("is --log-format right?"): fewer are stray lines,
/// warned of, and an exit 2 would repeat every night the file is given.
pub const FORMAT_CHANGED: u64 = 10;

/// What to say about the skipped lines of a run.
#[derive(Debug, Default)]
pub struct Notice {
    /// Lines for standard error, in order.
    pub lines: Vec<String>,
    /// Files in which no line parsed: errors for those files.
    pub failed: Vec<(usize, Error)>,
}

/// `n word` or `n words`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The messages about skipped lines. `shown` are the first skipped lines
/// of the run by (file, line); files in `unread` already failed to open or
/// read (their error says enough); `formats` names each file's format for
/// the warning of lines without user agents; with `quiet` only the
/// warnings and the errors remain.
pub fn notice(
    files: &[PathBuf],
    tallies: &BTreeMap<usize, Tally>,
    shown: &[(usize, u64, Skip)],
    unread: &[usize],
    already_audited: &BTreeMap<usize, u64>,
    formats: &BTreeMap<usize, String>,
    quiet: bool,
) -> Notice {
    let mut notice = Notice::default();
    if !quiet {
        for &(file, line, skip) in shown.iter().take(SHOWN) {
            notice.lines.push(format!(
                "robots-audit: {}:{line}: skipped: {}",
                files[file].display(),
                skip.reason()
            ));
        }
        let total: u64 = tallies.values().map(|t| t.skipped).sum();
        let more = total.saturating_sub(shown.len().min(SHOWN) as u64);
        if more > 0 {
            let noun = if more == 1 { "line" } else { "lines" };
            notice.lines.push(format!(
                "robots-audit: {more} more {noun} skipped (not shown)"
            ));
        }
    }
    // Every log given held nothing but lines a night before audited: a
    // server that stopped writing its log, or a cron line that names
    // yesterday's files only. No error (a quiet site may have no new
    // line), but said even under --quiet: a night of no line is no
    // clean night to keep quiet about. A line of any kind counts as
    // written: a server message (Caddy's), a blank line.
    let nothing_new = |file: usize| {
        let tally = tallies.get(&file).copied().unwrap_or_default();
        already_audited.get(&file).copied().unwrap_or(0) > 0 && tally.lines == 0
    };
    if !files.is_empty() && unread.is_empty() && (0..files.len()).all(nothing_new) {
        notice.lines.push(
            "robots-audit: warning: no log given held a line not audited on an earlier night \
             (--state): is the server still writing its log, and does the cron \
             line name the live one?"
                .to_string(),
        );
    }
    for (file, path) in files.iter().enumerate() {
        if unread.contains(&file) {
            continue;
        }
        let tally = tallies.get(&file).copied().unwrap_or_default();
        let first = match tally.first_skip {
            Some((line, skip)) => format!(", the first at line {line}: {}", skip.reason()),
            None => String::new(),
        };
        let before = already_audited.get(&file).copied().unwrap_or(0);
        if before > 0 && tally.parsed() == 0 && tally.skipped == 0 {
            // Logrotate renamed or compressed a log audited before, or it
            // grew by blank lines only: normal.
            if !quiet {
                notice.lines.push(format!(
                    "robots-audit: {}: nothing new ({} audited before, --state)",
                    path.display(),
                    count(before, "line", "lines")
                ));
            }
        } else if let Some(line) = tally.first_gzip {
            // The lines of a gzip member inside the log were never read:
            // a few skipped lines against a long plain log would pass
            // under the skipped-lines warning as a clean night.
            notice.failed.push((
                file,
                Error::Corrupt {
                    path: path.clone(),
                    at: Position::Line(line),
                    cause: "gzip data inside the log (a compressed log joined to a plain one, \
                            as `cat access.log access.log.1.gz` makes): its lines cannot be \
                            read; give each file as its own --log"
                        .to_string(),
                    untrusted: false,
                },
            ));
        } else if let Some(line) = tally.first_no_offset {
            // Wherever in the file it is, never silently UTC: the lines
            // before it were read, the file is not a clean night.
            notice.failed.push((
                file,
                Error::Format {
                    path: path.clone(),
                    at: Position::Line(line),
                    cause: "its time carries no UTC offset and is never taken as UTC: \
                            needs --log-tz ZONE (an IANA name such as Europe/Prague, or +HHMM)"
                        .to_string(),
                },
            ));
        } else if tally.parsed() == 0 && (before == 0 || tally.skipped >= FORMAT_CHANGED) {
            // Also a log audited before whose new lines all fail to parse,
            // enough of them to be a format that changed rather than a
            // stray line (a monitor's request whose client is no address):
            // exit 2, and the state is not saved, so a rerun with the right
            // --log-format reads them. A few such lines get the warning
            // below.
            let cause = if tally.skipped == 0 {
                "the log is empty: nothing was audited".to_string()
            } else if before > 0 {
                format!(
                    "none of its new lines parsed ({} skipped{first}; {} audited before, \
                     --state): is --log-format right?",
                    count(tally.skipped, "line", "lines"),
                    count(before, "line", "lines")
                )
            } else {
                format!(
                    "no line parsed ({} skipped{first}): is --log-format right?",
                    count(tally.skipped, "line", "lines")
                )
            };
            notice.failed.push((
                file,
                Error::Format {
                    path: path.clone(),
                    at: Position::File,
                    cause,
                },
            ));
        } else if tally.too_many_skipped() {
            notice.lines.push(format!(
                "robots-audit: warning: {}: {} of {} skipped ({:.1}%){first}",
                path.display(),
                tally.skipped,
                count(tally.lines, "line", "lines"),
                tally.skipped as f64 * 100.0 / tally.lines as f64
            ));
        }
        // Judged on every line read, whatever the format said it holds:
        // W3C fields change within a file, and a user-agent column that is
        // always `-` carries none.
        // A log audited before is judged on its first night: a few new
        // lines without one say little.
        if tally.parsed() > 0 && tally.with_user_agent == 0 && before == 0 {
            let format = formats
                .get(&file)
                .map_or(String::new(), |name| format!(" ({name})"));
            notice.lines.push(format!(
                "robots-audit: warning: {}: its lines{format} carry no user agent: \
                 crawlers can be found by address only",
                path.display()
            ));
        }
    }
    notice
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(lines: u64, blank: u64, skips: &[u64]) -> Tally {
        let mut tally = Tally {
            lines,
            blank,
            ..Tally::default()
        };
        for &line in skips {
            tally.skip(line, Skip::BadTime);
        }
        tally.with_user_agent = tally.parsed();
        tally
    }

    #[test]
    fn merging_keeps_the_earliest_skip_and_adds_the_counts() {
        let mut a = tally(10, 1, &[9, 7]);
        a.merge(&tally(5, 0, &[3]));
        assert_eq!(a.lines, 15);
        assert_eq!(a.blank, 1);
        assert_eq!(a.skipped, 3);
        assert_eq!(a.first_skip, Some((3, Skip::BadTime)));
        assert_eq!(a.parsed(), 11);
    }

    #[test]
    fn what_each_file_gets() {
        // (lines, blank, skipped lines, quiet, a warning, an error)
        type Case = (u64, u64, &'static [u64], bool, bool, bool);
        let cases: &[Case] = &[
            (100, 0, &[], true, false, false),
            (100, 0, &[5], true, false, false),
            (100, 0, &[5, 6], true, true, false),
            (100, 0, &[5, 6], false, true, false),
            (0, 0, &[], true, false, true),
            (3, 3, &[], true, false, true),
            (2, 0, &[1, 2], true, false, true),
            (3, 1, &[1, 2], false, false, true),
        ];
        for &(lines, blank, skips, quiet, warned, failed) in cases {
            let tallies = BTreeMap::from([(0, tally(lines, blank, skips))]);
            let got = notice(
                &[PathBuf::from("a.log")],
                &tallies,
                &[],
                &[],
                &BTreeMap::new(),
                &BTreeMap::new(),
                quiet,
            );
            let warnings = got.lines.iter().filter(|l| l.contains("warning")).count();
            assert_eq!(warnings, usize::from(warned), "{lines} {skips:?}");
            assert_eq!(got.failed.len(), usize::from(failed), "{lines} {skips:?}");
        }
    }

    /// SPEC §6: a log audited before that grew by nothing or by blank
    /// lines only is no error, nor one that grew by a few stray lines that
    /// do not parse (warned of). One whose new lines, `FORMAT_CHANGED` or
    /// more, all fail to parse was not read (SPEC §1: exit 2, the state
    /// is not saved, so a rerun with the right format reads them).
    #[test]
    fn a_grown_log_is_an_error_only_when_none_of_its_new_lines_parsed() {
        // (lines, blank, skipped lines, a warning, an error)
        type Case = (u64, u64, &'static [u64], bool, bool);
        let cases: &[Case] = &[
            // Nothing new, in the only log given: warned of (no new line
            // at all that night); a blank line is a line written.
            (0, 0, &[], true, false),
            (1, 1, &[], false, false),
            (1, 0, &[3], true, false),
            (2, 1, &[3], true, false),
            (3, 0, &[3], true, false),
            (100, 0, &[3], false, false),
            (10, 0, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], false, true),
            (11, 1, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], false, true),
            (9, 0, &[1, 2, 3, 4, 5, 6, 7, 8, 9], true, false),
        ];
        for &(lines, blank, skips, warned, failed) in cases {
            let mut grown = tally(lines, blank, skips);
            grown.with_user_agent = 0;
            let tallies = BTreeMap::from([(0, grown)]);
            let got = notice(
                &[PathBuf::from("a.log")],
                &tallies,
                &[],
                &[],
                &BTreeMap::from([(0, 2)]),
                &BTreeMap::new(),
                true,
            );
            let warnings = got.lines.iter().filter(|l| l.contains("warning")).count();
            assert_eq!(
                warnings,
                usize::from(warned),
                "{lines} {skips:?}: {:?}",
                got.lines
            );
            assert_eq!(got.failed.len(), usize::from(failed), "{lines} {skips:?}");
        }
    }

    #[test]
    fn five_shown_then_how_many_more_and_nothing_when_quiet() {
        let skips: Vec<u64> = (1..=7).collect();
        let tallies = BTreeMap::from([(0, tally(300, 0, &skips))]);
        let shown: Vec<(usize, u64, Skip)> = (1..=5).map(|line| (0, line, Skip::BadTime)).collect();
        let files = [PathBuf::from("a.log")];
        let got = notice(
            &files,
            &tallies,
            &shown,
            &[],
            &BTreeMap::new(),
            &BTreeMap::new(),
            false,
        );
        assert_eq!(got.lines.len(), 7, "{:?}", got.lines);
        assert_eq!(got.lines[4], "robots-audit: a.log:5: skipped: bad time");
        assert_eq!(
            got.lines[5],
            "robots-audit: 2 more lines skipped (not shown)"
        );
        assert_eq!(
            got.lines[6],
            "robots-audit: warning: a.log: 7 of 300 lines skipped (2.3%), the first at line 1: bad time"
        );
        let got = notice(
            &files,
            &tallies,
            &shown,
            &[],
            &BTreeMap::new(),
            &BTreeMap::new(),
            true,
        );
        assert_eq!(got.lines.len(), 1, "{:?}", got.lines);
    }

    #[test]
    fn an_unread_file_gets_no_second_message() {
        let got = notice(
            &[PathBuf::from("gone.log")],
            &BTreeMap::new(),
            &[],
            &[0],
            &BTreeMap::new(),
            &BTreeMap::new(),
            false,
        );
        assert!(got.lines.is_empty() && got.failed.is_empty());
    }

    #[test]
    fn a_time_without_offset_anywhere_fails_the_file_at_its_first_line() {
        let mut early = tally(100, 0, &[]);
        let mut late = tally(100, 0, &[]);
        late.skip(180, Skip::NoOffset);
        late.skip(150, Skip::NoOffset);
        early.merge(&late);
        early.with_user_agent = early.parsed();
        let tallies = BTreeMap::from([(0, early)]);
        let files = [PathBuf::from("a.log")];
        let got = notice(
            &files,
            &tallies,
            &[],
            &[],
            &BTreeMap::new(),
            &BTreeMap::new(),
            true,
        );
        assert_eq!(got.failed.len(), 1, "{:?}", got.lines);
        let message = got.failed[0].1.to_string();
        assert!(
            message.contains("a.log:150") && message.contains("--log-tz"),
            "{message}"
        );
    }

    #[test]
    fn lines_without_user_agents_are_warned_of_whatever_the_quiet() {
        let files = [PathBuf::from("a.log")];
        let formats = BTreeMap::from([(0, "common".to_string())]);
        let mut none = tally(10, 0, &[]);
        none.with_user_agent = 0;
        let mut one = none;
        one.with_user_agent = 1;
        for (tally, warned) in [(none, true), (one, false)] {
            let tallies = BTreeMap::from([(0, tally)]);
            let got = notice(&files, &tallies, &[], &[], &BTreeMap::new(), &formats, true);
            assert_eq!(
                got.lines,
                if warned {
                    vec![
                        "robots-audit: warning: a.log: its lines (common) carry no user agent: \
                         crawlers can be found by address only"
                            .to_string(),
                    ]
                } else {
                    Vec::new()
                }
            );
        }
    }
}
