//! Wavelets: 32-bit fabric messages (spec §1.2). For 16-bit payloads the low half is the data
//! and the high half the index; whether a wavelet is data or control is a flag outside the
//! payload (seed 004, `control_transform`).

use std::fmt;

use super::color::Color;
use super::error::FabricError;

/// Data or control: the flag that travels beside the 32-bit payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaveletKind {
    /// An ordinary data wavelet.
    Data,
    /// A control wavelet (switch commands, control task entry point).
    Control,
}

/// One wavelet: a color, a 32-bit payload and the data/control flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wavelet {
    /// The color it travels on.
    pub color: Color,
    /// The 32 payload bits.
    pub payload: u32,
    /// Data or control.
    pub kind: WaveletKind,
    /// Set on the last wavelet of a fabout with `advance_switch`: the sending router advances
    /// the color's switch position once it has forwarded this wavelet (a simulator flag, not
    /// payload).
    pub advance_switch: bool,
}

impl Wavelet {
    /// A data wavelet carrying 32 bits.
    pub const fn data32(color: Color, payload: u32) -> Wavelet {
        Wavelet {
            color,
            payload,
            kind: WaveletKind::Data,
            advance_switch: false,
        }
    }

    /// A data wavelet carrying a 16-bit `index` (high half) and 16-bit `data` (low half).
    pub const fn data16(color: Color, index: u16, data: u16) -> Wavelet {
        Wavelet::data32(color, ((index as u32) << 16) | data as u32)
    }

    /// The same wavelet on its color with bit 0 toggled (`color_swap_x`).
    pub const fn with_color_bit0_toggled(self) -> Wavelet {
        Wavelet {
            color: self.color.bit0_toggled(),
            ..self
        }
    }

    /// A control wavelet with this payload.
    pub const fn control(color: Color, payload: u32) -> Wavelet {
        Wavelet {
            color,
            payload,
            kind: WaveletKind::Control,
            advance_switch: false,
        }
    }

    /// A wavelet from untrusted numbers: the color must be routable and the payload must fit
    /// 32 bits.
    pub fn from_raw(color: i64, payload: i64, kind: WaveletKind) -> Result<Wavelet, FabricError> {
        let color = Color::new(color)?;
        let payload = u32::try_from(payload).map_err(|_| FabricError::Payload { payload })?;
        Ok(Wavelet {
            color,
            payload,
            kind,
            advance_switch: false,
        })
    }

    /// The high 16 bits (the index of a 16-bit wavelet).
    pub const fn index(self) -> u16 {
        (self.payload >> 16) as u16
    }

    /// The low 16 bits (the data of a 16-bit wavelet).
    pub const fn low16(self) -> u16 {
        self.payload as u16
    }

    /// Whether it is a control wavelet.
    pub const fn is_control(self) -> bool {
        matches!(self.kind, WaveletKind::Control)
    }
}

impl fmt::Display for Wavelet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            WaveletKind::Data => "data",
            WaveletKind::Control => "control",
        };
        write!(f, "{kind} 0x{:08X} on {}", self.payload, self.color)
    }
}
