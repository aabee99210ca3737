//! One pass over the JSON object of a log line that keeps only the values
//! of the mapped keys: takes the line and the mapping's tree of keys
//! (dotted paths as nested `Node`s) and gives, for each mapped leaf, the
//! raw text of its value as the line writes it (a string with its quotes,
//! still escaped), borrowed from the line (SPEC §1 `json`).
//!
//! Why not a crate: serde_json (walking the mapped keys with borrowed raw
//! values), simd-json and sonic-rs all measured slower on a Caddy line
//! (README "JSON logs"): they check or build what the audit never reads.
//! This reader checks the grammar of the structure (objects, arrays,
//! commas and colons, literals, numbers, escapes) but not what a string
//! holds between its quotes, and finds each string's end a word at a time,
//! then with memchr's vector search. Values it keeps are checked by the caller (UTF-8, type); a key
//! written with escapes is decoded by serde_json, the rare case.
//! `json_scan_tests.rs` holds it against serde_json's full parse.

/// How deep objects and arrays may nest, as serde_json allows: a line of
/// brackets never exhausts the stack.
const MAX_DEPTH: usize = 128;

/// Bytes of a string searched a word at a time before a vector search.
const SHORT: usize = 32;

/// A key of the mapping at one level of nesting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Node {
    pub key: Box<str>,
    /// Where its value is kept, when it is a mapped field.
    pub leaf: Option<usize>,
    pub children: Vec<Node>,
}

/// Adds a dotted path to the tree.
pub(super) fn insert(nodes: &mut Vec<Node>, path: &str, leaf: usize) -> Result<(), String> {
    let (key, rest) = match path.split_once('.') {
        Some((key, rest)) => (key, Some(rest)),
        None => (path, None),
    };
    let at = match nodes.iter().position(|n| &*n.key == key) {
        Some(at) => at,
        None => {
            nodes.push(Node {
                key: key.into(),
                leaf: None,
                children: Vec::new(),
            });
            nodes.len() - 1
        }
    };
    let node = &mut nodes[at];
    match rest {
        Some(rest) => insert(&mut node.children, rest, leaf),
        None if node.leaf.is_some() => Err(format!("{path:?} is named twice in the mapping")),
        None => {
            node.leaf = Some(leaf);
            Ok(())
        }
    }
}

/// The line is no well-formed JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Malformed;

/// Reads `line`, which must be one JSON object and nothing else but
/// blanks, keeping in `found[leaf]` the raw value of every mapped key (the
/// last one when a key is written twice).
pub(super) fn extract<'a>(
    line: &'a [u8],
    tree: &[Node],
    found: &mut [Option<&'a [u8]>],
) -> Result<(), Malformed> {
    let mut reader = Reader { text: line, at: 0 };
    reader.blanks();
    if reader.peek() != Some(b'{') {
        return Err(Malformed);
    }
    reader.at += 1;
    reader.object(tree, found, 1)?;
    reader.blanks();
    if reader.at == line.len() {
        Ok(())
    } else {
        Err(Malformed)
    }
}

/// The raw text of the first element of the array `raw` (as `extract`
/// gave it, so already checked); `None` for an empty array.
pub(super) fn first_element(raw: &[u8]) -> Result<Option<&[u8]>, Malformed> {
    let mut reader = Reader { text: raw, at: 0 };
    reader.blanks();
    if reader.peek() != Some(b'[') {
        return Err(Malformed);
    }
    reader.at += 1;
    reader.blanks();
    if reader.peek() == Some(b']') {
        return Ok(None);
    }
    reader.value(None, &mut [], 1).map(Some)
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    #[inline]
    fn blanks(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// The members of an object, from past its `{` to past its `}`.
    fn object(
        &mut self,
        nodes: &[Node],
        found: &mut [Option<&'a [u8]>],
        depth: usize,
    ) -> Result<(), Malformed> {
        self.blanks();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.blanks();
            if self.peek() != Some(b'"') {
                return Err(Malformed);
            }
            let quoted_from = self.at;
            self.at += 1;
            let (key, escaped) = self.string()?;
            let node = match (nodes.is_empty(), escaped) {
                (true, _) => None,
                (false, false) => nodes.iter().find(|n| n.key.as_bytes() == key),
                (false, true) => decoded(nodes, &self.text[quoted_from..self.at]),
            };
            self.blanks();
            if self.peek() != Some(b':') {
                return Err(Malformed);
            }
            self.at += 1;
            let raw = self.value(node, found, depth)?;
            if let Some(&Node {
                leaf: Some(leaf), ..
            }) = node
                && let Some(slot) = found.get_mut(leaf)
            {
                *slot = Some(raw);
            }
            self.blanks();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Malformed),
            }
        }
    }

    /// One value, from its first byte (after blanks) to past its last;
    /// an object whose key is a node with children is read for them.
    fn value(
        &mut self,
        node: Option<&Node>,
        found: &mut [Option<&'a [u8]>],
        depth: usize,
    ) -> Result<&'a [u8], Malformed> {
        self.blanks();
        let start = self.at;
        match self.peek().ok_or(Malformed)? {
            b'"' => {
                self.at += 1;
                self.string()?;
            }
            b'{' => {
                if depth >= MAX_DEPTH {
                    return Err(Malformed);
                }
                self.at += 1;
                let children = node.map_or(&[][..], |n| &n.children);
                self.object(children, found, depth + 1)?;
            }
            b'[' => {
                if depth >= MAX_DEPTH {
                    return Err(Malformed);
                }
                self.at += 1;
                self.array(depth + 1)?;
            }
            b't' => self.literal(b"true")?,
            b'f' => self.literal(b"false")?,
            b'n' => self.literal(b"null")?,
            b'-' | b'0'..=b'9' => self.number()?,
            _ => return Err(Malformed),
        }
        Ok(&self.text[start..self.at])
    }

    /// The elements of an array, from past its `[` to past its `]`; no
    /// key inside an array is mapped.
    fn array(&mut self, depth: usize) -> Result<(), Malformed> {
        self.blanks();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.value(None, &mut [], depth)?;
            self.blanks();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Malformed),
            }
        }
    }

    /// A string from past its opening quote to past its closing one; gives
    /// what is between, still escaped, and whether it holds an escape.
    /// Escapes are checked to be JSON's.
    #[inline]
    fn string(&mut self) -> Result<(&'a [u8], bool), Malformed> {
        let start = self.at;
        let mut escaped = false;
        loop {
            self.at += quote_or_backslash(self.text.get(self.at..).ok_or(Malformed)?)?;
            if self.text[self.at] == b'"' {
                let inside = &self.text[start..self.at];
                self.at += 1;
                return Ok((inside, escaped));
            }
            escaped = true;
            match self.text.get(self.at + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.at += 2,
                Some(b'u') => {
                    let hex = self.text.get(self.at + 2..self.at + 6).ok_or(Malformed)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return Err(Malformed);
                    }
                    self.at += 6;
                }
                _ => return Err(Malformed),
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Malformed> {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(Malformed)
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Result<(), Malformed> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Malformed),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.some_digits()?;
        }
        Ok(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Result<(), Malformed> {
        let start = self.at;
        self.digits();
        if self.at > start {
            Ok(())
        } else {
            Err(Malformed)
        }
    }
}

/// The node a key written with escapes (`"User\u002DAgent"`) names, the
/// key compared as decoded.
#[cold]
fn decoded<'n>(nodes: &'n [Node], quoted: &[u8]) -> Option<&'n Node> {
    let decoded: String = serde_json::from_slice(quoted).ok()?;
    nodes.iter().find(|n| *n.key == *decoded)
}

/// Where the first `"` or `\` of `text` is. Most strings of a log line
/// (keys, short values) end within a few words: those are searched eight
/// bytes at a time in a register, before a vector search would have set
/// up; longer ones get memchr's vector search.
#[inline]
fn quote_or_backslash(text: &[u8]) -> Result<usize, Malformed> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const QUOTES: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    // A byte of `word` that is zero gets its high bit set (and only the
    // lowest such byte is sure to be exact, which is the one wanted).
    let zero_bytes = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    let mut at = 0;
    while at < SHORT
        && let Some(chunk) = text.get(at..at + 8)
    {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(chunk);
        let word = u64::from_le_bytes(bytes);
        let hits = zero_bytes(word ^ QUOTES) | zero_bytes(word ^ BACKSLASHES);
        if hits != 0 {
            return Ok(at + hits.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let rest = &text[at..];
    memchr::memchr2(b'"', b'\\', rest)
        .map(|i| at + i)
        .ok_or(Malformed)
}

#[cfg(test)]
#[path = "json_scan_tests.rs"]
mod tests;
