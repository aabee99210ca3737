//! Which format a file is in: takes `--log-format` (`auto`, a named format,
//! `json`, `json:…`, `w3c`, or a custom string) and a file's first chunk,
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
//! follow the directives within the chunk (`Parser`).

use std::sync::Arc;

use super::chunk::Chunk;
use super::format::{COMBINED, COMMON, Entry, LogFormat, Skip, VHOST_COMBINED};
use super::json::{self, JsonFormat};
use super::w3c::W3cFormat;

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

    /// A reader of the lines of one chunk, in order.
    pub fn parser(&self) -> Parser<'_> {
        match self {
            FileFormat::Text(format, _) => Parser::Text(format),
            FileFormat::Json(format) => Parser::Json(format),
            FileFormat::W3c(format) => Parser::W3c(std::borrow::Cow::Borrowed(format)),
        }
    }
}

/// Reads the lines of one chunk in order; a W3C directive changes the
/// format for the lines after it.
#[derive(Debug, Clone)]
pub enum Parser<'f> {
    Text(&'f LogFormat),
    Json(&'f JsonFormat),
    W3c(std::borrow::Cow<'f, W3cFormat>),
}

impl Parser<'_> {
    /// Reads one line (without its line end).
    #[inline]
    pub fn parse<'a>(&mut self, line: &'a [u8]) -> Result<Entry<'a>, Skip> {
        match self {
            Parser::Text(format) => format.parse(line),
            Parser::Json(format) => format.parse(line),
            Parser::W3c(format) => {
                if W3cFormat::changes(line) {
                    return Err(format.to_mut().follow(line));
                }
                format.parse(line)
            }
        }
    }
}

/// What `--log-format` asked for.
#[derive(Debug, Clone)]
pub enum FormatChoice {
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
        let trimmed = spec.trim();
        let text = |spec: &str, name: &str| -> Result<FormatChoice, String> {
            Ok(FormatChoice::Fixed(Arc::new(FileFormat::Text(
                LogFormat::new(spec)?,
                name.to_string(),
            ))))
        };
        match trimmed {
            "" | "auto" => Ok(FormatChoice::Auto),
            "combined" => text(COMBINED, "combined"),
            "common" => text(COMMON, "common"),
            "vhost_combined" => text(VHOST_COMBINED, "vhost_combined"),
            "json" => Ok(FormatChoice::JsonKnown),
            "w3c" => Ok(FormatChoice::W3c),
            _ => {
                if let Some(mapping) = trimmed.strip_prefix("json:") {
                    let format = JsonFormat::new(mapping.trim(), mapping)?;
                    return Ok(FormatChoice::Fixed(Arc::new(FileFormat::Json(format))));
                }
                for (name, mapping) in json::KNOWN {
                    if trimmed.eq_ignore_ascii_case(&format!("json-{name}")) {
                        let format = JsonFormat::new(name, mapping)?;
                        return Ok(FormatChoice::Fixed(Arc::new(FileFormat::Json(format))));
                    }
                }
                // Named as given, so that run.json says which it was.
                text(trimmed, trimmed)
            }
        }
    }

    /// Places the times a custom format writes without an offset in
    /// `zone` (`--log-tz`, SPEC §1 "Times"); the named formats carry their
    /// offset.
    pub fn with_zone(self, zone: Option<super::LogTz>) -> FormatChoice {
        match self {
            FormatChoice::Fixed(format) => match &*format {
                FileFormat::Text(text, name) => FormatChoice::Fixed(Arc::new(FileFormat::Text(
                    text.clone().with_zone(zone),
                    name.clone(),
                ))),
                _ => FormatChoice::Fixed(format),
            },
            other => other,
        }
    }

    /// True when the format writes times without an offset and no zone
    /// places them: the run must not start (never silently UTC).
    pub fn needs_zone(&self) -> bool {
        match self {
            FormatChoice::Fixed(format) => match &**format {
                FileFormat::Text(text, _) => text.needs_zone(),
                _ => false,
            },
            _ => false,
        }
    }

    /// True when the format is chosen file by file.
    pub fn chooses(&self) -> bool {
        !matches!(self, FormatChoice::Fixed(_))
    }

    /// As `run.json` names a file whose format could not be chosen.
    pub fn name(&self) -> String {
        match self {
            FormatChoice::Auto => "auto".to_string(),
            FormatChoice::JsonKnown => "json".to_string(),
            FormatChoice::W3c => "w3c".to_string(),
            FormatChoice::Fixed(format) => format.name(),
        }
    }

    /// The format of the file whose first chunk is `first`; for a file
    /// without a line to choose by (empty, or blank lines only) the first
    /// candidate, since the empty log is reported as such. The error names
    /// the closest format and why it did not fit.
    pub fn choose(&self, first: Option<&Chunk>) -> Result<Arc<FileFormat>, Unfit> {
        let candidates: Vec<FileFormat> = match self {
            FormatChoice::Fixed(format) => return Ok(Arc::clone(format)),
            FormatChoice::Auto => {
                let mut all = text_candidates().map_err(Unfit::from)?;
                all.extend(json_candidates().map_err(Unfit::from)?);
                all.push(FileFormat::W3c(W3cFormat::default()));
                all
            }
            FormatChoice::JsonKnown => json_candidates().map_err(Unfit::from)?,
            FormatChoice::W3c => vec![FileFormat::W3c(W3cFormat::default())],
        };
        let none = || Unfit::from("no format".to_string());
        let Some(first) = first else {
            return Ok(Arc::new(candidates.into_iter().next().ok_or_else(none)?));
        };
        let numbered: Vec<(u64, &[u8])> = first
            .lines()
            .filter(|l| !l.too_long && !l.text.trim_ascii().is_empty())
            .map(|l| (l.number, l.text))
            .take(SAMPLE)
            .collect();
        let sample: Vec<&[u8]> = numbered.iter().map(|&(_, text)| text).collect();
        if sample.is_empty() {
            return Ok(Arc::new(candidates.into_iter().next().ok_or_else(none)?));
        }
        let fits: Vec<Fit> = candidates.iter().map(|c| Fit::of(c, &sample)).collect();
        let most = fits.iter().map(|f| f.read).max().unwrap_or(0);
        let best = fits
            .iter()
            .enumerate()
            .filter(|(_, fit)| fit.close_to(most))
            // The most fields wins; among equals, the earlier candidate.
            .max_by_key(|(index, fit)| (fit.rank, std::cmp::Reverse(*index)))
            .map(|(index, _)| index);
        if let Some(format) = best.and_then(|index| candidates.get(index)) {
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

/// How well a candidate reads the sample.
#[derive(Debug, Default)]
struct Fit {
    /// Lines read.
    read: usize,
    /// Lines that were neither read nor misread: directives, runtime
    /// messages.
    neutral: usize,
    /// Lines that did not fit: the first of them and why, and how many
    /// did not fit for want of a zone.
    misfits: usize,
    first_misfit: Option<(usize, Skip)>,
    no_offset: usize,
    /// The candidate's fields, for ranking those that fit.
    rank: usize,
    /// Set for a W3C candidate when the file named its fields.
    w3c_fields: bool,
}

impl Fit {
    fn of(candidate: &FileFormat, sample: &[&[u8]]) -> Fit {
        let mut fit = Fit {
            rank: match candidate {
                FileFormat::Text(format, _) => format.steps.len(),
                FileFormat::Json(_) | FileFormat::W3c(_) => 0,
            },
            ..Fit::default()
        };
        let mut parser = candidate.parser();
        for (index, line) in sample.iter().enumerate() {
            match parser.parse(line) {
                Ok(_) => fit.read += 1,
                Err(Skip::Directive | Skip::NotRequest | Skip::Empty) => fit.neutral += 1,
                Err(skip) => {
                    fit.misfits += 1;
                    fit.no_offset += usize::from(skip == Skip::NoOffset);
                    fit.first_misfit.get_or_insert((index, skip));
                }
            }
        }
        fit.w3c_fields = matches!(parser, Parser::W3c(ref f) if f.has_fields());
        fit
    }

    /// Reads more than half as many lines as the candidate that reads
    /// most: among such candidates the most fields win, so a combined log
    /// with a few lines of common's shape stays combined, while a common
    /// log with one line that also reads as combined stays common. A W3C
    /// file whose sample holds only directives fits W3C.
    fn close_to(&self, most: usize) -> bool {
        if most == 0 {
            return self.misfits == 0 && self.neutral > 0 && self.w3c_fields;
        }
        self.read * 2 > most
    }
}

/// Why no candidate fits, and the index in the sample of the first line
/// that did not fit the closest candidate.
fn explain(candidates: &[FileFormat], fits: &[Fit], sample: &[&[u8]]) -> (String, Option<usize>) {
    let json_lines = sample.iter().filter(|l| l.first() == Some(&b'{')).count();
    // JSON whose keys no known schema holds: say which keys there are and
    // what mapping to give.
    if json_lines * 2 > sample.len()
        && fits
            .iter()
            .zip(candidates)
            .filter(|(_, c)| matches!(c, FileFormat::Json(_)))
            .all(|(f, _)| f.read == 0)
        && let Some((index, keys)) = sample
            .iter()
            .enumerate()
            .find_map(|(index, l)| json::keys(l).map(|keys| (index, keys)))
    {
        let mut shown: Vec<String> = keys.into_iter().take(30).collect();
        if shown.len() == 30 {
            shown.push("…".to_string());
        }
        let cause = format!(
            "JSON whose keys are neither Caddy's, Traefik's nor nginx's (the first line has {}): \
             name them with --log-format 'json:client=FIELD,time=FIELD[:s|ms|us|ns],request=FIELD' \
             (or method=FIELD,target=FIELD; status=, user_agent=, xff= too; dotted paths reach \
             nested fields)",
            shown.join(", ")
        );
        return (cause, Some(index));
    }
    // Lines that only lack a zone fit in all else: such a candidate is
    // closer than one whose fields do not fit at all.
    let closest = fits
        .iter()
        .enumerate()
        .max_by_key(|(index, fit)| (fit.read, fit.no_offset, fit.rank, std::cmp::Reverse(*index)))
        .map(|(index, _)| index)
        .unwrap_or_default();
    let fit = &fits[closest];
    let misfit = fit.first_misfit.map(|(index, _)| index);
    let name = candidates
        .get(closest)
        .map(FileFormat::name)
        .unwrap_or_default();
    if fit.no_offset > 0 && fit.no_offset * 2 >= fit.misfits {
        let cause = format!(
            "no line parsed: its lines fit {name} but their times carry no UTC offset: needs --log-tz"
        );
        return (cause, misfit);
    }
    let why = match fit.first_misfit {
        Some((_, skip)) => format!(", the first misfit here: {}", skip.reason()),
        None => String::new(),
    };
    let considered: Vec<String> = candidates.iter().map(FileFormat::name).collect();
    let cause = format!(
        "its first lines fit no log format: no line parsed as any of {}; the closest is {name}, \
         which reads {} of {} lines{why}: give --log-format",
        considered.join(", "),
        fit.read,
        sample.len()
    );
    (cause, misfit)
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
    if data.first() == Some(&b'#') {
        follow(line_at(0));
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

/// True when some of the first lines that `format` reads carry a user
/// agent (a Traefik log drops request headers unless told to keep them).
pub fn shows_user_agents(format: &FileFormat, first: &Chunk) -> bool {
    if !format.has_user_agent() {
        return false;
    }
    let mut parser = format.parser();
    let mut read = 0;
    for line in first.lines().filter(|l| !l.too_long).take(SAMPLE) {
        if let Ok(entry) = parser.parse(line.text) {
            if entry.user_agent.is_some() {
                return true;
            }
            read += 1;
        }
    }
    // Nothing read: the skipped lines are reported on their own.
    read == 0
}

#[cfg(test)]
#[path = "detect_tests.rs"]
mod tests;
