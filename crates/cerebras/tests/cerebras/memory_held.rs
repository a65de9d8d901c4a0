//! A PE memory holds its words only up to the highest one stored: the rest reads as zeros, the
//! size and its limit are the architecture's, and two memories with the same contents are equal
//! whatever part each holds.

use npusim_cerebras::{Arch, ElemTy, PeMemory};

#[test]
fn a_memory_holds_only_what_was_stored_and_reads_zeros_above()
-> Result<(), Box<dyn std::error::Error>> {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let total = i64::from(arch.memory_words());
        let mut m = PeMemory::new(arch);
        assert_eq!(m.held_words(), 0);
        // the highest word reads zero and can be stored
        assert_eq!(m.load(total - 2, ElemTy::F32)?, 0);
        m.store(10, ElemTy::U16, 7)?;
        assert!(m.held_words() >= 11 && m.held_words() <= PeMemory::GROWTH_WORDS);
        assert_eq!(m.load(10, ElemTy::U16)?, 7);
        assert_eq!(m.load(11, ElemTy::U16)?, 0);
        m.store(total - 2, ElemTy::F32, 0xdead_beef)?;
        assert_eq!(m.held_words() as i64, total);
        assert_eq!(m.load(total - 2, ElemTy::F32)?, 0xdead_beef);
        // past the end is still the architecture's limit
        assert!(m.store(total, ElemTy::U16, 1).is_err());
        assert!(m.load(total, ElemTy::U16).is_err());
    }
    Ok(())
}

#[test]
fn memories_with_the_same_contents_are_equal_whatever_they_hold()
-> Result<(), Box<dyn std::error::Error>> {
    let fresh = PeMemory::new(Arch::Wse2);
    let mut zeroed = PeMemory::new(Arch::Wse2);
    zeroed.store(20_000, ElemTy::U16, 0)?;
    assert!(zeroed.held_words() > 20_000);
    assert_eq!(fresh, zeroed);
    let mut other = PeMemory::new(Arch::Wse2);
    other.store(5, ElemTy::U16, 1)?;
    assert_ne!(fresh, other);
    Ok(())
}

#[test]
fn an_array_filling_the_memory_is_declared_and_written() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = PeMemory::new(Arch::Wse2);
    let n = u64::from(Arch::Wse2.memory_words()) / 2;
    m.declare("big", ElemTy::F32, &[n])?;
    assert_eq!(m.held_words(), 0);
    let v: Vec<f32> = (0..n).map(|k| k as f32).collect();
    m.write("big", &v)?;
    assert_eq!(m.read::<f32>("big")?, v);
    assert!(m.declare("more", ElemTy::U16, &[1]).is_err());
    Ok(())
}
