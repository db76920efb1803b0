//! Finding rot: which byte ranges of stored data no longer match the root hash, using the
//! outboard tree to narrow each difference down to its leaves.
//!
//! The data's own tree is recomputed (wide kernels, threads); then, from the root down, a
//! subtree whose recomputed chaining value is the one the trusted tree expects is clean.
//! Where it differs, the stored outboard parent is trusted if it hashes to the expected
//! value, and the search goes on in both children with its two halves; a leaf that differs
//! is damaged. Where the stored parent is itself damaged nothing below can be trusted, and
//! the whole subtree is reported. Damage in the outboard alone (under clean data) is
//! reported apart, as byte ranges of the outboard.

use super::{read_header, Error, Hash, Node, Options, Tree, HEADER_LEN, PARENT_LEN};
use crate::blake3::{CvBytes, OUT_LEN};
use std::ops::Range;

/// What [`scrub`] found.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ScrubReport {
    /// The content length the outboard's header gives.
    pub len: u64,
    /// The length of the data that was checked.
    pub data_len: u64,
    /// Content byte ranges that do not match the root hash, merged and in order (leaf
    /// granularity; data missing at the end, or present past the header's length,
    /// included).
    pub damaged: Vec<Range<u64>>,
    /// Byte ranges of the outboard file that are damaged (parents that differ from the
    /// data's, or bytes past or missing at its end).
    pub outboard_damaged: Vec<Range<u64>>,
}

impl ScrubReport {
    /// Whether nothing is damaged.
    pub fn is_clean(&self) -> bool {
        self.damaged.is_empty() && self.outboard_damaged.is_empty()
    }
}

/// Checks all of `data` against `root` with its outboard encoding and reports every damaged
/// range rather than stopping at the first. Fails only for an outboard too short to hold
/// its header.
pub fn scrub(root: &Hash, data: &[u8], outboard: &[u8]) -> Result<ScrubReport, Error> {
    Options::default().scrub(root, data, outboard)
}

fn push(ranges: &mut Vec<Range<u64>>, range: Range<u64>) {
    if range.is_empty() {
        return;
    }
    if let Some(last) = ranges.last_mut() {
        if last.end >= range.start {
            last.end = last.end.max(range.end);
            return;
        }
    }
    ranges.push(range);
}

struct Scrub<'a> {
    tree: Tree,
    data: &'a [u8],
    stored: &'a [u8],
    computed: &'a [u8],
    report: ScrubReport,
}

impl Scrub<'_> {
    /// The stored parent at `at` (outboard offset, header excluded), if the outboard has it.
    fn stored_parent(&self, at: u64) -> Option<&[u8; PARENT_LEN]> {
        self.stored.get(at as usize..)?.first_chunk::<PARENT_LEN>()
    }

    /// Reports the stored parents of a subtree that differ from the recomputed ones.
    fn compare_parents(&mut self, at: u64, len: u64) {
        let computed = &self.computed[at as usize..][..len as usize];
        for (i, want) in computed.chunks_exact(PARENT_LEN).enumerate() {
            let offset = at + (i * PARENT_LEN) as u64;
            if self.stored_parent(offset).map(|p| &p[..]) != Some(want) {
                let from = HEADER_LEN as u64 + offset;
                push(&mut self.report.outboard_damaged, from..from + PARENT_LEN as u64);
            }
        }
    }

    fn check(&mut self, node: Node, expected: &CvBytes, at: u64) {
        let data = &self.data[node.start as usize..node.end() as usize];
        let leaf = node.len <= self.tree.leaf_len;
        let actual = if leaf {
            self.tree.leaf_cv(data, node.start, node.root)
        } else {
            let parent = self.computed[at as usize..].first_chunk::<PARENT_LEN>().expect("recomputed parent");
            self.tree.parent_cv(parent, node.root)
        };
        if actual == *expected {
            self.compare_parents(at, self.tree.parents_len(node.len));
            return;
        }
        if leaf {
            push(&mut self.report.damaged, node.start..node.end());
            return;
        }
        let trusted = self.stored_parent(at).copied().filter(|p| self.tree.parent_cv(p, node.root) == *expected);
        let Some(parent) = trusted else {
            // The stored parent is damaged too: nothing below it can be checked.
            let from = HEADER_LEN as u64 + at;
            push(&mut self.report.outboard_damaged, from..from + PARENT_LEN as u64);
            push(&mut self.report.damaged, node.start..node.end());
            return;
        };
        let (left, right) = node.children();
        let right_at = at + PARENT_LEN as u64 + self.tree.parents_len(left.len);
        self.check(left, parent[..OUT_LEN].try_into().expect("32 bytes"), at + PARENT_LEN as u64);
        self.check(right, parent[OUT_LEN..].try_into().expect("32 bytes"), right_at);
    }
}

impl Options {
    /// [`scrub`] in this format, with these threads for recomputing the data's tree.
    pub fn scrub(&self, root: &Hash, data: &[u8], outboard: &[u8]) -> Result<ScrubReport, Error> {
        let len = read_header(outboard, "outboard")?;
        let data_len = data.len() as u64;
        // Data missing at the end is checked as zeros (and reported missing); data past the
        // header's length is reported and not hashed.
        let padded;
        let content: &[u8] = if data_len < len {
            // Padding a little missing data is how a truncated file is checked; a header far
            // past the data is more likely the wrong outboard than rot.
            let missing = len - data_len;
            if missing > data_len.max(64 << 20) {
                return Err(Error::InvalidArgument(format!(
                    "the outboard's header says {len} bytes of content but the data has {data_len}: \
                     is it the outboard of this file?"
                )));
            }
            let mut copy = Vec::with_capacity(len as usize);
            copy.extend_from_slice(data);
            copy.resize(len as usize, 0);
            padded = copy;
            &padded
        } else {
            &data[..len as usize]
        };
        let (_, computed) = self.encode_outboard(content);
        let tree = self.tree(1);
        let stored = &outboard[HEADER_LEN..];
        let mut scrub = Scrub {
            tree,
            data: content,
            stored,
            computed: &computed[HEADER_LEN..],
            report: ScrubReport { len, data_len, ..ScrubReport::default() },
        };
        scrub.check(Node { start: 0, len, root: true }, root, 0);
        let mut report = scrub.report;
        if data_len < len {
            push(&mut report.damaged, data_len..len);
            report.damaged.sort_by_key(|r| r.start);
            let ranges = std::mem::take(&mut report.damaged);
            for range in ranges {
                push(&mut report.damaged, range);
            }
        } else if data_len > len {
            push(&mut report.damaged, len..data_len);
        }
        let expected_outboard = computed.len() as u64;
        if (outboard.len() as u64) > expected_outboard {
            push(&mut report.outboard_damaged, expected_outboard..outboard.len() as u64);
        } else if (outboard.len() as u64) < expected_outboard {
            // The missing parents were reported as they were compared; name the gap too.
            push(&mut report.outboard_damaged, outboard.len() as u64..expected_outboard);
        }
        report.outboard_damaged.sort_by_key(|r| r.start);
        let ranges = std::mem::take(&mut report.outboard_damaged);
        for range in ranges {
            push(&mut report.outboard_damaged, range);
        }
        Ok(report)
    }
}
