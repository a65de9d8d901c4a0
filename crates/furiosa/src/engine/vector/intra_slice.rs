//! The intra-slice reducer: folds the factors of one axis `R` out of Time and
//! Packet, within each slice; Chip, Cluster and Slice pass through.
//!
//! Validation (`config_reduce_label`, plus the accumulator limit the vendor's compiler checks):
//! 1. `R` appears in Time or Packet; it may also appear in Chip, Cluster or Slice, whose
//!    factors stay in place (each output cell is then a partial, labelled by its slice
//!    coordinate, that `vector_inter_slice_reduce` folds next — `docs/furiosa-engines.md` §9.3);
//! 2. every top-level factor of Time and Packet that mentions `R` is made of `R` alone (a
//!    removed factor belongs to `R`; a kept factor does not mention it);
//! 3. OutTime is Time without its `R` factors, in order;
//! 4. OutPacket is Packet (per-lane accumulation over Time; Packet must not mention `R`) or
//!    `m![1 # 4]` (the four lanes reduced into lane 0; every Packet factor is `R`);
//! 5. the temporal accumulator has 8 slots: the kept Time factors inside the outermost reduced
//!    one have at most 8 positions.
//!
//! Data: per physical lane, as the hardware reduces: every output cell (chip, cluster, slice,
//! kept time step, and the packet lane when Packet is kept) is the left fold from the op's
//! identity over the live input cells of that lane whose `R` factors vary, in ascending input
//! position (npusim's order; the hardware's lane tree may differ for f32 and saturating adds — the
//! CPU fold is the reference). A logical element broadcast over several slices, time steps or
//! lanes is reduced once per copy's lane, never summed over its copies. Dead output cells hold
//! the identity.

use crate::mapping::PaddingKind;
use crate::tensor::{Dim, combined_liveness};
use crate::{Mapping, StreamTensor};

use super::VectorError;
use super::inter_slice::{factors, join, names};
use super::lanes::{compose, digits};
use super::ops::IntraSliceReduceOp;

/// Slots of the temporal accumulator.
pub const ACCUMULATOR_SLOTS: usize = 8;

/// Runs the reducer over `axis`; returns the new stream and its tags (each output cell keeps
/// the tag of the last input cell folded into it).
pub(super) fn reduce(
    input: &StreamTensor,
    tags: &[u8],
    axis: &str,
    out_time: &Mapping,
    out_packet: &Mapping,
    op: IntraSliceReduceOp,
) -> Result<(StreamTensor, Vec<u8>), VectorError> {
    let time = input.mapping(Dim::Time);
    let packet = input.mapping(Dim::Packet);
    let context = format!(
        "reducing `{axis}`: Time = m![{}], Packet = m![{}] -> OutTime = m![{}], OutPacket = m![{}]",
        time.m_notation(),
        packet.m_notation(),
        out_time.m_notation(),
        out_packet.m_notation()
    );
    let fail = |msg: String| VectorError::IntraSlice(format!("{context}: {msg}"));

    // Rule 1. `R` may also be spread over Chip, Cluster or Slice (`docs/furiosa-engines.md`
    // §9.3, "R in Slice"): only its Time and Packet factors are folded here.
    if !names(time).contains(axis) && !names(packet).contains(axis) {
        let spatial = [Dim::Chip, Dim::Cluster, Dim::Slice]
            .into_iter()
            .find(|&dim| names(input.mapping(dim)).contains(axis));
        return Err(fail(match spatial {
            Some(dim) => format!(
                "`{axis}` is only in {dim} = m![{}]: nothing to reduce within a slice (rule: the intra-slice reducer folds Time and Packet; use vector_inter_slice_reduce for Slice)",
                input.mapping(dim).m_notation()
            ),
            None => format!("`{axis}` is in neither Time nor Packet"),
        }));
    }

    // Rule 2.
    let tf = factors(time);
    let pf = factors(packet);
    let mentions = |f: &Mapping| names(f).contains(axis);
    let only = |f: &Mapping| names(f).iter().all(|a| a == axis) && mentions(f);
    if let Some(bad) = tf.iter().chain(&pf).find(|f| mentions(f) && !only(f)) {
        return Err(fail(format!(
            "factor `{bad}` mixes `{axis}` with other axes (rule: every removed factor belongs to `{axis}`, no kept factor mentions it)"
        )));
    }

    // Rule 3.
    let kept: Vec<Mapping> = tf.iter().filter(|f| !mentions(f)).cloned().collect();
    let ot = factors(out_time);
    if ot.len() != kept.len() || !ot.iter().zip(&kept).all(|(a, b)| a.equivalent(b)) {
        return Err(fail(format!(
            "OutTime must be Time without its `{axis}` factors, in order: m![{}]",
            join(&kept)
        )));
    }

    // Rule 4.
    let lane0 = Mapping::broadcast(1)
        .and_then(|m| m.pad(4, PaddingKind::Top))
        .map_err(|e| fail(e.to_string()))?;
    if out_packet.equivalent(packet) {
        if pf.iter().any(mentions) {
            return Err(fail(format!(
                "OutPacket = Packet keeps `{axis}` (rule: `{axis}` must be fully reduced; use OutPacket = m![1 # 4] to reduce the lanes)"
            )));
        }
        if kept.len() == tf.len() {
            return Err(fail(format!("nothing is reduced: `{axis}` is not in Time")));
        }
    } else if out_packet.equivalent(&lane0) {
        if let Some(bad) = pf.iter().find(|f| !only(f)) {
            return Err(fail(format!(
                "OutPacket = m![1 # 4] drops the packet factor `{bad}`, which is not `{axis}`"
            )));
        }
    } else {
        return Err(fail(
            "OutPacket must be Packet (accumulate over Time per lane) or m![1 # 4] (the four lanes reduced into lane 0)".into(),
        ));
    }

    // Rule 5.
    if let Some(outer) = tf.iter().position(mentions) {
        let inner: Vec<Mapping> = tf[outer..]
            .iter()
            .filter(|f| !mentions(f))
            .cloned()
            .collect();
        let slots: usize = inner.iter().map(Mapping::size).product();
        if slots > ACCUMULATOR_SLOTS {
            return Err(fail(format!(
                "the Time factors inside the outermost reduced one, m![{}], have {slots} positions but the temporal accumulator has {ACCUMULATOR_SLOTS} slots",
                join(&inner)
            )));
        }
    }

    // Data: fold per physical lane (chip, cluster, slice, kept time step, kept packet lane).
    // The buffer is [chip·cluster·slice, time, lane] row-major; each time step's accumulator
    // row comes from a table of the kept time digits.
    let per_lane = out_packet.equivalent(packet);
    let [chips, clusters, slices, steps, lanes] = input.shape();
    let kept_lanes = if per_lane { lanes } else { 1 };
    let out_steps = out_time.size();
    let time_radices: Vec<usize> = tf.iter().map(Mapping::size).collect();
    let kept_radices: Vec<usize> = kept.iter().map(Mapping::size).collect();
    let kept_step: Vec<usize> = (0..steps)
        .map(|t| {
            let kept_digits: Vec<usize> = digits(t, &time_radices)
                .into_iter()
                .zip(&tf)
                .filter(|(_, f)| !mentions(f))
                .map(|(d, _)| d)
                .collect();
            compose(&kept_digits, &kept_radices)
        })
        .collect();
    let fold = op.fold();
    let identity = fold.identity();
    let spatial = chips * clusters * slices;
    let row = out_steps * kept_lanes;
    let mut acc = vec![(identity, 0u8); spatial * row];
    let words = input.codes().words();
    let run = steps * lanes;
    let cells = Run {
        words: &words,
        tags,
        live: input.partial_liveness(),
        run,
        lanes,
        kept_lanes,
        kept_step: &kept_step,
    };
    use super::ops::IntraSliceReduceOpI32 as I;
    match op {
        IntraSliceReduceOp::I32(I::AddSat) => cells.fold(&mut acc, row, |a, c| {
            (a as i32).saturating_add(c as i32) as u32
        }),
        IntraSliceReduceOp::I32(I::Max) => {
            cells.fold(&mut acc, row, |a, c| (a as i32).max(c as i32) as u32)
        }
        IntraSliceReduceOp::I32(I::Min) => {
            cells.fold(&mut acc, row, |a, c| (a as i32).min(c as i32) as u32)
        }
        IntraSliceReduceOp::F32(_) => cells.fold(&mut acc, row, |a, c| fold.step(a, c)),
    }
    drop(cells);
    drop(words);
    let dims_out = [
        input.mapping(Dim::Chip),
        input.mapping(Dim::Cluster),
        input.mapping(Dim::Slice),
        out_time,
        out_packet,
    ];
    let out_lanes = out_packet.size();
    let out_live = combined_liveness(&dims_out);
    let mut data = vec![identity; out_live.len()];
    let mut out_tags = vec![0u8; out_live.len()];
    let out_run = out_steps * out_lanes;
    for (s, acc) in acc.chunks_exact(row.max(1)).enumerate() {
        for t in 0..out_steps {
            for p in 0..out_lanes {
                let pos = s * out_run + t * out_lanes + p;
                if out_live[pos] {
                    let (code, tag) = acc[t * kept_lanes + if per_lane { p } else { 0 }];
                    data[pos] = code;
                    out_tags[pos] = tag;
                }
            }
        }
    }
    let tags = out_tags;
    Ok((
        input.regrouped(out_time.clone(), out_packet.clone(), data.into()),
        tags,
    ))
}

/// The input of a fold: its codes and tags, the liveness mask when some position is dead, and
/// the layout (`run` codes per slice, `lanes` per time step, the accumulator row of each time
/// step, and whether the lanes are kept).
struct Run<'a> {
    words: &'a [u32],
    tags: &'a [u8],
    live: Option<Vec<bool>>,
    run: usize,
    lanes: usize,
    kept_lanes: usize,
    kept_step: &'a [usize],
}

impl Run<'_> {
    /// Folds every live cell into its accumulator slot (`row` slots per slice), in input
    /// order; a slot keeps the tag of the last cell folded into it.
    fn fold(&self, acc: &mut [(u32, u8)], row: usize, step: impl Fn(u32, u32) -> u32) {
        let per_lane = self.kept_lanes == self.lanes;
        for (s, acc) in acc.chunks_exact_mut(row.max(1)).enumerate() {
            for (t, &kt) in self.kept_step.iter().enumerate() {
                let base = s * self.run + t * self.lanes;
                let cells = base..base + self.lanes;
                let (codes, tags) = (&self.words[cells.clone()], &self.tags[cells.clone()]);
                let live = self.live.as_ref().map(|l| &l[cells]);
                let slots = &mut acc[kt * self.kept_lanes..(kt + 1) * self.kept_lanes];
                for p in 0..self.lanes {
                    if live.is_none_or(|l| l[p]) {
                        let slot = &mut slots[if per_lane { p } else { 0 }];
                        *slot = (step(slot.0, codes[p]), tags[p]);
                    }
                }
            }
        }
    }
}
