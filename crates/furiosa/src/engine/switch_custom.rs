//! `SwitchConfig::CustomBroadcast { ring_size }` (`docs/furiosa-engines.md` §5.1, §5.2): a
//! routing the compiler derives from the input and output mappings, for the patterns the
//! regular configurations cannot express (free permutations of slice sub-dimensions, broadcasts
//! at non-contiguous positions, extraction of only the live values of a padded dimension).
//!
//! The Switch Engine page's seven constraints, checked in this order, each an error naming it:
//! 1. broadcast axes are new: an axis of OutSlice absent from the input Slice is a broadcast
//!    axis and must not be in the input Time either;
//! 2. each broadcast axis appears once in OutSlice;
//! 3. broadcast axes are not padded;
//! 4. (innermost) OutTime is the input Time followed by the axes moved from Slice;
//! 5. (order) the moved part visits the input slices in increasing order — a router holds one
//!    packet and cannot reorder;
//! 6. (dropped values) every live input cell reaches some output cell, so only padding is left
//!    behind; every live output cell has an input cell;
//! 7. `ring_size` is a power of two and equals the derived one: the smallest power of two `2^k`
//!    such that every output slice receives only from input slices of its own aligned block of
//!    `2^k` slices (decision §5.2).
//!
//! Cost as for every configuration: `ring_size × Time::SIZE (input) × flits per packet`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::switch::SwitchError;
use crate::mapping::{Final, Mapping};
use crate::tensor::combined_cells;

/// The constraint texts, as the errors quote them.
pub mod rule {
    /// Constraint 1.
    pub const NEW: &str = "broadcast axes must be new: absent from the input Slice and Time";
    /// Constraint 2.
    pub const ONCE: &str = "each broadcast axis appears exactly once in OutSlice";
    /// Constraint 3.
    pub const NOT_PADDED: &str = "broadcast axes must not be padded";
    /// Constraint 4.
    pub const INNERMOST: &str = "axes moved from Slice to Time take the innermost positions of OutTime, after the input Time";
    /// Constraint 5.
    pub const ORDER: &str = "axes moved from Slice to Time keep their relative input order";
    /// Constraint 6.
    pub const DROPPED: &str =
        "values left behind must be padding; every output value comes from the input";
}

fn rule_error(rule: &'static str, detail: String) -> SwitchError {
    SwitchError::Custom { rule, detail }
}

/// Axis names as written in `text` (identifiers), in order.
fn names_in(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        let word = c.is_ascii_alphanumeric() || c == '_';
        match (start, word) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let w = &text[s..i];
                if w.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                    out.push((i, w.to_string()));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

fn restrict(index: &BTreeMap<String, usize>, names: &BTreeSet<String>) -> Vec<(String, usize)> {
    index
        .iter()
        .filter(|(a, _)| names.contains(*a))
        .map(|(a, v)| (a.clone(), *v))
        .collect()
}

/// Checks a `CustomBroadcast` of `slice`/`time` to `out_slice`/`out_time` and returns the
/// derived ring size (the user's `ring_size` is compared by the caller's plan).
pub fn check_custom(
    slice: &Mapping,
    time: &Mapping,
    out_slice: &Mapping,
    out_time: &Mapping,
    ring_size: usize,
) -> Result<usize, SwitchError> {
    let slice_axes: BTreeSet<String> = slice.axes().into_iter().map(|a| a.name).collect();
    let time_axes: BTreeSet<String> = time.axes().into_iter().map(|a| a.name).collect();
    let input_axes: BTreeSet<String> = slice_axes.union(&time_axes).cloned().collect();
    // 1. Broadcast axes: in OutSlice, not in the input Slice; they must not be in Time.
    let out_text = out_slice.normalize().m_notation();
    let broadcast: BTreeSet<String> = out_slice
        .axes()
        .into_iter()
        .map(|a| a.name)
        .filter(|a| !slice_axes.contains(a))
        .collect();
    if let Some(a) = broadcast.iter().find(|a| time_axes.contains(*a)) {
        return Err(rule_error(
            rule::NEW,
            format!(
                "OutSlice = m![{}] uses `{a}`, an axis of the input Time = m![{}]",
                out_slice.m_notation(),
                time.m_notation()
            ),
        ));
    }
    // 2 and 3: once, not padded (read off the normal form's text).
    let written = names_in(&out_text);
    for a in &broadcast {
        let uses: Vec<usize> = written
            .iter()
            .filter(|(_, w)| w == a)
            .map(|(end, _)| *end)
            .collect();
        if uses.len() > 1 {
            return Err(rule_error(
                rule::ONCE,
                format!(
                    "`{a}` appears {} times in OutSlice = m![{}]",
                    uses.len(),
                    out_slice.m_notation()
                ),
            ));
        }
        if let Some(&end) = uses.first() {
            let after = out_text[end..].trim_start_matches([' ', ')', ']']);
            if after.starts_with('#') {
                return Err(rule_error(
                    rule::NOT_PADDED,
                    format!(
                        "`{a}` is padded in OutSlice = m![{}]",
                        out_slice.m_notation()
                    ),
                ));
            }
        }
    }
    // 4. OutTime = [Time, moved].
    let innermost = || {
        rule_error(
            rule::INNERMOST,
            format!(
                "OutTime = m![{}] is not the input Time = m![{}] followed by axes of the input Slice = m![{}]",
                out_time.m_notation(),
                time.m_notation(),
                slice.m_notation()
            ),
        )
    };
    if time.size() == 0 || !out_time.size().is_multiple_of(time.size()) {
        return Err(innermost());
    }
    let moved_size = out_time.size() / time.size();
    let outer = out_time
        .clone()
        .stride(moved_size)
        .map_err(|_| innermost())?;
    if !outer.equivalent(time) {
        return Err(innermost());
    }
    let moved = out_time
        .clone()
        .modulo(moved_size)
        .map_err(|_| innermost())?;
    // 5. The moved part walks the input slices in increasing order.
    let mut slice_of: HashMap<BTreeMap<String, usize>, usize> = HashMap::new();
    for (s, c) in slice.cells().into_iter().enumerate() {
        if let Final::Live(index) = c {
            slice_of.entry(index).or_insert(s);
        }
    }
    let mut last: Option<(usize, String)> = None;
    for c in moved.cells() {
        let Final::Live(index) = c else { continue };
        if index.keys().any(|a| !slice_axes.contains(a)) {
            return Err(innermost());
        }
        let Some(&s) = slice_of.get(&index) else {
            return Err(innermost());
        };
        let here = Final::Live(index).to_string();
        if let Some((prev, prev_cell)) = &last
            && s <= *prev
        {
            return Err(rule_error(
                rule::ORDER,
                format!(
                    "OutTime = m![{}] moves {prev_cell} (input slice {prev}) before {here} (input slice {s})",
                    out_time.m_notation()
                ),
            ));
        }
        last = Some((s, here));
    }
    // 6. Coverage both ways over Slice × Time, and the sources of every output slice.
    let input = combined_cells(&[slice, time]);
    let mut source: HashMap<Vec<(String, usize)>, usize> = HashMap::new();
    for (p, c) in input.iter().enumerate() {
        if let Final::Live(index) = c {
            source
                .entry(restrict(index, &input_axes))
                .or_insert(p / time.size());
        }
    }
    let output = combined_cells(&[out_slice, out_time]);
    let mut reached: BTreeSet<Vec<(String, usize)>> = BTreeSet::new();
    let mut derived = 1usize;
    for (q, c) in output.iter().enumerate() {
        let Final::Live(index) = c else { continue };
        let key = restrict(index, &input_axes);
        let Some(&s) = source.get(&key) else {
            return Err(rule_error(
                rule::DROPPED,
                format!(
                    "output slice {} holds {}, which no input cell holds",
                    q / out_time.size(),
                    Final::Live(index.clone())
                ),
            ));
        };
        let os = q / out_time.size();
        while os / derived != s / derived {
            derived *= 2;
        }
        reached.insert(key);
    }
    if let Some((p, c)) = input
        .iter()
        .enumerate()
        .find(|(_, c)| matches!(c, Final::Live(i) if !reached.contains(&restrict(i, &input_axes))))
    {
        return Err(rule_error(
            rule::DROPPED,
            format!(
                "input slice {} holds {c}, which no output cell receives",
                p / time.size()
            ),
        ));
    }
    // 7. The ring size.
    if !ring_size.is_power_of_two() {
        return Err(SwitchError::RingSizePower { given: ring_size });
    }
    if ring_size != derived {
        return Err(SwitchError::RingSize {
            given: ring_size,
            derived,
        });
    }
    Ok(derived)
}
