//! The house's layering (STYLE "stages import only downward"; issue 10 "no
//! import cycle"): takes the source files under `src/`, reads every path
//! they name (`use crate::…`, `super::…`, `self::…`, also written inline)
//! and gives a failure naming the files of any cycle among them. A module
//! and its own submodules are one thing here (a parent re-exports its
//! children, a child uses its parent's types), so only the paths between
//! modules neither of which holds the other count; test modules are left
//! out.

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
        } else if bytes[i] == b'\'' && char_literal_len(rest).is_some() {
            i += char_literal_len(rest).unwrap();
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
/// `'\u{41}'`, `'é'`), or `None` for a lifetime (`'a`).
fn char_literal_len(rest: &[u8]) -> Option<usize> {
    if rest.get(1) == Some(&b'\\') {
        let close = rest[2..].iter().position(|&b| b == b'\'')?;
        return Some(close + 3);
    }
    let text = std::str::from_utf8(rest).ok()?;
    let c = text[1..].chars().next()?;
    let end = 1 + c.len_utf8();
    (rest.get(end) == Some(&b'\'')).then_some(end + 1)
}

/// The code without its `#[cfg(test)]` modules (`mod tests { … }`).
fn without_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = rest[at + "#[cfg(test)]".len()..].trim_start();
        let Some(body) = after.strip_prefix("mod ") else {
            rest = &rest[at + 1..];
            continue;
        };
        let Some(open) = body.find(['{', ';']) else {
            break;
        };
        if body.as_bytes()[open] == b';' {
            rest = &body[open + 1..];
            continue;
        }
        let mut depth = 0;
        let mut end = body.len();
        for (i, b) in body.bytes().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &body[end..];
    }
    out.push_str(rest);
    out
}

/// Every path the code names from `crate`, `super` or `self`, each as its
/// segments, with `use` groups (`a::{b, c::{d}}`) spread out.
fn paths(code: &str) -> Vec<Vec<String>> {
    let tokens = tokens(code);
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let starts = matches!(tokens[i].as_str(), "crate" | "super" | "self")
            && tokens.get(i + 1).map(String::as_str) == Some("::")
            && (i == 0 || tokens[i - 1] != "::");
        if starts {
            let mut prefix = Vec::new();
            i = use_tree(&tokens, i, &mut prefix, &mut found);
        } else {
            i += 1;
        }
    }
    found
}

/// Reads a path or a `use` tree from `tokens[i]`, under `prefix`; gives
/// where it stops.
fn use_tree(
    tokens: &[String],
    mut i: usize,
    prefix: &mut Vec<String>,
    found: &mut Vec<Vec<String>>,
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
                        Some(_) => i = use_tree(tokens, i, prefix, found),
                    }
                }
                prefix.truncate(depth);
                return i;
            }
            Some(word) if word.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                prefix.push(word.to_string());
                i += 1;
                if tokens.get(i).map(String::as_str) == Some("::") {
                    i += 1;
                    continue;
                }
                found.push(prefix.clone());
                prefix.truncate(depth);
                return i;
            }
            _ => {
                if prefix.len() > depth {
                    found.push(prefix.clone());
                }
                prefix.truncate(depth);
                return i;
            }
        }
    }
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

/// The module a path from `from` names: the longest of its prefixes that
/// is a module of the crate.
fn resolve(from: &Module, path: &[String], known: &BTreeMap<Module, PathBuf>) -> Option<Module> {
    let mut base: Module = match path.first()?.as_str() {
        "crate" => Vec::new(),
        "self" => from.clone(),
        "super" => from[..from.len().checked_sub(1)?].to_vec(),
        _ => return None,
    };
    for segment in &path[1..] {
        if segment == "super" {
            base.pop();
        } else {
            base.push(segment.clone());
        }
    }
    while !base.is_empty() && !known.contains_key(&base) {
        base.pop();
    }
    Some(base)
}

fn holds(outer: &Module, inner: &Module) -> bool {
    outer.len() <= inner.len() && inner[..outer.len()] == outer[..]
}

/// The modules each module names, parents and children aside.
fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let known = modules(src);
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, file) in &known {
        let text = std::fs::read_to_string(file).unwrap();
        let code = without_test_modules(&code_only(&text));
        let named = edges.entry(module.clone()).or_default();
        for path in paths(&code) {
            if let Some(target) = resolve(module, &path, &known)
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

/// The reader itself: the cycle a file and its sibling make, through a
/// `use` group and an inline path, is found; one in a comment, a string
/// or a test module is not.
#[test]
fn the_reader_finds_a_cycle_and_only_in_code() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\n").unwrap();
    std::fs::write(src.join("a/mod.rs"), "pub mod b;\npub mod c;\npub mod d;\n").unwrap();
    std::fs::write(
        src.join("a/b.rs"),
        "use super::{c::{self, X}, d};\n// crate::a::d is named here only in words\n",
    )
    .unwrap();
    std::fs::write(src.join("a/c.rs"), "fn f() { crate::a::b::g(); }\n").unwrap();
    std::fs::write(
        src.join("a/d.rs"),
        "const S: &str = \"crate::a::b\";\nconst R: &str = r#\"super::b\"#;\n\
         #[cfg(test)]\nmod tests { use super::super::b; }\n",
    )
    .unwrap();
    assert_eq!(named(&cycles(&graph(src))), ["a::b <-> a::c"]);
}
