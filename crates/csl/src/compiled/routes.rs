//! A layout's `@set_color_config` routes lowered to the simulator's router configuration:
//! `.routes.rx`/`.tx` to the base route, `.switches.pos1..pos3`, `current_switch_pos` and
//! `ring_mode` to its switch positions, `.teardown` to teardown mode at start,
//! `.color_swap_x` to the router's swap (WSE-2; `color_swap_y` is refused by the router),
//! and `.filter` (range) to the PE's range filter of the color.

use npusim_cerebras::Arch;
use npusim_cerebras::fabric::{
    Color, ColorConfig, Dir, DirSet, RangeFilter, Route, SwapAxis, SwitchPos,
};
use npusim_cerebras::sched::Sim;

use super::error::CompileError;
use crate::comptime::{ColorRoute, Dir as CslDir};

/// The router's port of a CSL port.
pub fn port(d: CslDir) -> Dir {
    match d {
        CslDir::North => Dir::North,
        CslDir::East => Dir::East,
        CslDir::South => Dir::South,
        CslDir::West => Dir::West,
        CslDir::Ramp => Dir::Ramp,
    }
}

fn ports(ds: &[CslDir]) -> Vec<Dir> {
    ds.iter().copied().map(port).collect()
}

/// The router configuration of `route` for `color` on PE `(x, y)` of `arch`.
pub fn color_config(
    arch: Arch,
    x: u32,
    y: u32,
    color: u8,
    route: &ColorRoute,
) -> Result<ColorConfig, CompileError> {
    let err = |source| CompileError::Route {
        x,
        y,
        color,
        source,
    };
    let c = Color::new(i64::from(color)).map_err(err)?;
    let mut positions = Vec::new();
    for (k, p) in route.positions.iter().enumerate() {
        if let Some(p) = p {
            if positions.len() < k {
                return Err(CompileError::SwitchGap {
                    x,
                    y,
                    color,
                    set: k + 1,
                    missing: positions.len() + 1,
                });
            }
            positions.push(SwitchPos {
                rx: p.rx.map(port),
                tx: p.tx.as_deref().map(|t| DirSet::of(&ports(t))),
            });
        }
    }
    let mut config = ColorConfig::fixed(Route::new(&ports(&route.rx), &ports(&route.tx)));
    if !positions.is_empty() || route.ring_mode {
        config = config
            .with_switches(arch, c, &positions, route.ring_mode)
            .map_err(err)?;
    }
    config.current = route.current_switch_pos;
    Ok(config)
}

/// Sets `route` of `color` on PE `(x, y)` of `sim`: the router's configuration, teardown,
/// color swap and the PE's range filter.
pub fn apply(
    sim: &mut Sim,
    x: u32,
    y: u32,
    color: u8,
    route: &ColorRoute,
) -> Result<(), CompileError> {
    let err = |source| CompileError::Route {
        x,
        y,
        color,
        source,
    };
    let config = color_config(sim.arch(), x, y, color, route)?;
    let c = Color::new(i64::from(color)).map_err(err)?;
    let (px, py) = (i64::from(x), i64::from(y));
    let fabric = sim.fabric_mut();
    fabric.set_color_config(px, py, c, config).map_err(err)?;
    if route.teardown {
        fabric.set_teardown(px, py, c, true).map_err(err)?;
    }
    if route.color_swap_x {
        fabric
            .set_color_swap(px, py, SwapAxis::X, true)
            .map_err(err)?;
    }
    if route.color_swap_y {
        fabric
            .set_color_swap(px, py, SwapAxis::Y, true)
            .map_err(err)?;
    }
    if let Some(f) = route.filter {
        sim.pe_mut(px, py)?.queues.set_filter(
            c,
            Some(RangeFilter {
                min_idx: f.min_idx,
                max_idx: f.max_idx,
            }),
        );
    }
    Ok(())
}
