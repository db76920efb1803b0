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

use super::encode::encode_node;
use super::{
    read_full, read_header, read_windows, subtree_offset, Error, Hash, Node, Options, Tree, HEADER_LEN, PARENT_LEN,
};
use crate::blake3::{with_pool, CvBytes, OUT_LEN};
use std::io::{Read, Seek, SeekFrom};
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
    /// The content of the subtree being checked (all of it, or one window), which starts
    /// `data_base` bytes into the content.
    data: &'a [u8],
    data_base: u64,
    /// The stored and the recomputed parents of that subtree, which start `parents_base`
    /// bytes into the outboard's parents (header excluded); `stored` may be short.
    stored: &'a [u8],
    computed: &'a [u8],
    parents_base: u64,
    report: ScrubReport,
}

impl Scrub<'_> {
    /// The stored parent at `at` (outboard offset, header excluded), if the outboard has it.
    fn stored_parent(&self, at: u64) -> Option<&[u8; PARENT_LEN]> {
        self.stored.get(at as usize..)?.first_chunk::<PARENT_LEN>()
    }

    fn push_outboard(&mut self, at: u64) {
        let from = HEADER_LEN as u64 + self.parents_base + at;
        push(&mut self.report.outboard_damaged, from..from + PARENT_LEN as u64);
    }

    /// Reports the stored parents of a subtree that differ from the recomputed ones.
    fn compare_parents(&mut self, at: u64, len: u64) {
        for i in 0..len / PARENT_LEN as u64 {
            let offset = at + i * PARENT_LEN as u64;
            let want = &self.computed[offset as usize..][..PARENT_LEN];
            if self.stored_parent(offset).map(|p| &p[..]) != Some(want) {
                self.push_outboard(offset);
            }
        }
    }

    fn check(&mut self, node: Node, expected: &CvBytes, at: u64) {
        let from = (node.start - self.data_base) as usize;
        let data = &self.data[from..from + node.len as usize];
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
            self.push_outboard(at);
            push(&mut self.report.damaged, node.start..node.end());
            return;
        };
        let (left, right) = node.children();
        let right_at = at + PARENT_LEN as u64 + self.tree.parents_len(left.len);
        self.check(left, parent[..OUT_LEN].try_into().expect("32 bytes"), at + PARENT_LEN as u64);
        self.check(right, parent[OUT_LEN..].try_into().expect("32 bytes"), right_at);
    }
}

/// Sorts and merges ranges.
fn merge(ranges: &mut Vec<Range<u64>>) {
    ranges.sort_by_key(|r| r.start);
    for range in std::mem::take(ranges) {
        push(ranges, range);
    }
}

/// Adds what the lengths say to a report: content missing at the end or past the header's
/// length, and outboard bytes past or missing at its end (`expected_outboard` is the
/// length it should have, `outboard_len` the one it has).
fn finish(report: &mut ScrubReport, expected_outboard: u64, outboard_len: u64) {
    let (len, data_len) = (report.len, report.data_len);
    if data_len < len {
        push(&mut report.damaged, data_len..len);
        merge(&mut report.damaged);
    } else if data_len > len {
        push(&mut report.damaged, len..data_len);
    }
    if outboard_len > expected_outboard {
        push(&mut report.outboard_damaged, expected_outboard..outboard_len);
    } else if outboard_len < expected_outboard {
        // The missing parents were reported as they were compared; name the gap too.
        push(&mut report.outboard_damaged, outboard_len..expected_outboard);
    }
    merge(&mut report.outboard_damaged);
}

/// Refuses to pad data far shorter than the outboard's header says.
fn check_missing(len: u64, data_len: u64) -> Result<(), Error> {
    // Padding a little missing data is how a truncated file is checked; a header far past
    // the data is more likely the wrong outboard than rot.
    if data_len < len && len - data_len > data_len.max(64 << 20) {
        return Err(Error::InvalidArgument(format!(
            "the outboard's header says {len} bytes of content but the data has {data_len}: \
             is it the outboard of this file?"
        )));
    }
    Ok(())
}

/// Reads what `outboard` holds of `buf.len()` bytes at `at` (the rest of `buf` is left
/// out): returns how many bytes it had.
fn read_at(outboard: &mut (impl Read + Seek), at: u64, buf: &mut [u8]) -> Result<usize, Error> {
    outboard.seek(SeekFrom::Start(at))?;
    Ok(read_full(outboard, buf)?)
}

/// What a streamed scrub knows of each window above: the chaining value its stored
/// ancestors give it (`None` where one of them does not verify, so that the window is never
/// reached on its own), and once read, its recomputed chaining value and its part of the
/// report.
struct Window {
    expected: Option<CvBytes>,
    cv: CvBytes,
    damaged: Vec<Range<u64>>,
    outboard_damaged: Vec<Range<u64>>,
}

impl Options {
    /// [`scrub`] in this format, with these threads for recomputing the data's tree.
    pub fn scrub(&self, root: &Hash, data: &[u8], outboard: &[u8]) -> Result<ScrubReport, Error> {
        let len = read_header(outboard, "outboard")?;
        let data_len = data.len() as u64;
        check_missing(len, data_len)?;
        // Data missing at the end is checked as zeros (and reported missing); data past the
        // header's length is reported and not hashed.
        let padded;
        let content: &[u8] = if data_len < len {
            let mut copy = Vec::with_capacity(len as usize);
            copy.extend_from_slice(data);
            copy.resize(len as usize, 0);
            padded = copy;
            &padded
        } else {
            &data[..len as usize]
        };
        let (_, computed) = self.encode_outboard(content);
        let mut scrub = Scrub {
            tree: self.tree(1),
            data: content,
            data_base: 0,
            stored: &outboard[HEADER_LEN..],
            computed: &computed[HEADER_LEN..],
            parents_base: 0,
            report: ScrubReport { len, data_len, ..ScrubReport::default() },
        };
        scrub.check(Node { start: 0, len, root: true }, root, 0);
        let mut report = scrub.report;
        finish(&mut report, computed.len() as u64, outboard.len() as u64);
        Ok(report)
    }

    /// [`scrub`] streamed from files (or any seekable inputs): the data is read once, a
    /// window at a time ([`Options::stream_window`]), and only the outboard's parents that
    /// are needed are read, so memory does not grow with the data (beyond the report). The
    /// report is the one [`Options::scrub`] gives.
    pub fn scrub_stream<D, O>(&self, root: &Hash, mut data: D, mut outboard: O) -> Result<ScrubReport, Error>
    where
        D: Read + Seek + Send + 'static,
        O: Read + Seek,
    {
        let outboard_len = outboard.seek(SeekFrom::End(0))?;
        let mut header = [0u8; HEADER_LEN];
        let got = read_at(&mut outboard, 0, &mut header)?;
        let len = read_header(&header[..got], "outboard")?;
        let data_len = data.seek(SeekFrom::End(0))?;
        data.seek(SeekFrom::Start(0))?;
        check_missing(len, data_len)?;
        let window = self.window_len();
        let expected_outboard = self.format.outboard_len(len);
        let mut report = ScrubReport { len, data_len, ..ScrubReport::default() };
        let tree = self.tree(1);
        let root_node = Node { start: 0, len, root: true };
        let windows = len.div_ceil(window).max(1);
        if windows == 1 {
            // One window: the whole check in memory, as `scrub` does it.
            let mut content = Vec::new();
            data.take(len).read_to_end(&mut content)?;
            content.resize(len as usize, 0);
            let mut stored = vec![0u8; (expected_outboard - HEADER_LEN as u64) as usize];
            let got = read_at(&mut outboard, HEADER_LEN as u64, &mut stored)?;
            stored.truncate(got);
            let (_, computed) = self.encode_outboard(&content);
            let mut scrub = Scrub {
                tree,
                data: &content,
                data_base: 0,
                stored: &stored,
                computed: &computed[HEADER_LEN..],
                parents_base: 0,
                report,
            };
            scrub.check(root_node, root, 0);
            report = scrub.report;
            finish(&mut report, expected_outboard, outboard_len);
            return Ok(report);
        }
        // What the stored parents above the windows say each window must hash to.
        let mut slots: Vec<Window> = Vec::new();
        let mut stored_parent = |outboard: &mut O, at: u64| -> Result<Option<[u8; PARENT_LEN]>, Error> {
            let mut parent = [0u8; PARENT_LEN];
            let got = read_at(outboard, HEADER_LEN as u64 + at, &mut parent)?;
            Ok((got == PARENT_LEN).then_some(parent))
        };
        #[allow(clippy::too_many_arguments)]
        fn expectations<O>(
            tree: &Tree,
            node: Node,
            expected: Option<CvBytes>,
            at: u64,
            window: u64,
            outboard: &mut O,
            read: &mut impl FnMut(&mut O, u64) -> Result<Option<[u8; PARENT_LEN]>, Error>,
            slots: &mut Vec<Window>,
        ) -> Result<(), Error> {
            if !node.root && node.len <= window {
                slots.push(Window { expected, cv: [0; OUT_LEN], damaged: Vec::new(), outboard_damaged: Vec::new() });
                return Ok(());
            }
            let trusted = match expected {
                Some(e) => read(outboard, at)?.filter(|p| tree.parent_cv(p, node.root) == e),
                None => None,
            };
            let halves = |i: usize| trusted.map(|p| p[i * OUT_LEN..][..OUT_LEN].try_into().expect("32 bytes"));
            let (left, right) = node.children();
            let right_at = at + PARENT_LEN as u64 + tree.parents_len(left.len);
            expectations(tree, left, halves(0), at + PARENT_LEN as u64, window, outboard, read, slots)?;
            expectations(tree, right, halves(1), right_at, window, outboard, read, slots)
        }
        expectations(&tree, root_node, Some(*root), 0, window, &mut outboard, &mut stored_parent, &mut slots)?;
        debug_assert_eq!(slots.len() as u64, windows);

        // Each window: recomputed, compared with its stored parents, checked against what
        // its ancestors expect when they do not match.
        let pool_size = self.threads.pool_size(usize::try_from(len).unwrap_or(usize::MAX));
        let wide = self.tree(pool_size);
        let mut computed = vec![0u8; tree.parents_len(window) as usize];
        let mut stored = vec![0u8; computed.len()];
        // Window `index`, whose `n` bytes of content start at `start`: its chaining value and
        // its damage, into its slot.
        let mut scrub_window = |index: u64, start: u64, content: &[u8]| -> Result<(), Error> {
            let n = content.len() as u64;
            let node = Node { start, len: n, root: false };
            let parents_len = tree.parents_len(n) as usize;
            let computed = &mut computed[..parents_len];
            let cv = with_pool(pool_size, || encode_node(&wide, content, start, false, false, computed));
            let at = subtree_offset(&tree, len, node, false);
            let got = read_at(&mut outboard, HEADER_LEN as u64 + at, &mut stored[..parents_len])?;
            let slot = &mut slots[index as usize];
            let mut scrub = Scrub {
                tree,
                data: content,
                data_base: start,
                stored: &stored[..got],
                computed,
                parents_base: at,
                report: ScrubReport::default(),
            };
            match slot.expected {
                Some(expected) if expected != cv => scrub.check(node, &expected, 0),
                _ => scrub.compare_parents(0, parents_len as u64),
            }
            slot.cv = cv;
            slot.damaged = scrub.report.damaged;
            slot.outboard_damaged = scrub.report.outboard_damaged;
            Ok(())
        };
        let mut padded = Vec::new();
        let mut next = 0u64;
        read_windows(data.take(len), window as usize, |index, bytes| {
            let start = index * window;
            if start >= len {
                return Ok(());
            }
            let n = window.min(len - start);
            let content = if (bytes.len() as u64) < n {
                padded.clear();
                padded.extend_from_slice(bytes);
                padded.resize(n as usize, 0);
                &padded[..]
            } else {
                bytes
            };
            scrub_window(index, start, content)?;
            next = index + 1;
            Ok(())
        })?;
        // Data that ended early: the windows never read are zeros.
        while next < windows {
            let start = next * window;
            padded.clear();
            padded.resize(window.min(len - start) as usize, 0);
            scrub_window(next, start, &padded)?;
            next += 1;
        }

        // The parents above the windows, recomputed, and the walk from the root.
        let cvs: Vec<CvBytes> = slots.iter().map(|w| w.cv).collect();
        let mut computed_upper = Vec::new();
        super::encode::upper_tree(&tree, root_node, window, &cvs, 0, false, &mut computed_upper);
        computed_upper.sort_by_key(|(at, _)| *at);
        let upper = |at: u64| -> &[u8; PARENT_LEN] {
            let i = computed_upper.binary_search_by_key(&at, |(a, _)| *a).expect("a parent above the windows");
            &computed_upper[i].1
        };
        struct Walk<'a, O, F> {
            tree: Tree,
            window: u64,
            outboard: &'a mut O,
            read: F,
            slots: &'a mut [Window],
            report: &'a mut ScrubReport,
        }
        impl<O, F: FnMut(&mut O, u64) -> Result<Option<[u8; PARENT_LEN]>, Error>> Walk<'_, O, F> {
            fn take_window(&mut self, node: Node) {
                let slot = &mut self.slots[(node.start / self.window) as usize];
                for r in slot.damaged.drain(..) {
                    push(&mut self.report.damaged, r);
                }
                self.report.outboard_damaged.append(&mut slot.outboard_damaged);
            }

            /// A clean subtree: its stored parents compared with the recomputed ones.
            fn clean(&mut self, node: Node, at: u64, upper: &dyn Fn(u64) -> [u8; PARENT_LEN]) -> Result<(), Error> {
                if !node.root && node.len <= self.window {
                    self.take_window(node);
                    return Ok(());
                }
                if (self.read)(self.outboard, at)? != Some(upper(at)) {
                    let from = HEADER_LEN as u64 + at;
                    push(&mut self.report.outboard_damaged, from..from + PARENT_LEN as u64);
                }
                let (left, right) = node.children();
                let right_at = at + PARENT_LEN as u64 + self.tree.parents_len(left.len);
                self.clean(left, at + PARENT_LEN as u64, upper)?;
                self.clean(right, right_at, upper)
            }

            fn check(
                &mut self,
                node: Node,
                expected: &CvBytes,
                at: u64,
                upper: &dyn Fn(u64) -> [u8; PARENT_LEN],
            ) -> Result<(), Error> {
                if !node.root && node.len <= self.window {
                    self.take_window(node);
                    return Ok(());
                }
                if self.tree.parent_cv(&upper(at), node.root) == *expected {
                    return self.clean(node, at, upper);
                }
                let trusted =
                    (self.read)(self.outboard, at)?.filter(|p| self.tree.parent_cv(p, node.root) == *expected);
                let Some(parent) = trusted else {
                    let from = HEADER_LEN as u64 + at;
                    push(&mut self.report.outboard_damaged, from..from + PARENT_LEN as u64);
                    push(&mut self.report.damaged, node.start..node.end());
                    return Ok(());
                };
                let (left, right) = node.children();
                let right_at = at + PARENT_LEN as u64 + self.tree.parents_len(left.len);
                self.check(left, parent[..OUT_LEN].try_into().expect("32 bytes"), at + PARENT_LEN as u64, upper)?;
                self.check(right, parent[OUT_LEN..].try_into().expect("32 bytes"), right_at, upper)
            }
        }
        let mut walk =
            Walk { tree, window, outboard: &mut outboard, read: stored_parent, slots: &mut slots, report: &mut report };
        walk.check(root_node, root, 0, &|at| *upper(at))?;
        finish(&mut report, expected_outboard, outboard_len);
        Ok(report)
    }
}
