//! Which format a file is in: takes `--log-format` (`auto`, a named format,
//! `json`, `json:…`, `w3c`, or a custom string) and a file's first lines
//! (its first chunk, or more when that holds fewer than `SAMPLE`),
//! and gives the `FileFormat` its lines are read in (SPEC §1 "Formats",
//! `auto`).
//!
//! Under `auto` each candidate — combined, vhost_combined, common, the
//! JSON schemas (Caddy, Traefik, nginx) and w3c — reads the file's first
//! lines; of those that read most of them (more than half), the one with
//! the most fields wins, so one odd line never turns a combined log into
//! common. Field values are checked as lines are read (`fields.rs`), so a
//! vhost_combined line never fits combined. A file that no candidate reads
//! is an error for that file, naming the closest and why it did not fit.
//!
//! The format travels with each chunk (`Arc<FileFormat>`); a W3C file's
//! directives may change it mid-file, so the reader hands on, with each
//! chunk, the format in force at its first line (`carry`) and the workers
//! follow the directives within the chunk (`Parser`). How well each
//! candidate reads the sample, and the message when none does, are
//! `detect/fit.rs`'s.

use std::sync::Arc;

use super::chunk::Chunk;
use super::clf_family::{COMBINED, COMMON, VHOST_COMBINED};
use super::entry::{Entry, Skip};
use super::format::LogFormat;
use super::json::{self, JsonFormat};
use super::json_shape::ShapeMemory;
use super::w3c::W3cFormat;

mod fit;

use fit::{Fit, explain, without_offset};

/// How many of a file's first lines choose its format.
pub const SAMPLE: usize = 200;

/// The format a file's lines are read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileFormat {
    /// A text format, with its name (`combined`, …, or the custom format
    /// string as given).
    Text(LogFormat, String),
    Json(JsonFormat),
    W3c(W3cFormat),
}

impl FileFormat {
    /// As shown on standard error and in `run.json`: `combined`,
    /// `json (Caddy)`, `w3c`…
    pub fn name(&self) -> String {
        match self {
            FileFormat::Text(_, name) => name.clone(),
            FileFormat::Json(format) => format!("json ({})", format.name()),
            FileFormat::W3c(_) => "w3c".to_string(),
        }
    }

    /// True when lines carry a user agent; without one, crawlers can only
    /// be found by address.
    pub fn has_user_agent(&self) -> bool {
        match self {
            FileFormat::Text(format, _) => format.has_user_agent(),
            FileFormat::Json(format) => format.has_user_agent(),
            FileFormat::W3c(format) => format.has_user_agent(),
        }
    }

    /// The same format with times written without an offset placed in
    /// `zone` (`--log-tz`, SPEC §1 "Times").
    pub fn with_zone(self, zone: Option<super::LogTz>) -> FileFormat {
        match self {
            FileFormat::Text(text, name) => FileFormat::Text(text.with_zone(zone), name),
            FileFormat::Json(json) => FileFormat::Json(json.with_zone(zone)),
            FileFormat::W3c(w3c) => FileFormat::W3c(w3c.with_zone(zone)),
        }
    }

    /// A reader of the lines of one chunk, in order.
    pub fn parser(&self) -> Parser<'_> {
        match self {
            FileFormat::Text(format, _) => Parser::Text(format),
            FileFormat::Json(format) => Parser::Json(format, ShapeMemory::default()),
            FileFormat::W3c(format) => Parser::W3c(std::borrow::Cow::Borrowed(format)),
        }
    }
}

/// Reads the lines of one chunk in order; a W3C directive changes the
/// format for the lines after it.
#[derive(Debug, Clone)]
pub enum Parser<'f> {
    Text(&'f LogFormat),
    /// With the shape of the lines read so far (`json_shape`).
    Json(&'f JsonFormat, ShapeMemory),
    W3c(std::borrow::Cow<'f, W3cFormat>),
}

impl Parser<'_> {
    /// Reads one line (without its line end).
    #[inline]
    pub fn parse<'a>(&mut self, line: &'a [u8]) -> Result<Entry<'a>, Skip> {
        match self {
            Parser::Text(format) => format.parse(line),
            Parser::Json(format, memory) => format.parse_remembering(line, Some(memory)),
            Parser::W3c(format) => {
                if W3cFormat::changes(line) {
                    return Err(format.to_mut().follow(line));
                }
                format.parse(line)
            }
        }
    }
}

/// What `--log-format` and `--log-tz` asked for.
#[derive(Debug, Clone)]
pub struct FormatChoice {
    asked: Asked,
    /// `--log-tz`: where times written without an offset are placed.
    zone: Option<super::LogTz>,
}

/// The formats `--log-format` allows.
#[derive(Debug, Clone)]
enum Asked {
    /// Chosen for each file from its first lines.
    Auto,
    /// One of the known JSON schemas, chosen for each file.
    JsonKnown,
    /// W3C, with the fields each file names.
    W3c,
    /// The same format for every file.
    Fixed(Arc<FileFormat>),
}

impl FormatChoice {
    /// Reads `--log-format`; the error says what is wrong with it.
    pub fn new(spec: &str) -> Result<FormatChoice, String> {
        let asked = |asked| Ok(FormatChoice { asked, zone: None });
        let fixed = |format| asked(Asked::Fixed(Arc::new(format)));
        let text = |spec: &str, name: &str| -> Result<FormatChoice, String> {
            fixed(FileFormat::Text(LogFormat::new(spec)?, name.to_string()))
        };
        let trimmed = spec.trim();
        match trimmed {
            "" | "auto" => asked(Asked::Auto),
            "combined" => text(COMBINED, "combined"),
            "common" => text(COMMON, "common"),
            "vhost_combined" => text(VHOST_COMBINED, "vhost_combined"),
            "json" => asked(Asked::JsonKnown),
            "w3c" => asked(Asked::W3c),
            _ => {
                if let Some(mapping) = trimmed.strip_prefix("json:") {
                    return fixed(FileFormat::Json(JsonFormat::new(mapping.trim(), mapping)?));
                }
                for (name, mapping) in json::KNOWN {
                    if trimmed.eq_ignore_ascii_case(&format!("json-{name}")) {
                        return fixed(FileFormat::Json(JsonFormat::new(name, mapping)?));
                    }
                }
                // Named as given, so that run.json says which it was.
                text(trimmed, trimmed)
            }
        }
    }

    /// Places the times a log writes without an offset in `zone`
    /// (`--log-tz`, SPEC §1 "Times"): a custom format's `%{…}t` without
    /// `%z`, a JSON time without one, W3C `date-local`/`time-local`. A
    /// format chosen file by file gets the zone when it is chosen.
    pub fn with_zone(self, zone: Option<super::LogTz>) -> FormatChoice {
        let asked = match self.asked {
            Asked::Fixed(format) => Asked::Fixed(Arc::new(
                Arc::unwrap_or_clone(format).with_zone(zone.clone()),
            )),
            other => other,
        };
        FormatChoice { asked, zone }
    }

    /// True when the format is known before any line is read to write
    /// times without an offset and no zone places them: the run must not
    /// start (never silently UTC). Formats whose times may or may not
    /// carry an offset (JSON, W3C) are judged file by file, in `choose`.
    pub fn needs_zone(&self) -> bool {
        match &self.asked {
            Asked::Fixed(format) => match &**format {
                FileFormat::Text(text, _) => text.needs_zone(),
                _ => false,
            },
            _ => false,
        }
    }

    /// True when the format is chosen file by file.
    pub fn chooses(&self) -> bool {
        !matches!(self.asked, Asked::Fixed(_))
    }

    /// As `run.json` names a file whose format could not be chosen.
    pub fn name(&self) -> String {
        match &self.asked {
            Asked::Auto => "auto".to_string(),
            Asked::JsonKnown => "json".to_string(),
            Asked::W3c => "w3c".to_string(),
            Asked::Fixed(format) => format.name(),
        }
    }

    /// The format of the file whose first chunk is `first`; for a file
    /// without a line to choose by (empty, or blank lines only) the first
    /// candidate, since the empty log is reported as such. The error names
    /// the closest format and why it did not fit, or, when the file's
    /// first lines write times without an offset and no `--log-tz` was
    /// given, says so (SPEC §1 "Times": never silently UTC).
    pub fn choose(&self, first: Option<&Chunk>) -> Result<Arc<FileFormat>, Unfit> {
        self.choose_among(first, false)
    }

    /// `choose`, where `unfinished` says the first chunk ends the file
    /// with a line the server had not ended yet (a live log): that line,
    /// cut anywhere, is left out of the choice when the other lines choose
    /// a format (a combined line cut in its user agent fits common); when
    /// they choose none (Caddy's start-up messages, then one request not
    /// ended yet), it is taken in after all.
    pub fn choose_by(
        &self,
        first: Option<&Chunk>,
        unfinished: bool,
    ) -> Result<Arc<FileFormat>, Unfit> {
        match self.choose_among(first, unfinished) {
            Err(_) if unfinished => self.choose_among(first, false),
            chosen => chosen,
        }
    }

    fn choose_among(
        &self,
        first: Option<&Chunk>,
        unfinished: bool,
    ) -> Result<Arc<FileFormat>, Unfit> {
        let sample = |first| sample_of(first, unfinished);
        let candidates: Vec<FileFormat> = match &self.asked {
            Asked::Fixed(format) => {
                if self.zone.is_none()
                    && let Some(first) = first
                {
                    let numbered = sample(first);
                    let lines: Vec<&[u8]> = numbered.iter().map(|&(_, text)| text).collect();
                    let fit = Fit::of(format, &lines);
                    if let Some(index) = fit.first_no_offset {
                        return Err(Unfit {
                            line: numbered.get(index).map(|&(n, _)| n),
                            cause: without_offset(&format.name()),
                        });
                    }
                }
                return Ok(Arc::clone(format));
            }
            Asked::Auto => {
                let mut all = text_candidates().map_err(Unfit::from)?;
                all.extend(json_candidates().map_err(Unfit::from)?);
                all.push(FileFormat::W3c(W3cFormat::default()));
                all
            }
            Asked::JsonKnown => json_candidates().map_err(Unfit::from)?,
            Asked::W3c => vec![FileFormat::W3c(W3cFormat::default())],
        };
        let candidates: Vec<FileFormat> = candidates
            .into_iter()
            .map(|c| c.with_zone(self.zone.clone()))
            .collect();
        let none = || Unfit::from("no format".to_string());
        let Some(first) = first else {
            return Ok(Arc::new(candidates.into_iter().next().ok_or_else(none)?));
        };
        let numbered = sample(first);
        let sample: Vec<&[u8]> = numbered.iter().map(|&(_, text)| text).collect();
        if sample.is_empty() {
            return Ok(Arc::new(candidates.into_iter().next().ok_or_else(none)?));
        }
        let fits: Vec<Fit> = candidates.iter().map(|c| Fit::of(c, &sample)).collect();
        let most = fits.iter().map(|f| f.read).max().unwrap_or(0);
        // Those that fit most of the lines (SPEC §1): a format that reads
        // a third of them never wins over one that reads two thirds, for
        // all its fields. Only when none does (a sample mostly of junk)
        // are those near the best reader taken.
        let close = |fit: &Fit| fit.close_to(most);
        let majority = |fit: &Fit| close(fit) && fit.read >= fit.misfits;
        let fitting: &dyn Fn(&Fit) -> bool = if fits.iter().any(majority) {
            &majority
        } else {
            &close
        };
        let best = fits
            .iter()
            .enumerate()
            .filter(|(_, fit)| fitting(fit))
            // The most fields wins; among equals, the earlier candidate.
            .max_by_key(|(index, fit)| (fit.rank, std::cmp::Reverse(*index)))
            .map(|(index, _)| index);
        if let Some(index) = best
            && let (Some(format), Some(fit)) = (candidates.get(index), fits.get(index))
        {
            // Some lines fit but for their times, which carry no offset
            // (a JSON time field of that kind, W3C local times): without a
            // zone the file is not read at all rather than read in part.
            if let Some(misfit) = fit.first_no_offset {
                return Err(Unfit {
                    line: numbered.get(misfit).map(|&(n, _)| n),
                    cause: without_offset(&format.name()),
                });
            }
            // nginx's keys are the log_format's own: one that names the
            // client, time and request by their variables may still name
            // the user agent or status otherwise, and read as nginx's it
            // would find no crawler by name and no robots.txt status.
            if let FileFormat::Json(json) = format
                && json.name() == "nginx"
                && let Some((misfit, cause)) = fit::nginx_lacks(json, &sample)
            {
                return Err(Unfit {
                    line: numbered.get(misfit).map(|&(n, _)| n),
                    cause,
                });
            }
            // A W3C format starts empty: the workers read the file's
            // directives from its first line on.
            return Ok(Arc::new(format.clone()));
        }
        let (cause, misfit) = explain(&candidates, &fits, &sample);
        Err(Unfit {
            line: misfit
                .and_then(|index| numbered.get(index))
                .map(|&(n, _)| n),
            cause,
        })
    }
}

/// The first lines a format is chosen by, with their numbers: up to
/// `SAMPLE` lines that are not blank.
fn sample(first: &Chunk) -> Vec<(u64, &[u8])> {
    first
        .lines()
        .filter(|l| !l.too_long && !l.text.trim_ascii().is_empty())
        .map(|l| (l.number, l.text))
        .take(SAMPLE)
        .collect()
}

/// `sample`, without the file's last line when the server had not ended
/// it (`unfinished`) and other lines are there.
fn sample_of(first: &Chunk, unfinished: bool) -> Vec<(u64, &[u8])> {
    let mut lines = sample(first);
    let last = (first.first_line + first.line_count).saturating_sub(1);
    if unfinished && lines.len() > 1 && lines.last().is_some_and(|&(n, _)| n == last) {
        lines.pop();
    }
    lines
}

/// Why a file's format could not be chosen, and the first line that did
/// not fit the closest format, when one is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfit {
    pub line: Option<u64>,
    pub cause: String,
}

impl From<String> for Unfit {
    fn from(cause: String) -> Unfit {
        Unfit { line: None, cause }
    }
}

fn text_candidates() -> Result<Vec<FileFormat>, String> {
    Ok(vec![
        FileFormat::Text(LogFormat::new(VHOST_COMBINED)?, "vhost_combined".into()),
        FileFormat::Text(LogFormat::new(COMBINED)?, "combined".into()),
        FileFormat::Text(LogFormat::new(COMMON)?, "common".into()),
    ])
}

fn json_candidates() -> Result<Vec<FileFormat>, String> {
    json::KNOWN
        .iter()
        .map(|(name, mapping)| JsonFormat::new(name, mapping).map(FileFormat::Json))
        .collect()
}

/// The format in force after `chunk`, given the one in force at its first
/// line: a W3C file's directives change it; other formats never change.
/// Looks only at lines that start with `#`, found by a vector search, so
/// the reader thread pays little for it.
pub fn carry(format: &Arc<FileFormat>, chunk: &Chunk) -> Arc<FileFormat> {
    let FileFormat::W3c(w3c) = &**format else {
        return Arc::clone(format);
    };
    let data = &chunk.data;
    let mut changed: Option<W3cFormat> = None;
    let mut follow = |line: &[u8]| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if W3cFormat::changes(line) {
            changed.get_or_insert_with(|| w3c.clone()).follow(line);
        }
    };
    let line_at = |start: usize| {
        let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
        &data[start..end]
    };
    let first = line_at(0);
    let first = if chunk.first_line == 1 {
        super::chunk::without_bom(first)
    } else {
        first
    };
    if first.first() == Some(&b'#') {
        follow(first);
    }
    for at in memchr::memmem::find_iter(data, b"\n#") {
        follow(line_at(at + 1));
    }
    match changed {
        Some(w3c) => Arc::new(FileFormat::W3c(w3c)),
        None => Arc::clone(format),
    }
}

/// True when the chunk holds a line that is not blank: a file without one
/// had no format chosen for it.
pub fn has_lines(first: &Chunk) -> bool {
    first
        .lines()
        .any(|l| l.too_long || !l.text.trim_ascii().is_empty())
}

#[cfg(test)]
#[path = "detect_tests.rs"]
mod tests;
