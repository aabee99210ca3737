//! The house's layering (STYLE "stages import only downward"; issue 10 "no
//! import cycle"): takes the source files under `src/`, reads every path
//! they name (`use crate::…`, `super::…`, `self::…`, paths from a name a
//! `use` bound, also written inline) and follows each to the file that
//! defines what it names (through a parent's `pub use` of a child's item);
//! gives a failure naming the files of any cycle among them. A module and
//! its own submodules are one thing here (a parent re-exports its
//! children, a child uses its parent's types), so only the paths between
//! modules neither of which holds the other count; items only tests build
//! (`#[cfg(test)]`) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path from the crate root (`["accesslog", "format"]`).
type Module = Vec<String>;

/// Every module of the library with its file: `src/lib.rs` is the root,
/// `src/a/mod.rs` and `src/a.rs` are `a`. Test files (`*_tests.rs`,
/// `tests.rs`) and the binary's `main.rs` are left out.
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            let Some(stem) = name.strip_suffix(".rs") else {
                continue;
            };
            if stem == "main" || stem == "tests" || stem.ends_with("_tests") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap();
            let mut module: Module = relative
                .parent()
                .unwrap()
                .components()
                .map(|c| c.as_os_str().to_str().unwrap().to_string())
                .collect();
            if stem != "mod" && stem != "lib" {
                module.push(stem.to_string());
            }
            found.insert(module, path);
        }
    }
    found
}

/// The text with comments, string and character literals blanked out, so
/// that a path named in a doc comment or a message is not read as one.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if bytes[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(rest) {
            // r"…", r#"…"#, br#"…"#: ends at a quote and as many hashes.
            i += rest.iter().position(|&b| b == b'"').unwrap() + 1;
            let end: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while i < bytes.len() && !bytes[i..].starts_with(&end) {
                i += 1;
            }
            i += end.len();
            out.push_str("\"\"");
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if let Some(len) = char_literal_len(&text[i..]) {
            i += len;
            out.push_str("' '");
        } else {
            let len = text[i..].chars().next().unwrap().len_utf8();
            out.push_str(&text[i..i + len]);
            i += len;
        }
    }
    out
}

/// How many `#` a raw string literal starting here has, if one does.
fn raw_string_start(rest: &[u8]) -> Option<usize> {
    let after_r = rest
        .strip_prefix(b"br")
        .or_else(|| rest.strip_prefix(b"r"))?;
    let hashes = after_r.iter().take_while(|&&b| b == b'#').count();
    (after_r.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// The length of a character literal starting here (`'a'`, `'\n'`,
/// `'\u{41}'`, `'é'`), or `None` for a lifetime (`'a`) or anything else.
/// Reads only the literal's own few bytes.
fn char_literal_len(rest: &str) -> Option<usize> {
    let after = rest.strip_prefix('\'')?;
    if let Some(escaped) = after.strip_prefix('\\') {
        // Past the escaped character, which may be the quote itself.
        let close = escaped.get(1..)?.find('\'')?;
        return Some(close + 4);
    }
    let c = after.chars().next()?;
    let end = 1 + c.len_utf8();
    (rest.as_bytes().get(end) == Some(&b'\'')).then_some(end + 1)
}

/// The code without the items marked `#[cfg(test)]` (test modules, and
/// the `use`s and functions only tests build), whatever attributes follow
/// the mark.
fn without_test_items(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let mut item = rest[at + MARK.len()..].trim_start();
        // Further attributes belong to the same item.
        while item.starts_with("#[") {
            let Some(close) = block_end(item, '[', ']') else {
                return out;
            };
            item = item[close..].trim_start();
        }
        // The item ends at its first `;` or with its first block.
        let semicolon = item.find(';').unwrap_or(item.len());
        let brace = item.find('{').unwrap_or(item.len());
        rest = if semicolon < brace {
            &item[(semicolon + 1).min(item.len())..]
        } else {
            match block_end(&item[brace..], '{', '}') {
                Some(end) => &item[brace + end..],
                None => "",
            }
        };
    }
    out.push_str(rest);
    out
}

/// Where the bracketed block that `text` starts with ends (just past its
/// closing bracket).
fn block_end(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i + c.len_utf8());
            }
        }
    }
    None
}

/// What a file names: every path (a `use`'s leaves spread out, and paths
/// written in the code), and the names its `use`s bind, each with the path
/// it stands for.
#[derive(Default)]
struct Names {
    paths: Vec<Vec<String>>,
    bindings: BTreeMap<String, Vec<String>>,
}

fn is_word(token: &str) -> bool {
    token.chars().all(|c| c.is_alphanumeric() || c == '_')
}

fn names(code: &str) -> Names {
    let tokens = tokens(code);
    let mut names = Names::default();
    let mut i = 0;
    while i < tokens.len() {
        let after_path = i > 0 && tokens[i - 1] == "::";
        if tokens[i] == "use" && !after_path {
            let mut leaves = Vec::new();
            i = use_tree(&tokens, i + 1, &mut Vec::new(), &mut leaves);
            for (path, name) in leaves {
                if let Some(name) = name {
                    names.bindings.insert(name, path.clone());
                }
                names.paths.push(path);
            }
        } else if is_word(&tokens[i])
            && !after_path
            && tokens.get(i + 1).map(String::as_str) == Some("::")
        {
            // A path written in the code: from `crate`, `super`, `self`,
            // or from a name a `use` bound or a child module.
            let mut leaves = Vec::new();
            i = use_tree(&tokens, i, &mut Vec::new(), &mut leaves);
            names.paths.extend(leaves.into_iter().map(|(path, _)| path));
        } else {
            i += 1;
        }
    }
    names
}

/// Reads a path or a `use` tree from `tokens[i]`, under `prefix`: gives
/// where it stops, and adds each leaf with the name it binds (its last
/// segment, its `as` name, or for `self` in a group the group's own;
/// none for `as _` and `*`).
fn use_tree(
    tokens: &[String],
    mut i: usize,
    prefix: &mut Vec<String>,
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let depth = prefix.len();
    loop {
        match tokens.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                loop {
                    match tokens.get(i).map(String::as_str) {
                        Some("}") => {
                            i += 1;
                            break;
                        }
                        Some(",") => i += 1,
                        None => break,
                        Some(_) => i = use_tree(tokens, i, prefix, leaves),
                    }
                }
                prefix.truncate(depth);
                return i;
            }
            Some("self") if prefix.len() == depth && depth > 0 => {
                // `{self, …}`: the group's own path.
                let name = prefix.last().cloned();
                return alias(tokens, i + 1, name, prefix, leaves);
            }
            Some(word) if is_word(word) => {
                prefix.push(word.to_string());
                i += 1;
                if tokens.get(i).map(String::as_str) == Some("::") {
                    i += 1;
                    continue;
                }
                let name = Some(word.to_string());
                i = alias(tokens, i, name, prefix, leaves);
                prefix.truncate(depth);
                return i;
            }
            _ => {
                // `*`, or the end of a path written in the code.
                if prefix.len() > depth {
                    leaves.push((prefix.clone(), None));
                }
                prefix.truncate(depth);
                return i;
            }
        }
    }
}

/// Adds the leaf `prefix`, bound to `name` or to the name after `as`;
/// gives where it stops.
fn alias(
    tokens: &[String],
    mut i: usize,
    mut name: Option<String>,
    prefix: &[String],
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    if tokens.get(i).map(String::as_str) == Some("as") {
        name = tokens.get(i + 1).filter(|n| *n != "_").cloned();
        i += 2;
    }
    leaves.push((prefix.to_vec(), name));
    i
}

/// Words, `::`, and single punctuation.
fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// Every module's names, read once.
struct Crate {
    known: BTreeMap<Module, PathBuf>,
    names: BTreeMap<Module, Names>,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let known = modules(src);
        let names = known
            .iter()
            .map(|(module, file)| {
                let text = std::fs::read_to_string(file).unwrap();
                (
                    module.clone(),
                    names(&without_test_items(&code_only(&text))),
                )
            })
            .collect();
        Crate { known, names }
    }

    /// The module that defines what `path`, written in `from`, names: the
    /// longest of its prefixes that is a module of the crate, followed
    /// through the names that module's `use`s bind (a `pub use` of a
    /// child's item is the child's); `None` for a path outside the crate.
    fn resolve(&self, from: &Module, path: &[String], hops: usize) -> Option<Module> {
        let (first, rest) = path.split_first()?;
        let mut base: Module = match first.as_str() {
            "crate" => Vec::new(),
            "self" => from.clone(),
            "super" => from[..from.len().checked_sub(1)?].to_vec(),
            name => {
                let mut child = from.clone();
                child.push(name.to_string());
                if self.known.contains_key(&child) {
                    child
                } else {
                    let bound = self.names.get(from)?.bindings.get(name)?;
                    if hops == 0 || bound.first() == Some(first) {
                        return None;
                    }
                    let whole: Vec<String> = bound.iter().chain(rest).cloned().collect();
                    return self.resolve(from, &whole, hops - 1);
                }
            }
        };
        let mut segments = rest.iter();
        for segment in segments.by_ref() {
            if segment == "super" {
                base.pop();
                continue;
            }
            let mut next = base.clone();
            next.push(segment.clone());
            if self.known.contains_key(&next) {
                base = next;
                continue;
            }
            // An item of `base`: its own, or one a `use` of it binds.
            let tail: Vec<String> = std::iter::once(segment.clone())
                .chain(segments.cloned())
                .collect();
            if hops > 0
                && let Some(bound) = self.names.get(&base).and_then(|n| n.bindings.get(segment))
            {
                let whole: Vec<String> = bound.iter().chain(&tail[1..]).cloned().collect();
                if let Some(found) = self.resolve(&base, &whole, hops - 1) {
                    return Some(found);
                }
            }
            return Some(base);
        }
        Some(base)
    }
}

fn holds(outer: &Module, inner: &Module) -> bool {
    outer.len() <= inner.len() && inner[..outer.len()] == outer[..]
}

/// The modules each module names, parents and children aside.
fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let krate = Crate::read(src);
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, names) in &krate.names {
        let named = edges.entry(module.clone()).or_default();
        for path in &names.paths {
            if let Some(target) = krate.resolve(module, path, 8)
                && !holds(module, &target)
                && !holds(&target, module)
            {
                named.insert(target);
            }
        }
    }
    edges
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Walk<'g> {
        edges: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        on_stack: BTreeSet<&'g Module>,
        found: Vec<Vec<Module>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g Module) {
            let at = self.index.len();
            self.index.insert(v, at);
            self.low.insert(v, at);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

/// Each cycle as its modules' paths joined, for the failure message.
fn named(cycles: &[Vec<Module>]) -> Vec<String> {
    cycles
        .iter()
        .map(|cycle| {
            let paths: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
            paths.join(" <-> ")
        })
        .collect()
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_two_modules_import_each_other_by_any_path() {
    let named = named(&cycles(&graph(&src())));
    assert!(named.is_empty(), "import cycles: {named:#?}");
}

#[test]
fn no_two_top_level_modules_import_each_other() {
    let mut top: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, named) in graph(&src()) {
        let from: Module = module.iter().take(1).cloned().collect();
        let entry = top.entry(from.clone()).or_default();
        for target in named {
            let to: Module = target.iter().take(1).cloned().collect();
            if to != from && !to.is_empty() && !from.is_empty() {
                entry.insert(to);
            }
        }
    }
    let named = named(&cycles(&top));
    assert!(
        named.is_empty(),
        "cycles between top-level modules: {named:#?}"
    );
}

/// Writes a made-up crate of `(path, text)` files into a new folder.
fn made_up(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// The reader itself: the cycle a file and its sibling make, through a
/// `use` group and an inline path, is found; one in a comment, a string
/// or an item only tests build is not.
#[test]
fn the_reader_finds_a_cycle_and_only_in_code() {
    let dir = made_up(&[
        ("lib.rs", "pub mod a;\n"),
        ("a/mod.rs", "pub mod b;\npub mod c;\npub mod d;\n"),
        (
            "a/b.rs",
            "use super::{c::{self, X}, d};\n// crate::a::d is named here only in words\n",
        ),
        ("a/c.rs", "fn f() { crate::a::b::g(); }\n"),
        (
            "a/d.rs",
            "const S: &str = \"crate::a::b\";\nconst R: &str = r#\"super::b\"#;\n\
             const Q: [char; 2] = ['\\'', '\\u{22}'];\nconst T: &str = \"crate::a::b\";\n\
             #[cfg(test)]\nmod tests { use super::super::b; }\n\
             #[cfg(test)]\n#[allow(dead_code)]\nmod more { use crate::a::b; }\n\
             #[cfg(test)]\nuse crate::a::b as _;\n\
             #[cfg(test)]\nfn t() { crate::a::b::g(); }\n",
        ),
    ]);
    assert_eq!(named(&cycles(&graph(dir.path()))), ["a::b <-> a::c"]);
}

/// A path through a parent's re-export (`pub use c::Thing` in `a`, used
/// as `super::Thing`) names the file that defines it, and a path from a
/// name a `use` bound (`use crate::a;` then `a::b::g()`) is followed.
#[test]
fn the_reader_follows_re_exports_and_bound_names() {
    let dir = made_up(&[
        ("lib.rs", "pub mod a;\n"),
        ("a/mod.rs", "pub mod b;\npub mod c;\npub use c::Thing;\n"),
        ("a/b.rs", "use super::Thing;\n"),
        ("a/c.rs", "use crate::a;\nfn f() { a::b::g(); }\n"),
    ]);
    assert_eq!(named(&cycles(&graph(dir.path()))), ["a::b <-> a::c"]);
    let dir = made_up(&[
        ("lib.rs", "pub mod a;\n"),
        ("a/mod.rs", "pub mod b;\npub mod c;\npub use c::Thing;\n"),
        ("a/b.rs", "use super::Thing;\n"),
        ("a/c.rs", "fn f() {}\n"),
    ]);
    assert!(cycles(&graph(dir.path())).is_empty());
}
