//! The literal patterns of a matcher (those without a `*` piece) as a radix
//! tree: takes their prefixes in matching form with their pattern numbers;
//! gives, for a target, the patterns whose prefix it starts with, node by
//! node in one walk down the tree (`Radix::walk`), for `Matcher` to choose
//! among (RFC 9309 §2.2.2 "the most octets"; SPEC §3).

/// The piece-less patterns as a radix tree (a trie whose chains of one
/// child are one node): the prefixes' octets once each, in flat arrays,
/// so that a robots.txt of 500 KiB of long literal rules costs about its
/// own size, where a node a octet cost some hundred bytes an octet.
#[derive(Debug, Clone, Default)]
pub(super) struct Radix {
    nodes: Vec<RadixNode>,
    /// Every node's label, node after node.
    labels: Vec<u8>,
    /// Every node's edges (first octet of the child's label, child),
    /// sorted by octet, node after node.
    edges: Vec<(u8, u32)>,
    /// Every node's patterns, in precedence order, node after node.
    patterns: Vec<u32>,
}

/// A node: the octets from its parent to it (`labels[label_at..][..label_len]`),
/// its edges and the patterns whose prefix ends at it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RadixNode {
    label_at: u32,
    label_len: u32,
    edges_at: u32,
    edges_len: u32,
    patterns_at: u32,
    patterns_len: u32,
}

impl Radix {
    /// The tree of `entries` (prefix, pattern index); node 0 is the root,
    /// with an empty label.
    pub(super) fn new(mut entries: Vec<(&[u8], u32)>) -> Radix {
        // Sorted, every node's entries are one run, shorter prefixes (the
        // node's own patterns) first, in precedence order among equals.
        entries.sort_unstable();
        let mut radix = Radix::default();
        radix.nodes.push(RadixNode::default());
        radix.fill(0, &entries, 0);
        radix
    }

    /// Fills node `at`, which `entries` (all longer than or as long as
    /// `depth` and sharing their first `depth` octets) go through.
    fn fill(&mut self, at: usize, entries: &[(&[u8], u32)], depth: usize) {
        let own = entries.iter().take_while(|(p, _)| p.len() == depth).count();
        self.nodes[at].patterns_at = self.patterns.len() as u32;
        self.nodes[at].patterns_len = own as u32;
        self.patterns
            .extend(entries[..own].iter().map(|&(_, index)| index));
        // The children: one a run of entries with the same next octet,
        // labelled with what the run's prefixes share past `depth` (the
        // first's and the last's common part, the run being sorted).
        let mut children = Vec::new();
        let mut rest = &entries[own..];
        while let Some(&(first, _)) = rest.first() {
            let octet = first[depth];
            let run = rest.iter().take_while(|(p, _)| p[depth] == octet).count();
            let last = rest[run - 1].0;
            let shared = first[depth..]
                .iter()
                .zip(&last[depth..])
                .take_while(|(a, b)| a == b)
                .count();
            let child = self.nodes.len();
            self.nodes.push(RadixNode {
                label_at: self.labels.len() as u32,
                label_len: shared as u32,
                ..RadixNode::default()
            });
            self.labels.extend_from_slice(&first[depth..depth + shared]);
            children.push((octet, child as u32, run));
            rest = &rest[run..];
        }
        self.nodes[at].edges_at = self.edges.len() as u32;
        self.nodes[at].edges_len = children.len() as u32;
        self.edges
            .extend(children.iter().map(|&(octet, child, _)| (octet, child)));
        let mut rest = &entries[own..];
        for (_, child, run) in children {
            let child = child as usize;
            let shared = self.nodes[child].label_len as usize;
            self.fill(child, &rest[..run], depth + shared);
            rest = &rest[run..];
        }
    }

    /// The octets of all labels and the number of nodes, for tests of its
    /// size.
    #[cfg(test)]
    pub(super) fn sizes(&self) -> (usize, usize) {
        (self.labels.len(), self.nodes.len())
    }

    /// Walks the tree down `octets` from its root: gives `visit` each node
    /// reached, as the octets its prefix spans and the patterns whose prefix
    /// ends there, in precedence order.
    #[inline(always)]
    pub(super) fn walk(&self, octets: &[u8], mut visit: impl FnMut(usize, &[u32])) {
        let mut at = 0usize;
        let mut depth = 0usize;
        loop {
            let node = self.nodes[at];
            let from = node.patterns_at as usize;
            visit(
                depth,
                &self.patterns[from..from + node.patterns_len as usize],
            );
            let Some(&octet) = octets.get(depth) else {
                break;
            };
            let from = node.edges_at as usize;
            let edges = &self.edges[from..from + node.edges_len as usize];
            let Ok(edge) = edges.binary_search_by_key(&octet, |e| e.0) else {
                break;
            };
            let child = edges[edge].1 as usize;
            let label = self.nodes[child];
            let from = label.label_at as usize;
            let label = &self.labels[from..from + label.label_len as usize];
            if !octets[depth..].starts_with(label) {
                break;
            }
            at = child;
            depth += label.len();
        }
    }
}
