//! Input and output queues between a PE's router and its compute engine (seed 004's table),
//! as bounded wavelet buffers, and the binding of colors to input queues.

use std::collections::VecDeque;
use std::fmt;

use super::color::Color;
use super::error::FabricError;
use super::filter::{CounterFilter, RangeFilter};
use super::queue_id::{InputQueue, OutputQueue};
use super::wavelet::Wavelet;
use crate::arch::Arch;

/// Input or output side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueueSide {
    /// Router to compute engine (`@get_input_queue`).
    Input,
    /// Compute engine to router (`@get_output_queue`).
    Output,
}

impl fmt::Display for QueueSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QueueSide::Input => "input queue",
            QueueSide::Output => "output queue",
        })
    }
}

/// A queue of either side, by its typed id (`@get_input_queue(2)`, `@get_output_queue(0)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueueRef {
    /// An input queue.
    Input(InputQueue),
    /// An output queue.
    Output(OutputQueue),
}

impl QueueRef {
    /// Input or output.
    pub const fn side(self) -> QueueSide {
        match self {
            QueueRef::Input(_) => QueueSide::Input,
            QueueRef::Output(_) => QueueSide::Output,
        }
    }

    /// The queue's number, 0..=7.
    pub const fn id(self) -> u8 {
        match self {
            QueueRef::Input(q) => q.id(),
            QueueRef::Output(q) => q.id(),
        }
    }
}

impl From<InputQueue> for QueueRef {
    fn from(q: InputQueue) -> QueueRef {
        QueueRef::Input(q)
    }
}

impl From<OutputQueue> for QueueRef {
    fn from(q: OutputQueue) -> QueueRef {
        QueueRef::Output(q)
    }
}

impl fmt::Display for QueueRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueRef::Input(q) => q.fmt(f),
            QueueRef::Output(q) => q.fmt(f),
        }
    }
}

/// Queue ids per side (0..=7; WSE-2 has output queues 0..=5 only).
pub const QUEUE_IDS: usize = 8;

/// The length in words of queue `id` on `side` (seed 004's table); `None` where the queue does
/// not exist (WSE-2 output queues 6 and 7) or the id is above 7.
pub const fn queue_length(arch: Arch, side: QueueSide, id: u8) -> Option<u32> {
    let row = match id {
        0 | 1 => 0,
        2 | 3 => 1,
        4 | 5 => 2,
        6 | 7 => 3,
        _ => return None,
    };
    // rows: queue ids (0,1) (2,3) (4,5) (6,7); 0 = N/A
    let table: [u32; 4] = match (arch, side) {
        (Arch::Wse2, QueueSide::Input) => [6, 4, 2, 2],
        (Arch::Wse2, QueueSide::Output) => [2, 6, 2, 0],
        (Arch::Wse3, QueueSide::Input) => [8, 4, 4, 4],
        (Arch::Wse3, QueueSide::Output) => [8, 8, 8, 8],
    };
    match table[row] {
        0 => None,
        n => Some(n),
    }
}

/// A bounded FIFO of wavelets; one queue word holds one wavelet.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WaveletQueue {
    capacity: u32,
    items: VecDeque<Wavelet>,
    high_water: u32,
}

impl WaveletQueue {
    /// An empty queue holding at most `capacity` wavelets.
    pub fn new(capacity: u32) -> WaveletQueue {
        WaveletQueue {
            capacity,
            items: VecDeque::new(),
            high_water: 0,
        }
    }

    /// Its capacity in wavelets.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Wavelets held.
    pub fn len(&self) -> u32 {
        self.items.len() as u32
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Free room in wavelets.
    pub fn room(&self) -> u32 {
        self.capacity.saturating_sub(self.len())
    }

    /// The most wavelets it ever held.
    pub fn high_water(&self) -> u32 {
        self.high_water
    }

    /// Appends `w` if there is room; gives it back otherwise.
    pub fn push(&mut self, w: Wavelet) -> Result<(), Wavelet> {
        if self.len() >= self.capacity {
            return Err(w);
        }
        self.items.push_back(w);
        self.high_water = self.high_water.max(self.len());
        Ok(())
    }

    /// The oldest wavelet, removed.
    pub fn pop(&mut self) -> Option<Wavelet> {
        self.items.pop_front()
    }

    /// The `k`-th oldest wavelet, left in place.
    pub fn peek(&self, k: usize) -> Option<&Wavelet> {
        self.items.get(k)
    }

    /// The wavelets held, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Wavelet> {
        self.items.iter()
    }
}

/// What became of a wavelet the router hands to the compute engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// It is in the input queue bound to its color.
    Queued,
    /// That queue is full; the router keeps the wavelet and retries next cycle.
    Full,
    /// No input queue is bound to its color.
    Unbound,
    /// Its color's filter dropped it.
    Filtered,
}

/// A note for the scheduler, not part of the queues' contents: equal to any other and hashed
/// as nothing, so queues compare by what they hold.
#[derive(Clone, Copy, Debug, Default)]
struct WrittenFlag(bool);

impl PartialEq for WrittenFlag {
    fn eq(&self, _: &WrittenFlag) -> bool {
        true
    }
}

impl Eq for WrittenFlag {}

impl std::hash::Hash for WrittenFlag {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// One PE's queues: eight input queues, the architecture's output queues, and which input
/// queue each color arriving on the RAMP lands in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PeQueues {
    /// Whether an output queue was handed out for writing since [`PeQueues::take_written`].
    written: WrittenFlag,
    arch: Arch,
    input: Vec<WaveletQueue>,
    output: Vec<Option<WaveletQueue>>,
    color_queue: [Option<InputQueue>; Color::COUNT],
    output_color: [Option<Color>; QUEUE_IDS],
    filters: [Option<RangeFilter>; Color::COUNT],
    filtered: u64,
    next_output: usize,
}

impl PeQueues {
    /// Empty queues of the lengths of `arch`, no color bound.
    pub fn new(arch: Arch) -> PeQueues {
        let make = |side| {
            (0..QUEUE_IDS as u8)
                .map(|id| queue_length(arch, side, id).map(WaveletQueue::new))
                .collect::<Vec<_>>()
        };
        PeQueues {
            written: WrittenFlag(false),
            arch,
            input: make(QueueSide::Input).into_iter().flatten().collect(),
            output: make(QueueSide::Output),
            color_queue: [None; Color::COUNT],
            output_color: [None; QUEUE_IDS],
            filters: [None; Color::COUNT],
            filtered: 0,
            next_output: 0,
        }
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Routes wavelets of `color` arriving on the RAMP into input queue `queue`
    /// (`@initialize_queue` on WSE-3, implicit on WSE-2). A queue may serve one color at a
    /// time; the previous binding of `color` is replaced.
    pub fn bind_input(&mut self, queue: InputQueue, color: Color) -> Result<(), FabricError> {
        if self.input(queue).is_none() {
            return Err(FabricError::NoSuchQueue {
                queue: queue.into(),
                arch: self.arch,
            });
        }
        self.color_queue[color.index()] = Some(queue);
        Ok(())
    }

    /// Binds output queue `queue` to `color` (`@initialize_queue` on WSE-3): a fabout naming
    /// only the queue sends on that color.
    pub fn bind_output(&mut self, queue: OutputQueue, color: Color) -> Result<(), FabricError> {
        if self.output(queue).is_none() {
            return Err(FabricError::NoSuchQueue {
                queue: queue.into(),
                arch: self.arch,
            });
        }
        self.output_color[usize::from(queue.id())] = Some(color);
        Ok(())
    }

    /// The color output queue `queue` is bound to, if any.
    pub fn output_color(&self, queue: OutputQueue) -> Option<Color> {
        *self.output_color.get(usize::from(queue.id()))?
    }

    /// The input queue a WSE-2 fabin naming only `color` uses: the queue already bound to the
    /// color, else the first unbound queue from `color mod 8` upward (wrapping), which is then
    /// bound. `None` when all eight queues serve other colors.
    pub fn default_input(&mut self, color: Color) -> Option<InputQueue> {
        if let Some(q) = self.input_of(color) {
            return Some(q);
        }
        let n = self.input.len();
        let start = color.index() % n.max(1);
        let q = (0..n)
            .filter_map(|k| InputQueue::ALL.get((start + k) % n).copied())
            .find(|&q| !self.color_queue.contains(&Some(q)))?;
        self.color_queue[color.index()] = Some(q);
        Some(q)
    }

    /// The lowest color bound to input queue `queue`, if any.
    pub fn color_of_input(&self, queue: InputQueue) -> Option<Color> {
        let k = self.color_queue.iter().position(|&q| q == Some(queue))?;
        Color::new(k as i64).ok()
    }

    /// The input queue `color` lands in, if bound.
    pub fn input_of(&self, color: Color) -> Option<InputQueue> {
        self.color_queue[color.index()]
    }

    /// Input queue `queue`.
    pub fn input(&self, queue: InputQueue) -> Option<&WaveletQueue> {
        self.input.get(usize::from(queue.id()))
    }

    /// Input queue `queue`, mutable.
    pub fn input_mut(&mut self, queue: InputQueue) -> Option<&mut WaveletQueue> {
        self.input.get_mut(usize::from(queue.id()))
    }

    /// Output queue `queue` (`None` if the architecture has none with that id: WSE-2 output
    /// queues 6 and 7).
    pub fn output(&self, queue: OutputQueue) -> Option<&WaveletQueue> {
        self.output.get(usize::from(queue.id()))?.as_ref()
    }

    /// Output queue `queue`, mutable.
    pub fn output_mut(&mut self, queue: OutputQueue) -> Option<&mut WaveletQueue> {
        self.written.0 = true;
        self.output.get_mut(usize::from(queue.id()))?.as_mut()
    }

    /// Whether an output queue was handed out by [`PeQueues::output_mut`] (the only way to
    /// queue a wavelet to send) since the last call; clears it.
    pub fn take_written(&mut self) -> bool {
        std::mem::take(&mut self.written.0)
    }

    /// Sets (or, with `None`, removes) the range filter of `color`.
    pub fn set_filter(&mut self, color: Color, filter: Option<RangeFilter>) {
        self.filters[color.index()] = filter;
    }

    /// Sets a counter or sparse-counter filter on `color`: always refused
    /// ([`FabricError::Unsupported`], the behaviour is unpublished); only range filters exist.
    pub fn set_counter_filter(
        &mut self,
        color: Color,
        filter: CounterFilter,
    ) -> Result<(), FabricError> {
        Err(filter.refuse(color))
    }

    /// Whether `w` passes its color's filter (always, without one).
    pub fn passes(&self, w: &Wavelet) -> bool {
        self.filters[w.color.index()].is_none_or(|f| f.passes(w))
    }

    /// Wavelets dropped by filters so far.
    pub fn filtered(&self) -> u64 {
        self.filtered
    }

    /// Delivers a wavelet from the router into the input queue bound to its color, unless
    /// its color's filter drops it.
    pub fn deliver(&mut self, w: Wavelet) -> Delivery {
        if !self.passes(&w) {
            self.filtered += 1;
            return Delivery::Filtered;
        }
        let Some(queue) = self
            .input_of(w.color)
            .and_then(|q| self.input.get_mut(usize::from(q.id())))
        else {
            return Delivery::Unbound;
        };
        match queue.push(w) {
            Ok(()) => Delivery::Queued,
            Err(_) => Delivery::Full,
        }
    }

    /// The wavelet the router takes from the output queues this cycle, if any: the queues are
    /// served round robin, starting after the one served last.
    pub fn peek_send(&self) -> Option<(OutputQueue, Wavelet)> {
        let n = self.output.len();
        (0..n).map(|k| (self.next_output + k) % n).find_map(|q| {
            let w = self.output[q].as_ref()?.peek(0)?;
            Some((*OutputQueue::ALL.get(q)?, *w))
        })
    }

    /// Removes the wavelet [`PeQueues::peek_send`] chose from output queue `queue`.
    pub fn take_sent(&mut self, queue: OutputQueue) -> Option<Wavelet> {
        let q = usize::from(queue.id());
        let w = self.output.get_mut(q)?.as_mut()?.pop()?;
        self.next_output = (q + 1) % self.output.len().max(1);
        Some(w)
    }

    /// The highest fill of each input queue, then each output queue (absent ones 0).
    pub fn high_water(&self) -> (Vec<u32>, Vec<u32>) {
        (
            self.input.iter().map(WaveletQueue::high_water).collect(),
            self.output
                .iter()
                .map(|q| q.as_ref().map_or(0, WaveletQueue::high_water))
                .collect(),
        )
    }
}
