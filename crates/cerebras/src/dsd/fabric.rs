//! `fabin_dsd` and `fabout_dsd` as validated data (seed 004, spec §2.5–2.6); their behaviour
//! on the fabric is in `pe::fabric_io`.
//!
//! Colors and queues: on WSE-2 a fabric DSD names a color, a queue, or both (the SDK's usual
//! form; the fabin's queue is then bound to the color). On WSE-3 a queue is required and a
//! color may be named beside it, as the SDK examples do after `@initialize_queue(q, .{ .color
//! = c })`; the color must then be the one the queue is initialized to (checked when the
//! operation starts). A color alone is a WSE-2 form (seed 004).

use std::fmt;

use super::error::DsdError;
use crate::arch::Arch;
use crate::fabric::{InputQueue, OutputQueue};
use crate::limits::{COLOR, EXTENT};
use npusim_hw::Limit;

/// Output queues: 0..=5 on WSE-2, 0..=7 on WSE-3 (spec §1.3).
const fn output_queue_limit(arch: Arch) -> Limit {
    match arch {
        Arch::Wse2 => Limit::new("output_queue", 0, 5),
        Arch::Wse3 => Limit::new("output_queue", 0, 7),
    }
}

/// Microthread priority (WSE-3 DSD field; seed 004).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Priority {
    /// `.{ .high = true }`
    High,
    /// `.{ .medium = true }`
    Medium,
    /// `.{ .low = true }`
    Low,
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Priority::High => ".{ .high = true }",
            Priority::Medium => ".{ .medium = true }",
            Priority::Low => ".{ .low = true }",
        })
    }
}

/// SIMD mode of a fabric DSD carrying 16-bit values (seed 004).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdMode {
    /// Two 16-bit values per wavelet.
    Simd32,
    /// Two wavelets must be ready.
    Simd64,
    /// Proceed when at least one wavelet is ready.
    Simd32Or64,
}

impl fmt::Display for SimdMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SimdMode::Simd32 => ".{ .simd_32 = true }",
            SimdMode::Simd64 => ".{ .simd_64 = true }",
            SimdMode::Simd32Or64 => ".{ .simd_32_or_64 = true }",
        })
    }
}

/// Which source a fabout zeroes after the operation (seed 004: only one of the two).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZeroSource {
    /// `.{ .first_source = true }`
    First,
    /// `.{ .second_source = true }`
    Second,
}

fn check(limit: Limit, v: i64, what: &str) -> Result<u8, DsdError> {
    limit
        .check(i128::from(v))
        .map_err(|e| DsdError::limit(what, e))?;
    Ok(v as u8)
}

/// A fabric input DSD.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FabIn {
    /// Number of wavelets.
    pub extent: u16,
    /// Input queue.
    pub input_queue: Option<InputQueue>,
    /// Color: instead of the queue or beside it on WSE-2, beside the queue on WSE-3.
    pub fabric_color: Option<u8>,
    /// Mark control wavelets in the index bits.
    pub control_transform: bool,
    /// Microthread priority (WSE-3 only).
    pub priority: Option<Priority>,
    /// SIMD mode: each wavelet carries two 16-bit values, low half first; `extent` counts
    /// wavelets (spec §0.6).
    pub simd_mode: Option<SimdMode>,
}

impl FabIn {
    /// A fabin DSD, checked for `arch`: a queue or (WSE-2) a color is required; WSE-3 takes a
    /// color only beside a queue.
    pub fn new(
        arch: Arch,
        extent: i64,
        input_queue: Option<InputQueue>,
        fabric_color: Option<i64>,
    ) -> Result<FabIn, DsdError> {
        EXTENT
            .check(i128::from(extent))
            .map_err(|e| DsdError::limit("fabin_dsd extent", e))?;
        let queue = input_queue;
        let color = fabric_color
            .map(|c| check(COLOR, c, "fabin_dsd fabric_color"))
            .transpose()?;
        if color.is_some() && queue.is_none() && arch == Arch::Wse3 {
            return Err(DsdError::Arch {
                what: "fabin_dsd fabric_color without an input_queue".into(),
                arch,
            });
        }
        if queue.is_none() && color.is_none() {
            return Err(DsdError::Missing {
                kind: "fabin_dsd",
                property: "input_queue",
            });
        }
        Ok(FabIn {
            extent: extent as u16,
            input_queue: queue,
            fabric_color: color,
            control_transform: false,
            priority: None,
            simd_mode: None,
        })
    }

    /// Sets the SIMD mode (`.simd_mode = .{ .simd_32 = true }` and the like).
    pub fn with_simd_mode(mut self, mode: SimdMode) -> FabIn {
        self.simd_mode = Some(mode);
        self
    }

    /// Sets the priority (WSE-3 only).
    pub fn with_priority(mut self, arch: Arch, p: Priority) -> Result<FabIn, DsdError> {
        if arch == Arch::Wse2 {
            return Err(DsdError::Arch {
                what: "fabin_dsd priority".into(),
                arch,
            });
        }
        self.priority = Some(p);
        Ok(self)
    }
}

impl fmt::Display for FabIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@get_dsd(fabin_dsd, .{{.extent = {}", self.extent)?;
        if let Some(c) = self.fabric_color {
            write!(f, ", .fabric_color = {c}")?;
        }
        if let Some(q) = self.input_queue {
            write!(f, ", .input_queue = @get_input_queue({})", q.id())?;
        }
        if self.control_transform {
            f.write_str(", .control_transform = true")?;
        }
        if let Some(p) = self.priority {
            write!(f, ", .priority = {p}")?;
        }
        if let Some(m) = self.simd_mode {
            write!(f, ", .simd_mode = {m}")?;
        }
        f.write_str("})")
    }
}

/// A fabric output DSD.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FabOut {
    /// Number of wavelets.
    pub extent: u16,
    /// Output queue.
    pub output_queue: Option<OutputQueue>,
    /// Color: instead of the queue or beside it on WSE-2, beside the queue on WSE-3.
    pub fabric_color: Option<u8>,
    /// Every wavelet sent is a control wavelet.
    pub control: bool,
    /// The operation's `.index` goes in every wavelet's high 16 bits.
    pub wavelet_index_offset: bool,
    /// SIMD mode.
    pub simd_mode: Option<SimdMode>,
    /// Source zeroed after the operation.
    pub zero: Option<ZeroSource>,
    /// Advance the color's switch position after the last wavelet.
    pub advance_switch: bool,
    /// Rebuild control wavelets marked by a `control_transform` fabin.
    pub control_transform: bool,
    /// Microthread priority (WSE-3 only).
    pub priority: Option<Priority>,
}

impl FabOut {
    /// A fabout DSD, checked for `arch`: a queue or (WSE-2) a color is required; WSE-3 takes a
    /// color only beside a queue.
    pub fn new(
        arch: Arch,
        extent: i64,
        output_queue: Option<OutputQueue>,
        fabric_color: Option<i64>,
    ) -> Result<FabOut, DsdError> {
        EXTENT
            .check(i128::from(extent))
            .map_err(|e| DsdError::limit("fabout_dsd extent", e))?;
        if let Some(q) = output_queue {
            check(
                output_queue_limit(arch),
                i64::from(q.id()),
                "fabout_dsd output_queue",
            )?;
        }
        let queue = output_queue;
        let color = fabric_color
            .map(|c| check(COLOR, c, "fabout_dsd fabric_color"))
            .transpose()?;
        if color.is_some() && queue.is_none() && arch == Arch::Wse3 {
            return Err(DsdError::Arch {
                what: "fabout_dsd fabric_color without an output_queue".into(),
                arch,
            });
        }
        if queue.is_none() && color.is_none() {
            return Err(DsdError::Missing {
                kind: "fabout_dsd",
                property: "output_queue",
            });
        }
        Ok(FabOut {
            extent: extent as u16,
            output_queue: queue,
            fabric_color: color,
            control: false,
            wavelet_index_offset: false,
            simd_mode: None,
            zero: None,
            advance_switch: false,
            control_transform: false,
            priority: None,
        })
    }
}

impl fmt::Display for FabOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@get_dsd(fabout_dsd, .{{.extent = {}", self.extent)?;
        if let Some(c) = self.fabric_color {
            write!(f, ", .fabric_color = {c}")?;
        }
        if let Some(q) = self.output_queue {
            write!(f, ", .output_queue = @get_output_queue({})", q.id())?;
        }
        if self.control {
            f.write_str(", .control = true")?;
        }
        if self.wavelet_index_offset {
            f.write_str(", .wavelet_index_offset = true")?;
        }
        if let Some(m) = self.simd_mode {
            write!(f, ", .simd_mode = {m}")?;
        }
        match self.zero {
            Some(ZeroSource::First) => f.write_str(", .zero = .{ .first_source = true }")?,
            Some(ZeroSource::Second) => f.write_str(", .zero = .{ .second_source = true }")?,
            None => {}
        }
        if self.advance_switch {
            f.write_str(", .advance_switch = true")?;
        }
        if self.control_transform {
            f.write_str(", .control_transform = true")?;
        }
        if let Some(p) = self.priority {
            write!(f, ", .priority = {p}")?;
        }
        f.write_str("})")
    }
}
