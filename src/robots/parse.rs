//! Reads the bytes of a robots.txt into records, one per meaningful line,
//! each with its 1-based line number and its text. Never fails: whatever does
//! not make sense is kept for the lint (RFC 9309 §2.1, §2.2; SPEC §1, §3).

use crate::text::name_text;

/// Bytes past this many are ignored (RFC 9309 §2.5: at least 500 KiB).
pub const SIZE_LIMIT: usize = 512_000;

/// The directives this tool knows. Field names are case-insensitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Directive {
    UserAgent,
    Allow,
    Disallow,
    Sitemap,
    CrawlDelay,
    /// Seznam: `Request-rate: N/T[smhd] [HHMM-HHMM]`.
    RequestRate,
    /// Seznam: `Robot-version: 2.0` as the second line of a group.
    RobotVersion,
    /// Seznam does not document it; kept for the lint only.
    VisitTime,
    /// Anything else; `Record::key` holds the name as written.
    Unknown,
}

impl Directive {
    /// Recognises a field name, case-insensitively, exactly as written.
    pub fn from_key(key: &[u8]) -> Directive {
        const NAMES: &[(&[u8], Directive)] = &[
            (b"user-agent", Directive::UserAgent),
            (b"allow", Directive::Allow),
            (b"disallow", Directive::Disallow),
            (b"sitemap", Directive::Sitemap),
            (b"crawl-delay", Directive::CrawlDelay),
            (b"request-rate", Directive::RequestRate),
            (b"robot-version", Directive::RobotVersion),
            (b"visit-time", Directive::VisitTime),
        ];
        NAMES
            .iter()
            .find(|(name, _)| key.eq_ignore_ascii_case(name))
            .map_or(Directive::Unknown, |&(_, d)| d)
    }

    /// The canonical spelling, as the lint shows it.
    pub fn name(self) -> &'static str {
        match self {
            Directive::UserAgent => "User-agent",
            Directive::Allow => "Allow",
            Directive::Disallow => "Disallow",
            Directive::Sitemap => "Sitemap",
            Directive::CrawlDelay => "Crawl-delay",
            Directive::RequestRate => "Request-rate",
            Directive::RobotVersion => "Robot-version",
            Directive::VisitTime => "Visit-time",
            Directive::Unknown => "unknown",
        }
    }

    /// Lines that belong to a group (RFC 9309 rules and the group-scoped
    /// extensions). A user-agent line after one of these starts a new group.
    pub fn is_group_member(self) -> bool {
        matches!(
            self,
            Directive::Allow
                | Directive::Disallow
                | Directive::CrawlDelay
                | Directive::RequestRate
                | Directive::RobotVersion
                | Directive::VisitTime
        )
    }
}

/// One `key: value` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// 1-based line number in the file.
    pub line: usize,
    pub directive: Directive,
    /// The field name as written (trimmed).
    pub key: String,
    /// The value: after the first colon, comment removed, trimmed of spaces
    /// and tabs. Bytes, since patterns may hold any octet.
    pub value: Vec<u8>,
    /// The line as reports quote it: comment removed, trimmed, bytes that are
    /// not UTF-8 written as `\xNN` and a backslash as `\\` (`name_text`),
    /// so that a report gives back the bytes and escapes them once.
    pub text: String,
    /// The size limit cut the line before its end (in its blanks, its key
    /// or its value; not in its comment): only an `Allow`, or a line that
    /// may still become one, is kept so, and it stands for every way the
    /// line may go on (`group::Rule::cut`).
    pub cut: bool,
}

/// A line that held something but no colon: ignored by crawlers, linted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stray {
    pub line: usize,
    pub text: String,
}

/// The whole file as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RobotsFile {
    pub records: Vec<Record>,
    pub strays: Vec<Stray>,
    /// The size of the input in bytes, before the limit was applied.
    pub size: usize,
    /// True when bytes past `SIZE_LIMIT` were ignored.
    pub truncated: bool,
    /// True when the file started with a UTF-8 byte-order mark.
    pub bom: bool,
    /// How many lines were read.
    pub lines: usize,
}

impl RobotsFile {
    /// Whether `other` holds the same records, line for line: the two
    /// are grouped and judged alike whatever their comments (only the
    /// size may differ).
    pub fn same_records(&self, other: &RobotsFile) -> bool {
        // Every field named, so that one added is weighed here too.
        let RobotsFile {
            records,
            strays,
            size: _,
            truncated,
            bom,
            lines,
        } = self;
        *records == other.records
            && *strays == other.strays
            && *truncated == other.truncated
            && *bom == other.bom
            && *lines == other.lines
    }
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// The bytes a crawler reads: after the byte-order mark, and, past the
/// limit, only whole lines inside it — a line cut in half could turn
/// `Disallow: /private-area` into a broader `Disallow: /pri`.
fn kept(input: &[u8], bom_len: usize) -> &[u8] {
    if input.len() > SIZE_LIMIT {
        let kept = &input[..SIZE_LIMIT];
        let kept = &kept[bom_len.min(kept.len())..];
        if matches!(input[SIZE_LIMIT], b'\n' | b'\r') {
            // The first byte past the limit ends the last line inside it:
            // that line is whole (a file of exactly the limit and its
            // final line end).
            return kept;
        }
        let end = memchr::memrchr2(b'\n', b'\r', kept).map_or(0, |i| i + 1);
        &kept[..end]
    } else {
        &input[bom_len..]
    }
}

/// The lines as written, numbered as `parse` numbers them (from 1, after
/// a byte-order mark, within the size limit): for showing the file with
/// what each line decided.
pub fn written_lines(input: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let bom_len = match input {
        [0xEF, 0xBB, 0xBF, ..] => 3,
        [0xEF, 0xBB, ..] => 2,
        [0xEF, ..] => 1,
        _ => 0,
    };
    crate::text::lines(kept(input, bom_len))
        .enumerate()
        .map(|(index, line)| (index + 1, line))
}

/// Reads a robots.txt. Never fails.
pub fn parse(input: &[u8]) -> RobotsFile {
    let size = input.len();
    // A byte-order mark, whole or cut after one or two of its octets
    // (SPEC §1): none of them can start a record.
    let bom_len = match input {
        [0xEF, 0xBB, 0xBF, ..] => 3,
        [0xEF, 0xBB, ..] => 2,
        [0xEF, ..] => 1,
        _ => 0,
    };
    let bom = bom_len > 0;
    let truncated = size > SIZE_LIMIT;
    let bytes = kept(input, bom_len);

    let mut file = RobotsFile {
        size,
        truncated,
        bom,
        ..RobotsFile::default()
    };
    for (index, raw) in crate::text::lines(bytes).enumerate() {
        file.lines = index + 1;
        file.read_line(index + 1, raw);
    }
    file.read_cut_line(input, bom_len + bytes.len());
    file
}

impl RobotsFile {
    /// Reads one whole line, numbered `number`: a record, a stray, or
    /// nothing (blanks and a comment). True when it held something.
    fn read_line(&mut self, number: usize, raw: &[u8]) -> bool {
        let content = match memchr::memchr(b'#', raw) {
            Some(i) => &raw[..i],
            None => raw,
        };
        let content = trim(content);
        if content.is_empty() {
            return false;
        }
        let text = name_text(content).into_owned();
        match memchr::memchr(b':', content) {
            Some(colon) => {
                let key = trim(&content[..colon]);
                let value = trim(&content[colon + 1..]);
                self.records.push(Record {
                    line: number,
                    directive: Directive::from_key(key),
                    key: name_text(key).into_owned(),
                    value: value.to_vec(),
                    text,
                    cut: false,
                });
            }
            None => self.strays.push(Stray { line: number, text }),
        }
        true
    }

    /// Reads the line the size limit cut, if any, as what is known of it
    /// whichever way it goes on: cut inside its comment, it is whole; a
    /// `User-agent` cut after its product token ended names that token;
    /// an `Allow` is read as far as it goes (`cut_allow`). Any other cut
    /// line is ignored whole: `Disallow: /private-area` must never shrink
    /// into a broader `/pri`.
    fn read_cut_line(&mut self, input: &[u8], kept_end: usize) {
        let Some(cut) = input.get(kept_end..SIZE_LIMIT) else {
            return;
        };
        if cut.is_empty() || input.len() <= SIZE_LIMIT || matches!(input[SIZE_LIMIT], b'\n' | b'\r')
        {
            return;
        }
        let number = self.lines + 1;
        let read = if memchr::memchr(b'#', cut).is_some() {
            self.read_line(number, cut)
        } else if let Some(record) = cut_user_agent(cut, number).or_else(|| cut_allow(cut, number))
        {
            self.records.push(record);
            true
        } else {
            false
        };
        if read {
            self.lines = number;
        }
    }
}

/// The line the size limit cut (`cut`, no comment in it), when it is a
/// `User-agent` whose value shows where its product token ends (a byte
/// after it: `SeznamBot/4.0 (x`, `SeznamBot `, `* `): it names that
/// token however it goes on. Cut inside the token (`Sezn`), or after a
/// lone `*` (`*bot` names no group), it is ignored whole.
fn cut_user_agent(cut: &[u8], line: usize) -> Option<Record> {
    let colon = memchr::memchr(b':', cut)?;
    let key = trim(&cut[..colon]);
    if Directive::from_key(key) != Directive::UserAgent {
        return None;
    }
    let mut value = &cut[colon + 1..];
    while let [b' ' | b'\t', rest @ ..] = value {
        value = rest;
    }
    let known = match value {
        [] | [b'*'] => false,
        [b'*', ..] => true,
        _ => super::agent::product_token(value).len() < value.len(),
    };
    let content = trim(cut);
    known.then(|| Record {
        line,
        directive: Directive::UserAgent,
        key: name_text(key).into_owned(),
        value: trim(value).to_vec(),
        text: name_text(content).into_owned(),
        cut: false,
    })
}

/// The line the size limit cut (`cut`, no comment in it), when it is an
/// `Allow`: read as far as it goes (Google's parser reads the cut text
/// too), and judged as every way the line may go on (`group::Rule::cut`),
/// so that it never allows less than the whole line did.
fn cut_allow(cut: &[u8], line: usize) -> Option<Record> {
    let content = trim(cut);
    let Some(colon) = memchr::memchr(b':', content) else {
        // Cut in its key: a line that may still go on as `Allow: …`
        // (`A`, `allo`, `Allow `) may allow anything. Blanks alone (RFC
        // 9309 allows them before a key) may go on so too.
        let may_be_allow = b"allow"
            .get(..content.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(content));
        return may_be_allow.then(|| Record {
            line,
            directive: Directive::Allow,
            key: name_text(content).into_owned(),
            value: Vec::new(),
            text: name_text(content).into_owned(),
            cut: true,
        });
    };
    let (key, mut value) = (trim(&content[..colon]), trim(&content[colon + 1..]));
    // A `%XX` escape the limit cut (`/a%2` of `/a%2Fb`) is no escape: read
    // as written it would match a literal `%` and allow less. The pattern
    // stops before it.
    if let Some(at) = value.iter().rposition(|&b| b == b'%')
        && value.len() - at <= 2
        && value[at + 1..].iter().all(u8::is_ascii_hexdigit)
    {
        value = &value[..at];
    }
    // Cut in the value, even before its first octet, the line may still
    // go on as any Allow.
    (Directive::from_key(key) == Directive::Allow).then(|| Record {
        line,
        directive: Directive::Allow,
        key: name_text(key).into_owned(),
        value: value.to_vec(),
        text: name_text(content).into_owned(),
        cut: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(file: &RobotsFile) -> Vec<(usize, Directive, String)> {
        file.records
            .iter()
            .map(|r| {
                (
                    r.line,
                    r.directive,
                    String::from_utf8_lossy(&r.value).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn records_keep_line_numbers_and_values() {
        let file = parse(b"User-agent: SeznamBot\n\nDisallow: /cz/chat/ # chat\nallow:/cz/\n");
        assert_eq!(
            summary(&file),
            vec![
                (1, Directive::UserAgent, "SeznamBot".into()),
                (3, Directive::Disallow, "/cz/chat/".into()),
                (4, Directive::Allow, "/cz/".into()),
            ]
        );
        assert_eq!(file.records[1].text, "Disallow: /cz/chat/");
        assert_eq!(file.records[2].text, "allow:/cz/");
        assert_eq!(file.lines, 4);
    }

    #[test]
    fn every_line_end_counts() {
        for input in [
            &b"User-agent: a\nDisallow: /x\nAllow: /y"[..],
            b"User-agent: a\r\nDisallow: /x\r\nAllow: /y\r\n",
            b"User-agent: a\rDisallow: /x\rAllow: /y\r",
        ] {
            let file = parse(input);
            let lines: Vec<usize> = file.records.iter().map(|r| r.line).collect();
            assert_eq!(lines, vec![1, 2, 3], "{input:?}");
        }
    }

    #[test]
    fn bom_is_ignored() {
        // Whole, or cut after one or two of its octets (SPEC §1).
        for bom in [&b"\xEF\xBB\xBF"[..], b"\xEF\xBB", b"\xEF"] {
            let mut input = bom.to_vec();
            input.extend_from_slice(b"User-agent: *\nDisallow: /\n");
            let file = parse(&input);
            assert!(file.bom, "{bom:?}");
            assert_eq!(file.records[0].directive, Directive::UserAgent, "{bom:?}");
            assert_eq!(file.records[0].value, b"*");
            assert_eq!(file.records[1].value, b"/");
        }
        assert!(!parse(b"User-agent: *\n").bom);
    }

    #[test]
    fn field_names_are_case_insensitive() {
        let file = parse(b"USER-AGENT: x\nDISALLOW: /a\nrequest-RATE: 1/10s\nRobot-Version: 2.0\n");
        let kinds: Vec<Directive> = file.records.iter().map(|r| r.directive).collect();
        assert_eq!(
            kinds,
            vec![
                Directive::UserAgent,
                Directive::Disallow,
                Directive::RequestRate,
                Directive::RobotVersion
            ]
        );
    }

    #[test]
    fn lines_without_colon_are_strays() {
        let file = parse(b"User-agent: *\nDisallow /private\n# only a comment\n");
        assert_eq!(file.records.len(), 1);
        assert_eq!(
            file.strays,
            vec![Stray {
                line: 2,
                text: "Disallow /private".into()
            }]
        );
    }

    #[test]
    fn misspelled_names_are_unknown_and_kept() {
        let file = parse(b"Dissallow: /a\nUser agent: b\n");
        assert_eq!(file.records[0].directive, Directive::Unknown);
        assert_eq!(file.records[0].key, "Dissallow");
        assert_eq!(file.records[1].directive, Directive::Unknown);
        assert_eq!(file.records[1].key, "User agent");
    }

    #[test]
    fn value_may_hold_colons_and_any_byte() {
        let file = parse(b"Sitemap: https://example.com/s.xml\nDisallow: /\xff\xfe\n");
        assert_eq!(file.records[0].value, b"https://example.com/s.xml");
        assert_eq!(file.records[1].value, b"/\xff\xfe");
        assert_eq!(file.records[1].text, "Disallow: /\\xFF\\xFE");
    }

    #[test]
    fn bytes_past_the_limit_are_ignored_whole_lines_only() {
        let mut input = b"User-agent: *\n".to_vec();
        while input.len() < SIZE_LIMIT - 5 {
            input.extend_from_slice(b"Disallow: /x\n");
        }
        input.extend_from_slice(b"Disallow: /private-area\nDisallow: /late\n");
        let file = parse(&input);
        assert!(file.truncated);
        assert_eq!(file.size, input.len());
        assert!(file.records.iter().all(|r| r.value != b"/late"));
        assert!(
            file.records.iter().all(|r| !r.value.starts_with(b"/pri")),
            "a line cut by the limit must not be read"
        );
    }

    #[test]
    fn an_allow_cut_by_the_limit_is_read_as_far_as_it_goes() {
        let mut input = b"User-agent: *\nDisallow: /\n".to_vec();
        input.resize(SIZE_LIMIT - 11, b'#');
        input[SIZE_LIMIT - 12] = b'\n';
        input.extend_from_slice(b"Allow: /private-area\n");
        let file = parse(&input);
        assert!(file.truncated);
        let last = file.records.last().expect("records");
        assert_eq!(
            (last.directive, &last.value[..], last.text.as_str()),
            (Directive::Allow, &b"/pri"[..], "Allow: /pri")
        );
        assert_eq!(last.line, file.lines);
        // Cut inside an escape: the pattern stops before it, for `/a%2`
        // read as written is `/a%252` and allows less than `/a%2Fb` did.
        for (kept, want) in [
            ("Allow: /a%2", "/a"),
            ("Allow: /a%", "/a"),
            ("Allow: /a%2F", "/a%2F"),
        ] {
            let mut input = b"User-agent: *\nDisallow: /\n".to_vec();
            input.resize(SIZE_LIMIT - kept.len() - 1, b'#');
            input.push(b'\n');
            input.extend_from_slice(b"Allow: /a%2Fbc\n");
            assert_eq!(&input[SIZE_LIMIT - kept.len()..SIZE_LIMIT], kept.as_bytes());
            let last = parse(&input).records.last().cloned().expect("records");
            assert_eq!(
                (last.directive, &last.value[..]),
                (Directive::Allow, want.as_bytes()),
                "{kept}"
            );
        }
        // Cut before its value, or in its key: nothing of the value read,
        // but the line may still be any Allow.
        for kept in ["Allow:", "Allow: ", "Allo", "a"] {
            let mut input = b"User-agent: *\nDisallow: /\n".to_vec();
            input.resize(SIZE_LIMIT - kept.len() - 1, b'#');
            input.push(b'\n');
            input.extend_from_slice(b"Allow: /x\n");
            let last = parse(&input).records.last().cloned().expect("records");
            assert_eq!(
                (last.directive, &last.value[..], last.cut),
                (Directive::Allow, &b""[..], true),
                "{kept}"
            );
        }
        // A key no Allow begins with: no Allow.
        let mut input = b"User-agent: *\nDisallow: /\n".to_vec();
        input.resize(SIZE_LIMIT - 4, b'#');
        input.push(b'\n');
        input.extend_from_slice(b"Disallow: /x\n");
        assert!(
            parse(&input)
                .records
                .iter()
                .all(|r| r.directive != Directive::Allow)
        );
    }

    /// `head`, then lines of a comment up to where the last line `line`
    /// has `kept` of it inside the limit.
    fn cut_at(head: &[u8], kept: &str, line: &str) -> Vec<u8> {
        let mut input = head.to_vec();
        input.resize(SIZE_LIMIT - kept.len() - 1, b'#');
        input.push(b'\n');
        input.extend_from_slice(line.as_bytes());
        assert_eq!(&input[SIZE_LIMIT - kept.len()..SIZE_LIMIT], kept.as_bytes());
        input
    }

    #[test]
    fn a_line_cut_inside_its_comment_is_read_whole() {
        let head = b"User-agent: SeznamBot\nDisallow: /a\n";
        for (kept, line) in [
            ("Disallow: /private #", "Disallow: /private # note\n"),
            ("Disallow: /private # no", "Disallow: /private # note\n"),
            ("Allow: # a", "Allow: # a note\n"),
            ("Crawl-delay: 5 #", "Crawl-delay: 5 # five\n"),
            ("User-agent: FreshBot # a", "User-agent: FreshBot # all\n"),
            ("no colon #", "no colon # here\n"),
        ] {
            let cut = parse(&cut_at(head, kept, line));
            // The same line whole, the limit not reached.
            let whole = parse(&[&head[..], line.as_bytes()].concat());
            let last = |file: &RobotsFile| {
                (
                    file.records
                        .last()
                        .cloned()
                        .map(|r| (r.line, r.directive, r.value, r.cut)),
                    file.strays.last().map(|s| s.text.clone()),
                )
            };
            let (records, strays) = last(&cut);
            // The line read is the file's last.
            let newest = records
                .as_ref()
                .map(|r| r.0)
                .max(cut.strays.last().map(|s| s.line));
            assert_eq!(newest, Some(cut.lines), "{kept}");
            let (want_record, want_stray) = last(&whole);
            assert_eq!(
                records.map(|(_, d, v, c)| (d, v, c)),
                want_record.map(|(_, d, v, c)| (d, v, c)),
                "{kept}"
            );
            assert_eq!(strays, want_stray, "{kept}");
        }
    }

    #[test]
    fn a_user_agent_cut_after_its_token_names_it() {
        let head = b"User-agent: *\nDisallow: /x\n";
        for (kept, line, want) in [
            (
                "User-agent: SeznamBot/4",
                "User-agent: SeznamBot/4.0\n",
                Some("SeznamBot/4"),
            ),
            (
                "User-agent: SeznamBot ",
                "User-agent: SeznamBot  \n",
                Some("SeznamBot"),
            ),
            ("User-agent: * ", "User-agent: * all\n", Some("*")),
            ("User-agent: Sezn", "User-agent: SeznamBot\n", None),
            ("User-agent: SeznamBot", "User-agent: SeznamBotX\n", None),
            ("User-agent: *", "User-agent: *bot\n", None),
            ("User-agent: ", "User-agent: SeznamBot\n", None),
            ("User-ag", "User-agent: SeznamBot\n", None),
        ] {
            let file = parse(&cut_at(head, kept, line));
            let last = file.records.last().expect("records");
            match want {
                Some(value) => {
                    assert_eq!(
                        (last.directive, &last.value[..], last.line, last.cut),
                        (Directive::UserAgent, value.as_bytes(), file.lines, false),
                        "{kept}"
                    );
                }
                None => assert_eq!(last.value, b"/x", "{kept}"),
            }
        }
    }

    #[test]
    fn a_line_ended_by_the_first_byte_past_the_limit_is_whole() {
        let head = b"User-agent: *\nDisallow: /a\n";
        let last = b"Disallow: /d";
        for end in [&b"\n"[..], b"\r\n", b"\r"] {
            let mut input = head.to_vec();
            input.extend_from_slice(b"# ");
            input.resize(SIZE_LIMIT - last.len() - 1, b'x');
            input.push(b'\n');
            input.extend_from_slice(last);
            assert_eq!(input.len(), SIZE_LIMIT);
            input.extend_from_slice(end);
            let file = parse(&input);
            assert!(file.truncated);
            assert_eq!(
                file.records.last().map(|r| &r.value[..]),
                Some(&b"/d"[..]),
                "line end {end:?}"
            );
        }
        // One byte more of the line, and it is cut: not read.
        let mut input = head.to_vec();
        input.resize(SIZE_LIMIT - last.len(), b'#');
        input[SIZE_LIMIT - last.len() - 1] = b'\n';
        input.extend_from_slice(b"Disallow: /de\n");
        let file = parse(&input);
        assert!(file.records.iter().all(|r| !r.value.starts_with(b"/d")));
    }

    #[test]
    fn empty_and_binary_input_never_fail() {
        assert_eq!(parse(b"").records.len(), 0);
        let file = parse(b"\x00\x01\x02<html><body>hi</body></html>\n\xff:\xfe");
        assert_eq!(file.records.len(), 1);
        assert_eq!(file.records[0].directive, Directive::Unknown);
    }

    /// Files judged alike whatever their comments; a line moved, a value,
    /// a stray line or the size limit's cut tells them apart.
    #[test]
    fn same_records_whatever_the_comments() {
        let base = parse(b"# built 1\nUser-agent: *\nDisallow: /a # old\n");
        let alike = [
            &b"# built 2, a longer comment\nUser-agent: *\nDisallow: /a\n"[..],
            b"#\r\nUser-agent: *  # all\r\nDisallow: /a\r\n",
        ];
        for bytes in alike {
            assert!(base.same_records(&parse(bytes)), "{bytes:?}");
        }
        let differ = [
            &b"\nUser-agent: *\n\nDisallow: /a\n"[..],
            b"# built 1\nUser-agent: *\nDisallow: /b\n",
            b"# built 1\nUser-agent: *\nDisallow: /a\nstray\n",
        ];
        for bytes in differ {
            assert!(!base.same_records(&parse(bytes)), "{bytes:?}");
        }
        let mut cut = b"# built 1\nUser-agent: *\nDisallow: /a\n".to_vec();
        cut.resize(SIZE_LIMIT + 1, b'#');
        assert!(!base.same_records(&parse(&cut)));
    }
}
