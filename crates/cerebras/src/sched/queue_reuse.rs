//! When an output queue still holding another operation's wavelets may be reused (seed 004
//! leaves it to the programmer; npusim reports it).

/// When reusing an output queue that still holds another operation's wavelets is reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum QueueReusePolicy {
    /// Only when a wavelet left is of another color than the new operation sends: the same
    /// color just continues the stream (data followed by a sentinel on one queue, as the
    /// SDK's examples do).
    #[default]
    OtherColor,
    /// Any wavelet left, as seed 004 words it ("no elements in a queue before reusing it for
    /// a different operation").
    Seed,
}
