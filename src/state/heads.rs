//! Lines already audited, chunk by chunk (SPEC §6 "State"): takes a log's
//! chunks as its reader cuts them and the fingerprints the state keeps;
//! gives the fingerprint reading fed with each line once, and chunks cut
//! down to the lines after the head already audited. Used by the reader
//! thread of each log; pure, no I/O.

use crate::accesslog::Chunk;

use super::fingerprint::Reading;

/// A log's fingerprint reading, fed from chunks: each line once, in
/// order, however often the log is read.
#[derive(Debug, Clone)]
pub struct Heads<'k> {
    pub reading: Reading<'k>,
    /// The last line number fed.
    fed_through: u64,
}

impl<'k> Heads<'k> {
    pub fn new(reading: Reading<'k>) -> Heads<'k> {
        Heads {
            reading,
            fed_through: 0,
        }
    }

    /// Feeds the lines of `chunk` not fed yet. `added_line_end` says that
    /// the chunk's last LF is not in the log (its last line had none), so
    /// that line is fed as the unfinished line it is.
    pub fn feed(&mut self, chunk: &Chunk, added_line_end: bool) {
        let last = chunk.first_line + chunk.line_count;
        if chunk.line_count == 0 || last - 1 <= self.fed_through {
            return;
        }
        let skip = self.fed_through.saturating_sub(chunk.first_line - 1);
        let start = offset_of_line(&chunk.data, skip);
        let mut end = chunk.data.len();
        if added_line_end {
            end -= 1;
        }
        self.reading.feed(&chunk.data[start..end.max(start)]);
        self.fed_through = last - 1;
    }
}

/// The byte offset in `data` where its line `index` (0-based) starts.
fn offset_of_line(data: &[u8], index: u64) -> usize {
    if index == 0 {
        return 0;
    }
    memchr::memchr_iter(b'\n', data)
        .nth(usize::try_from(index - 1).unwrap_or(usize::MAX))
        .map_or(data.len(), |lf| lf + 1)
}

/// Cuts `chunk` after its line numbered `through`: the lines up to it
/// (the head, already audited) and those after it (to audit). Either may
/// be `None` when it has no line.
pub fn split_after(chunk: Chunk, through: u64) -> (Option<Chunk>, Option<Chunk>) {
    let end = chunk.first_line + chunk.line_count; // one past the last
    if chunk.line_count == 0 || through < chunk.first_line {
        return (None, Some(chunk).filter(|c| c.line_count > 0));
    }
    if through >= end - 1 {
        return (Some(chunk), None);
    }
    let head_lines = through + 1 - chunk.first_line;
    let cut = offset_of_line(&chunk.data, head_lines);
    let (head_long, tail_long): (Vec<u64>, Vec<u64>) =
        chunk.too_long.iter().partition(|&&n| n <= through);
    let head = Chunk {
        first_line: chunk.first_line,
        data: chunk.data[..cut].to_vec(),
        line_count: head_lines,
        too_long: head_long,
    };
    let mut data = chunk.data;
    data.drain(..cut);
    let tail = Chunk {
        first_line: through + 1,
        data,
        line_count: chunk.line_count - head_lines,
        too_long: tail_long,
    };
    (Some(head), Some(tail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::fingerprint::of_text;

    fn chunk(first_line: u64, text: &str) -> Chunk {
        Chunk {
            first_line,
            data: text.as_bytes().to_vec(),
            line_count: text.bytes().filter(|&b| b == b'\n').count() as u64,
            too_long: Vec::new(),
        }
    }

    fn text_of(c: &Option<Chunk>) -> Option<(u64, String, u64)> {
        c.as_ref().map(|c| {
            (
                c.first_line,
                String::from_utf8(c.data.clone()).unwrap(),
                c.line_count,
            )
        })
    }

    #[test]
    fn splits_at_every_line() {
        type Part<'a> = Option<(u64, &'a str, u64)>;
        let c = chunk(5, "e\nf\ng\n");
        let cases: [(u64, Part<'_>, Part<'_>); 5] = [
            (3, None, Some((5, "e\nf\ng\n", 3))),
            (5, Some((5, "e\n", 1)), Some((6, "f\ng\n", 2))),
            (6, Some((5, "e\nf\n", 2)), Some((7, "g\n", 1))),
            (7, Some((5, "e\nf\ng\n", 3)), None),
            (100, Some((5, "e\nf\ng\n", 3)), None),
        ];
        for (through, head, tail) in cases {
            let (h, t) = split_after(c.clone(), through);
            let own = |x: Part<'_>| x.map(|(a, b, c)| (a, b.to_string(), c));
            assert_eq!(text_of(&h), own(head), "head after {through}");
            assert_eq!(text_of(&t), own(tail), "tail after {through}");
        }
    }

    #[test]
    fn too_long_lines_go_with_their_side() {
        let mut c = chunk(1, "a\n\nc\n\n");
        c.too_long = vec![2, 4];
        let (h, t) = split_after(c, 2);
        assert_eq!(h.unwrap().too_long, vec![2]);
        assert_eq!(t.unwrap().too_long, vec![4]);
    }

    #[test]
    fn chunks_fed_again_or_in_pieces_give_the_fingerprint_of_the_text() {
        let text = "a\nbb\nccc\ndddd\neeeee";
        let whole = of_text(&[], text.as_bytes(), 0).fingerprint;
        // The reader adds a line end to the last line; fed twice over
        // (a log read again from its start), every line counts once.
        let chunks = [chunk(1, "a\nbb\n"), chunk(3, "ccc\ndddd\neeeee\n")];
        let mut heads = Heads::new(Reading::new(&[]));
        heads.feed(&chunks[0], false);
        heads.feed(&chunks[0], false);
        heads.feed(&chunk(1, "a\nbb\nccc\n"), false);
        heads.feed(&chunks[1], true);
        heads.feed(&chunks[1], true);
        assert_eq!(heads.reading.finish(0).fingerprint, whole);
    }
}
