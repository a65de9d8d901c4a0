//! The intra-slice reducer (spec §3.6.6): folds the factors of one axis `R` out of Time and
//! Packet, within each slice; Chip, Cluster and Slice pass through.
//!
//! Validation (`config_reduce_label`, plus the accumulator limit the vendor's compiler checks):
//! 1. `R` appears in Time or Packet and nowhere in Chip, Cluster or Slice;
//! 2. every top-level factor of Time and Packet that mentions `R` is made of `R` alone (a
//!    removed factor belongs to `R`; a kept factor does not mention it);
//! 3. OutTime is Time without its `R` factors, in order;
//! 4. OutPacket is Packet (per-lane accumulation over Time; Packet must not mention `R`) or
//!    `m![1 # 4]` (the four lanes reduced into lane 0; every Packet factor is `R`);
//! 5. the temporal accumulator has 8 slots: the kept Time factors inside the outermost reduced
//!    one have at most 8 positions.
//!
//! Data: for every live output cell, the left fold from the op's identity over the live input
//! cells with the same coordinates apart from `R`, in ascending input position (spec §4.4;
//! the hardware's lane tree may differ for f32 and saturating adds — the CPU fold is the
//! reference). Dead output cells hold the identity.

use std::collections::{BTreeMap, HashMap};

use crate::mapping::{Final, PaddingKind};
use crate::tensor::{Dim, combined_cells};
use crate::{Mapping, StreamTensor};

use super::VectorError;
use super::inter_slice::{factors, join, names};
use super::ops::IntraSliceReduceOp;

/// Slots of the temporal accumulator.
pub const ACCUMULATOR_SLOTS: usize = 8;

/// Runs the reducer over `axis`; returns the new stream and its tags (each output cell keeps
/// the tag of the last input cell folded into it, spec §4.4).
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

    // Rule 1.
    for dim in [Dim::Chip, Dim::Cluster, Dim::Slice] {
        if names(input.mapping(dim)).contains(axis) {
            return Err(fail(format!(
                "`{axis}` is in {dim} = m![{}] (rule: the intra-slice reducer folds Time and Packet within a slice; vector_inter_slice_reduce folds Slice)",
                input.mapping(dim).m_notation()
            )));
        }
    }
    if !names(time).contains(axis) && !names(packet).contains(axis) {
        return Err(fail(format!("`{axis}` is in neither Time nor Packet")));
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

    // Data.
    let fold = op.fold();
    let mut acc: HashMap<BTreeMap<String, usize>, (u32, u8)> = HashMap::new();
    for ((cell, &code), &tag) in input.cells().into_iter().zip(input.codes()).zip(tags) {
        if let Final::Live(mut index) = cell {
            index.remove(axis);
            let slot = acc.entry(index).or_insert_with(|| (fold.identity(), 0));
            *slot = (fold.step(slot.0, code as u32), tag);
        }
    }
    let dims_out = [
        input.mapping(Dim::Chip),
        input.mapping(Dim::Cluster),
        input.mapping(Dim::Slice),
        out_time,
        out_packet,
    ];
    let (data, tags): (Vec<u64>, Vec<u8>) = combined_cells(&dims_out)
        .into_iter()
        .map(|cell| {
            let (code, tag) = match cell {
                Final::Live(index) => acc.get(&index).copied(),
                _ => None,
            }
            .unwrap_or((fold.identity(), 0));
            (u64::from(code), tag)
        })
        .unzip();
    Ok((
        input.regrouped(out_time.clone(), out_packet.clone(), data),
        tags,
    ))
}
