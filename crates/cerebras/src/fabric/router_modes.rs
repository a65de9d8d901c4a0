//! Router modes beyond routes and switches (spec §8): a color's teardown mode, and the WSE-2
//! color swap.
//!
//! * `teardown = true` in a color's configuration puts the color in teardown mode at start:
//!   its traffic is suspended (wavelets of that color stay in this router's slots, holding
//!   back what follows) until the program leaves the mode (`<tile_config>`'s exit,
//!   `Action::ExitTeardown` on the simulator).
//! * `color_swap_x` (WSE-2; the spec describes only this direction): a wavelet received from
//!   WEST and sent EAST leaves with the lowest bit of its color toggled (0 <-> 1), the other
//!   copies of a multicast keep their color. `color_swap_y` is not described and is refused.

use super::color::Color;
use super::error::FabricError;
use super::grid::Fabric;
use crate::arch::Arch;

/// The axis of a color swap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SwapAxis {
    /// `color_swap_x`: WEST in, EAST out.
    X,
    /// `color_swap_y` (refused: its direction rule is unpublished).
    Y,
}

impl Fabric {
    /// Puts `color` on PE `(x, y)` in teardown mode (`on`) or takes it out.
    pub fn set_teardown(
        &mut self,
        x: i64,
        y: i64,
        color: Color,
        on: bool,
    ) -> Result<(), FabricError> {
        let k = self.pe_index(x, y)?;
        self.set_teardown_at(k, color, on);
        Ok(())
    }

    /// [`Fabric::set_teardown`] by row-major index (ignored outside the grid).
    pub fn set_teardown_at(&mut self, k: usize, color: Color, on: bool) {
        if let Some(r) = self.routers.get_mut(k) {
            let bit = 1u32 << color.index();
            r.teardown = if on {
                r.teardown | bit
            } else {
                r.teardown & !bit
            };
        }
    }

    /// Whether `color` is in teardown mode on PE `(x, y)`.
    pub fn in_teardown(&self, x: i64, y: i64, color: Color) -> Result<bool, FabricError> {
        let k = self.pe_index(x, y)?;
        Ok(self.routers[k].teardown & (1 << color.index()) != 0)
    }

    /// Sets the color swap of PE `(x, y)` on `axis`: `X` on WSE-2 only, `Y` refused.
    pub fn set_color_swap(
        &mut self,
        x: i64,
        y: i64,
        axis: SwapAxis,
        on: bool,
    ) -> Result<(), FabricError> {
        let k = self.pe_index(x, y)?;
        let (px, py) = self.coords(k);
        match axis {
            SwapAxis::Y => Err(FabricError::Unsupported {
                what: format!("color_swap_y on PE ({px}, {py})"),
                why: "unpublished: the documentation describes the swap only for WEST-to-EAST traffic (color_swap_x)",
            }),
            SwapAxis::X if self.arch() != Arch::Wse2 => Err(FabricError::Arch {
                x: px,
                y: py,
                what: "color_swap_x",
                arch: self.arch(),
            }),
            SwapAxis::X => {
                self.routers[k].color_swap_x = on;
                Ok(())
            }
        }
    }
}
