//! The five router ports: the RAMP to the PE's own compute engine and the four neighbours.

use std::fmt;

/// A router port. The grid's `x` grows to the east and `y` to the south.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dir {
    /// North (`y - 1`).
    North,
    /// East (`x + 1`).
    East,
    /// South (`y + 1`).
    South,
    /// West (`x - 1`).
    West,
    /// The link to the PE's own compute engine.
    Ramp,
}

impl Dir {
    /// Every port in the fixed processing order of spec §9: N, E, S, W, RAMP.
    pub const ALL: [Dir; 5] = [Dir::North, Dir::East, Dir::South, Dir::West, Dir::Ramp];

    /// The port's position in [`Dir::ALL`].
    pub const fn index(self) -> usize {
        match self {
            Dir::North => 0,
            Dir::East => 1,
            Dir::South => 2,
            Dir::West => 3,
            Dir::Ramp => 4,
        }
    }

    /// The port a wavelet sent out of `self` enters on the neighbour (RAMP stays RAMP).
    pub const fn opposite(self) -> Dir {
        match self {
            Dir::North => Dir::South,
            Dir::East => Dir::West,
            Dir::South => Dir::North,
            Dir::West => Dir::East,
            Dir::Ramp => Dir::Ramp,
        }
    }

    /// The neighbour's offset `(dx, dy)`; RAMP is `(0, 0)`.
    pub const fn offset(self) -> (i64, i64) {
        match self {
            Dir::North => (0, -1),
            Dir::East => (1, 0),
            Dir::South => (0, 1),
            Dir::West => (-1, 0),
            Dir::Ramp => (0, 0),
        }
    }

    /// The CSL spelling (`RAMP`, `NORTH`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Dir::North => "NORTH",
            Dir::East => "EAST",
            Dir::South => "SOUTH",
            Dir::West => "WEST",
            Dir::Ramp => "RAMP",
        }
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of ports (a route's `tx` set is one or more; multicast copies to each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DirSet(u8);

impl DirSet {
    /// The empty set.
    pub const EMPTY: DirSet = DirSet(0);

    /// The set of these ports.
    pub fn of(dirs: &[Dir]) -> DirSet {
        DirSet(dirs.iter().fold(0, |m, d| m | 1 << d.index()))
    }

    /// Whether `d` is in the set.
    pub const fn contains(self, d: Dir) -> bool {
        self.0 & (1 << d.index()) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The ports in processing order (N, E, S, W, RAMP).
    pub fn iter(self) -> impl Iterator<Item = Dir> {
        Dir::ALL.into_iter().filter(move |d| self.contains(*d))
    }
}

impl fmt::Display for DirSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(Dir::name).collect();
        write!(f, "{{{}}}", names.join(", "))
    }
}
