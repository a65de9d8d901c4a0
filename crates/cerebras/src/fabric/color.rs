//! Fabric colors: the 5-bit tag every wavelet carries; colors 0–23 are routable (spec §1.2).

use std::fmt;

use super::error::FabricError;

/// A routable color, 0..=23.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Color(u8);

impl Color {
    /// Number of routable colors on WSE-2 and WSE-3.
    pub const COUNT: usize = 24;

    /// The color `c`, checked against 0..=23.
    pub fn new(c: i64) -> Result<Color, FabricError> {
        if (0..Color::COUNT as i64).contains(&c) {
            Ok(Color(c as u8))
        } else {
            Err(FabricError::ColorOutOfRange { color: c })
        }
    }

    /// The color's number.
    pub const fn id(self) -> u8 {
        self.0
    }

    /// The color with its lowest bit toggled (`color_swap_x`: red 0 <-> blue 1); stays in
    /// 0..=23 since 23 ^ 1 = 22.
    pub const fn bit0_toggled(self) -> Color {
        Color(self.0 ^ 1)
    }

    /// The color's number as an index into per-color tables.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "color {}", self.0)
    }
}
