//! Why a shipped program could not be built or run.

use thiserror::Error;

use npusim_cerebras::dsd::DsdError;
use npusim_cerebras::fabric::FabricError;
use npusim_cerebras::ids::IdError;
use npusim_cerebras::memory::MemoryError;
use npusim_cerebras::ops::OpError;
use npusim_cerebras::sched::SimError;

/// A shipped program failed to build, run or read back its results.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ProgramError {
    /// The simulation stopped on an error (deadlock, conflict, cycle limit, ...).
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A route or host stream could not be set up.
    #[error(transparent)]
    Fabric(#[from] FabricError),
    /// An array could not be declared, written or read.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// A DSD was malformed.
    #[error(transparent)]
    Dsd(#[from] DsdError),
    /// An operation was malformed.
    #[error(transparent)]
    Op(#[from] OpError),
    /// A task, queue or microthread id was out of range.
    #[error(transparent)]
    Id(#[from] IdError),
    /// A program's size parameters make no program.
    #[error("bad program size: {what}")]
    Size {
        /// What is wrong, with the numbers.
        what: String,
    },
    /// No program has this name.
    #[error("no shipped program is called `{name}`; known: {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
}
