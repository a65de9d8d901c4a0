//! The position → cell evaluator over flat coordinates: one slot per axis, reused from one
//! position to the next, so evaluating a stream builds no index map and clones no axis name.

use super::{Axis, Final, Form, Mapping, PaddingKind};

/// What a finalised position holds, its coordinates aside (see [`Evaluator::coords`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// A logical element.
    Live,
    /// A padding cell (including a coordinate that overshoots its axis: `Top`).
    Padding(PaddingKind),
    /// At or beyond the mapping's size.
    OutOfBounds,
}

impl Slot {
    /// Whether the position holds a logical element.
    pub fn is_live(self) -> bool {
        self == Slot::Live
    }
}

/// Evaluates the positions of a mapping, or of the pair `m![d0, d1, ..]` of several (major
/// to minor), into a coordinate per axis mentioned (in first-mention order), with the same
/// cells as [`Mapping::map`] finalised.
#[derive(Clone, Debug)]
pub struct Evaluator<'a> {
    dims: Vec<&'a Mapping>,
    /// The number of positions of the dimensions inside each one.
    inner: Vec<usize>,
    size: usize,
    axes: Vec<Axis>,
    coords: Vec<usize>,
}

impl<'a> Evaluator<'a> {
    /// An evaluator of `mapping`.
    pub fn new(mapping: &'a Mapping) -> Evaluator<'a> {
        Evaluator::of_dims(&[mapping])
    }

    /// An evaluator of `m![dims[0], dims[1], ..]`, the first dimension major.
    pub fn of_dims(dims: &[&'a Mapping]) -> Evaluator<'a> {
        let mut axes: Vec<Axis> = Vec::new();
        for a in dims.iter().flat_map(|m| m.axes()) {
            if !axes.contains(&a) {
                axes.push(a);
            }
        }
        let coords = vec![0; axes.len()];
        let mut inner = vec![1usize; dims.len()];
        for i in (0..dims.len().saturating_sub(1)).rev() {
            inner[i] = inner[i + 1].saturating_mul(dims[i + 1].size());
        }
        let size = dims.iter().fold(1usize, |n, m| n.saturating_mul(m.size()));
        Evaluator {
            dims: dims.to_vec(),
            inner,
            size,
            axes,
            coords,
        }
    }

    /// Number of positions (the product of the dimensions' sizes, saturated at `usize::MAX`).
    pub fn size(&self) -> usize {
        self.size
    }

    /// The axes of the coordinate slots, in first-mention order.
    pub fn axes(&self) -> &[Axis] {
        &self.axes
    }

    /// Evaluates position `pos` and finalises it; for a live cell [`Evaluator::coords`] then
    /// holds its coordinates.
    pub fn slot(&mut self, pos: usize) -> Slot {
        self.coords.fill(0);
        match self.raw(pos) {
            Slot::Live => {
                let overshoots = self
                    .coords
                    .iter()
                    .zip(&self.axes)
                    .any(|(&c, a)| c >= a.size);
                if overshoots {
                    Slot::Padding(PaddingKind::Top)
                } else {
                    Slot::Live
                }
            }
            dead => dead,
        }
    }

    /// The coordinates of the last live position evaluated, one per axis of
    /// [`Evaluator::axes`] (0 for an axis the position does not move).
    pub fn coords(&self) -> &[usize] {
        &self.coords
    }

    /// The finalised cell at `pos`, as [`Mapping::cell`] gives it.
    pub fn cell(&mut self, pos: usize) -> Final {
        match self.slot(pos) {
            Slot::Live => Final::Live(
                self.axes
                    .iter()
                    .zip(&self.coords)
                    .filter(|&(_, &c)| c != 0)
                    .map(|(a, &c)| (a.name.clone(), c))
                    .collect(),
            ),
            Slot::Padding(k) => Final::Padding(k),
            Slot::OutOfBounds => Final::OutOfBounds,
        }
    }
}

impl Evaluator<'_> {
    /// The raw cell at `pos` of the pair of the dimensions: the major dimension decides first.
    fn raw(&mut self, pos: usize) -> Slot {
        if pos >= self.size {
            return Slot::OutOfBounds;
        }
        for (i, m) in self.dims.iter().enumerate() {
            let digit = pos / self.inner[i] % m.size();
            match raw(m, digit, &self.axes, &mut self.coords) {
                Slot::Live => {}
                dead => return dead,
            }
        }
        Slot::Live
    }
}

impl Mapping {
    /// An evaluator of this mapping's positions into flat coordinates, one slot per axis.
    pub fn evaluator(&self) -> Evaluator<'_> {
        Evaluator::new(self)
    }

    /// The finalised cell at `pos` (overshooting coordinates become `Top`).
    pub fn cell(&self, pos: usize) -> Final {
        self.evaluator().cell(pos)
    }

    /// Every position's finalised cell, in position order.
    pub fn cells(&self) -> Vec<Final> {
        let mut e = self.evaluator();
        (0..self.size()).map(|p| e.cell(p)).collect()
    }

    /// Whether `self` and `other` are equivalent: same size and the same finalised
    /// cell at every position.
    pub fn equivalent(&self, other: &Mapping) -> bool {
        let (mut a, mut b) = (self.evaluator(), other.evaluator());
        self.size() == other.size() && (0..self.size()).all(|p| a.cell(p) == b.cell(p))
    }

    /// The number of live positions.
    pub fn live_count(&self) -> usize {
        let mut e = self.evaluator();
        (0..self.size()).filter(|&p| e.slot(p).is_live()).count()
    }
}

/// The raw cell of `m` at `pos`: a live cell adds its partial coordinates into
/// `coords` (slots of `axes`); the major side of a pair decides first, as in `Cell::combine`.
fn raw(m: &Mapping, pos: usize, axes: &[Axis], coords: &mut [usize]) -> Slot {
    if pos >= m.size() {
        return Slot::OutOfBounds;
    }
    match m.form() {
        Form::Axis(a) => {
            if let Some(i) = axes.iter().position(|x| x == a) {
                coords[i] += pos;
            }
            Slot::Live
        }
        Form::Broadcast(_) => Slot::Live,
        Form::Pair(l, r) => match raw(l, pos / r.size(), axes, coords) {
            Slot::Live => raw(r, pos % r.size(), axes, coords),
            dead => dead,
        },
        Form::Stride(l, n) => raw(l, pos * n, axes, coords),
        Form::Modulo(l, _) | Form::Resize(l, _) => raw(l, pos, axes, coords),
        Form::Padding(l, _, kind) => {
            if pos < l.size() {
                raw(l, pos, axes, coords)
            } else {
                Slot::Padding(kind)
            }
        }
    }
}
