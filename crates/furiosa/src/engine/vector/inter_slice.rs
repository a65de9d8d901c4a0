//! The inter-slice reducer (the Inter-Slice Block page): folds the innermost slice factor(s) of
//! each cluster and rewrites Slice and Time; Chip, Cluster and Packet pass through.
//!
//! Validation (npusim's; the vendor checks these in its compiler only):
//! 1. the reduced axes are the Slice axes that appear nowhere in the output; they appear in no
//!    other input dimension;
//! 2. Slice, flattened into its top-level factors, is `kept…, reduced…`: the reduced factors
//!    are innermost and contiguous, their product is the reduction ratio `r ≤ 256` (one cluster);
//! 3. OutSlice is `kept…, replacement…` with the kept factors unchanged and the replacements'
//!    sizes multiplying to `r`; each replacement follows one [`OutputRule`], mixed freely;
//! 4. OutTime is Time without the promoted factors, in the same order.
//!
//! Data: per physical lane, as the hardware reduces: every output lane (chip, cluster, kept
//! slice, time step, packet lane) is the left fold from the op's identity over the live input
//! cells of the same lane in the `r` slices of its group, in ascending input position (r
//! ascending). A logical element broadcast over several lanes (a bare `n` in Time or Packet)
//! is reduced once per lane, never once per copy. Broadcast output positions copy the value;
//! dead output cells (the `n − 1` positions of a dummy) hold the identity.

use std::collections::BTreeSet;

use crate::limits::SLICES_PER_CLUSTER;
use crate::mapping::Form;
use crate::tensor::{Dim, combined_liveness};
use crate::{Mapping, StreamTensor};

use super::VectorError;
use super::lanes::{compose, digits, digits_of};
use super::ops::InterSliceReduceOp;

/// How OutSlice replaces the reduced slice factor (the Inter-Slice Block page's three rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputRule {
    /// `1 # n`: one live position holds the result, `n − 1` padding positions.
    Dummy,
    /// A fresh axis `X` (or a bare broadcast `n`): the result is replicated over it.
    Broadcast,
    /// A factor of Time moves into OutSlice (from any position of Time).
    Promotion,
}

const RULES: &str = "rules: a reduced slice factor is replaced in OutSlice by a dummy `1 # n`, a broadcast over a fresh axis, or a factor promoted from Time, in any mix";

pub(super) fn flatten(m: &Mapping, out: &mut Vec<Mapping>) {
    match m.form() {
        Form::Pair(l, r) => {
            flatten(l, out);
            flatten(r, out);
        }
        _ if m.size() == 1 => {}
        _ => out.push(m.clone()),
    }
}

pub(super) fn factors(m: &Mapping) -> Vec<Mapping> {
    let mut out = Vec::new();
    flatten(m, &mut out);
    out
}

pub(super) fn names(m: &Mapping) -> BTreeSet<String> {
    m.axes().into_iter().map(|a| a.name).collect()
}

pub(super) fn join(fs: &[Mapping]) -> String {
    if fs.is_empty() {
        return "1".into();
    }
    fs.iter()
        .map(|f| f.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs the reducer; returns the new stream and the reduction ratio r.
pub(super) fn reduce(
    input: &StreamTensor,
    out_slice: &Mapping,
    out_time: &Mapping,
    op: InterSliceReduceOp,
) -> Result<(StreamTensor, usize), VectorError> {
    let slice = input.mapping(Dim::Slice);
    let time = input.mapping(Dim::Time);
    let context = format!(
        "Slice = m![{}], Time = m![{}] -> OutSlice = m![{}], OutTime = m![{}]",
        slice.m_notation(),
        time.m_notation(),
        out_slice.m_notation(),
        out_time.m_notation()
    );
    let fail = |msg: String| VectorError::InterSlice(format!("{context}: {msg}"));

    let others: BTreeSet<String> = [Dim::Chip, Dim::Cluster, Dim::Time, Dim::Packet]
        .iter()
        .flat_map(|d| names(input.mapping(*d)))
        .collect();
    let mut input_axes = others.clone();
    input_axes.extend(names(slice));
    let mut output_axes: BTreeSet<String> = [Dim::Chip, Dim::Cluster, Dim::Packet]
        .iter()
        .flat_map(|d| names(input.mapping(*d)))
        .collect();
    output_axes.extend(names(out_slice));
    output_axes.extend(names(out_time));

    // Rule 1: the reduced axes.
    let reduced: BTreeSet<String> = names(slice).difference(&output_axes).cloned().collect();
    if reduced.is_empty() {
        return Err(fail(format!(
            "no slice axis is reduced (every axis of Slice appears in the output; {RULES})"
        )));
    }
    if let Some(a) = reduced.iter().find(|a| others.contains(*a)) {
        return Err(fail(format!(
            "axis `{a}` disappears but is also in Chip, Cluster, Time or Packet (rule: the inter-slice reducer reduces slice factors only)"
        )));
    }
    let fresh: BTreeSet<String> = names(out_slice).difference(&input_axes).cloned().collect();
    if let Some(a) = names(out_time).difference(&input_axes).next() {
        return Err(fail(format!(
            "axis `{a}` is new in OutTime (rule: only OutSlice may broadcast into a new axis)"
        )));
    }

    // Rule 2: Slice = kept..., reduced...
    let sf = factors(slice);
    let is_reduced = |f: &Mapping| {
        let n = names(f);
        (
            !n.is_empty() && n.is_subset(&reduced),
            n.iter().any(|a| reduced.contains(a)),
        )
    };
    let mut kept = 0;
    while kept < sf.len() && !is_reduced(&sf[kept]).1 {
        kept += 1;
    }
    if let Some(bad) = sf[kept..].iter().find(|f| !is_reduced(f).0) {
        return Err(fail(format!(
            "slice factor `{bad}` is not reduced but lies inside the reduced part `{}` (rule: the reduced factors are the innermost factors of Slice, contiguous)",
            join(&sf[kept..])
        )));
    }
    let ratio: usize = sf[kept..].iter().map(Mapping::size).product();
    SLICES_PER_CLUSTER
        .check(ratio as i128)
        .map_err(|e| fail(format!("reduction group of {ratio} slices: {e}")))?;

    // Rule 3: OutSlice = kept..., replacements...
    let of = factors(out_slice);
    if of.len() < kept || !of.iter().zip(&sf[..kept]).all(|(g, f)| g.equivalent(f)) {
        return Err(fail(format!(
            "OutSlice must begin with the surviving slice factors `{}` unchanged",
            join(&sf[..kept])
        )));
    }
    let repl = &of[kept..];
    let repl_size: usize = repl.iter().map(Mapping::size).product();
    if repl_size != ratio {
        return Err(fail(format!(
            "the replacement `{}` has {repl_size} positions, the reduced factor `{}` has r = {ratio} (rule: OutSlice.SIZE == Slice.SIZE)",
            join(repl),
            join(&sf[kept..])
        )));
    }
    let tf = factors(time);
    let mut promoted = vec![false; tf.len()];
    // For each replacement factor, the Time factor it promotes.
    let mut sources: Vec<Option<usize>> = Vec::with_capacity(repl.len());
    for g in repl {
        let mut source = None;
        let axes = names(g);
        let rule = if axes.is_empty() {
            if g.live_count() == 1 {
                Some(OutputRule::Dummy)
            } else if g.live_count() == g.size() {
                Some(OutputRule::Broadcast)
            } else {
                None
            }
        } else if axes.len() == 1 && axes.is_subset(&fresh) {
            Some(OutputRule::Broadcast)
        } else if let Some(j) = (0..tf.len()).find(|&j| !promoted[j] && tf[j].equivalent(g)) {
            promoted[j] = true;
            source = Some(j);
            Some(OutputRule::Promotion)
        } else {
            None
        };
        if rule.is_none() {
            return Err(fail(format!(
                "replacement `{g}` fits none of the output rules ({RULES})"
            )));
        }
        sources.push(source);
    }

    // Rule 4: OutTime = Time without the promoted factors.
    let expected: Vec<Mapping> = tf
        .iter()
        .zip(&promoted)
        .filter(|(_, p)| !**p)
        .map(|(f, _)| f.clone())
        .collect();
    let ot = factors(out_time);
    if ot.len() != expected.len() || !ot.iter().zip(&expected).all(|(a, b)| a.equivalent(b)) {
        return Err(fail(format!(
            "OutTime must be Time without the promoted factors, in order: m![{}]",
            join(&expected)
        )));
    }

    // Data: fold per physical lane (chip, cluster, kept slice, time step, packet lane).
    let [chips, clusters, _, steps, lanes] = input.shape();
    let kept_slices: usize = sf[..kept].iter().map(Mapping::size).product();
    let lane_radices = [chips, clusters, kept_slices, steps, lanes];
    let slice_radices = [kept_slices, ratio];
    let identity = op.identity();
    let mut acc = vec![identity; chips * clusters * kept_slices * steps * lanes];
    for (pos, live) in input.liveness().into_iter().enumerate() {
        if live {
            let [c, k, s, t, p] = digits_of(pos, input.shape());
            let kept_slice = digits_of(s, slice_radices)[0];
            let slot = &mut acc[compose(&[c, k, kept_slice, t, p], &lane_radices)];
            *slot = op.step(*slot, input.codes()[pos] as u32);
        }
    }
    let dims_out = [
        input.mapping(Dim::Chip),
        input.mapping(Dim::Cluster),
        out_slice,
        out_time,
        input.mapping(Dim::Packet),
    ];
    let out_shape = [chips, clusters, out_slice.size(), out_time.size(), lanes];
    let repl_radices: Vec<usize> = repl.iter().map(Mapping::size).collect();
    let time_radices: Vec<usize> = tf.iter().map(Mapping::size).collect();
    let out_time_radices: Vec<usize> = ot.iter().map(Mapping::size).collect();
    let out_slice_radices = [kept_slices, ratio];
    let data = combined_liveness(&dims_out)
        .into_iter()
        .enumerate()
        .map(|(pos, live)| {
            if live {
                let [c, k, s, t_out, p] = digits_of(pos, out_shape);
                let [kept_slice, repl_pos] = digits_of(s, out_slice_radices);
                // The input time step: promoted factors from the replacement, the others
                // from OutTime in order.
                let mut time_digits = vec![0; tf.len()];
                for (d, source) in digits(repl_pos, &repl_radices).into_iter().zip(&sources) {
                    if let Some(j) = source {
                        time_digits[*j] = d;
                    }
                }
                let kept_time = (0..tf.len()).filter(|j| !promoted[*j]);
                for (j, d) in kept_time.zip(digits(t_out, &out_time_radices)) {
                    time_digits[j] = d;
                }
                let t = compose(&time_digits, &time_radices);
                u64::from(acc[compose(&[c, k, kept_slice, t, p], &lane_radices)])
            } else {
                u64::from(identity)
            }
        })
        .collect();
    Ok((
        input.reshaped(out_slice.clone(), out_time.clone(), data),
        ratio,
    ))
}
