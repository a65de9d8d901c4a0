//! The builtins that build the layout: `@set_rectangle`, `@set_tile_code`,
//! `@set_color_config` and `@export_name`.

use super::super::error::{EResult, EvalError};
use super::super::layout::{ColorRoute, ExportedName, RangeFilter, SwitchPosition, TileCode};
use super::super::value::{Dir, Type, Value};
use super::Evaluator;
use crate::span::Span;

/// Switch fields of `@set_color_config` the simulator models.
const SWITCH_FIELDS: &str = "pos1, pos2, pos3, current_switch_pos, ring_mode";

impl Evaluator<'_> {
    pub(super) fn layout_builtin(
        &mut self,
        name: &str,
        values: &[Value],
        span: Span,
        arg_span: &dyn Fn(usize) -> Span,
    ) -> EResult<Value> {
        match name {
            "set_rectangle" => {
                self.arity(name, values, &[2], span)?;
                if let Some((w, h)) = self.layout.rectangle {
                    return Err(EvalError::new(
                        span,
                        format!("the rectangle is already set to {w}x{h}"),
                    ));
                }
                let mut dims = [0u32; 2];
                for (i, d) in dims.iter_mut().enumerate() {
                    let v = self.int_of(&values[i], "a rectangle side", arg_span(i))?;
                    *d = u32::try_from(v).ok().filter(|&v| v > 0).ok_or_else(|| {
                        EvalError::new(
                            arg_span(i),
                            format!("a rectangle side must be at least 1, found {v}"),
                        )
                    })?;
                }
                self.layout.rectangle = Some((dims[0], dims[1]));
            }
            "set_tile_code" => {
                self.arity(name, values, &[3, 4], span)?;
                let pe = self.pe(values, span, arg_span)?;
                let Value::Str(file) = &values[2] else {
                    return Err(EvalError::new(
                        arg_span(2),
                        "@set_tile_code takes a file name third",
                    ));
                };
                let params = match values.get(3) {
                    None => Vec::new(),
                    Some(Value::Struct(fields)) => fields.clone(),
                    Some(other) => {
                        return Err(EvalError::new(
                            arg_span(3),
                            format!("tile params must be a struct, found {}", other.type_name()),
                        ));
                    }
                };
                if self.layout.tiles.contains_key(&pe) {
                    return Err(EvalError::new(
                        span,
                        format!("PE ({}, {}) already has its code", pe.0, pe.1),
                    ));
                }
                self.layout.tiles.insert(
                    pe,
                    TileCode {
                        file: file.clone(),
                        params,
                    },
                );
            }
            "set_color_config" => {
                self.arity(name, values, &[4], span)?;
                let pe = self.pe(values, span, arg_span)?;
                let Value::Color(color) = values[2] else {
                    return Err(EvalError::new(
                        arg_span(2),
                        format!(
                            "@set_color_config takes a color third, found {}",
                            values[2].type_name()
                        ),
                    ));
                };
                let route = self.color_route(&values[3], arg_span(3))?;
                let per_pe = self.layout.routes.entry(pe).or_default();
                if per_pe.contains_key(&color) {
                    return Err(EvalError::new(
                        span,
                        format!(
                            "color {color} of PE ({}, {}) is configured twice",
                            pe.0, pe.1
                        ),
                    ));
                }
                per_pe.insert(color, route);
            }
            _ => {
                self.arity(name, values, &[2, 3], span)?;
                let Value::Str(symbol) = &values[0] else {
                    return Err(EvalError::new(
                        arg_span(0),
                        "@export_name takes a name first",
                    ));
                };
                let Value::Type(ty) = &values[1] else {
                    return Err(EvalError::new(
                        arg_span(1),
                        "@export_name takes a type second",
                    ));
                };
                let mutable = match values.get(2) {
                    None => false,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => {
                        return Err(EvalError::new(
                            arg_span(2),
                            format!(
                                "@export_name takes a bool third, found {}",
                                other.type_name()
                            ),
                        ));
                    }
                };
                if matches!(ty, Type::Fn { .. }) && mutable {
                    return Err(EvalError::new(
                        arg_span(2),
                        "an exported function cannot be mutable",
                    ));
                }
                if self.layout.exports.iter().any(|e| &e.name == symbol) {
                    return Err(EvalError::new(
                        arg_span(0),
                        format!("`{symbol}` is exported twice"),
                    ));
                }
                self.layout.exports.push(ExportedName {
                    name: symbol.clone(),
                    ty: ty.clone(),
                    mutable,
                });
            }
        }
        Ok(Value::Void)
    }

    /// The PE `(x, y)` of the first two arguments, inside the rectangle.
    fn pe(
        &self,
        values: &[Value],
        span: Span,
        arg_span: &dyn Fn(usize) -> Span,
    ) -> EResult<(u32, u32)> {
        let Some((w, h)) = self.layout.rectangle else {
            return Err(EvalError::new(
                span,
                "@set_rectangle must come before PEs are configured",
            ));
        };
        let x = self.int_of(&values[0], "a PE's x", arg_span(0))?;
        let y = self.int_of(&values[1], "a PE's y", arg_span(1))?;
        if !(0..i128::from(w)).contains(&x) || !(0..i128::from(h)).contains(&y) {
            return Err(EvalError::new(
                span,
                format!("PE ({x}, {y}) is outside the {w}x{h} rectangle"),
            ));
        }
        Ok((x as u32, y as u32))
    }

    fn color_route(&self, config: &Value, span: Span) -> EResult<ColorRoute> {
        let fields = struct_fields(config, "a color config", span)?;
        let mut route = ColorRoute::default();
        for (name, value) in fields {
            match name.as_str() {
                "routes" => {
                    for (field, v) in struct_fields(value, "`.routes`", span)? {
                        match field.as_str() {
                            "rx" => route.rx = dirs(v, span)?,
                            "tx" => route.tx = dirs(v, span)?,
                            "color_swap_x" => route.color_swap_x = flag(field, v, span)?,
                            "color_swap_y" => route.color_swap_y = flag(field, v, span)?,
                            other => {
                                return Err(EvalError::new(
                                    span,
                                    format!(
                                        "unknown route field `{other}` (known: rx, tx, color_swap_x, color_swap_y)"
                                    ),
                                ));
                            }
                        }
                    }
                }
                "switches" => self.switches(value, &mut route, span)?,
                "teardown" => route.teardown = flag(name, value, span)?,
                "filter" => route.filter = Some(self.filter(value, span)?),
                other => {
                    return Err(EvalError::new(
                        span,
                        format!(
                            "unknown color config field `{other}` (known: routes, switches, teardown, filter)"
                        ),
                    ));
                }
            }
        }
        Ok(route)
    }

    /// `.filter = .{ .kind = .{ .range = true }, .min_idx = a, .max_idx = b }`.
    fn filter(&self, value: &Value, span: Span) -> EResult<RangeFilter> {
        let mut kind = None;
        let (mut min, mut max) = (None, None);
        for (field, v) in struct_fields(value, "`.filter`", span)? {
            match field.as_str() {
                "kind" => {
                    for (k, on) in struct_fields(v, "a filter kind", span)? {
                        if flag(k, on, span)? {
                            kind = Some(k.as_str());
                        }
                    }
                }
                "min_idx" | "max_idx" => {
                    let i = self.int_of(v, field, span)?;
                    let i = u16::try_from(i).map_err(|_| {
                        EvalError::new(span, format!("`{field}` {i} is out of range 0..=65535"))
                    })?;
                    if field == "min_idx" {
                        min = Some(i);
                    } else {
                        max = Some(i);
                    }
                }
                other => {
                    return Err(EvalError::new(
                        span,
                        format!(
                            "filter field `{other}` is not modelled (known: kind, min_idx, max_idx)"
                        ),
                    ));
                }
            }
        }
        match (kind, min, max) {
            (Some("range"), Some(min_idx), Some(max_idx)) => Ok(RangeFilter { min_idx, max_idx }),
            (Some("range"), _, _) => Err(EvalError::new(
                span,
                "a range filter needs both `min_idx` and `max_idx`",
            )),
            (Some(other), _, _) => Err(EvalError::new(
                span,
                format!("{other} filters are not modelled: only `.range` filters are"),
            )),
            (None, _, _) => Err(EvalError::new(span, "a filter needs a `.kind`")),
        }
    }

    fn switches(&self, value: &Value, route: &mut ColorRoute, span: Span) -> EResult<()> {
        for (field, v) in struct_fields(value, "`.switches`", span)? {
            let slot = match field.as_str() {
                "pos1" => 0,
                "pos2" => 1,
                "pos3" => 2,
                "current_switch_pos" => {
                    let p = self.int_of(v, "current_switch_pos", span)?;
                    route.current_switch_pos =
                        u8::try_from(p).ok().filter(|&p| p <= 3).ok_or_else(|| {
                            EvalError::new(
                                span,
                                format!("current_switch_pos {p} is out of range 0..=3"),
                            )
                        })?;
                    continue;
                }
                "ring_mode" => {
                    route.ring_mode = flag(field, v, span)?;
                    continue;
                }
                other => {
                    return Err(EvalError::new(
                        span,
                        format!("switch field `{other}` is not modelled (known: {SWITCH_FIELDS})"),
                    ));
                }
            };
            let mut pos = SwitchPosition::default();
            for (f, x) in struct_fields(v, "a switch position", span)? {
                match f.as_str() {
                    "rx" => match dirs(x, span)?[..] {
                        [d] => pos.rx = Some(d),
                        _ => {
                            return Err(EvalError::new(
                                span,
                                format!("`{field}.rx` names exactly one port"),
                            ));
                        }
                    },
                    "tx" => pos.tx = Some(dirs(x, span)?),
                    other => {
                        return Err(EvalError::new(
                            span,
                            format!("unknown switch position field `{other}` (known: rx, tx)"),
                        ));
                    }
                }
            }
            route.positions[slot] = Some(pos);
        }
        Ok(())
    }
}

fn struct_fields<'v>(v: &'v Value, what: &str, span: Span) -> EResult<&'v [(String, Value)]> {
    match v {
        Value::Struct(fields) => Ok(fields),
        other => Err(EvalError::new(
            span,
            format!("{what} must be a struct, found {}", other.type_name()),
        )),
    }
}

/// A port or a list of ports, without repeats.
fn dirs(v: &Value, span: Span) -> EResult<Vec<Dir>> {
    let items: Vec<&Value> = match v {
        Value::List(items) => items.iter().collect(),
        Value::Struct(f) if f.is_empty() => Vec::new(),
        single => vec![single],
    };
    let mut out = Vec::new();
    for item in items {
        let Value::Dir(d) = item else {
            return Err(EvalError::new(
                span,
                format!("expected a port (RAMP, NORTH, EAST, SOUTH, WEST), found `{item}`"),
            ));
        };
        if out.contains(d) {
            return Err(EvalError::new(
                span,
                format!("port {} is listed twice", d.name()),
            ));
        }
        out.push(*d);
    }
    Ok(out)
}

/// A bool field's value.
fn flag(field: &str, v: &Value, span: Span) -> EResult<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(EvalError::new(
            span,
            format!("`{field}` takes a bool, found {}", other.type_name()),
        )),
    }
}
