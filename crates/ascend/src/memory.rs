//! The unified buffer (UB) and `LocalTensor` views into it.
//!
//! The UB is a flat byte array. A [`TensorView`] is the untyped description of a tensor
//! (start address, element count, element type); [`LocalTensor<T>`] is the typed view that
//! mirrors AscendC's `LocalTensor<T>`, with `ReinterpretCast`.

use npusim_numerics::Storage;
use std::marker::PhantomData;

use npusim_hw::ByteRange;

use crate::dtype::DType;
use crate::error::AscendError;
use crate::limits::TENSOR_ALIGN_BYTES;
use crate::repeat::Loc;

/// Default unified buffer size: 256 KiB.
pub const UB_BYTES_DEFAULT: usize = 256 * 1024;

/// Element types usable as `LocalTensor<T>` parameters (marker types in [`crate::ty`]).
pub trait Element: Copy + 'static {
    /// The AscendC type.
    const DTYPE: DType;
}

/// A tensor in the UB: start address, element count, element type. Plain data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorView {
    /// Start byte address in the UB.
    pub addr: usize,
    /// Number of elements.
    pub len: usize,
    /// Element type.
    pub dtype: DType,
}

impl TensorView {
    /// Bytes the elements occupy (4-bit types: two per byte, rounded up).
    pub const fn bytes(&self) -> usize {
        if self.dtype.is_4bit() {
            self.len.div_ceil(2)
        } else {
            self.len * (self.dtype.size_bits() as usize / 8)
        }
    }

    /// The bytes the elements occupy in the UB, or an error if the end address overflows.
    pub fn byte_range(&self) -> Result<ByteRange, AscendError> {
        Ok(ByteRange::new(self.addr, self.bytes())?)
    }

    /// Checks the 32-byte alignment that Cast requires of a tensor start
    /// ([`TENSOR_ALIGN_BYTES`]).
    pub fn check_aligned(&self) -> Result<(), AscendError> {
        if !self.addr.is_multiple_of(TENSOR_ALIGN_BYTES) {
            return Err(AscendError::Misaligned { addr: self.addr });
        }
        Ok(())
    }
}

/// A typed tensor view, `LocalTensor<T>`.
///
/// ```
/// use npusim_ascend::{UnifiedBuffer, ty};
/// let ub = UnifiedBuffer::new(4096);
/// let bytes = ub.tensor::<ty::Int8>(0, 64).unwrap();
/// let nibbles = bytes.reinterpret_cast::<ty::Int4b>(); // ReinterpretCast<int4b_t>()
/// assert_eq!(nibbles.len(), 128);
/// ```
#[derive(Debug)]
pub struct LocalTensor<T: Element> {
    view: TensorView,
    _t: PhantomData<T>,
}

impl<T: Element> Clone for LocalTensor<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for LocalTensor<T> {}

impl<T: Element> LocalTensor<T> {
    /// The untyped view.
    pub const fn view(&self) -> TensorView {
        self.view
    }

    /// Start byte address.
    pub const fn addr(&self) -> usize {
        self.view.addr
    }

    /// Element count.
    pub const fn len(&self) -> usize {
        self.view.len
    }

    /// Whether the tensor has no elements.
    pub const fn is_empty(&self) -> bool {
        self.view.len == 0
    }

    /// `ReinterpretCast<U>()`: the same bytes seen as elements of `U`.
    pub fn reinterpret_cast<U: Element>(&self) -> LocalTensor<U> {
        let bits = self.view.bytes() * 8;
        LocalTensor {
            view: TensorView {
                addr: self.view.addr,
                len: bits / U::DTYPE.size_bits() as usize,
                dtype: U::DTYPE,
            },
            _t: PhantomData,
        }
    }

    /// A view starting `offset` elements in (AscendC `tensor[offset]`); the result may be
    /// misaligned, which Cast then rejects.
    pub fn offset(&self, offset: usize) -> Result<LocalTensor<T>, AscendError> {
        if offset > self.view.len || (T::DTYPE.is_4bit() && offset % 2 == 1) {
            return Err(AscendError::RegisterRange {
                what: "tensor offset",
                value: offset,
                max: self.view.len,
            });
        }
        let bytes = TensorView {
            len: offset,
            ..self.view
        }
        .bytes();
        Ok(LocalTensor {
            view: TensorView {
                addr: self.view.addr + bytes,
                len: self.view.len - offset,
                dtype: T::DTYPE,
            },
            _t: PhantomData,
        })
    }
}

/// The unified buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnifiedBuffer {
    bytes: Vec<u8>,
}

impl Default for UnifiedBuffer {
    fn default() -> Self {
        UnifiedBuffer::new(UB_BYTES_DEFAULT)
    }
}

impl UnifiedBuffer {
    /// A zero-filled buffer of `size` bytes.
    pub fn new(size: usize) -> UnifiedBuffer {
        UnifiedBuffer {
            bytes: vec![0; size],
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// The buffer's addresses, `[0, size)`.
    pub fn range(&self) -> ByteRange {
        ByteRange::from_len(self.size())
    }

    /// The raw bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The raw bytes, writable (to model prior contents).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }

    /// An untyped view, checked to lie inside the buffer.
    pub fn view(&self, addr: usize, len: usize, dtype: DType) -> Result<TensorView, AscendError> {
        let v = TensorView { addr, len, dtype };
        let outside = || AscendError::OutsideBuffer {
            addr,
            bytes: v.bytes(),
            ub_bytes: self.size(),
        };
        let range = v.byte_range().map_err(|_| outside())?;
        if !self.range().contains(&range) {
            return Err(outside());
        }
        Ok(v)
    }

    /// A typed `LocalTensor<T>` of `len` elements at byte address `addr`.
    pub fn tensor<T: Element>(
        &self,
        addr: usize,
        len: usize,
    ) -> Result<LocalTensor<T>, AscendError> {
        Ok(LocalTensor {
            view: self.view(addr, len, T::DTYPE)?,
            _t: PhantomData,
        })
    }

    /// Reads element `i` of a view (its code in the low bits).
    pub fn read(&self, v: &TensorView, i: usize) -> u64 {
        read_code(&self.bytes, v.addr, v.dtype, i)
    }

    /// Writes element `i` of a view.
    pub fn write(&mut self, v: &TensorView, i: usize, code: u64) {
        write_code(&mut self.bytes, v.addr, v.dtype, i, code);
    }

    /// Every element code of a view.
    pub fn codes(&self, v: &TensorView) -> Vec<u64> {
        (0..v.len).map(|i| self.read(v, i)).collect()
    }

    /// Stores little-endian element bytes (4-bit: packed, element 0 in the low nibble) into a view.
    pub fn load_bytes(&mut self, v: &TensorView, data: &[u8]) -> Result<(), AscendError> {
        if data.len() != v.bytes() {
            return Err(AscendError::BufferSize {
                what: "tensor data",
                expected: v.bytes(),
                got: data.len(),
            });
        }
        self.bytes[v.addr..v.addr + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// The bytes of a view.
    pub fn view_bytes(&self, v: &TensorView) -> &[u8] {
        &self.bytes[v.addr..v.addr + v.bytes()]
    }
}

/// Reads the code of element `i` of type `dtype` stored from byte `base` on (numerics'
/// element codec: 4-bit types packed, element 0 in the low nibble; wider ones little-endian).
pub(crate) fn read_code(bytes: &[u8], base: usize, dtype: DType, i: usize) -> u64 {
    Storage::native(dtype.format()).read(&bytes[base..], i)
}

/// Writes the code of element `i` of type `dtype` stored from byte `base` on.
pub(crate) fn write_code(bytes: &mut [u8], base: usize, dtype: DType, i: usize, code: u64) {
    Storage::native(dtype.format()).write(&mut bytes[base..], i, code);
}

/// Reads the code of a `dtype` element at a location.
pub(crate) fn read_code_at(bytes: &[u8], loc: Loc, dtype: DType) -> u64 {
    if dtype.is_4bit() {
        return read_code(bytes, loc.byte, dtype, usize::from(loc.high_nibble));
    }
    read_code(bytes, loc.byte, dtype, 0)
}

/// Writes the code of a `dtype` element at a location.
pub(crate) fn write_code_at(bytes: &mut [u8], loc: Loc, dtype: DType, code: u64) {
    if dtype.is_4bit() {
        return write_code(bytes, loc.byte, dtype, usize::from(loc.high_nibble), code);
    }
    write_code(bytes, loc.byte, dtype, 0, code);
}
