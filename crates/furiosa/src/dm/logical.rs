//! A DM tensor read and written as its logical tensor: a flat array in a given axis order.

use std::collections::BTreeMap;

use super::{Dm, DmError, DmTensor, Place};

/// A logical axis order resolved against a tensor: shape and, per used axis (in
/// [`DmTensor::used_axes`] order), its stride in the flat array.
pub(super) struct Order {
    pub(super) shape: Vec<usize>,
    strides: Vec<usize>,
}

impl Order {
    /// Flat index of coordinates given on the tensor's used axes.
    fn flat(&self, index: &[usize]) -> usize {
        index.iter().zip(&self.strides).map(|(c, s)| c * s).sum()
    }

    fn count(&self) -> usize {
        self.shape.iter().product()
    }

    /// `{A: 0, B: 1}` for flat index `i` (every axis named, zeros included).
    fn describe(&self, names: &[String], mut i: usize) -> String {
        let mut coords = vec![0; self.shape.len()];
        for (c, n) in coords.iter_mut().zip(&self.shape).rev() {
            *c = i % n;
            i /= n;
        }
        let parts: Vec<String> = names
            .iter()
            .zip(&coords)
            .map(|(a, c)| format!("{a}: {c}"))
            .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

impl DmTensor {
    /// Resolves `order` (every axis the tensor uses, each once).
    pub(super) fn order(&self, order: &[&str]) -> Result<Order, DmError> {
        let used = self.used_axes();
        let names: Vec<&str> = used.iter().map(|a| a.name.as_str()).collect();
        let mut shape = Vec::with_capacity(order.len());
        for (i, name) in order.iter().enumerate() {
            if order[..i].contains(name) {
                return Err(DmError::DuplicateAxis(name.to_string()));
            }
            let Some(axis) = used.iter().find(|a| a.name == *name) else {
                return Err(DmError::UnknownAxis {
                    axis: name.to_string(),
                    axes: format!("[{}]", names.join(", ")),
                });
            };
            shape.push(axis.size);
        }
        if let Some(missing) = names.iter().find(|n| !order.contains(n)) {
            return Err(DmError::MissingAxis {
                axis: missing.to_string(),
                order: format!("[{}]", order.join(", ")),
            });
        }
        let mut by_name = BTreeMap::new();
        let mut stride = 1;
        for (name, n) in order.iter().zip(&shape).rev() {
            by_name.insert(*name, stride);
            stride *= n;
        }
        let strides = names
            .iter()
            .map(|n| by_name.get(n).copied().unwrap_or(0))
            .collect();
        Ok(Order { shape, strides })
    }

    /// The logical shape in `order`.
    pub fn logical_shape(&self, order: &[&str]) -> Result<Vec<usize>, DmError> {
        Ok(self.order(order)?.shape)
    }

    /// Writes the logical tensor `codes` (row-major in `order`, element codes of the tensor's
    /// type) into every DM position that holds each element (a broadcast in a mapping
    /// replicates). DM padding is not touched.
    pub fn write_logical(&self, dm: &mut Dm, order: &[&str], codes: &[u64]) -> Result<(), DmError> {
        let o = self.order(order)?;
        if codes.len() != o.count() {
            return Err(DmError::Length {
                got: codes.len(),
                need: o.count(),
                shape: o.shape,
            });
        }
        let bits = self.dtype().bits();
        if let Some((index, &code)) = codes
            .iter()
            .enumerate()
            .find(|(_, c)| bits < 64 && **c >> bits != 0)
        {
            return Err(DmError::CodeTooWide {
                index,
                code,
                bits,
                dtype: self.dtype().name(),
            });
        }
        self.check_dm(dm)?;
        self.visit_live(|place, index| self.write_code(dm, &place, codes[o.flat(index)]))
    }

    /// Reads the logical tensor, row-major in `order`. Refused when two DM positions holding
    /// one element disagree (`CopiesDiffer`) or when an element is held nowhere (`NotHeld`).
    pub fn read_logical(&self, dm: &Dm, order: &[&str]) -> Result<Vec<u64>, DmError> {
        let o = self.order(order)?;
        let names: Vec<String> = order.iter().map(|s| s.to_string()).collect();
        let mut out: Vec<Option<(u64, Place)>> = vec![None; o.count()];
        self.visit_live(|place, index| {
            let i = o.flat(index);
            let code = self.read_code(dm, &place)?;
            match out[i] {
                None => out[i] = Some((code, place)),
                Some((first_code, first)) if first_code != code => {
                    return Err(DmError::CopiesDiffer {
                        index: o.describe(&names, i),
                        first: first.to_string(),
                        first_code,
                        second: place.to_string(),
                        second_code: code,
                    });
                }
                Some(_) => {}
            }
            Ok(())
        })?;
        out.iter()
            .enumerate()
            .map(|(i, v)| {
                v.map(|(c, _)| c).ok_or_else(|| DmError::NotHeld {
                    index: o.describe(&names, i),
                })
            })
            .collect()
    }
}
