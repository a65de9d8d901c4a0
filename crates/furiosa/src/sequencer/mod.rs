//! The DM sequencer shared by the Fetch and Commit Engines: a stream access (`Time`, `Packet`)
//! over a buffer laid out by a DM `Element` mapping, as nested `[size : stride]` loops counted
//! in elements, with the limits of the RNGD book's *Sequencer* page (at most 8 entries, each at
//! most 65,536 iterations, merging of adjacent entries only when needed, the innermost-entry
//! rule, access size = gcd(packet size, contiguous run)).
//!
//! The derivation itself (which stride each stream factor walks, whether the layouts nest, and
//! the write rules of no broadcast and every live cell once) is [`crate::mapping::sequence`],
//! run with one byte per element so that its strides are element counts.

mod bank;
mod config;
mod entry;
mod error;
mod merge;
mod report;

pub use bank::{BANK_RUN_LIMIT, bank_of};
pub use config::Sequencer;
pub use entry::Entry;
pub use error::SequencerError;
pub use merge::merge_adjacent;
pub use report::{SequenceReport, describe};

/// At most this many `[size : stride]` entries: the time and packet descriptors share one table.
pub const MAX_ENTRIES: usize = 8;

/// Largest iteration count of one entry.
pub const MAX_ENTRY_SIZE: usize = 65_536;
