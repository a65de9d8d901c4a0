//! The result of evaluating a `layout.csl`: what a later step lowers onto the simulator.

use std::collections::BTreeMap;

use super::value::{Dir, Type, Value};

/// A program's layout: its rectangle of PEs, the code and params of each PE, the routes of
/// each color on each PE's router, and the symbols exported to the host.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// `@set_rectangle(width, height)`.
    pub rectangle: Option<(u32, u32)>,
    /// `@set_tile_code`, by PE `(x, y)`.
    pub tiles: BTreeMap<(u32, u32), TileCode>,
    /// `@set_color_config`, by PE `(x, y)` then color.
    pub routes: BTreeMap<(u32, u32), BTreeMap<u8, ColorRoute>>,
    /// `@export_name`, in order.
    pub exports: Vec<ExportedName>,
}

/// The code of one PE: a source file and the values of its `param`s.
#[derive(Clone, Debug, PartialEq)]
pub struct TileCode {
    /// The file as named in the layout (`"pe_program.csl"`).
    pub file: String,
    /// The params struct's fields in order.
    pub params: Vec<(String, Value)>,
}

impl TileCode {
    /// The value given for param `name`.
    pub fn param(&self, name: &str) -> Option<&Value> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// One switch position (`pos1`..`pos3`): what it changes of the route.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwitchPosition {
    /// The single port it receives from instead, if it changes `rx`.
    pub rx: Option<Dir>,
    /// The ports it sends to instead, if it changes `tx`.
    pub tx: Option<Vec<Dir>>,
}

/// A color's configuration on one router.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColorRoute {
    /// `.routes.rx`: the ports the color is accepted from.
    pub rx: Vec<Dir>,
    /// `.routes.tx`: the ports every wavelet is copied to.
    pub tx: Vec<Dir>,
    /// `.switches.pos1` .. `pos3`.
    pub positions: [Option<SwitchPosition>; 3],
    /// `.switches.current_switch_pos`.
    pub current_switch_pos: u8,
    /// `.switches.ring_mode`.
    pub ring_mode: bool,
    /// `.routes.color_swap_x`: a wavelet from WEST sent EAST toggles its color's lowest bit.
    pub color_swap_x: bool,
    /// `.routes.color_swap_y` (recorded; its rule is for the lowering to accept or refuse).
    pub color_swap_y: bool,
    /// `.teardown`: the color starts in teardown mode.
    pub teardown: bool,
    /// `.filter` of kind `.range`: the indices of data wavelets let through to the PE.
    pub filter: Option<RangeFilter>,
}

/// A range filter: data wavelets reach the compute engine only when their index is in
/// `min_idx..=max_idx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeFilter {
    /// Smallest index let through.
    pub min_idx: u16,
    /// Largest index let through.
    pub max_idx: u16,
}

/// `@export_name(name, type, mutable)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportedName {
    /// The host-visible name.
    pub name: String,
    /// Its type (`[*]f32`, `fn() void`).
    pub ty: Type,
    /// Whether the host may write it (data symbols; `false` for functions).
    pub mutable: bool,
}
