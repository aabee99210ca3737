//! The robots.txt of a site, read once, and the verdicts it gives: takes the
//! file's bytes, gives for a crawler's token the rules it obeys and, for a
//! request target, whether the fetch was allowed and which line decided
//! (RFC 9309 §2.2; SPEC §3).

use std::borrow::Cow;
use std::cell::RefCell;
use std::cmp::Reverse;

use std::path::Path;
use std::sync::Arc;

use super::compile::{Matcher, Pattern, Target};
use super::glob::{Chars, Glob};
use super::group::{self, Group, Grouping, Reads, Rule};
use super::limits::{CrawlDelay, RequestRate};
use super::normalize::{is_matching_form, target_form_into};
use super::parse::{self, RobotsFile};
use crate::error::Result;

/// A parsed robots.txt with its groups as one kind of crawler reads them
/// (SPEC §3: which extension records end a run of user-agent lines depends
/// on the records the crawler reads). Immutable; share it by reference.
#[derive(Debug, Clone)]
pub struct Robots {
    file: Arc<RobotsFile>,
    grouping: Grouping,
    /// The file's other readings, when it holds lines read two ways (a
    /// `User-agent NAME` line without its colon, a Request-rate line that
    /// cannot be read; `group::other_readings`): a fetch is disallowed
    /// only when every reading disallows it.
    others: Arc<[Grouping]>,
    reads: Reads,
    /// SPEC §5 `robots_version`: the first 12 hex digits of the SHA-256 of
    /// the bytes read, to the 500 KiB limit.
    version: Arc<str>,
    /// The bytes read, to the limit and one past it: the file as written,
    /// for the report that shows it.
    bytes: Arc<[u8]>,
}

/// The other readings of `file` (`group::other_readings`), when
/// `grouping`, the first, noted lines read two ways.
fn other_groupings(file: &RobotsFile, grouping: &Grouping, reads: Reads) -> Arc<[Grouping]> {
    match grouping.read_two_ways() {
        true => group::other_readings(file, reads, grouping).into(),
        false => Arc::from([]),
    }
}

/// The `robots_version` of a robots.txt read as `bytes`.
pub fn version_of(bytes: &[u8]) -> Arc<str> {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(&bytes[..bytes.len().min(parse::SIZE_LIMIT)]);
    let mut hex = String::with_capacity(12);
    for octet in &digest[..6] {
        hex.push_str(&format!("{octet:02x}"));
    }
    Arc::from(hex)
}

impl Robots {
    /// Reads a robots.txt, grouped as a crawler that reads every extension
    /// record does ([`Reads::ALL`]); [`Robots::read_as`] regroups it for a
    /// crawler's profile. Never fails: whatever does not make sense is kept
    /// for the lint and has no effect.
    pub fn new(bytes: &[u8]) -> Robots {
        Robots::from_shared(Arc::from(bytes), version_of(bytes))
    }

    /// [`Robots::new`] of bytes already shared, whose `robots_version`
    /// (`version_of`) is known.
    pub fn from_shared(bytes: Arc<[u8]>, version: Arc<str>) -> Robots {
        Robots::from_file(parse::parse(&bytes), version, bytes)
    }

    fn from_file(file: RobotsFile, version: Arc<str>, bytes: Arc<[u8]>) -> Robots {
        let grouping = group::group(&file, Reads::ALL);
        let others = other_groupings(&file, &grouping, Reads::ALL);
        Robots {
            file: Arc::new(file),
            grouping,
            others,
            reads: Reads::ALL,
            version,
            bytes,
        }
    }

    /// The file as read (to the 500 KiB limit and one byte past it).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The same file, grouped as a crawler that reads `reads` groups it.
    pub fn read_as(&self, reads: Reads) -> Robots {
        if reads == self.reads {
            return self.clone();
        }
        let grouping = group::group(&self.file, reads);
        let others = other_groupings(&self.file, &grouping, reads);
        Robots {
            file: Arc::clone(&self.file),
            grouping,
            others,
            reads,
            version: Arc::clone(&self.version),
            bytes: Arc::clone(&self.bytes),
        }
    }

    /// The extension records this grouping reads.
    pub fn reads(&self) -> Reads {
        self.reads
    }

    /// SPEC §5 `robots_version` of this file.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Reads a robots.txt file (`source::read`: at most one byte past the
    /// 500 KiB limit, a pipe waited on for a bounded time). The size the
    /// lint reports is the file's own when the file system knows it.
    pub fn read(path: &Path) -> Result<Robots> {
        let (bytes, metadata) = super::source::read(path)?;
        let mut file = parse::parse(&bytes);
        if metadata.is_file() {
            file.size = file
                .size
                .max(usize::try_from(metadata.len()).unwrap_or(usize::MAX));
        }
        Ok(Robots::from_file(
            file,
            version_of(&bytes),
            Arc::from(bytes),
        ))
    }

    pub fn file(&self) -> &RobotsFile {
        &self.file
    }

    /// The groups in file order; `Rule::group` and friends index into it.
    pub fn groups(&self) -> &[Group] {
        &self.grouping.groups
    }

    /// What makes the file's other readings (`group::other_readings`), in
    /// words: the lines read two ways. Empty when there are none.
    pub fn two_way_lines(&self) -> String {
        let mut kinds = Vec::new();
        if !self.grouping.colonless_tokens.is_empty() {
            kinds.push(
                "a user-agent line Google's parser reads as a new group (`User-agent NAME` \
                 without its colon, or a misspelt key such as `Useragent:`)"
                    .to_string(),
            );
        }
        if let Some(first) = self.grouping.unreadable_ends.first() {
            kinds.push(format!(
                "a Request-rate line that cannot be read (line {first}), which the crawler \
                 may or may not take for the end of the user-agent lines above it"
            ));
        }
        if let Some(first) = self.grouping.late_versions.first() {
            kinds.push(format!(
                "a `Robot-version: 2.0` line after records the crawler does not read (line \
                 {first}), which it may or may not take for the group's version"
            ));
        }
        kinds.join(", or ")
    }

    /// The lines of `Robot-version: 2.0` records read two ways
    /// (`Grouping::late_versions`).
    pub fn late_versions(&self) -> &[usize] {
        &self.grouping.late_versions
    }

    /// True when the file is read more than one way (`group::other_readings`).
    pub fn has_other_readings(&self) -> bool {
        !self.others.is_empty()
    }

    /// The product tokens of user-agent lines without their colon (and
    /// of Google's typo keys): groups of the file's other reading only.
    pub fn colonless_tokens(&self) -> &[Vec<u8>] {
        &self.grouping.colonless_tokens
    }

    /// Member lines before any user-agent line, as indices into
    /// `file().records`: they belong to no group and have no effect.
    pub fn orphans(&self) -> &[usize] {
        &self.grouping.orphans
    }

    /// Selects the groups the crawler with product token `token` obeys
    /// (a full `Name/version` is reduced to its token), merges them and
    /// compiles their rules.
    pub fn rules_for(&self, token: &[u8]) -> AgentRules {
        self.rules_read(token, false)
    }

    /// `rules_for` without an `Allow` the size limit cut (`Rule::cut`):
    /// what the lint says of rules themselves (one that never decides)
    /// by, since no such claim may rest on a line whose end it cannot see
    /// (`file-too-large` says where the file was cut).
    pub fn rules_as_read(&self, token: &[u8]) -> AgentRules {
        self.rules_read(token, true)
    }

    /// `rules_for`, or with `as_read` `rules_as_read`.
    fn rules_read(&self, token: &[u8], as_read: bool) -> AgentRules {
        let mut rules = self.rules_in(&self.grouping, token, as_read);
        // The other readings as a chain, each holding the next.
        for other in self.others.iter().rev() {
            let mut next = self.rules_in(other, token, as_read);
            next.google = rules.google.take();
            rules.google = Some(Box::new(next));
        }
        rules
    }

    /// All that `rules_for(token)` depends on of the token: the groups it
    /// selects in each grouping of the file, and whether it obeys them as
    /// the `*` fallback. Tokens with equal keys are given equal rules, so
    /// they may share one compiled copy (sixty `--profiles` crawlers that
    /// all fall back on a large `*` group need it once, not sixty times).
    pub fn selection_key(&self, token: &[u8]) -> SelectionKey {
        let key_in = |grouping: &Grouping| {
            let groups = grouping.select(token);
            let named = groups
                .iter()
                .any(|&i| grouping.groups[i].names(super::agent::product_token(token)));
            (groups, !named)
        };
        SelectionKey {
            main: key_in(&self.grouping),
            others: self.others.iter().map(key_in).collect(),
        }
    }

    /// `rules_for` in one grouping of the file.
    fn rules_in(&self, grouping: &Grouping, token: &[u8], as_read: bool) -> AgentRules {
        let groups = grouping.select(token);
        let chosen = || groups.iter().map(|&i| &grouping.groups[i]);
        let mut rules: Vec<Rule> = chosen().flat_map(|g| g.rules.iter().cloned()).collect();
        if as_read {
            rules.retain(|r| r.cut.is_none());
        }
        // Precedence: the longest pattern, then Allow, then the earlier line.
        rules.sort_by_key(|r| (Reverse(r.precedence()), !r.allow, r.line));
        let matcher = Matcher::new(
            rules
                .iter()
                .map(|r| Pattern::compile(r.judged_pattern(), r.whole_path))
                .collect(),
        );
        let request_rates = chosen()
            .flat_map(|g| g.request_rates.iter().cloned())
            .collect();
        let crawl_delay = chosen()
            .flat_map(|g| g.crawl_delays.iter())
            .find(|d| d.millis.is_some())
            .cloned();
        // A group that also names the crawler was chosen for the name, not
        // as the `*` fallback (SPEC §4's home-page exception is for that).
        let fallback = !chosen().any(|g| g.names(super::agent::product_token(token)));
        let labels = chosen()
            .map(|g| (g.label(), fallback && g.is_default()))
            .collect();
        let globs: Box<[Option<Glob>]> = rules
            .iter()
            .map(|r| r.wildcards.as_deref().map(Glob::new))
            .collect();
        let wildcards = globs.iter().any(Option::is_some).then_some(globs);
        AgentRules {
            google: None,
            wildcards,
            version: Arc::clone(&self.version),
            groups,
            labels,
            rules,
            matcher,
            request_rates,
            crawl_delay,
        }
    }
}

/// What a token's compiled rules depend on (`Robots::selection_key`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SelectionKey {
    main: (Vec<usize>, bool),
    others: Vec<(Vec<usize>, bool)>,
}

/// The merged rules of the groups one crawler obeys, compiled. Immutable,
/// `Send + Sync`; share it by reference across threads.
#[derive(Debug, Clone)]
pub struct AgentRules {
    /// The `robots_version` of the file the rules come from.
    version: Arc<str>,
    groups: Vec<usize>,
    /// For each of `groups`: its label and whether it is a `*` group the
    /// crawler obeys for want of a group naming it.
    labels: Vec<(String, bool)>,
    /// In precedence order, parallel to the matcher's patterns.
    rules: Vec<Rule>,
    matcher: Matcher,
    request_rates: Vec<RequestRate>,
    crawl_delay: Option<CrawlDelay>,
    /// The same crawler's rules in the file's next other reading (a
    /// user-agent line without its colon read as Google's parser reads it,
    /// a Request-rate line that cannot be read letting a run go on), each
    /// holding the one after (`Robots::others`).
    google: Option<Box<AgentRules>>,
    /// When a `Robot-version: 2.0` group's rule holds `?`, `[` or `\`:
    /// parallel to `rules`, each such rule as Seznam's shell wildcards read
    /// it (`glob`), `None` for the rules both readings read alike.
    wildcards: Option<Box<[Option<Glob>]>>,
}

/// Whether a fetch was allowed, and the line that decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict<'a> {
    pub allowed: bool,
    /// The deciding rule; `None` when no rule matched or the target is
    /// `/robots.txt` (both allowed).
    pub rule: Option<&'a Rule>,
}

/// Steps the wildcard reading may take for each character of a target
/// (`AgentRules::allowed_by_seznam_wildcards`), a few times what the
/// automaton of SPEC's reading takes for the same rules.
const GLOB_STEPS: usize = 24;

/// Octets of target a fetch may cost in `AgentRules::exact_dollars`, a
/// rule tried costing the target's length: some thousands of rules for a
/// logged target, a few milliseconds.
const DOLLAR_STEPS: usize = 1 << 22;

thread_local! {
    /// Room to rewrite a target that is not in normal form, and to say
    /// where its literal `*` and `$` are, so that judging does not allocate
    /// once a thread has warmed up.
    static SCRATCH: RefCell<(Vec<u8>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// True when `target` is the home page `/` as rules see it (a fragment
/// dropped, an absolute URL cut): SPEC §4's home-page exception.
pub fn is_home_page(target: &[u8]) -> bool {
    *path_and_query(target) == *b"/"
}

/// The path and query a rule is matched against: an absolute URL loses its
/// scheme and host, a fragment is dropped, and an empty target means `/`.
fn path_and_query(target: &[u8]) -> Cow<'_, [u8]> {
    let target = match memchr::memchr(b'#', target) {
        Some(hash) => &target[..hash],
        None => target,
    };
    // A scheme is the run of scheme bytes at the start, right before
    // `://` (so a target that starts with `/`, as nearly all do, has none,
    // without a search).
    let scheme = target
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        .count();
    let target = if scheme > 0 && target[scheme..].starts_with(b"://") {
        let after = &target[scheme + 3..];
        let end = after
            .iter()
            .position(|&b| b == b'/' || b == b'?')
            .unwrap_or(after.len());
        &after[end..]
    } else {
        target
    };
    match target.first() {
        Some(b'/') | Some(b'*') => Cow::Borrowed(target),
        None => Cow::Borrowed(b"/"),
        Some(_) => {
            let mut rooted = Vec::with_capacity(target.len() + 1);
            rooted.push(b'/');
            rooted.extend_from_slice(target);
            Cow::Owned(rooted)
        }
    }
}

/// True for the robots.txt file itself, always allowed (RFC 9309 §2.2.2):
/// that path in matching form, without a query. `/robots.txt?x` is another
/// resource, judged like any other.
fn is_robots_txt_normal(target: &[u8]) -> bool {
    target == b"/robots.txt"
}

/// True when a request target (as logged, or an absolute URL) is
/// `/robots.txt` byte for byte, no query: how a crawler asks for it.
pub fn is_robots_txt_exactly(target: &[u8]) -> bool {
    *path_and_query(target) == *b"/robots.txt"
}

/// True when a request target (as logged, or an absolute URL) is the
/// robots.txt file itself, which every crawler may always fetch.
pub fn is_robots_txt(target: &[u8]) -> bool {
    is_robots_txt_normal(&super::normalize::matching_form(&path_and_query(target)))
}

impl AgentRules {
    /// Whether a fetch of `target` these rules disallow is disallowed in
    /// every reading the file allows: both readings of a `User-agent NAME`
    /// line without its colon (RFC 9309 ignores it, Google's parser reads
    /// it), and both readings of `?`, `[` and `\` in a `Robot-version: 2.0`
    /// group (SPEC §3 literally, Seznam as wildcards). Only then is it an
    /// accusation. The verdict, and the rule a row names, are SPEC §3's.
    pub fn accuses(&self, target: &[u8]) -> bool {
        // The other readings are a chain: each asks the next, and the
        // Seznam wildcards of its own.
        !self.allowed_by_seznam_wildcards(target)
            && self
                .google
                .as_ref()
                .is_none_or(|other| other.forbids(target))
    }

    /// Whether a fetch of `target` is disallowed in every reading: what
    /// `check` calls DISALLOWED and the audit makes a row of.
    pub fn forbids(&self, target: &[u8]) -> bool {
        !self.judge(target).allowed && self.accuses(target)
    }

    /// Whether Seznam's reading of its `Robot-version: 2.0` wildcards (`?`,
    /// `[set]`, `\`; `glob`) allows a fetch of `target` that SPEC's
    /// reading disallows, where the rules hold any: the precedence is the
    /// same, a rule holding them is matched as Seznam documents it, every
    /// other rule as SPEC §3 reads it. A target whose second reading would
    /// cost more than `GLOB_STEPS` a character is left to SPEC's verdict
    /// (SPEC §5: no target makes the rules' cost run away).
    pub fn allowed_by_seznam_wildcards(&self, target: &[u8]) -> bool {
        let Some(globs) = self.wildcards.as_deref() else {
            return false;
        };
        let verdict = self.judge_with(target, |normal| {
            let decided = self.matcher.decide(normal);
            self.decide_with_wildcards(globs, normal, decided)
                .unwrap_or(decided)
        });
        verdict.allowed
    }

    /// The deciding rule in Seznam's wildcard reading, given SPEC's
    /// (`decided`); `None` when it costs past the budget.
    fn decide_with_wildcards(
        &self,
        globs: &[Option<Glob>],
        normal: Target<'_>,
        decided: Option<usize>,
    ) -> Option<Option<usize>> {
        let end = decided.unwrap_or(self.rules.len());
        // Before SPEC's deciding rule only rules with wildcards may match,
        // and the reading can allow what SPEC's disallows only through an
        // Allow among them (or when the deciding rule itself has
        // wildcards): with neither, SPEC's verdict is the reading's.
        let last_allow = (0..end)
            .rev()
            .find(|&i| globs[i].is_some() && self.rules[i].allow);
        let deciding_read_alike = globs.get(end).is_none_or(Option::is_none);
        if last_allow.is_none() && deciding_read_alike {
            return Some(decided);
        }
        // With SPEC's deciding rule read alike, the reading is decided
        // past the last Allow with wildcards: disallowed.
        let settled_after = last_allow.filter(|_| deciding_read_alike);
        let chars = Chars::new(normal.octets);
        let mut budget = GLOB_STEPS * (chars.len() + 32);
        for (i, glob) in globs.iter().enumerate() {
            if settled_after.is_some_and(|allow| i > allow) {
                return Some(decided);
            }
            let matched = match glob {
                Some(glob) => glob.matches(&chars, &mut budget)?,
                None if i < end => false,
                None if i == end => true,
                None => {
                    budget = budget.checked_sub(chars.len() + 1)?;
                    self.matcher.matches_at(i, normal)
                }
            };
            if matched {
                return Some(Some(i));
            }
        }
        Some(None)
    }

    /// Whether another reading of the file (`Robots::others`) disallows a
    /// fetch of `target` (`check` says so when the first allows it).
    pub fn disallowed_by_google(&self, target: &[u8]) -> bool {
        self.other_readings()
            .any(|other| !other.judge(target).allowed)
    }

    /// The same crawler's rules in each other reading of the file
    /// (`Robots::others`), in order; none when it is read one way.
    pub fn other_readings(&self) -> impl Iterator<Item = &AgentRules> {
        std::iter::successors(self.google.as_deref(), |other| other.google.as_deref())
    }

    /// These rules, then those of each other reading.
    pub fn readings(&self) -> impl Iterator<Item = &AgentRules> {
        std::iter::successors(Some(self), |rules| rules.google.as_deref())
    }

    /// What `judge` finds in this reading, when it finds something in
    /// every other reading too (a rate or delay broken however the file
    /// is read); `None` when any reading finds nothing.
    pub fn in_every_reading<'a, T>(
        &'a self,
        judge: impl Fn(&'a AgentRules) -> Option<T>,
    ) -> Option<T> {
        let first = judge(self)?;
        self.other_readings()
            .all(|other| judge(other).is_some())
            .then_some(first)
    }

    /// Judges a request target (path and query as logged, or an absolute
    /// URL): the longest matching pattern decides, Allow winning a tie;
    /// nothing matching means allowed.
    pub fn judge(&self, target: &[u8]) -> Verdict<'_> {
        self.judge_with(target, |normal| {
            self.exact_dollars(normal, self.matcher.decide(normal))
        })
    }

    /// [`AgentRules::judge`] by trying every rule in precedence order: the
    /// baseline the bench and the property tests hold the matcher against.
    #[doc(hidden)]
    pub fn judge_by_scan(&self, target: &[u8]) -> Verdict<'_> {
        self.judge_with(target, |normal| {
            self.exact_dollars(normal, self.matcher.decide_by_scan(normal))
        })
    }

    /// `decided` again where a pattern's literal `$` made it: such a `$`
    /// (not the final anchor) is one octet, which a target's written `%24`
    /// does not hold (SPEC §3: octet by octet; only a pattern's `%24`
    /// matches both a `$` and a `%24`), but the matching form spells a
    /// literal `$` `%24` on both sides. So when a rule holding one decided
    /// and the target holds a written `%24`, the rules from it on are
    /// tried in turn, each rule holding one read exactly (`exact_match`).
    /// `Disallow: /price$usd` then spares `/price%24usd`, and `Allow:
    /// /a$b` no longer spares `/a%24b` from `Disallow: /a`. Past
    /// `DOLLAR_STEPS` of trying (a hostile robots.txt), the decided rule
    /// stands.
    fn exact_dollars(&self, normal: Target<'_>, decided: Option<usize>) -> Option<usize> {
        let first = decided?;
        if !self.literal_dollar(first) {
            return decided;
        }
        let written = memchr::memmem::find_iter(normal.octets, b"%24").any(|at| {
            u32::try_from(at).map_or(true, |at| normal.literals.binary_search(&at).is_err())
        });
        if !written {
            return decided;
        }
        let target = one_octet_literals(normal);
        let mut budget = DOLLAR_STEPS;
        for index in first..self.rules.len() {
            let matched = if self.literal_dollar(index) {
                match exact_match(&self.rules[index], &target, &mut budget) {
                    Some(matched) => matched,
                    None => return decided,
                }
            } else {
                budget = match budget.checked_sub(normal.octets.len() + 1) {
                    Some(left) => left,
                    None => return decided,
                };
                self.matcher.matches_at(index, normal)
            };
            if matched {
                return Some(index);
            }
        }
        None
    }

    /// Whether rule `index`'s pattern holds a literal `$` (one that is not
    /// its last octet, the anchor). A cut `Allow`, judged as every way it
    /// may go on, is left as the matcher reads it.
    fn literal_dollar(&self, index: usize) -> bool {
        let rule = &self.rules[index];
        rule.cut.is_none()
            && rule
                .pattern
                .strip_suffix(b"$")
                .unwrap_or(&rule.pattern)
                .contains(&b'$')
    }

    /// Puts the target in matching form (in reused buffers when it must be
    /// rewritten, with where its literal `*` and `$` are) and lets `decide`
    /// find the deciding rule's index. Only the matcher sees that form:
    /// reports show the target as logged.
    fn judge_with(
        &self,
        target: &[u8],
        decide: impl Fn(Target<'_>) -> Option<usize>,
    ) -> Verdict<'_> {
        let target = path_and_query(target);
        let decide = |normal: Target<'_>| {
            if is_robots_txt_normal(normal.octets) {
                None
            } else {
                decide(normal)
            }
        };
        let rewritten = |(octets, literals): &mut (Vec<u8>, Vec<u32>)| {
            octets.clear();
            literals.clear();
            target_form_into(&target, octets, literals);
            decide(Target { octets, literals })
        };
        let decided = if is_matching_form(&target) {
            // Holds no literal `*` or `$`: those are rewritten.
            decide(Target::from(&*target))
        } else {
            SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
                Ok(mut buffers) => rewritten(&mut buffers),
                // Only if `decide` were to judge again on this thread.
                Err(_) => rewritten(&mut (Vec::new(), Vec::new())),
            })
        };
        let rule = decided.map(|index| &self.rules[index]);
        Verdict {
            allowed: rule.is_none_or(|r| r.allow),
            rule,
        }
    }

    /// Indices of the groups used, in file order; empty when none applies
    /// and everything is allowed.
    pub fn groups(&self) -> &[usize] {
        &self.groups
    }

    /// SPEC §5 `robots_version` of the file the rules come from.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// How reports name group `index` (one of [`AgentRules::groups`]):
    /// its user-agent values as written, `|`-joined.
    pub fn group_label(&self, index: usize) -> &str {
        self.group_position(index)
            .map_or("", |i| self.labels[i].0.as_str())
    }

    /// True when group `index` is a default (`*`) group, obeyed because no
    /// group names the crawler: a group naming both `*` and the crawler is
    /// the crawler's own.
    pub fn is_default_group(&self, index: usize) -> bool {
        self.group_position(index).is_some_and(|i| self.labels[i].1)
    }

    fn group_position(&self, index: usize) -> Option<usize> {
        self.groups.iter().position(|&g| g == index)
    }

    /// The rules of the merged groups, in precedence order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Every Request-rate line of the merged groups, in file order,
    /// malformed ones included (their `rate` is `None`).
    pub fn request_rates(&self) -> &[RequestRate] {
        &self.request_rates
    }

    /// The first well-formed Crawl-delay line of the merged groups.
    pub fn crawl_delay(&self) -> Option<&CrawlDelay> {
        self.crawl_delay.as_ref()
    }

    /// The Request-rate line in force at `minute_of_day` (0..1440): a
    /// windowed line covering that minute wins over one without a window;
    /// among equals the first in the file. `None` when no line applies.
    pub fn rate_at(&self, minute_of_day: u16) -> Option<&RequestRate> {
        let valid = || {
            self.request_rates
                .iter()
                .filter_map(|line| line.rate.map(|rate| (line, rate)))
        };
        valid()
            .find(|(_, rate)| rate.window.is_some_and(|w| w.contains(minute_of_day)))
            .or_else(|| valid().find(|(_, rate)| rate.window.is_none()))
            .map(|(line, _)| line)
    }
}

/// A target in matching form with each literal `*` and `$` (an escape at
/// one of `literals`) one octet again, as SPEC §3 reads it.
fn one_octet_literals(normal: Target<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(normal.octets.len());
    let mut at = 0;
    for &literal in normal.literals {
        let literal = literal as usize;
        out.extend_from_slice(&normal.octets[at..literal]);
        out.push(
            if normal.octets.get(literal + 1..literal + 3) == Some(b"2A") {
                b'*'
            } else {
                b'$'
            },
        );
        at = literal + 3;
    }
    out.extend_from_slice(&normal.octets[at.min(normal.octets.len())..]);
    out
}

/// One unit of a pattern read exactly (`exact_match`).
#[derive(Clone, Copy)]
enum Unit {
    /// `*`: any run of octets.
    Star,
    /// `%2A` or `%24`: that literal octet, or its escape.
    Either(u8),
    /// Any other octet, a literal `$` included: itself alone.
    Octet(u8),
}

/// Whether `rule`'s pattern, read as SPEC §3 writes it, matches `target`
/// (a target with its literal `*` and `$` one octet each): a `$` inside the
/// pattern is the octet `$`, a `%2A` or `%24` matches the octet or its
/// escape, `*` any run. One pass over the target for each unit, the places
/// reached so far kept; `None` past the budget.
fn exact_match(rule: &Rule, target: &[u8], budget: &mut usize) -> Option<bool> {
    let (body, end) = match rule.pattern.strip_suffix(b"$") {
        Some(body) => (body, true),
        None => (&rule.pattern[..], false),
    };
    let anchored = !body.ends_with(b"*") && (end || rule.whole_path);
    let mut units = Vec::with_capacity(body.len());
    let mut rest = body;
    while let [first, tail @ ..] = rest {
        let (unit, step) = match (first, tail) {
            (b'*', _) => (Unit::Star, 1),
            (b'%', [b'2', b'A', ..]) => (Unit::Either(b'*'), 3),
            (b'%', [b'2', b'4', ..]) => (Unit::Either(b'$'), 3),
            (&octet, _) => (Unit::Octet(octet), 1),
        };
        units.push(unit);
        rest = &rest[step..];
    }
    *budget = budget.checked_sub(units.len().saturating_mul(target.len() + 1))?;
    let mut reach = vec![false; target.len() + 1];
    reach[0] = true;
    for unit in units {
        let mut next = vec![false; target.len() + 1];
        match unit {
            Unit::Star => {
                let mut any = false;
                for (place, reached) in reach.iter().enumerate() {
                    any |= *reached;
                    next[place] = any;
                }
            }
            Unit::Either(octet) => {
                let escape: &[u8] = if octet == b'*' { b"%2A" } else { b"%24" };
                for place in (0..target.len()).filter(|&p| reach[p]) {
                    if target[place] == octet {
                        next[place + 1] = true;
                    }
                    if target[place..].starts_with(escape) {
                        next[place + 3] = true;
                    }
                }
            }
            Unit::Octet(octet) => {
                for place in (0..target.len()).filter(|&p| reach[p]) {
                    if target[place] == octet {
                        next[place + 1] = true;
                    }
                }
            }
        }
        reach = next;
    }
    Some(if anchored {
        reach[target.len()]
    } else {
        reach.contains(&true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `Allow` the 500 KiB limit cuts never makes a row the whole line
    /// would not: at every cut inside it, in a plain group and in a
    /// `Robot-version: 2.0` one, whatever rule it meets (a Disallow it
    /// beat by length, `$` and Seznam's wildcards cut in half).
    #[test]
    fn an_allow_cut_by_the_limit_never_accuses_what_the_whole_line_allows() {
        let limit = super::super::parse::SIZE_LIMIT;
        let lines: [&[u8]; 11] = [
            b"Allow: /clanky/xyz",
            b"Allow: /a$b",
            b"Allow: /clanky/index.html",
            b"Allow: /a[bc]d*",
            b"Allow: /a\\?b",
            b"Allow: /x%2Fy?q=1",
            b"Allow: /$ # home page only",
            b"Allow: /a*$ #z",
            b"  Allow: /clanky/",
            b"\tallow :  /abc  # c",
            b"Allow: /a%2 # old escape",
        ];
        let targets: Vec<Vec<u8>> = {
            let pieces: [&[u8]; 12] = [
                b"/", b"a", b"b", b"c", b"d", b"$", b"?", b"x", b"%2F", b"clanky/", b"index.h",
                b"tml",
            ];
            let mut targets: Vec<Vec<u8>> = vec![b"/".to_vec()];
            for _ in 0..3 {
                let longer: Vec<Vec<u8>> = targets
                    .iter()
                    .flat_map(|t| pieces.iter().map(move |p| [t.as_slice(), p].concat()))
                    .collect();
                targets.extend(longer);
            }
            targets
        };
        let row = |rules: &AgentRules, t: &[u8]| rules.forbids(t);
        for version in [&b""[..], b"Robot-version: 2.0\n"] {
            for line in lines {
                let head = [
                    &b"User-agent: SeznamBot\n"[..],
                    version,
                    b"Disallow: /\nDisallow: /clanky/x\nDisallow: /a\n",
                ]
                .concat();
                let whole_line = [line, b"\n"].concat();
                let whole = Robots::new(&[&head[..], &whole_line].concat()).rules_for(b"SeznamBot");
                let comment = line.iter().position(|&b| b == b'#');
                // Cut anywhere in the line: in its blanks, its key, after
                // its colon, in its value, in its comment.
                for kept in 1..line.len() {
                    let mut input = head.clone();
                    input.resize(limit - kept - 1, b'#');
                    input.push(b'\n');
                    input.extend_from_slice(&whole_line);
                    assert_eq!(input[limit - 1], line[kept - 1]);
                    let cut = Robots::new(&input).rules_for(b"SeznamBot");
                    // Cut in its comment, the line is whole.
                    let in_comment = comment.is_some_and(|at| kept > at);
                    for target in &targets {
                        let (by_cut, by_whole) = (row(&cut, target), row(&whole, target));
                        assert!(
                            !by_cut || by_whole,
                            "{} cut after {kept} octets, {}accuses {}",
                            String::from_utf8_lossy(line),
                            String::from_utf8_lossy(version),
                            String::from_utf8_lossy(target)
                        );
                        assert!(
                            !in_comment || by_cut == by_whole,
                            "{} cut after {kept} octets, {}spares {}",
                            String::from_utf8_lossy(line),
                            String::from_utf8_lossy(version),
                            String::from_utf8_lossy(target)
                        );
                    }
                }
            }
        }
    }

    /// The scheme and host cut as first written: the first `://`, after
    /// nothing but scheme bytes.
    fn cut_by_search(target: &[u8]) -> &[u8] {
        let found = target.windows(3).position(|w| w == b"://");
        match found {
            Some(at)
                if at > 0
                    && target[..at]
                        .iter()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')) =>
            {
                let after = &target[at + 3..];
                let end = after
                    .iter()
                    .position(|&b| b == b'/' || b == b'?')
                    .unwrap_or(after.len());
                &after[end..]
            }
            _ => target,
        }
    }

    #[test]
    fn absolute_urls_lose_scheme_and_host_as_the_search_had_it() {
        let pieces: [&[u8]; 12] = [
            b"http", b"://", b"/", b"a", b"?", b"x:", b"+-.", b"//", b":", b"%", b"h.cz", b" ",
        ];
        // Every target of up to four pieces (about 28,000).
        let mut targets: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..4 {
            let longer: Vec<Vec<u8>> = targets
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| [t.as_slice(), p].concat()))
                .collect();
            targets.extend(longer);
            targets.dedup();
        }
        for target in &targets {
            let rooted = |t: &[u8]| match t.first() {
                Some(b'/' | b'*') => t.to_vec(),
                None => b"/".to_vec(),
                Some(_) => [b"/", t].concat(),
            };
            assert_eq!(
                *path_and_query(target),
                *rooted(cut_by_search(target)),
                "{}",
                String::from_utf8_lossy(target)
            );
        }
    }

    fn allowed(robots: &str, token: &str, target: &str) -> bool {
        let robots = Robots::new(robots.as_bytes());
        let rules = robots.rules_for(token.as_bytes());
        let verdict = rules.judge(target.as_bytes());
        assert_eq!(
            verdict,
            rules.judge_by_scan(target.as_bytes()),
            "trie and scan differ on {target}"
        );
        verdict.allowed
    }

    #[test]
    fn precedence() {
        // (robots.txt, target, allowed)
        let cases: &[(&str, &str, bool)] = &[
            // The longest match wins, whatever the order.
            ("User-agent: *\nAllow: /p\nDisallow: /\n", "/page", true),
            ("User-agent: *\nDisallow: /\nAllow: /p\n", "/page", true),
            (
                "User-agent: *\nAllow: /folder\nDisallow: /folder\n",
                "/folder/page",
                true,
            ),
            (
                "User-agent: *\nDisallow: /folder\nAllow: /folder\n",
                "/folder/page",
                true,
            ),
            (
                "User-agent: *\nAllow: /page\nDisallow: /*.html\n",
                "/page.html",
                false,
            ),
            ("User-agent: *\nAllow: /$\nDisallow: /\n", "/", true),
            (
                "User-agent: *\nAllow: /$\nDisallow: /\n",
                "/page.htm",
                false,
            ),
            // `*` and `$` count in the length.
            ("User-agent: *\nDisallow: /a*\nAllow: /ab\n", "/abc", true),
            ("User-agent: *\nDisallow: /ab*\nAllow: /ab\n", "/abc", false),
            ("User-agent: *\nDisallow: /a$\nAllow: /a\n", "/a", false),
            // Equal length: Allow wins.
            ("User-agent: *\nDisallow: /ab\nAllow: /a*\n", "/abc", true),
            // Empty Disallow forbids nothing and keeps the other rules.
            ("User-agent: *\nDisallow:\n", "/x", true),
            ("User-agent: *\nDisallow:\nDisallow: /x\n", "/x", false),
            ("User-agent: *\nAllow:\nDisallow: /\n", "/x", false),
            // robots.txt itself is always allowed.
            ("User-agent: *\nDisallow: /\n", "/robots.txt", true),
            (
                "User-agent: *\nDisallow: /robots.txt\n",
                "/robots.txt",
                true,
            ),
            // A query makes it another resource (SPEC §3).
            ("User-agent: *\nDisallow: /\n", "/robots.txt?x=1", false),
            ("User-agent: *\nDisallow: /\n", "/robots.txt.bak", false),
            // Paths are case-sensitive, field names are not.
            ("User-agent: *\nDisallow: /Fish\n", "/fish", true),
            ("USER-AGENT: *\nDISALLOW: /fish\n", "/fish", false),
            // An empty target means `/`; absolute URLs lose scheme and host.
            ("User-agent: *\nDisallow: /$\n", "", false),
            (
                "User-agent: *\nDisallow: /a\n",
                "http://example.com/a?b",
                false,
            ),
            (
                "User-agent: *\nDisallow: /$\n",
                "https://example.com",
                false,
            ),
            (
                "User-agent: *\nDisallow: /?q\n",
                "https://example.com?q",
                false,
            ),
            ("User-agent: *\nDisallow: /a$\n", "/a#frag", false),
            // Targets and patterns normalised alike.
            ("User-agent: *\nDisallow: /%7Euser\n", "/~user/x", false),
            ("User-agent: *\nDisallow: /~user\n", "/%7euser/x", false),
            ("User-agent: *\nDisallow: /a%2Fb\n", "/a/b", true),
            ("User-agent: *\nDisallow: /a%2fb\n", "/a%2Fb", false),
            ("User-agent: *\nDisallow: /a/b\n", "/a%2Fb", true),
            ("User-agent: *\nDisallow: /\u{e1}\n", "/%C3%A1", false),
            ("User-agent: *\nDisallow: /%c3%a1\n", "/\u{e1}", false),
            ("User-agent: *\nDisallow: /a b\n", "/a%20b", false),
            // A literal `*` or `$` of the target is one character: no
            // wildcard ends inside it (SPEC §3; the conformance review).
            ("User-agent: *\nDisallow: /*A\n", "/*", true),
            ("User-agent: *\nDisallow: /*A\n", "/q*", true),
            ("User-agent: *\nDisallow: /*A\n", "/%2A", false),
            ("User-agent: *\nDisallow: /*4$\n", "/x$", true),
            ("User-agent: *\nDisallow: /*4$\n", "/q$", true),
            ("User-agent: *\nDisallow: /*4$\n", "/x%24", false),
            ("User-agent: *\nDisallow: /a%2Ab\n", "/a*b", false),
            ("User-agent: *\nDisallow: /a%2Ab\n", "/a%2Ab", false),
            ("User-agent: *\nDisallow: /a%2Ab\n", "/aXb", true),
            ("User-agent: *\nDisallow: /x%24\n", "/x$", false),
            ("User-agent: *\nDisallow: /x%24\n", "/x%24", false),
            // A pattern's literal `$` (not its last octet) is the octet
            // `$`: a target's written `%24` is another octet string (the
            // conformance review).
            ("User-agent: *\nDisallow: /a$b\n", "/a$b", false),
            ("User-agent: *\nDisallow: /a$b\n", "/a%24b", true),
            ("User-agent: *\nDisallow: /a$b*c\n", "/a%24bxc", true),
            ("User-agent: *\nDisallow: /a$b*c\n", "/a$bxc", false),
            (
                "User-agent: *\nDisallow: /a$b\nDisallow: /a%24\n",
                "/a%24b",
                false,
            ),
            ("User-agent: *\nDisallow: /a$$\n", "/a%24", true),
            ("User-agent: *\nDisallow: /a$$\n", "/a$", false),
            (
                "User-agent: *\nDisallow: /a$bc\nAllow: /a%24\nDisallow: /a\n",
                "/a%24bc",
                true,
            ),
            // An Allow's literal `$` no more spares a written `%24`.
            (
                "User-agent: *\nAllow: /a$b\nDisallow: /a\n",
                "/a%24b",
                false,
            ),
            ("User-agent: *\nAllow: /a$b\nDisallow: /a\n", "/a$b", true),
            // Both kinds in one pattern, each read as written.
            ("User-agent: *\nDisallow: /a$%24\n", "/a$%24", false),
            ("User-agent: *\nDisallow: /a$%24\n", "/a$$", false),
            ("User-agent: *\nDisallow: /a$%24\n", "/a%24%24", true),
            ("User-agent: *\nDisallow: /*$x*%2A$\n", "/q$x*", false),
            ("User-agent: *\nDisallow: /*$x*%2A$\n", "/q%24x*", true),
            // `%2A` counts three octets: `/a%2A` is 5 long, `/a*` 3.
            ("User-agent: *\nAllow: /a%2A\nDisallow: /a*\n", "/a*", true),
            (
                "User-agent: *\nAllow: /a%2A\nDisallow: /a*\n",
                "/a%2A",
                true,
            ),
            ("User-agent: *\nAllow: /a%2A\nDisallow: /a*\n", "/ab", false),
            // 5 against `/a*b`'s 4: the Disallow is longer.
            (
                "User-agent: *\nDisallow: /a%2A\nAllow: /a*b\n",
                "/a*b",
                false,
            ),
            // 5 against `/a*bc`'s 5: a tie, which Allow wins.
            (
                "User-agent: *\nDisallow: /a%2A\nAllow: /a*bc\n",
                "/a*bc",
                true,
            ),
            // `/*A$` and `/%2A` (4 octets each) both match `/%2AA` and
            // `/*A`: a tie, which Allow wins. On `/*` only `/%2A` matches.
            (
                "User-agent: *\nDisallow: /%2A\nAllow: /*A$\n",
                "/%2AA",
                true,
            ),
            ("User-agent: *\nDisallow: /%2A\nAllow: /*A$\n", "/*A", true),
            ("User-agent: *\nDisallow: /%2A\nAllow: /*A$\n", "/*", false),
        ];
        for &(robots, target, expected) in cases {
            assert_eq!(
                allowed(robots, "SeznamBot", target),
                expected,
                "{robots:?} {target}"
            );
        }
    }

    #[test]
    fn deciding_rule() {
        let robots = Robots::new(
            b"User-agent: SeznamBot\nDisallow: /cz/\n\nUser-agent: *\nDisallow: /\n\n\
              User-agent: seznambot\nAllow: /cz/chat\nDisallow: /cz/chat/\n",
        );
        let rules = robots.rules_for(b"SeznamBot");
        assert_eq!(rules.groups(), &[0, 2]);
        let verdict = rules.judge(b"/cz/chat/room");
        assert!(!verdict.allowed);
        let rule = verdict.rule.map(|r| (r.line, r.text.as_str(), r.group));
        assert_eq!(rule, Some((9, "Disallow: /cz/chat/", 2)));
        assert_eq!(robots.groups()[2].label(), "seznambot");
        let verdict = rules.judge(b"/cz/chat");
        assert_eq!(verdict.rule.map(|r| r.line), Some(8));
        assert!(verdict.allowed);
        let verdict = rules.judge(b"/en/");
        assert_eq!(
            verdict,
            Verdict {
                allowed: true,
                rule: None
            }
        );
        let robots_txt = rules.judge(b"/robots.txt");
        assert_eq!(robots_txt.rule, None);
    }

    #[test]
    fn no_group_means_everything_allowed() {
        let robots = Robots::new(b"User-agent: Googlebot\nDisallow: /\n");
        let rules = robots.rules_for(b"SeznamBot");
        assert!(rules.groups().is_empty());
        assert!(rules.judge(b"/x").allowed);
        assert!(!robots.rules_for(b"Googlebot").judge(b"/x").allowed);
    }

    #[test]
    fn rates_and_delays() {
        let robots = Robots::new(
            b"User-agent: SeznamBot\nRequest-rate: 1/x\nRequest-rate: 300/1m\n\
              Request-rate: 10/1m 2200-0600\nCrawl-delay: soon\nCrawl-delay: 2.5\n\
              User-agent: *\nDisallow: /tmp/\nCrawl-delay: 9\n\
              User-agent: SeznamBot\nRequest-rate: 100/1m\nRequest-rate: 20/1m 2300-0100\n\
              Crawl-delay: 1\n",
        );
        let seznam = Reads::RULES_ONLY
            .with(super::super::parse::Directive::RequestRate)
            .with(super::super::parse::Directive::RobotVersion);
        let rules = robots.read_as(seznam).rules_for(b"SeznamBot");
        assert_eq!(rules.request_rates().len(), 5);
        assert_eq!(
            rules.crawl_delay().map(|d| (d.line, d.millis)),
            Some((6, Some(2500)))
        );
        let line_at = |minute| rules.rate_at(minute).map(|r| r.line);
        assert_eq!(line_at(12 * 60), Some(3));
        assert_eq!(line_at(22 * 60), Some(4));
        assert_eq!(line_at(23 * 60 + 30), Some(4));
        assert_eq!(line_at(5 * 60), Some(4));
        assert_eq!(line_at(6 * 60), Some(3));
        // A crawler that reads no extension: the run of user-agent lines
        // goes on to `Disallow: /tmp/`, so its `*` group opens at line 1.
        let other = robots.read_as(Reads::RULES_ONLY).rules_for(b"Bingbot");
        assert_eq!(other.crawl_delay().and_then(|d| d.millis), Some(2500));
        assert_eq!(other.rate_at(0).map(|r| r.line), Some(4));
        // Read with every extension record, each ends its run.
        let other = robots.rules_for(b"Bingbot");
        assert_eq!(other.crawl_delay().and_then(|d| d.millis), Some(9000));
        assert!(other.rate_at(0).is_none());
        let windowed_only = Robots::new(b"User-agent: *\nRequest-rate: 1/10s 0100-0200\n");
        let rules = windowed_only.rules_for(b"SeznamBot");
        assert_eq!(rules.rate_at(90).map(|r| r.line), Some(2));
        assert!(rules.rate_at(200).is_none());
    }

    #[test]
    fn shared_across_threads() {
        fn is_send_sync<T: Send + Sync>() {}
        is_send_sync::<Robots>();
        is_send_sync::<AgentRules>();
    }

    /// Tokens that select the same groups the same way get the same
    /// compiled rules, so the audit compiles them once: two crawlers of
    /// `--profiles` that both fall back on `*` share a key; one that a
    /// group names, or that a group names beside `*`, does not.
    #[test]
    fn equal_selection_keys_give_equal_rules() {
        let robots = Robots::new(
            b"User-agent: *\nDisallow: /a\nRequest-rate: 1/10s\n\n\
              User-agent: NamedBot\nDisallow: /b\n\n\
              User-agent: *\nUser-agent: AlsoBot\nDisallow: /c\n",
        );
        let key = |token: &str| robots.selection_key(token.as_bytes());
        let rules = |token: &str| format!("{:?}", robots.rules_for(token.as_bytes()));
        assert_eq!(key("OneBot"), key("TwoBot/2.1"));
        assert_eq!(rules("OneBot"), rules("TwoBot/2.1"));
        assert_ne!(key("OneBot"), key("NamedBot"));
        assert_ne!(key("OneBot"), key("AlsoBot"));
        assert_ne!(key("NamedBot"), key("AlsoBot"));
        assert_eq!(key("NamedBot"), key("namedbot"));
        assert_eq!(rules("NamedBot"), rules("namedbot"));
    }
}
