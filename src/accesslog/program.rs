//! What a compiled log format is made of: takes nothing, gives the pieces
//! `compile` makes from a format string and `format` follows on every line
//! — the meaning of each field (`Slot`), the fixed text between fields
//! (`Text`, packed for a fast check), and a field with the text after it
//! (`Step`). Kept apart so that neither of those two modules needs the
//! other's insides.

/// What a field of the format means to the audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Client,
    /// The time, written as `LogFormat::time` says.
    Time,
    Request,
    /// A format without the request line may log its parts apart: the
    /// method (`%m`, `$request_method`) and the target as the client sent
    /// it, query included (`$request_uri`).
    Method,
    Target,
    Status,
    UserAgent,
    Vhost,
    /// The forwarded-for chain (`%{X-Forwarded-For}i`,
    /// `$http_x_forwarded_for`).
    ForwardedFor,
    /// `%{msec_frac}t` (3 digits) or `%{usec_frac}t` (6): the fraction of
    /// the second of the time field.
    Fraction(u8),
    /// `%{%z}t`: the UTC offset of a time field written without one.
    Offset,
    /// A second time field (`%{end:…}t` beside `%{begin:…}t`): read by its
    /// layout (the format's `skipped_times`, by index) so that the blanks
    /// it holds end nothing, then left.
    OtherTime(u8),
    /// A field the audit does not use: skipped.
    Other,
    /// A number the audit does not use: a size, a duration, a count
    /// (`%b`, `%D`, `%{ms}T`, `$body_bytes_sent`, `$request_time`). A value
    /// that is no number nor `-` (`"-"`, an address) means the line lacks
    /// a field and the rest moved over by one: the line is skipped.
    Number,
    /// A port (`%p`, `%{remote}p`, `$remote_port`, `$server_port`): not
    /// used, but a value that is no port number means the line was cut in
    /// the wrong places (a line with a time in front, or a syslog tag
    /// `nginx:`, read as `vhost_combined`): the line is skipped. nginx's
    /// (`or_none`) are empty or `-` for a unix socket; Apache's never.
    Port {
        or_none: bool,
    },
    /// A skipped field that is one word: the ident and user fields (`%l`,
    /// `%u`, `$remote_user`). Unquoted, a space in it means the line was
    /// cut in the wrong places (`%v %h %l %u …` read as `combined` takes
    /// the client for `%l` and `- -` for `%u`): the line is skipped.
    Word,
}

/// Fixed text of a format (between fields), with up to its first four
/// bytes packed so that checking it against a line is one load and one
/// compare: it is checked once per field on every line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Text {
    bytes: Box<[u8]>,
    /// The first bytes, little-endian, and a mask of the bytes that count.
    word: u32,
    mask: u32,
}

impl Text {
    pub(crate) fn new(bytes: Vec<u8>) -> Text {
        let mut word = 0u32;
        let mut mask = 0u32;
        for (i, &b) in bytes.iter().take(4).enumerate() {
            word |= u32::from(b) << (8 * i);
            mask |= 0xff << (8 * i);
        }
        Text {
            bytes: bytes.into_boxed_slice(),
            word,
            mask,
        }
    }

    #[inline(always)]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// True when the text stands in `line` at `at`.
    #[inline(always)]
    pub(crate) fn stands_at(&self, line: &[u8], at: usize) -> bool {
        if self.bytes.len() <= 4
            && let Some(&four) = line.get(at..).and_then(|rest| rest.first_chunk::<4>())
        {
            return u32::from_le_bytes(four) & self.mask == self.word;
        }
        match line.get(at..at + self.bytes.len()) {
            Some(here) => here == &*self.bytes,
            None => false,
        }
    }
}

/// One field of a compiled format and the text that follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    pub slot: Slot,
    /// Between `"`s: ends only at an unescaped `"` followed by `after`.
    pub quoted: bool,
    /// For a client or virtual-host field that a `:` follows
    /// (`$remote_addr:$remote_port`, `%v:%p`): how
    /// many `:`s the format writes after it before its next blank. An
    /// unbracketed IPv6 address holds `:`s of its own, so the field ends
    /// at that many `:`s from the right of its blank-free run; 0 when no
    /// `:` follows.
    pub colons_after: u8,
    /// With `colons_after`: a byte the format writes after the field
    /// before its next blank (`,`, `|`), where the run the colons are
    /// counted in ends.
    pub run_end: Option<u8>,
    /// A host that a path follows with nothing between (nginx's
    /// `$host$request_uri`, Apache's `%v%U`): it ends before the path's
    /// `/`, which no host name holds.
    pub until_slash: bool,
    /// An nginx `$upstream_*` field, which holds one value per upstream
    /// tried, written `a, b` (retries) and `a : b` (an internal redirect):
    /// unquoted, it runs on through those separators.
    pub upstream_list: bool,
    /// Logged only for some statuses: `-` stands in its place on the
    /// other lines (Apache's `%!200t`), which a time read for its length
    /// or a fraction accepts.
    pub dash: bool,
    /// A Host header as the client sent it (`%{Host}i`, `$http_host`), not
    /// the server's name for the site (`%v`, `$host`): taken whatever it
    /// holds, since a client may send anything there and a spoofer's
    /// fetch must not go unlisted; such a value then names no site.
    pub host_as_sent: bool,
    /// nginx's `$remote_addr`: always an address (or `unix:`), never a
    /// host name as Apache's `%h` may be; a name there is another field
    /// (`$host`) written where the client should be, and the line is
    /// skipped.
    pub address_only: bool,
    /// Apache's `%u`, which writes the user of a request that gave an
    /// empty name as `""` (mod_log_config's `log_remote_user`): that word
    /// is a value there, where a quote in another unquoted field is a
    /// missing field's.
    pub empty_user_quoted: bool,
    /// The text between this field and the next (may be empty only when
    /// the field ends by itself: a time, a status, a host before a path,
    /// or the last field).
    pub after: Text,
}
