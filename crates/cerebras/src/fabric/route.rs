//! Per-color routes of one router (spec §8): the `rx` ports a color is received from, the
//! `tx` ports it is copied to (multicast), and up to three switch positions that replace the
//! `rx` port or the `tx` set when the switch advances.

use super::color::Color;
use super::direction::{Dir, DirSet};
use super::error::FabricError;
use crate::arch::Arch;

/// A route: receive from `rx`, copy to every port of `tx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Route {
    /// Ports the color is accepted from.
    pub rx: DirSet,
    /// Ports every accepted wavelet is copied to.
    pub tx: DirSet,
}

impl Route {
    /// `.rx = rx, .tx = tx`.
    pub fn new(rx: &[Dir], tx: &[Dir]) -> Route {
        Route {
            rx: DirSet::of(rx),
            tx: DirSet::of(tx),
        }
    }
}

/// A switch position (`pos1`..`pos3`): it replaces the `rx` port, the `tx` set, or (WSE-3
/// only) both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SwitchPos {
    /// The single `rx` port of this position, if it changes `rx`.
    pub rx: Option<Dir>,
    /// The `tx` set of this position, if it changes `tx`.
    pub tx: Option<DirSet>,
}

/// Colors that have switches on WSE-3 (spec §1.3); every color has them on WSE-2.
pub const WSE3_SWITCH_COLORS: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 20, 21];

/// A color's configuration on one router: its base route, switch positions and state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColorConfig {
    /// The route at switch position 0.
    pub base: Route,
    /// `pos1`, `pos2`, `pos3` (`None`: invalid, the default).
    pub positions: [Option<SwitchPos>; 3],
    /// `current_switch_pos`, 0..=3.
    pub current: u8,
    /// Wrap back to position 0 after the last valid position instead of staying.
    pub ring_mode: bool,
}

impl ColorConfig {
    /// A fixed route (no switch positions).
    pub fn fixed(route: Route) -> ColorConfig {
        ColorConfig {
            base: route,
            positions: [None; 3],
            current: 0,
            ring_mode: false,
        }
    }

    /// The configuration with switch positions `pos1..` checked for `arch` and `color`.
    pub fn with_switches(
        mut self,
        arch: Arch,
        color: Color,
        positions: &[SwitchPos],
        ring_mode: bool,
    ) -> Result<ColorConfig, FabricError> {
        if positions.len() > 3 {
            return Err(FabricError::Switch {
                color,
                why: format!("{} switch positions given, at most 3", positions.len()),
            });
        }
        if arch == Arch::Wse3 && !WSE3_SWITCH_COLORS.contains(&color.id()) {
            return Err(FabricError::Switch {
                color,
                why: "WSE-3 has switches only on colors 0-9, 12, 13, 16, 17, 20, 21".into(),
            });
        }
        for (k, p) in positions.iter().enumerate() {
            let why = match (p.rx, p.tx) {
                (None, None) => Some("changes neither rx nor tx"),
                (Some(_), Some(_)) if arch == Arch::Wse2 => {
                    Some("changes both rx and tx, which WSE-2 rejects")
                }
                (_, Some(t)) if t.is_empty() => Some("has an empty tx set"),
                _ => None,
            };
            if let Some(why) = why {
                return Err(FabricError::Switch {
                    color,
                    why: format!("pos{} {why}", k + 1),
                });
            }
            self.positions[k] = Some(*p);
        }
        self.ring_mode = ring_mode;
        Ok(self)
    }

    /// The route in force at the current switch position.
    pub fn route(&self) -> Route {
        let mut r = self.base;
        if self.current > 0
            && let Some(p) = self.positions[usize::from(self.current - 1)]
        {
            if let Some(rx) = p.rx {
                r.rx = DirSet::of(&[rx]);
            }
            if let Some(tx) = p.tx {
                r.tx = tx;
            }
        }
        r
    }

    /// Advances the switch: to the next valid position; past the last valid one, back to 0
    /// in ring mode, otherwise it stays. Returns the new position.
    pub fn advance_switch(&mut self) -> u8 {
        let next = self.current + 1;
        if next <= 3 && self.positions[usize::from(next - 1)].is_some() {
            self.current = next;
        } else if self.ring_mode {
            self.current = 0;
        }
        self.current
    }

    /// `SWITCH_RST`: back to position 0.
    pub fn reset_switch(&mut self) {
        self.current = 0;
    }
}
