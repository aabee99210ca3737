//! The compiled matcher against plain readings: `decide_by_scan` (every
//! pattern tried in turn), the shared reference glob of the property
//! tests, and hostile families of patterns that must stay cheap.

use super::super::normalize::target_form_into;
use super::pass::dfa_for;
use super::*;
use proptest::prelude::*;

#[test]
fn long_runs_of_one_octet_take_the_nfa_and_still_match() {
    // A hostile `Disallow: /*aaaa…`: the DFA's build would follow a
    // failure link as long as the run at every state.
    let long = vec![b'a'; 450_000];
    assert!(matches!(search_for(&[&long[..]]), Some(Pass::Nfa(..))));
    // Ordinary pieces keep the DFA.
    let short: Vec<Vec<u8>> = (0..20_000)
        .map(|i| format!("x{i:05}").into_bytes())
        .collect();
    let pieces: Vec<&[u8]> = short.iter().map(Vec::as_slice).collect();
    assert!(matches!(search_for(&pieces), Some(Pass::Dfa { .. })));
    // And a run past the bound matches as it should.
    let run = "a".repeat(5000);
    let pattern = format!("User-agent: *\nDisallow: /*{run}\n");
    let robots = crate::robots::Robots::new(pattern.as_bytes());
    let rules = robots.rules_for(b"SeznamBot");
    assert!(!rules.judge(format!("/x{run}y").as_bytes()).allowed);
    assert!(rules.judge(format!("/x{}y", &run[1..]).as_bytes()).allowed);
}

#[test]
fn single_patterns() {
    // (pattern, whole_path, target, matches)
    let cases: &[(&str, bool, &str, bool)] = &[
        ("/", false, "/", true),
        ("/", false, "/anything", true),
        ("/fish", false, "/fish", true),
        ("/fish", false, "/fish.html", true),
        ("/fish", false, "/fish/salmon.html", true),
        ("/fish", false, "/fishheads", true),
        ("/fish", false, "/fishheads/yummy.html", true),
        ("/fish", false, "/fish.php?id=anything", true),
        ("/fish", false, "/Fish.asp", false),
        ("/fish", false, "/catfish", false),
        ("/fish", false, "/?id=fish", false),
        ("/fish*", false, "/fishheads", true),
        ("/fish*", false, "/Fish.asp", false),
        ("/fish/", false, "/fish/", true),
        ("/fish/", false, "/fish/?id=anything", true),
        ("/fish/", false, "/fish", false),
        ("/fish/", false, "/fish.html", false),
        ("/*.php", false, "/filename.php", true),
        ("/*.php", false, "/folder/filename.php", true),
        ("/*.php", false, "/folder/filename.php?parameters", true),
        ("/*.php", false, "/folder/any.php.file.html", true),
        ("/*.php", false, "/", false),
        ("/*.php", false, "/windows.PHP", false),
        ("/*.php$", false, "/filename.php", true),
        ("/*.php$", false, "/folder/filename.php", true),
        ("/*.php$", false, "/filename.php?parameters", false),
        ("/*.php$", false, "/filename.php/", false),
        ("/*.php$", false, "/filename.php5", false),
        ("/fish*.php", false, "/fish.php", true),
        (
            "/fish*.php",
            false,
            "/fishheads/catfish.php?parameters",
            true,
        ),
        ("/fish*.php", false, "/Fish.PHP", false),
        ("/a$b", false, "/a$b", true),
        ("/a$b", false, "/a%24b", true),
        ("/a%24b", false, "/a$b", true),
        ("/a$$", false, "/a$", true),
        ("/a$$", false, "/a$b", false),
        ("*", false, "/x", true),
        ("*$", false, "/x", true),
        ("/*a*b*c$", false, "/xaybzc", true),
        ("/*a*b*c$", false, "/xaybzcd", false),
        ("/*ab*b$", false, "/abab", true),
        ("/*aa$", false, "/aaa", true),
        ("/a*a$", false, "/a", false),
        ("private", false, "/private", false),
        (
            "/path/file-with-a-%2A.html",
            false,
            "/path/file-with-a-*.html",
            true,
        ),
        (
            "/path/file-with-a-%2A.html",
            false,
            "/path/file-with-a-x.html",
            false,
        ),
        ("/path/foo-%24", false, "/path/foo-$", true),
        ("/path/foo-%24", false, "/path/foo-", false),
        (
            "/path/file-with-a-%2A.html",
            false,
            "/path/file-with-a-%2a.html",
            true,
        ),
        (
            "/path/file-with-a-*.html",
            false,
            "/path/file-with-a-%2A.html",
            true,
        ),
        // Octet by octet: a `*` may end inside an escape (SPEC §3).
        ("/*A", false, "/%2A", true),
        ("/*A", false, "/*", false),
        ("*A", false, "/%C3%A3", true),
        ("/*A3$", false, "/%C3%A3", true),
        ("/*%A3$", false, "/%C3%A3", true),
        ("/*3", false, "/%C3", true),
        ("/*25", false, "/%25", true),
        ("/*%25", false, "/%", true),
        ("/*url=http%3A", false, "/out?url=http%3A//x", true),
        ("/*url=http%3A", false, "/out?url=http%3a//x", true),
        ("/*url=http:", false, "/out?url=http%3A//x", false),
        ("/*url=http%3A", false, "/out?url=http://x", false),
        ("/a b", false, "/a%20b", true),
        ("/a|b", false, "/a%7cb", true),
        ("/a%7C", false, "/a|b", true),
        ("/a\"b", false, "/a%22b", true),
        // Seznam Robot-version 2.0: whole path unless it ends with `*`.
        ("/fish", true, "/fish", true),
        ("/fish", true, "/fish.html", false),
        ("/fish*", true, "/fish.html", true),
        ("/*.php", true, "/a.php", true),
        ("/*.php", true, "/a.php?x", false),
        ("/fish$", true, "/fish", true),
        ("/", true, "/", true),
        ("/", true, "/a", false),
    ];
    for &(pattern, whole_path, target, expected) in cases {
        let compiled = Pattern::compile(pattern.as_bytes(), whole_path);
        let form = Form::of(target.as_bytes());
        let target_form = form.target();
        assert_eq!(
            compiled.matches(target_form),
            expected,
            "{pattern} (whole path {whole_path}) on {target}"
        );
    }
}

#[test]
fn runs_of_stars_keep_one_piece() {
    // (pattern, pieces kept, anchored)
    let cases: &[(&str, usize, bool)] = &[
        ("/*", 0, false),
        ("/**", 0, false),
        ("/*$", 0, false),
        ("/***$", 0, false),
        ("/**a**b", 2, false),
        ("/**a**b**", 2, false),
        ("/**a**b**$", 2, false),
        ("/**a**b$", 2, true),
        ("/a", 0, false),
        ("/a$", 0, true),
    ];
    for &(pattern, kept, anchored) in cases {
        let compiled = Pattern::compile(pattern.as_bytes(), false);
        assert_eq!(
            (compiled.pieces.len(), compiled.anchored),
            (kept, anchored),
            "{pattern}"
        );
    }
    let many = format!("/{}x{}", "*".repeat(100_000), "*".repeat(100_000));
    assert_eq!(Pattern::compile(many.as_bytes(), false).pieces.len(), 1);
    // Runs of stars read as one star.
    let cases: &[(&str, &str, bool)] = &[
        ("/**$", "/abc", true),
        ("/**$", "/", true),
        ("/a**$", "/a", true),
        ("/a***b$", "/ab", true),
        ("/a***b$", "/axb", true),
        ("/a***b$", "/axbc", false),
        ("/***%A3", "/%C3%A3", true),
        ("/***A3", "/%C3%A3", true),
        ("/***A3", "/%C3%B3", false),
    ];
    for &(pattern, target, expected) in cases {
        let compiled = Pattern::compile(pattern.as_bytes(), false);
        assert_eq!(
            compiled.matches(target.as_bytes()),
            expected,
            "{pattern} on {target}"
        );
        let matcher = Matcher::new(vec![compiled]);
        assert_eq!(
            matcher.decide(target.as_bytes()).is_some(),
            expected,
            "{pattern} on {target}"
        );
    }
}

#[test]
fn equal_pieces_share_one_id() {
    let matcher = Matcher::new(
        ["/*ab", "/x*ab$", "/*cd*ab", "/*e", "/*cd", "/q"]
            .iter()
            .map(|p| Pattern::compile(p.as_bytes(), false))
            .collect(),
    );
    let texts: Vec<&[u8]> = (0..matcher.pieces.len() as u32)
        .map(|id| matcher.pieces.text(id))
        .collect();
    assert_eq!(texts, [&b"ab"[..], b"cd", b"e"]);
    // By first piece: `/*ab` a node, `/x*ab$` checked at the end;
    // `/*cd*ab` and `/*cd` share the node of `cd`.
    let first: Vec<Vec<(u32, bool)>> = (0..matcher.pieces.len() as u32)
        .map(|id| {
            let starts = matcher.pieces.starting_with(id);
            starts
                .iter()
                .map(|start| (start.min, start.node == NO_NODE))
                .collect()
        })
        .collect();
    assert_eq!(
        first,
        [
            vec![(0, false), (1, true)],
            vec![(2, false)],
            vec![(3, false)]
        ]
    );
    assert!(matcher.pieces.starting_with(3).is_empty());
    let cd = matcher.pieces.starting_with(1)[0].node;
    let node = matcher.pieces.node(cd);
    let children: Vec<(u32, u32)> = node.children().map(|c| (c.piece, c.min)).collect();
    assert_eq!((node.own, children), (4, vec![(0, 2)]));
}

/// Pieces that end one another (`a`, `aa`, … `a`×300): every octet of a
/// run of `a` reports all of them. A match state or piece that had
/// nothing to do is passed over until a pattern moves on; the answers
/// stay those of trying every pattern, for patterns that move (`*b`
/// after the run), that move back onto a piece they left (`*a*a`), and
/// for both the DFA and the NFA pass.
#[test]
fn pieces_that_end_one_another_are_judged_as_every_pattern_alone() {
    for (count, nfa) in [(60, false), (600, true)] {
        let mut written: Vec<String> = (1..=count)
            .flat_map(|i| {
                let run = "a".repeat(i);
                [
                    format!("/zz*{run}"),
                    format!("/*{run}*b"),
                    format!("/*{run}*a*{run}$"),
                ]
            })
            .collect();
        written.push("/*c".to_string());
        let matcher = Matcher::new(
            written
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        assert_eq!(
            matches!(matcher.pieces.searcher, Some(Pass::Nfa(..))),
            nfa,
            "{count} pieces"
        );
        // A piece with no pattern to list (`/zz` starts no target here)
        // is idle until a pattern moves on to it (`/*b*a` after `b`).
        let late = Matcher::new(
            ["/zz*a", "/zz*ba", "/*b*a", "/*b*ba$"]
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        for target in ["/aba", "/aaba", "/abba", "/ab", "/abca", "/acbca"] {
            assert_eq!(
                late.decide(target.as_bytes()),
                late.decide_by_scan(target.as_bytes()),
                "{target}"
            );
        }
        let run = "a".repeat(2 * count + 7);
        for target in [
            format!("/{run}"),
            format!("/{run}b"),
            format!("/zz{run}"),
            format!("/x{}b{}", "a".repeat(count / 2), "a".repeat(count / 3)),
            format!("/{}%2Ab{run}c", "a".repeat(count)),
            format!("/{run}%24"),
            "/c".to_string(),
        ] {
            assert_eq!(
                matcher.decide(target.as_bytes()),
                matcher.decide_by_scan(target.as_bytes()),
                "{target:.40}"
            );
        }
    }
}

/// A pattern moving between its pieces (`/*b*c*b*c…`) wakes only the
/// states of the pieces it moves to: the states of a run of `a`s that
/// had nothing to do stay passed over, until a pattern waits for one
/// of their pieces (`/*b*aaa*c`), and the verdict is every pattern's
/// read alone, through the DFA and the NFA alike.
#[test]
fn moves_wake_only_the_states_of_their_pieces() {
    for (count, nfa) in [(40, false), (700, true)] {
        let mut written: Vec<String> = (1..=count)
            .map(|k| format!("/zz*{}", "a".repeat(k)))
            .collect();
        written.push(format!("/{}", "*b*c".repeat(20)));
        written.push(format!("/*b*{}*c$", "a".repeat(count / 2)));
        written.push(format!("/*c*{}b*{}x", "a".repeat(3), "a".repeat(count)));
        let block = format!("{a}b{a}c", a = "a".repeat(count));
        let targets = [
            format!("/{}", block.repeat(25)),
            format!("/{}", block.repeat(3)),
            format!("/{}c", "a".repeat(count / 2)),
            format!("/b{}c", "a".repeat(count / 2)),
            format!("/b{}c", "a".repeat(count / 2 - 1)),
            format!("/{}caaab{}x", block, "a".repeat(count)),
            format!("/caaab{}", "a".repeat(count)),
            format!("/zz{}", block),
        ];
        let written: Vec<&str> = written.iter().map(String::as_str).collect();
        let targets: Vec<&[u8]> = targets.iter().map(|t| t.as_bytes()).collect();
        let matcher = agree(&written, &targets);
        assert_eq!(
            matches!(matcher.pieces.searcher, Some(Pass::Nfa(..))),
            nfa,
            "{count} pieces"
        );
    }
}

/// Pieces that end one another (`/*a*b`, `/*aa*b`, …) against a run
/// of `a`s: each new state of the pass reports every shorter run, but
/// is walked as a chain that stops at the states found quiet, so the
/// steps grow with the target, not with the pieces times the states
/// (SPEC §5); and a pattern whose next piece overlaps its last
/// (`/*aaa*aaa`) waits apart instead of being walked at each octet.
/// Through the DFA (a few pieces) and the NFA (many) alike, every
/// verdict the plain reading's.
#[test]
fn pieces_that_end_one_another_cost_steps_the_target_bounds() {
    for (count, nfa) in [(30, false), (900, true)] {
        let written: Vec<String> = (1..=count)
            .map(|k| format!("/*{}*b", "a".repeat(k)))
            .collect();
        let written: Vec<&str> = written.iter().map(String::as_str).collect();
        let long = format!("/{}", "a".repeat(count + 100));
        let targets = [
            long.as_bytes().to_vec(),
            format!("{long}b").into_bytes(),
            format!("/{}b", "a".repeat(count / 2)).into_bytes(),
        ];
        let targets: Vec<&[u8]> = targets.iter().map(Vec::as_slice).collect();
        let matcher = agree(&written, &targets);
        assert_eq!(
            matches!(matcher.pieces.searcher, Some(Pass::Nfa(..))),
            nfa,
            "{count} pieces"
        );
        let steps = |target: &[u8]| {
            SCRATCH.with(|scratch| {
                let before = scratch.borrow().steps;
                matcher.decide(target);
                scratch.borrow().steps - before
            })
        };
        let taken = steps(long.as_bytes());
        assert!(
            taken <= 8 * long.len() as u64,
            "{taken} steps for {} octets and {count} pieces",
            long.len()
        );
    }
    // Overlapping pieces of one pattern: a pattern is walked about
    // once an occurrence it may take, not at every octet between.
    let written =
        ["/*aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa*aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa*b"];
    let long = format!("/{}", "a".repeat(5000));
    let targets = [
        long.as_bytes(),
        b"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
    ];
    let matcher = agree(&written, &targets);
    SCRATCH.with(|scratch| {
        let before = scratch.borrow().steps;
        matcher.decide(long.as_bytes());
        let taken = scratch.borrow().steps - before;
        assert!(taken <= 4 * long.len() as u64, "{taken} steps");
    });
}

/// A hostile robots.txt: tens of thousands of wildcard rules whose
/// pieces share their letters, and targets holding hundreds of them.
#[test]
fn many_wildcard_rules_and_targets_full_of_their_pieces() {
    let written: Vec<String> = (0..20_000).map(|i| format!("/*x{i:05}*zz")).collect();
    let matcher = Matcher::new(
        written
            .iter()
            .map(|p| Pattern::compile(p.as_bytes(), false))
            .collect(),
    );
    // Every piece present, but `zz` only before them: nothing matches.
    let pieces: String = (0..400).map(|i| format!("x{:05}", i * 37)).collect();
    let target = format!("/zz{pieces}");
    assert_eq!(matcher.decide(target.as_bytes()), None);
    assert_eq!(matcher.decide_by_scan(target.as_bytes()), None);
    // `zz` at the end: the first of them in precedence order decides.
    let target = format!("/{pieces}zz");
    assert_eq!(matcher.decide(target.as_bytes()), Some(0));
    let target = format!("/x19999{pieces}zz");
    assert_eq!(matcher.decide(target.as_bytes()), Some(0));
    let target = "/x19999/zz";
    assert_eq!(matcher.decide(target.as_bytes()), Some(19_999));
    assert_eq!(matcher.decide_by_scan(target.as_bytes()), Some(19_999));
}

#[test]
fn pieces_and_scan_agree_on_overlaps_and_repeats() {
    let patterns = [
        "/*ab*ab$", "/*aba", "/*ab*ba", "/*a*a*a$", "/x*$", "/*b$", "/a*b*c", "/*ab*", "*cc*c",
        "/*%2A*A",
    ];
    let targets = [
        "/ab", "/abab", "/aba", "/abba", "/aaa", "/aa", "/x", "/xb", "/b", "/acbc", "/abc", "/ccc",
        "/cc", "/%2A", "/%2AA", "/ababab", "/bab", "",
    ];
    // Every ordering of a few patterns, so each can be first.
    for rotate in 0..patterns.len() {
        let mut order = patterns.to_vec();
        order.rotate_left(rotate);
        let matcher = Matcher::new(
            order
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        for target in targets {
            assert_eq!(
                matcher.decide(target.as_bytes()),
                matcher.decide_by_scan(target.as_bytes()),
                "{target} with {order:?}"
            );
        }
    }
}

impl Matcher {
    /// The distinct pieces, by id.
    fn distinct_pieces(&self) -> Vec<&[u8]> {
        (0..self.pieces.len() as u32)
            .map(|id| self.pieces.text(id))
            .collect()
    }
}

/// Builds a matcher of `written` patterns and holds `decide` against
/// the plain reading on every target; gives the matcher.
fn agree(written: &[&str], targets: &[&[u8]]) -> Matcher {
    let matcher = Matcher::new(
        written
            .iter()
            .map(|p| Pattern::compile(p.as_bytes(), false))
            .collect(),
    );
    for target in targets {
        assert_eq!(
            matcher.decide(target),
            matcher.decide_by_scan(target),
            "{} with {written:?}",
            String::from_utf8_lossy(target)
        );
    }
    matcher
}

#[test]
fn chains_handle_repeats_prefixes_anchors_and_odd_targets() {
    // Repeated pieces in one pattern: the pattern waits on the chain
    // of the piece it just took.
    let m = agree(
        &["/*ab*ab*ab$", "/*ab*ab"],
        &[b"/ab", b"/abab", b"/ababab", b"/aabbab", b"/abababx"],
    );
    assert_eq!(m.decide(b"/ababab"), Some(0));
    assert_eq!(m.decide(b"/abab"), Some(1));
    // A piece equal to its pattern's prefix, and prefixes longer than
    // the four octets compared at once.
    let m = agree(
        &["/abcdef*/abcdef$", "/ab*/ab", "/abcdeg*x"],
        &[
            b"/ab",
            b"/ab/ab",
            b"/abcdef/abcdef",
            b"/abcdef/abcdefg",
            b"/abcdegx",
            b"/abcdefx",
        ],
    );
    assert_eq!(m.decide(b"/abcdef/abcdef"), Some(0));
    assert_eq!(m.decide(b"/ab/ab"), Some(1));
    assert_eq!(m.decide(b"/abcdef/abcdefg"), Some(1));
    assert_eq!(m.decide(b"/abcdefx"), None);
    // Anchored patterns of one piece and of several; targets that
    // start with `*`, are shorter than a prefix, or are empty.
    let m = agree(
        &["/*.php$", "*a*b$", "**x", "/*$", "%2A*q"],
        &[
            b"", b"*", b"*q", b"%2Aq", b"/x.php", b"/x.php?", b"ab", b"*ab", b"x", b"/",
        ],
    );
    assert_eq!(m.decide(b""), None);
    assert_eq!(m.decide(b"*ab"), Some(1));
    // In matching form a `*` of the target is `%2A`, one character.
    let form = Form::of(b"*q");
    let star_q = form.target();
    assert_eq!(m.decide(star_q), Some(4));
    assert_eq!(m.decide_by_scan(star_q), Some(4));
    assert_eq!(m.decide(b"x"), Some(2));
}

/// A target in matching form and where its literal `*` and `$` are.
/// A target in matching form, owned: its octets and where its literal
/// `*` and `$` stand.
struct Form(Vec<u8>, Vec<u32>);

impl Form {
    fn of(target: &[u8]) -> Form {
        let (mut octets, mut literals) = (Vec::new(), Vec::new());
        target_form_into(target, &mut octets, &mut literals);
        Form(octets, literals)
    }

    fn target(&self) -> Target<'_> {
        Target {
            octets: &self.0,
            literals: &self.1,
        }
    }
}

/// Regression: a target's literal `*` and `$` were three octets
/// `%2A` and `%24`, so a piece could begin inside them and `/*A`
/// matched `/*` (SPEC §3: they are one character each).
#[test]
fn wildcards_do_not_split_a_literal_star_or_dollar() {
    // (pattern in written normal form, target as logged, matches)
    let cases: &[(&str, &str, bool)] = &[
        ("/*A", "/*", false),
        ("/*A", "/q*", false),
        ("/*4$", "/x$", false),
        ("/*4$", "/q$", false),
        ("*A", "*", false),
        ("/*2A", "/*", false),
        ("/*Ab", "/*b", false),
        ("/*a*4$", "/a$", false),
        ("/*a*4$", "/a$4", true),
        ("/*A", "/*A", true),
        // A target's escape is three octets, as ever.
        ("/*A", "/%2A", true),
        ("/*2A", "/%2a", true),
        ("/*4$", "/x%24", true),
        // A pattern's `%2A` and `%24` match the literal and the escape.
        ("/a%2Ab", "/a*b", true),
        ("/a%2Ab", "/a%2Ab", true),
        ("/a%2Ab", "/aXb", false),
        ("/a%2Ab", "/a%2A%2Ab", false),
        ("/x%24", "/x$", true),
        ("/x%24", "/x%24", true),
        ("/x%24", "/x", false),
        ("/a$b", "/a$b", true),
        ("/a$b", "/a%24b", true),
        ("/*%2A", "/a*", true),
        ("/*%2A$", "/a*", true),
        ("/*%2A$", "/a*b", false),
        ("/%2A*", "/*x", true),
        ("/%2A", "/*", true),
        ("/%2A$", "/*", true),
        ("/*%2A%24$", "/x*$", true),
        ("/*%2A%24$", "/x*%24", true),
        ("/*%24%2A", "/x$%2A", true),
        ("/*A%2A", "/%2A*", true),
        ("/*A%2A", "/**", false),
    ];
    let compiled: Vec<Pattern> = cases
        .iter()
        .map(|&(pattern, _, _)| Pattern::compile(pattern.as_bytes(), false))
        .collect();
    for (&(pattern, target, expected), compiled) in cases.iter().zip(&compiled) {
        let form = Form::of(target.as_bytes());
        let target_form = form.target();
        assert_eq!(
            compiled.matches(target_form),
            expected,
            "{pattern} on {target}"
        );
        let alone = Matcher::new(vec![compiled.clone()]);
        assert_eq!(
            alone.decide(target_form).is_some(),
            expected,
            "{pattern} on {target}, compiled"
        );
    }
    // All at once, in every rotation, the automaton against the scan.
    for rotate in 0..compiled.len() {
        let mut order = compiled.clone();
        order.rotate_left(rotate);
        let matcher = Matcher::new(order);
        for &(_, target, _) in cases {
            let form = Form::of(target.as_bytes());
            let target_form = form.target();
            assert_eq!(
                matcher.decide(target_form),
                matcher.decide_by_scan(target_form),
                "{target} rotated {rotate}"
            );
        }
    }
}

#[test]
fn target_splits_only_inside_its_literals() {
    let target = Target {
        octets: b"/%2A%24x",
        literals: &[1, 4],
    };
    let split: Vec<usize> = (0..=8).filter(|&at| target.splits(at)).collect();
    assert_eq!(split, [2, 3, 5, 6]);
    assert!(!Target::from(b"/%2A").splits(2));
}

#[test]
fn more_than_two_to_the_sixteen_events() {
    let long = format!("/{}b", "a".repeat(70_000));
    let late = format!("/{}c", "a".repeat(70_000));
    let m = agree(
        &["/*aa*ab$", "/*a*c", "/*b*a"],
        &[long.as_bytes(), late.as_bytes()],
    );
    assert_eq!(m.decide(long.as_bytes()), Some(0));
    assert_eq!(m.decide(late.as_bytes()), Some(1));
    // Hundreds of distinct pieces in one target grow the table of
    // chains several times over.
    let written: Vec<String> = (0..3000).map(|i| format!("/*y{i:04}*z{i:04}$")).collect();
    let written: Vec<&str> = written.iter().map(String::as_str).collect();
    let body: String = (0..3000).rev().map(|i| format!("y{i:04}")).collect();
    let hit = format!("/{body}z0007");
    let miss = format!("/z0007{body}");
    let m = agree(&written, &[hit.as_bytes(), miss.as_bytes()]);
    assert_eq!(m.decide(hit.as_bytes()), Some(7));
    assert_eq!(m.decide(miss.as_bytes()), None);
}

#[test]
fn dfa_and_nfa_passes_agree() {
    // Few pieces get the DFA; many pieces over many octets would make
    // its table large and get the contiguous NFA.
    let small = agree(&["/*ab*cd"], &[b"/abcd"]);
    assert!(matches!(small.pieces.searcher, Some(Pass::Dfa { .. })));
    let octets: Vec<char> = ('a'..='z').chain('A'..='Z').chain('0'..='9').collect();
    // Eight base-62 digits of a scrambled `i`: distinct pieces.
    let piece = |i: usize| -> String {
        let mut x = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8;
        (0..8)
            .map(|_| {
                let digit = octets[(x % 62) as usize];
                x /= 62;
                digit
            })
            .collect()
    };
    let written: Vec<String> = (0..10_000)
        .map(|i| format!("/*{}*{}$", piece(i), piece(i + 1)))
        .collect();
    let written: Vec<&str> = written.iter().map(String::as_str).collect();
    let targets: Vec<String> = (0..50)
        .map(|n| {
            let body: String = (n..n + 40).map(piece).collect();
            format!("/{body}")
        })
        .collect();
    let targets: Vec<&[u8]> = targets.iter().map(|t| t.as_bytes()).collect();
    let large = agree(&written, &targets);
    assert!(matches!(large.pieces.searcher, Some(Pass::Nfa(..))));
    let dfa = Matcher {
        pieces: Pieces {
            searcher: dfa_for(&large.distinct_pieces()),
            ..large.pieces.clone()
        },
        ..large.clone()
    };
    assert!(matches!(dfa.pieces.searcher, Some(Pass::Dfa { .. })));
    for target in &targets {
        assert_eq!(dfa.decide(target), large.decide(target));
    }
    assert!(targets.iter().any(|t| large.decide(t).is_some()));
}

/// Literal rules as long as a robots.txt of 500 KiB can hold: the tree
/// keeps each octet once and a node a rule or so (a node an octet made
/// such a file cost tens of MiB a compiled version), and decides as
/// the plain reading does — on the rules, on targets that stop inside
/// a label, run past it, or turn off it.
#[test]
fn long_literal_rules_cost_about_their_size() {
    let tail = "abc".repeat(150);
    let written: Vec<String> = (0..1080)
        .map(|k| format!("/r{k}{tail}"))
        .chain(["/r1", "/r10", "/r10abc", "/r10abc$", "/"].map(String::from))
        .collect();
    let matcher = Matcher::new(
        written
            .iter()
            .map(|p| Pattern::compile(p.as_bytes(), false))
            .collect(),
    );
    let octets: usize = written.iter().map(String::len).sum();
    let (label_octets, nodes) = matcher.literal.sizes();
    assert!(label_octets <= octets, "{label_octets} of {octets}");
    assert!(nodes <= 2 * written.len() + 1, "{nodes} nodes");
    let mut targets: Vec<String> = written.iter().take(50).cloned().collect();
    targets.extend(
        [
            "/r1",
            "/r10ab",
            "/r10abc",
            "/r10abcabd",
            "/r7abcab",
            "/s",
            "",
        ]
        .map(String::from),
    );
    targets.push(format!("/r999{tail}/more"));
    targets.push(format!("/r999{}", &tail[..200]));
    for target in &targets {
        assert_eq!(
            matcher.decide(target.as_bytes()),
            matcher.decide_by_scan(target.as_bytes()),
            "{target}"
        );
    }
    assert_eq!(matcher.decide(b"/r10abc"), Some(1080));
    assert_eq!(matcher.decide(b"/r10"), Some(1080));
    assert_eq!(matcher.decide(b"/s"), Some(1084));
}

#[test]
fn trie_and_scan_agree() {
    let patterns = ["/a/b/c", "/a/*", "/a/b", "/a", "/", "/*.gif$", "/x*y", "*z"];
    let matcher = Matcher::new(
        patterns
            .iter()
            .map(|p| Pattern::compile(p.as_bytes(), false))
            .collect(),
    );
    let targets = [
        "/", "/a", "/a/", "/a/b", "/a/b/c/d", "/b.gif", "/xy", "/q/z", "/a/b.gif", "",
    ];
    for target in targets {
        assert_eq!(
            matcher.decide(target.as_bytes()),
            matcher.decide_by_scan(target.as_bytes()),
            "{target}"
        );
    }
    assert_eq!(matcher.decide(b"/a/b/c/d"), Some(0));
    assert_eq!(matcher.decide(b"/a/x"), Some(1));
    assert_eq!(matcher.decide(b"/b.gif"), Some(4));
    assert_eq!(matcher.decide(b""), None);
    let many: Vec<String> = (0..100).map(|i| format!("/*x{i:02}$")).collect();
    let matcher = Matcher::new(
        many.iter()
            .map(|p| Pattern::compile(p.as_bytes(), false))
            .collect(),
    );
    let all: String = (0..100).map(|i| format!("x{i:02}")).collect();
    let target = format!("/{all}");
    assert_eq!(matcher.decide(target.as_bytes()), Some(99));
    assert_eq!(matcher.decide(b"/x07"), Some(7));
    assert_eq!(matcher.decide(b"/x07/"), None);
    let empty = Matcher::new(Vec::new());
    assert_eq!(empty.decide(b"/"), None);
}

/// Patterns that share their prefix and first pieces share their
/// nodes: 20,000 rules `/*.php*sid*xNNNNN` are two nodes and a wide
/// one, so a short target that holds `.php` and `sid` costs a few
/// steps where it moved all 20,000 patterns twice (SPEC §5), and the
/// same with each last piece anchored; 900 rules of 32 shared `aa`s
/// and their own last piece against a run of `a`s walk one chain of
/// nodes, not 900. Every verdict the plain reading's.
#[test]
fn shared_first_pieces_are_moved_once() {
    for anchored in ["", "$"] {
        let written: Vec<String> = (0..20_000)
            .map(|i| format!("/*.php*sid*x{i:05}{anchored}"))
            .collect();
        let written: Vec<&str> = written.iter().map(String::as_str).collect();
        let targets: [&[u8]; 6] = [
            b"/a.php?sid=1",
            b"/index.php?sid=2&q=x00042",
            b"/index.php?sid=2&q=x19999",
            b"/a.php",
            b"/x00042.php?sid=",
            b"/sid.php?x00007",
        ];
        let matcher = agree(&written, &targets);
        for target in targets {
            let taken = SCRATCH.with(|scratch| {
                let before = scratch.borrow().steps;
                matcher.decide(target);
                scratch.borrow().steps - before
            });
            assert!(
                taken <= 4 * target.len() as u64,
                "{taken} steps for {}",
                String::from_utf8_lossy(target)
            );
        }
    }
    let written: Vec<String> = (1..=900)
        .map(|k| format!("/*{}*c{k}", ["aa"; 32].join("*")))
        .collect();
    let written: Vec<&str> = written.iter().map(String::as_str).collect();
    let long = format!("/{}", "a".repeat(8000));
    let targets = [
        long.as_bytes().to_vec(),
        format!("{long}c77").into_bytes(),
        format!("/{}c5", "a".repeat(63)).into_bytes(),
        format!("/{}c5", "a".repeat(64)).into_bytes(),
    ];
    let targets: Vec<&[u8]> = targets.iter().map(Vec::as_slice).collect();
    let matcher = agree(&written, &targets);
    let taken = SCRATCH.with(|scratch| {
        let before = scratch.borrow().steps;
        matcher.decide(long.as_bytes());
        scratch.borrow().steps - before
    });
    assert!(taken <= 8 * long.len() as u64, "{taken} steps");
}

/// Wide nodes' children found from either side: a piece that children
/// of two wide nodes take, when only one of them was reached, is found
/// from the nodes reached (`/*a*xN` and `/*b*xN`); a wide node's
/// anchored ends may not begin before it was reached (`/*ab*bN$` on
/// `/ab5`).
#[test]
fn wide_nodes_are_found_from_either_side() {
    let written: Vec<String> = (0..20)
        .flat_map(|n| {
            [
                format!("/*a*x{n}"),
                format!("/*b*x{n}"),
                format!("/*ab*b{n}$"),
            ]
        })
        .collect();
    let written: Vec<&str> = written.iter().map(String::as_str).collect();
    let targets: [&[u8]; 10] = [
        b"/ax5",
        b"/bx7",
        b"/x5a",
        b"/ab5",
        b"/abb5",
        b"/abx19",
        b"/bbx3b3",
        b"/ab",
        b"/x1ab1",
        b"/aab%2Ab1",
    ];
    let matcher = agree(&written, &targets);
    assert_eq!(matcher.pieces.wide_children.len(), 40);
    assert_eq!(matcher.pieces.wide_ends.len(), 1);
    assert_eq!(matcher.decide(b"/ab5"), None);
    assert_eq!(matcher.decide(b"/abb5"), Some(17));
    assert_eq!(matcher.decide(b"/bx7"), Some(22));
}

/// A piece reported by many states (`a`, by every run of `a`s) that
/// gains work is written down, not woken state by state; a quiet state
/// then runs it alone, only where it ends (`/*b*a` on `/cbc`: the
/// quiet state of `c` does not report `a`), and stays unquiet while it
/// has work it could not yet take (`/*ba*aa` on `/aabaaa`: `aa` after
/// `ba` overlaps it, and is taken two octets on). Through the DFA and
/// the NFA alike.
#[test]
fn pieces_woken_since_run_only_where_they_end() {
    for (count, nfa) in [(40, false), (700, true)] {
        let mut written: Vec<String> = (1..=count)
            .map(|k| format!("/*zz*{}", "a".repeat(k)))
            .collect();
        written.extend(["/*zz*c", "/*ba*aa", "/*b*a"].map(String::from));
        let written: Vec<&str> = written.iter().map(String::as_str).collect();
        let targets: [&[u8]; 7] = [
            b"/cbc",
            b"/cb",
            b"/aabaaa",
            b"/aabaa",
            b"/aaba",
            b"/caabcaaba",
            b"/aacbaaa",
        ];
        let matcher = agree(&written, &targets);
        assert_eq!(
            matches!(matcher.pieces.searcher, Some(Pass::Nfa(..))),
            nfa,
            "{count} pieces"
        );
        assert_eq!(matcher.decide(b"/cbc"), None);
        assert_eq!(matcher.decide(b"/aabaaa"), Some(count + 1));
        assert_eq!(matcher.decide(b"/aabaa"), Some(count + 2));
    }
}

/// Pieces for the shared paths below: few, so that paths share, and a
/// `*` or `$` escape of the target to split on.
const SHARED_PIECES: &[&str] = &["a", "b", "ab", "ba", "aa", "%2A", "c"];

/// Many patterns, in random precedence order, made of a few shared
/// paths and then tails from many distinct pieces, some anchored, with
/// a few prefixes: nodes with more than `WIDE` children and anchored
/// ends occur, and every verdict is the plain reading's.
fn shared_paths() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    let head = prop::collection::vec(prop::sample::select(SHARED_PIECES), 0..3);
    let heads = prop::collection::vec(head, 1..4);
    let tail = (
        0usize..4,
        prop::collection::vec(0usize..40, 0..3),
        any::<bool>(),
        prop::sample::select(&["/", "/", "/", "", "/a"][..]),
    );
    let tails = prop::collection::vec(tail, 40..200);
    let target = prop::collection::vec(
        prop::sample::select(
            &[
                "a", "b", "c", "ab", "x1", "x12", "x3", "x27", "x39", "%2A", "*", "$", "1", "2",
            ][..],
        ),
        0..14,
    )
    .prop_map(|p| format!("/{}", p.concat()));
    let targets = prop::collection::vec(target, 1..10);
    (heads, tails, targets).prop_map(|(heads, tails, targets)| {
        let written = tails
            .into_iter()
            .map(|(head, tail, anchored, prefix)| {
                let mut pattern = prefix.to_string();
                for piece in &heads[head % heads.len()] {
                    pattern.push('*');
                    pattern.push_str(piece);
                }
                for n in tail {
                    pattern.push('*');
                    pattern.push_str(&format!("x{n}"));
                }
                if anchored {
                    pattern.push('$');
                }
                pattern
            })
            .collect();
        (written, targets)
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn shared_paths_decide_as_each_pattern_alone((written, targets) in shared_paths()) {
        let matcher = Matcher::new(
            written
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        for target in &targets {
            prop_assert_eq!(
                matcher.decide(target.as_bytes()),
                matcher.decide_by_scan(target.as_bytes()),
                "{} with {:?}", target, written
            );
        }
    }
}

/// The strategy above makes wide nodes and wide anchored ends: at
/// least one case of a fixed seed's first hundred has each.
#[test]
fn shared_paths_make_wide_nodes() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut wide, mut wide_ends) = (false, false);
    for _ in 0..100 {
        let Ok(tree) = shared_paths().new_tree(&mut runner) else {
            continue;
        };
        let (written, _) = tree.current();
        let matcher = Matcher::new(
            written
                .iter()
                .map(|p| Pattern::compile(p.as_bytes(), false))
                .collect(),
        );
        wide |= !matcher.pieces.wide_children.is_empty();
        wide_ends |= !matcher.pieces.wide_ends.is_empty();
    }
    assert!(wide && wide_ends, "wide {wide}, wide ends {wide_ends}");
}
