//! PE memory: 48 KiB of 16-bit words holding named, typed, row-major arrays (spec §1.1).
//!
//! 32-bit values are stored little-endian (low word at the lower address) and 4-byte aligned.
//! Arrays are placed one after the other from address 0 in declaration order. An access
//! outside the memory is always an error (spec §0.8).

use thiserror::Error;

use crate::access::{AccessError, BoundsPolicy, Lowered, lower, parse};
use crate::arch::Arch;
use crate::dsd::{Base, DsdError, Mem1d, Mem4d};
use crate::elem::{ElemTy, Element};
use npusim_hw::LimitError;

/// A memory access or declaration that breaks a rule.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MemoryError {
    /// An access outside the PE's memory.
    #[error("access to {ty} at word {word}: {limit}")]
    OutOfMemory {
        /// The element type accessed.
        ty: ElemTy,
        /// Its word address.
        word: i64,
        /// The memory limit (byte addresses) and the offending byte address.
        limit: LimitError,
    },
    /// A 32-bit access at an odd word address.
    #[error("{ty} access at word {word} is not 4-byte aligned")]
    Misaligned {
        /// The element type.
        ty: ElemTy,
        /// Its word address.
        word: i64,
    },
    /// An array name not declared.
    #[error("no array named `{0}` is declared")]
    Unknown(String),
    /// An array name declared twice.
    #[error("array `{0}` is already declared")]
    Duplicate(String),
    /// A declaration that does not fit in the remaining memory.
    #[error("array `{name}` needs {words} words but only {free} of {total} are free")]
    Full {
        /// The array.
        name: String,
        /// Words it needs.
        words: u64,
        /// Words free.
        free: u64,
        /// Words in the memory.
        total: u64,
    },
    /// An explicit alignment that is not a power of two or is below the element's size.
    #[error(
        "array `{name}`: alignment {align} bytes must be a power of two no smaller than its {elem} elements ({natural} bytes)"
    )]
    Align {
        /// The array.
        name: String,
        /// The alignment asked for.
        align: u32,
        /// Its element type.
        elem: ElemTy,
        /// The element's size in bytes.
        natural: u32,
    },
    /// A shape with no or a zero dimension.
    #[error("array `{name}` has an invalid shape {shape:?}")]
    Shape {
        /// The array.
        name: String,
        /// Its shape.
        shape: Vec<u64>,
    },
    /// A typed read or write with another element type than declared.
    #[error("array `{name}` holds {declared}, not {requested}")]
    Type {
        /// The array.
        name: String,
        /// Its element type.
        declared: ElemTy,
        /// The type asked for.
        requested: ElemTy,
    },
    /// A write of the wrong number of elements.
    #[error("array `{name}` has {elements} elements, {given} given")]
    Length {
        /// The array.
        name: String,
        /// Its element count.
        elements: u64,
        /// Values given.
        given: u64,
    },
    /// A tensor access expression that cannot be lowered.
    #[error(transparent)]
    Access(#[from] AccessError),
    /// A DSD that breaks a rule.
    #[error(transparent)]
    Dsd(#[from] DsdError),
}

/// Alignment in bytes of an array declared without an explicit one: 4 bytes, the FIFO
/// minimum ([`Arch::fifo_min_align_bytes`]), so that any such array can be a FIFO buffer, as
/// the compiler forces (seed 004), and 32-bit elements are aligned (spec §1.1).
pub const DEFAULT_ALIGN_BYTES: u32 = 4;

/// A declared array.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Array {
    /// Its name.
    pub name: String,
    /// Its element type.
    pub elem: ElemTy,
    /// Its shape, outermost dimension first.
    pub shape: Vec<u64>,
    /// Word address of its first element.
    pub word_addr: i64,
    /// The alignment in bytes given explicitly (CSL `align(n)`); `None`: the default
    /// ([`DEFAULT_ALIGN_BYTES`]).
    pub align: Option<u32>,
}

impl Array {
    /// Number of elements.
    pub fn elements(&self) -> u64 {
        self.shape.iter().product()
    }

    /// The base address `&name`.
    pub fn base(&self) -> Base {
        Base::tensor(
            self.name.as_str(),
            self.elem,
            self.word_addr,
            u32::try_from(self.elements()).unwrap_or(u32::MAX),
        )
    }
}

/// The local memory of one PE.
///
/// Its words are held from address 0 up to the highest one ever stored (in steps of
/// [`PeMemory::GROWTH_WORDS`]); the words above read as the zeros they are. A grid of PEs thus
/// holds what its programs use, not 48 KiB per PE.
#[derive(Clone)]
pub struct PeMemory {
    arch: Arch,
    words: Vec<u16>,
    arrays: Vec<Array>,
    next: i64,
    /// While `journaling`: the words stores overwrote, `(address, old value)` in store
    /// order, so that they can be put back ([`PeMemory::journal_undo`]).
    journal: Vec<(u32, u16)>,
    journaling: bool,
    /// Where each recording going on began in `journal` (recordings nest: a run-ahead
    /// inside a window of cycles stepped ahead), innermost last.
    journal_marks: Vec<u32>,
}

/// How many arrays a memory had declared and where the next would go: what
/// [`PeMemory::arrays_back_to`] goes back to.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ArraysMark {
    count: usize,
    next: i64,
}

impl PartialEq for PeMemory {
    fn eq(&self, other: &PeMemory) -> bool {
        self.arch == other.arch
            && self.arrays == other.arrays
            && self.next == other.next
            && self.all_words().eq(other.all_words())
    }
}

impl Eq for PeMemory {}

impl std::fmt::Debug for PeMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeMemory")
            .field("arch", &self.arch)
            .field("words", &self.all_words().collect::<Vec<u16>>())
            .field("arrays", &self.arrays)
            .field("next", &self.next)
            .finish()
    }
}

impl PeMemory {
    /// Words the held part grows by when a store lands above it (128 bytes; the vector's
    /// room still grows geometrically, so a memory filled upwards store by store is copied a
    /// few times only).
    pub const GROWTH_WORDS: usize = 64;

    /// A zeroed memory of the architecture's size.
    pub fn new(arch: Arch) -> PeMemory {
        PeMemory {
            arch,
            words: Vec::new(),
            arrays: Vec::new(),
            next: 0,
            journal: Vec::new(),
            journaling: false,
            journal_marks: Vec::new(),
        }
    }

    /// Starts recording what stores overwrite. Recordings nest: one started while another
    /// goes on ends (committed or undone) before it.
    pub(crate) fn journal_start(&mut self) {
        if self.journal_marks.is_empty() {
            self.journal.clear();
        }
        self.journal_marks.push(self.journal.len() as u32);
        self.journaling = true;
    }

    /// Recordings going on (nested).
    pub(crate) fn journal_depth(&self) -> usize {
        self.journal_marks.len()
    }

    /// Ends the innermost recording: its stores stand (an outer recording still holds them,
    /// to undo them with its own).
    pub(crate) fn journal_commit(&mut self) {
        self.journal_marks.pop();
        if self.journal_marks.is_empty() {
            self.journaling = false;
            self.journal.clear();
        }
    }

    /// Ends the recording that started at depth `depth` (with `depth` recordings going on
    /// before it), whether or not recordings started inside it still go on: its stores stand,
    /// and an inner recording keeps what it holds, to undo its own stores only.
    pub(crate) fn journal_commit_at(&mut self, depth: usize) {
        if depth < self.journal_marks.len() {
            self.journal_marks.remove(depth);
        }
        if self.journal_marks.is_empty() {
            self.journaling = false;
            self.journal.clear();
        }
    }

    /// Ends the innermost recording and puts back every word overwritten since it started,
    /// last store first.
    pub(crate) fn journal_undo(&mut self) {
        let Some(mark) = self.journal_marks.last().copied() else {
            return;
        };
        for &(w, old) in self.journal[mark as usize..].iter().rev() {
            if let Some(word) = self.words.get_mut(w as usize) {
                *word = old;
            }
        }
        self.journal.truncate(mark as usize);
        self.journal_commit();
    }

    /// The arrays declared so far, to go back to.
    pub(crate) fn arrays_mark(&self) -> ArraysMark {
        ArraysMark {
            count: self.arrays.len(),
            next: self.next,
        }
    }

    /// Forgets the arrays declared since `mark` was taken (their words are put back by the
    /// journal of the stores).
    pub(crate) fn arrays_back_to(&mut self, mark: ArraysMark) {
        self.arrays.truncate(mark.count);
        self.next = mark.next;
    }

    /// Every word of the memory, the zeros above the held part included.
    fn all_words(&self) -> impl Iterator<Item = u16> + '_ {
        let total = self.arch.memory_words() as usize;
        let held = self.words.len().min(total);
        self.words[..held]
            .iter()
            .copied()
            .chain(std::iter::repeat_n(0, total - held))
    }

    /// Words held (the rest read as zeros), for measurements.
    pub fn held_words(&self) -> usize {
        self.words.len()
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Declares a zeroed array (CSL `var name = @zeros([shape]elem)`) after the previous one,
    /// at the default alignment ([`DEFAULT_ALIGN_BYTES`]).
    pub fn declare(
        &mut self,
        name: &str,
        elem: ElemTy,
        shape: &[u64],
    ) -> Result<Base, MemoryError> {
        self.place(name, elem, shape, None)
    }

    /// Declares a zeroed array with an explicit alignment in bytes (CSL
    /// `var name: [shape]elem align(n)`): a power of two no smaller than the element.
    pub fn declare_aligned(
        &mut self,
        name: &str,
        elem: ElemTy,
        shape: &[u64],
        align_bytes: u32,
    ) -> Result<Base, MemoryError> {
        let natural = 2 * elem.words();
        if !align_bytes.is_power_of_two() || align_bytes < natural {
            return Err(MemoryError::Align {
                name: name.to_string(),
                align: align_bytes,
                elem,
                natural,
            });
        }
        self.place(name, elem, shape, Some(align_bytes))
    }

    fn place(
        &mut self,
        name: &str,
        elem: ElemTy,
        shape: &[u64],
        align: Option<u32>,
    ) -> Result<Base, MemoryError> {
        if self.arrays.iter().any(|a| a.name == name) {
            return Err(MemoryError::Duplicate(name.to_string()));
        }
        if shape.is_empty() || shape.contains(&0) {
            return Err(MemoryError::Shape {
                name: name.to_string(),
                shape: shape.to_vec(),
            });
        }
        let total = u64::from(self.arch.memory_words());
        let align_words = i64::from(align.unwrap_or(DEFAULT_ALIGN_BYTES).div_ceil(2).max(1));
        let start = (self.next + align_words - 1) / align_words * align_words;
        let words = shape
            .iter()
            .try_fold(u64::from(elem.words()), |a, &d| a.checked_mul(d))
            .unwrap_or(u64::MAX);
        let free = total.saturating_sub(start as u64);
        if words > free {
            return Err(MemoryError::Full {
                name: name.to_string(),
                words,
                free,
                total,
            });
        }
        let array = Array {
            name: name.to_string(),
            elem,
            shape: shape.to_vec(),
            word_addr: start,
            align,
        };
        self.next = start + words as i64;
        let base = array.base();
        self.arrays.push(array);
        Ok(base)
    }

    /// Declares an array and writes its contents (CSL `var name = [n]T{...}`).
    pub fn declare_with<T: Element>(
        &mut self,
        name: &str,
        shape: &[u64],
        values: &[T],
    ) -> Result<Base, MemoryError> {
        let base = self.declare(name, T::TY, shape)?;
        self.write(name, values)?;
        Ok(base)
    }

    /// The array named `name`.
    pub fn array(&self, name: &str) -> Result<&Array, MemoryError> {
        self.arrays
            .iter()
            .find(|a| a.name == name)
            .ok_or_else(|| MemoryError::Unknown(name.to_string()))
    }

    /// `&name`.
    pub fn base(&self, name: &str) -> Result<Base, MemoryError> {
        Ok(self.array(name)?.base())
    }

    /// `&name[index]`, a pointer to one element (flat row-major index).
    pub fn element(&self, name: &str, index: u64) -> Result<Base, MemoryError> {
        let a = self.array(name)?;
        let index = i64::try_from(index).unwrap_or(i64::MAX);
        let word = index
            .saturating_mul(i64::from(a.elem.words()))
            .saturating_add(a.word_addr);
        Ok(Base::scalar(format!("{name}[{index}]"), a.elem, word))
    }

    fn check(&self, word: i64, ty: ElemTy) -> Result<usize, MemoryError> {
        let words = i64::from(ty.words());
        // inside the memory and aligned: the usual case, without building the limit
        if word >= 0
            && word <= i64::from(self.arch.memory_words()) - words
            && (words == 1 || word % 2 == 0)
        {
            return Ok(word as usize);
        }
        let limit = self.arch.memory_limit();
        for w in [word, word + i64::from(ty.words()) - 1] {
            limit
                .check(i128::from(w) * 2 + 1)
                .and(limit.check(i128::from(w) * 2))
                .map_err(|limit| MemoryError::OutOfMemory { ty, word, limit })?;
        }
        if ty.words() == 2 && word % 2 != 0 {
            return Err(MemoryError::Misaligned { ty, word });
        }
        Ok(word as usize)
    }

    /// The bits of one `ty` value at word address `word` (32-bit: low word first).
    pub fn load(&self, word: i64, ty: ElemTy) -> Result<u32, MemoryError> {
        let w = self.check(word, ty)?;
        let at = |w: usize| u32::from(self.words.get(w).copied().unwrap_or(0));
        Ok(if ty.words() == 2 {
            at(w) | at(w + 1) << 16
        } else {
            at(w)
        })
    }

    /// Holds the words below `top` (at most the memory's size), growing the held part in
    /// steps of [`PeMemory::GROWTH_WORDS`] as a store does.
    fn hold(&mut self, top: usize) {
        if top > self.words.len() {
            let total = self.arch.memory_words() as usize;
            let grown = top.div_ceil(PeMemory::GROWTH_WORDS) * PeMemory::GROWTH_WORDS;
            self.words.resize(grown.min(total).max(top), 0);
        }
    }

    /// Stores one `ty` value's bits at word address `word`.
    pub fn store(&mut self, word: i64, ty: ElemTy, bits: u32) -> Result<(), MemoryError> {
        let w = self.check(word, ty)?;
        let top = w + ty.words() as usize;
        if top > self.words.len() {
            let total = self.arch.memory_words() as usize;
            let grown = top.div_ceil(PeMemory::GROWTH_WORDS) * PeMemory::GROWTH_WORDS;
            self.words.resize(grown.min(total).max(top), 0);
        }
        if self.journaling {
            for a in w..top {
                self.journal.push((a as u32, self.words[a]));
            }
        }
        self.words[w] = bits as u16;
        if ty.words() == 2 {
            self.words[w + 1] = (bits >> 16) as u16;
        }
        Ok(())
    }

    fn typed(&self, name: &str, ty: ElemTy) -> Result<&Array, MemoryError> {
        let a = self.array(name)?;
        if a.elem != ty {
            return Err(MemoryError::Type {
                name: name.to_string(),
                declared: a.elem,
                requested: ty,
            });
        }
        Ok(a)
    }

    /// The whole array as typed values, row-major.
    pub fn read<T: Element>(&self, name: &str) -> Result<Vec<T>, MemoryError> {
        let a = self.typed(name, T::TY)?;
        let step = i64::from(T::TY.words());
        (0..a.elements() as i64)
            .map(|n| Ok(T::from_bits(self.load(a.word_addr + n * step, T::TY)?)))
            .collect()
    }

    /// Writes the whole array from typed values, row-major.
    pub fn write<T: Element>(&mut self, name: &str, values: &[T]) -> Result<(), MemoryError> {
        let a = self.typed(name, T::TY)?;
        let (word_addr, elements) = (a.word_addr, a.elements());
        if values.len() as u64 != elements {
            return Err(MemoryError::Length {
                name: name.to_string(),
                elements,
                given: values.len() as u64,
            });
        }
        let step = T::TY.words() as usize;
        let first = usize::try_from(word_addr).unwrap_or(usize::MAX);
        let top = first.saturating_add(values.len().saturating_mul(step));
        if self.journaling
            || top > self.arch.memory_words() as usize
            || (step == 2 && first % 2 != 0)
        {
            // element by element: the journal records each store, an error names its word
            for (n, v) in values.iter().enumerate() {
                self.store(word_addr + (n * step) as i64, T::TY, v.to_bits())?;
            }
            return Ok(());
        }
        // a declared array lies inside the memory, aligned: grow the held part once and
        // write the words in place (what the stores one by one leave)
        self.hold(top);
        let words = &mut self.words[first..top];
        if step == 2 {
            for (w, v) in words.chunks_exact_mut(2).zip(values) {
                let bits = v.to_bits();
                w[0] = bits as u16;
                w[1] = (bits >> 16) as u16;
            }
        } else {
            for (w, v) in words.iter_mut().zip(values) {
                *w = v.to_bits() as u16;
            }
        }
        Ok(())
    }

    /// The array's elements as little-endian bytes, row-major (the data section of a `.npy`
    /// of its type; `npusim-io` writes the file).
    pub fn array_bytes(&self, name: &str) -> Result<Vec<u8>, MemoryError> {
        let a = self.array(name)?;
        let step = i64::from(a.elem.words());
        let mut out = Vec::with_capacity(a.elements() as usize * step as usize * 2);
        for n in 0..a.elements() as i64 {
            let bits = self.load(a.word_addr + n * step, a.elem)?;
            out.extend_from_slice(&bits.to_le_bytes()[..2 * step as usize]);
        }
        Ok(out)
    }

    /// Sets the array's elements from little-endian bytes, row-major (exactly its size).
    pub fn set_array_bytes(&mut self, name: &str, bytes: &[u8]) -> Result<(), MemoryError> {
        let a = self.array(name)?.clone();
        let width = 2 * a.elem.words() as usize;
        if bytes.len() as u64 != a.elements() * width as u64 {
            return Err(MemoryError::Length {
                name: name.to_string(),
                elements: a.elements(),
                given: (bytes.len() / width) as u64,
            });
        }
        for (n, chunk) in bytes.chunks_exact(width).enumerate() {
            let mut b = [0u8; 4];
            b[..width].copy_from_slice(chunk);
            let word = a.word_addr + n as i64 * i64::from(a.elem.words());
            self.store(word, a.elem, u32::from_le_bytes(b))?;
        }
        Ok(())
    }

    /// Parses a tensor access expression and lowers it over the array it names.
    pub fn lower(&self, text: &str, policy: BoundsPolicy) -> Result<(Base, Lowered), MemoryError> {
        let access = parse(text)?;
        let a = self.array(&access.array)?;
        let lowered = lower(&access, &a.shape, policy)?;
        Ok((a.base(), lowered))
    }

    /// `@get_dsd(mem1d_dsd, .{ .tensor_access = text })`.
    pub fn mem1d(&self, text: &str) -> Result<Mem1d, MemoryError> {
        let (base, l) = self.lower(text, BoundsPolicy::Unchecked)?;
        Ok(Mem1d::from_lowered(base, &l)?)
    }

    /// `@get_dsd(mem4d_dsd, .{ .tensor_access = text })`.
    pub fn mem4d(&self, text: &str) -> Result<Mem4d, MemoryError> {
        let (base, l) = self.lower(text, BoundsPolicy::Unchecked)?;
        Ok(Mem4d::from_lowered(base, &l)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole-array write while stores are journaled records every word it overwrote, so that
    /// undoing the recording puts the memory back (held part included in what reads back).
    #[test]
    fn a_journaled_write_is_undone() -> Result<(), MemoryError> {
        let mut m = PeMemory::new(Arch::Wse2);
        m.declare("pad", ElemTy::U16, &[3])?;
        m.declare("a", ElemTy::F32, &[5])?;
        m.write("a", &[1.0f32, 2.0, 3.0, 4.0, 5.0])?;
        let before = m.clone();
        m.journal_start();
        m.write("a", &[-1.0f32, -2.0, -3.0, -4.0, -5.0])?;
        assert_eq!(m.journal.len(), 10);
        assert_eq!(m.read::<f32>("a")?, [-1.0f32, -2.0, -3.0, -4.0, -5.0]);
        m.journal_undo();
        assert_eq!(m, before);
        assert_eq!(m.journal_depth(), 0);
        Ok(())
    }
}
