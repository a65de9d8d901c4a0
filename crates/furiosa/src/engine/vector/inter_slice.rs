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

use crate::Codes;
use crate::limits::SLICES_PER_CLUSTER;
use crate::mapping::Form;
use crate::tensor::{Dim, partial_liveness};
use crate::{Mapping, StreamTensor};

use super::VectorError;
use super::lanes::digits;
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

    // Data: fold per physical lane (chip, cluster, kept slice, time step, packet lane). The
    // buffer is [chip, cluster, kept slice, reduced slice, time, lane] row-major, so each
    // (chip, cluster, slice) is one run of `steps · lanes` codes folded into the run of its
    // group's accumulator.
    let [chips, clusters, _, steps, lanes] = input.shape();
    let kept_slices: usize = sf[..kept].iter().map(Mapping::size).product();
    let run = steps * lanes;
    let groups = chips * clusters * kept_slices;
    let identity = op.identity();
    let words = input.codes().words();
    let live = input.partial_liveness();
    let mut acc = vec![identity; groups * run];
    for (group, acc) in acc.chunks_exact_mut(run.max(1)).enumerate() {
        for r in 0..ratio {
            let base = (group * ratio + r) * run;
            let live = live.as_ref().map(|l| &l[base..base + run]);
            fold_run(op, acc, &words[base..base + run], live);
        }
    }
    drop(words);

    // The output buffer is [chip, cluster, kept slice, replacement, out time, lane]: a live
    // cell takes its group's accumulator at the input time step made of the promoted factors'
    // digits (from the replacement position) and the kept factors' digits (from OutTime).
    let dims_out = [
        input.mapping(Dim::Chip),
        input.mapping(Dim::Cluster),
        out_slice,
        out_time,
        input.mapping(Dim::Packet),
    ];
    let time_radices: Vec<usize> = tf.iter().map(Mapping::size).collect();
    let time_strides: Vec<usize> = (0..tf.len())
        .map(|j| time_radices[j + 1..].iter().product())
        .collect();
    let repl_radices: Vec<usize> = repl.iter().map(Mapping::size).collect();
    let promoted_step: Vec<usize> = (0..ratio)
        .map(|rp| {
            digits(rp, &repl_radices)
                .into_iter()
                .zip(&sources)
                .filter_map(|(d, source)| source.map(|j| d * time_strides[j]))
                .sum()
        })
        .collect();
    let kept_strides: Vec<usize> = (0..tf.len())
        .filter(|j| !promoted[*j])
        .map(|j| time_strides[j])
        .collect();
    let out_time_radices: Vec<usize> = ot.iter().map(Mapping::size).collect();
    let out_steps = out_time.size();
    let kept_step: Vec<usize> = (0..out_steps)
        .map(|t| {
            digits(t, &out_time_radices)
                .into_iter()
                .zip(&kept_strides)
                .map(|(d, s)| d * s)
                .sum()
        })
        .collect();
    let out_live = partial_liveness(&dims_out);
    let out_len = groups * ratio * out_steps * lanes;
    let mut data = vec![identity; out_len];
    let mut cells = data.chunks_exact_mut(lanes.max(1)).enumerate();
    for group in acc.chunks_exact(run.max(1)) {
        for &promoted_t in &promoted_step {
            for &kept_t in &kept_step {
                let t = promoted_t + kept_t;
                let from = &group[t * lanes..(t + 1) * lanes];
                let Some((i, out)) = cells.next() else {
                    break;
                };
                match &out_live {
                    None => out.copy_from_slice(from),
                    Some(live) => {
                        let live = &live[i * lanes..(i + 1) * lanes];
                        for ((o, &l), &v) in out.iter_mut().zip(live).zip(from) {
                            if l {
                                *o = v;
                            }
                        }
                    }
                }
            }
        }
    }
    let data = Codes::U32(data);
    Ok((
        input.reshaped(out_slice.clone(), out_time.clone(), data),
        ratio,
    ))
}

/// Folds one run of input codes into its accumulator run, lane by lane, skipping dead cells
/// (the op chosen once per run, so each loop is the op's own). f32 folds go through
/// [`InterSliceReduceOp::step`] unchanged: which NaN an f32 sum of two NaNs keeps depends on
/// the operand order the compiled code uses.
fn fold_run(op: InterSliceReduceOp, acc: &mut [u32], codes: &[u32], live: Option<&[bool]>) {
    fn each(acc: &mut [u32], codes: &[u32], live: Option<&[bool]>, step: impl Fn(u32, u32) -> u32) {
        match live {
            None => acc
                .iter_mut()
                .zip(codes)
                .for_each(|(a, &c)| *a = step(*a, c)),
            Some(live) => {
                for ((a, &c), &l) in acc.iter_mut().zip(codes).zip(live) {
                    if l {
                        *a = step(*a, c);
                    }
                }
            }
        }
    }
    use super::ops::InterSliceReduceOpI32 as I;
    match op {
        InterSliceReduceOp::I32(I::Add) => each(acc, codes, live, |a, c| {
            (a as i32).wrapping_add(c as i32) as u32
        }),
        InterSliceReduceOp::I32(I::AddSat) => each(acc, codes, live, |a, c| {
            (a as i32).saturating_add(c as i32) as u32
        }),
        _ => each(acc, codes, live, |a, c| op.step(a, c)),
    }
}
