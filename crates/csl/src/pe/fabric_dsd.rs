//! `@get_dsd(fabin_dsd | fabout_dsd, .{ ... })` at compile time: the extent, color, queue and
//! flags evaluated with the params, checked for the architecture at once (so a WSE-3 fabric
//! DSD without a queue is an error at its `@get_dsd`), and built as the simulator's
//! `FabIn` / `FabOut` when the program is loaded.
//!
//! Fields: a `fabin_dsd` takes `.extent`, `.fabric_color` and `.input_queue`; a `fabout_dsd`
//! takes `.extent`, `.fabric_color`, `.output_queue`, `.control` and
//! `.wavelet_index_offset`. Any other field is refused by name.

use npusim_cerebras::Arch as SimArch;
use npusim_cerebras::dsd::{Dsd, DsdError, FabIn, FabOut, Priority, SimdMode};
use npusim_cerebras::ids::{Color, InputQueue, OutputQueue};

use super::flags::one_flag;
use super::priority::{PriorityPlace, check_priority};
use super::program::QueueInit;
use crate::ast::{Expr, FieldInit};
use crate::comptime::{Arch, ConstEval, EvalError, Value};
use crate::span::Span;

/// A fabric DSD as the program declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FabricSpec {
    /// A `fabin_dsd` (else a `fabout_dsd`).
    pub input: bool,
    /// `.extent`: the number of wavelets.
    pub extent: i64,
    /// `.fabric_color`.
    pub color: Option<u8>,
    /// `.input_queue` or `.output_queue`.
    pub queue: Option<u8>,
    /// `.control = true` (fabout): every wavelet sent is a control wavelet.
    pub control: bool,
    /// `.wavelet_index_offset = true` (fabout): the operation's index goes in the high half.
    pub wavelet_index_offset: bool,
    /// `.priority` (WSE-3): the microthread priority of operations on it.
    pub priority: Option<Priority>,
    /// `.simd_mode`: two 16-bit values per wavelet.
    pub simd_mode: Option<SimdMode>,
    /// `.control_transform = true`: control wavelets marked in (fabin) or rebuilt from
    /// (fabout) the two high index bits.
    pub control_transform: bool,
    /// Where its `@get_dsd` is.
    pub span: Span,
}

/// The simulator's architecture of a compile-time one.
pub(crate) fn sim_arch(arch: Arch) -> SimArch {
    match arch {
        Arch::Wse2 => SimArch::Wse2,
        Arch::Wse3 => SimArch::Wse3,
    }
}

impl FabricSpec {
    /// Reads the fields of `@get_dsd(fabin_dsd | fabout_dsd, .{ ... })` on `arch`.
    pub(crate) fn from_fields(
        ev: &mut ConstEval<'_>,
        input: bool,
        fields: &[FieldInit],
        span: Span,
        arch: Arch,
    ) -> Result<FabricSpec, EvalError> {
        let kind = if input { "fabin_dsd" } else { "fabout_dsd" };
        let allowed: &[&str] = if input {
            &[
                "extent",
                "fabric_color",
                "input_queue",
                "priority",
                "simd_mode",
                "control_transform",
            ]
        } else {
            &[
                "extent",
                "fabric_color",
                "output_queue",
                "control",
                "wavelet_index_offset",
                "priority",
                "simd_mode",
                "control_transform",
            ]
        };
        let mut spec = FabricSpec {
            input,
            extent: -1,
            color: None,
            queue: None,
            control: false,
            wavelet_index_offset: false,
            priority: None,
            simd_mode: None,
            control_transform: false,
            span,
        };
        let mut extent = None;
        for f in fields {
            if !allowed.contains(&f.name.as_str()) {
                return Err(EvalError::new(
                    f.value.span,
                    format!(
                        "{kind} field `.{}` is not supported (it takes {})",
                        f.name,
                        allowed
                            .iter()
                            .map(|a| format!(".{a}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            if f.name == "priority" {
                spec.priority = Some(check_priority(&f.value, PriorityPlace::FabricDsd, arch)?);
                continue;
            }
            if f.name == "simd_mode" {
                spec.simd_mode = Some(simd_mode(&f.value)?);
                continue;
            }
            let v = ev.expr(&f.value)?;
            match (f.name.as_str(), v) {
                ("extent", Value::Int { value, .. }) => {
                    extent = Some(i64::try_from(value).unwrap_or(i64::MAX));
                }
                ("fabric_color", Value::Color(c)) => spec.color = Some(c),
                ("input_queue", Value::InputQueue(q)) | ("output_queue", Value::OutputQueue(q)) => {
                    spec.queue = Some(q);
                }
                ("control", Value::Bool(b)) => spec.control = b,
                ("wavelet_index_offset", Value::Bool(b)) => spec.wavelet_index_offset = b,
                ("control_transform", Value::Bool(b)) => spec.control_transform = b,
                (name, v) => {
                    let want = match name {
                        "extent" => "an integer",
                        "fabric_color" => "a color",
                        "input_queue" => "an input queue",
                        "output_queue" => "an output queue",
                        _ => "a bool",
                    };
                    return Err(field_error(&f.value, kind, name, want, &v));
                }
            }
        }
        spec.extent =
            extent.ok_or_else(|| EvalError::new(span, format!("a {kind} needs `.extent`")))?;
        spec.dsd(sim_arch(arch))
            .map_err(|e| EvalError::new(span, e.to_string()))?;
        Ok(spec)
    }

    /// The simulator's DSD on `arch`.
    pub fn dsd(&self, arch: SimArch) -> Result<Dsd, DsdError> {
        let color = self.color.map(i64::from);
        let id_err = |e: npusim_cerebras::ids::IdError| DsdError::limit("fabric DSD queue", e.0);
        if self.input {
            let queue = self
                .queue
                .map(|q| InputQueue::new(i64::from(q)))
                .transpose()
                .map_err(id_err)?;
            let mut d = FabIn::new(arch, self.extent, queue, color)?;
            d.priority = self.priority;
            d.simd_mode = self.simd_mode;
            d.control_transform = self.control_transform;
            Ok(Dsd::FabIn(d))
        } else {
            let queue = self
                .queue
                .map(|q| OutputQueue::new(i64::from(q)))
                .transpose()
                .map_err(id_err)?;
            let mut d = FabOut::new(arch, self.extent, queue, color)?;
            d.control = self.control;
            d.wavelet_index_offset = self.wavelet_index_offset;
            d.priority = self.priority;
            d.simd_mode = self.simd_mode;
            d.control_transform = self.control_transform;
            Ok(Dsd::FabOut(d))
        }
    }

    /// On WSE-3, the queue this DSD names must be initialized (`@initialize_queue`) and a
    /// color named beside it must be the queue's: the error otherwise. `inits` are the
    /// program's `@initialize_queue`s.
    pub(crate) fn check_wse3_queue(&self, inits: &[QueueInit]) -> Result<(), EvalError> {
        let (kind, side) = if self.input {
            ("fabin_dsd", "input")
        } else {
            ("fabout_dsd", "output")
        };
        let Some(q) = self.queue else { return Ok(()) };
        match inits.iter().find(|i| i.input == self.input && i.queue == q) {
            None => Err(EvalError::new(
                self.span,
                format!(
                    "{kind} reads {side} queue {q}, which no @initialize_queue binds to a color (WSE-3 needs one)"
                ),
            )),
            Some(i) => match self.color {
                Some(c) if c != i.color => Err(EvalError::new(
                    self.span,
                    format!(
                        "{kind} names color {c}, but {side} queue {q} is initialized to color {}",
                        i.color
                    ),
                )),
                _ => Ok(()),
            },
        }
    }

    /// The input queue and color a WSE-2 fabin ties together when the program is loaded
    /// (the compiler's binding; WSE-3 binds queues with `@initialize_queue`).
    pub(crate) fn wse2_input_binding(&self) -> Option<(Option<u8>, Color)> {
        if !self.input {
            return None;
        }
        let c = Color::new(i64::from(self.color?)).ok()?;
        Some((self.queue, c))
    }
}

/// The SIMD mode `.simd_mode = value` sets.
pub(crate) fn simd_mode(value: &Expr) -> Result<SimdMode, EvalError> {
    Ok(
        match one_flag(value, &["simd_32", "simd_64", "simd_32_or_64"], "simd_mode")? {
            "simd_32" => SimdMode::Simd32,
            "simd_64" => SimdMode::Simd64,
            _ => SimdMode::Simd32Or64,
        },
    )
}

fn field_error(e: &Expr, kind: &str, name: &str, want: &str, v: &Value) -> EvalError {
    EvalError::new(
        e.span,
        format!(
            "{kind} `.{name}` takes {want}, found {} `{v}`",
            v.type_name()
        ),
    )
}
