//! Writing one access-log line: takes the fields of a request, gives the
//! bytes Apache's or nginx's `combined` format would log for it (SPEC §1),
//! or the `common` and `vhost_combined` variants. Fields arrive already
//! escaped as the server would write them; nothing here adds escapes.

use crate::site::{AUTHORITY, write_number};

/// Which of the formats SPEC §1 names to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"`
    Combined,
    /// `%h %l %u %t "%r" %>s %b`
    Common,
    /// `%v:%p` in front of `combined`.
    VhostCombined,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "combined" => Some(Format::Combined),
            "common" => Some(Format::Common),
            "vhost_combined" => Some(Format::VhostCombined),
            _ => None,
        }
    }
}

/// How every line of one log is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub format: Format,
    /// Append nginx's `$request_time` after the last field, as many sites
    /// do; SPEC §1 says readers ignore it.
    pub request_time: bool,
}

/// The fields of one line, borrowed from the generator's buffers.
pub struct Fields<'a> {
    pub client: &'a [u8],
    pub user: &'a [u8],
    pub stamp: &'a [u8],
    /// The whole `%r`, e.g. `GET /a HTTP/1.1`.
    pub request: &'a [u8],
    pub status: u16,
    /// `None` is written `-`, as Apache's `%b` does for an empty body.
    pub size: Option<u64>,
    pub referer: &'a [u8],
    pub agent: &'a [u8],
    /// Milliseconds, for `Layout::request_time`.
    pub millis: u32,
}

impl Fields<'_> {
    /// Appends the line, newline included, to `out`.
    pub fn write(&self, layout: Layout, out: &mut Vec<u8>) {
        if layout.format == Format::VhostCombined {
            out.extend_from_slice(AUTHORITY.as_bytes());
            out.extend_from_slice(b":443 ");
        }
        out.extend_from_slice(self.client);
        out.extend_from_slice(b" - ");
        out.extend_from_slice(self.user);
        out.push(b' ');
        out.extend_from_slice(self.stamp);
        out.extend_from_slice(b" \"");
        out.extend_from_slice(self.request);
        out.extend_from_slice(b"\" ");
        write_number(out, u64::from(self.status));
        out.push(b' ');
        match self.size {
            Some(n) => write_number(out, n),
            None => out.push(b'-'),
        }
        if layout.format != Format::Common {
            out.extend_from_slice(b" \"");
            out.extend_from_slice(self.referer);
            out.extend_from_slice(b"\" \"");
            out.extend_from_slice(self.agent);
            out.push(b'"');
        }
        if layout.request_time {
            out.push(b' ');
            write_number(out, u64::from(self.millis / 1000));
            out.push(b'.');
            let frac = self.millis % 1000;
            out.push(b'0' + (frac / 100) as u8);
            out.push(b'0' + (frac / 10 % 10) as u8);
            out.push(b'0' + (frac % 10) as u8);
        }
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_lay_out_fields() {
        let fields = Fields {
            client: b"77.75.77.123",
            user: b"-",
            stamp: b"[29/Nov/2026:00:00:01 +0100]",
            request: b"GET /cz/chat/ HTTP/1.1",
            status: 200,
            size: Some(5120),
            referer: b"-",
            agent: b"Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
            millis: 1042,
        };
        let plain = |format, request_time| {
            let mut out = Vec::new();
            fields.write(
                Layout {
                    format,
                    request_time,
                },
                &mut out,
            );
            String::from_utf8(out).unwrap()
        };
        let base =
            "77.75.77.123 - - [29/Nov/2026:00:00:01 +0100] \"GET /cz/chat/ HTTP/1.1\" 200 5120";
        let tail = " \"-\" \"Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)\"";
        for (format, request_time, want) in [
            (Format::Common, false, format!("{base}\n")),
            (Format::Combined, false, format!("{base}{tail}\n")),
            (Format::Combined, true, format!("{base}{tail} 1.042\n")),
            (
                Format::VhostCombined,
                false,
                format!("www.example.cz:443 {base}{tail}\n"),
            ),
        ] {
            assert_eq!(plain(format, request_time), want);
        }
    }

    #[test]
    fn empty_size_is_a_dash() {
        let mut out = Vec::new();
        Fields {
            client: b"::1",
            user: b"-",
            stamp: b"[29/Nov/2026:00:00:01 +0100]",
            request: b"OPTIONS * HTTP/1.0",
            status: 200,
            size: None,
            referer: b"-",
            agent: b"-",
            millis: 0,
        }
        .write(
            Layout {
                format: Format::Common,
                request_time: false,
            },
            &mut out,
        );
        assert_eq!(
            out,
            b"::1 - - [29/Nov/2026:00:00:01 +0100] \"OPTIONS * HTTP/1.0\" 200 -\n"
        );
    }
}
