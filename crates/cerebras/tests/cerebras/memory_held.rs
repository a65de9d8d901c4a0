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

/// A whole-array write (which holds the words once and writes them in place) leaves the memory
/// that storing its elements one by one leaves: the same words, the same held part.
#[test]
fn a_whole_array_write_is_its_stores_one_by_one() -> Result<(), Box<dyn std::error::Error>> {
    for arch in [Arch::Wse2, Arch::Wse3] {
        for pad in [0u64, 1, 3, 2047, 2048, 2049, 5000] {
            for n in [1u64, 2, 7, 1024, 2047, 2049] {
                let mut whole = PeMemory::new(arch);
                let mut one_by_one = PeMemory::new(arch);
                for m in [&mut whole, &mut one_by_one] {
                    if pad > 0 {
                        m.declare("pad", ElemTy::U16, &[pad])?;
                    }
                    m.declare("f", ElemTy::F32, &[n])?;
                    m.declare("h", ElemTy::U16, &[n])?;
                    m.declare("u", ElemTy::U32, &[n])?;
                }
                let f: Vec<f32> = (0..n).map(|k| k as f32 * -1.5 - 0.25).collect();
                let h: Vec<u16> = (0..n).map(|k| (k * 40_503) as u16 | 1).collect();
                let u: Vec<u32> = (0..n)
                    .map(|k| (k as u32).wrapping_mul(2_654_435_761) | 1)
                    .collect();
                whole.write("f", &f)?;
                whole.write("h", &h)?;
                whole.write("u", &u)?;
                let (fa, ha, ua) = (
                    whole.array("f")?.word_addr,
                    whole.array("h")?.word_addr,
                    whole.array("u")?.word_addr,
                );
                for (k, v) in f.iter().enumerate() {
                    one_by_one.store(fa + 2 * k as i64, ElemTy::F32, v.to_bits())?;
                }
                for (k, &v) in h.iter().enumerate() {
                    one_by_one.store(ha + k as i64, ElemTy::U16, u32::from(v))?;
                }
                for (k, &v) in u.iter().enumerate() {
                    one_by_one.store(ua + 2 * k as i64, ElemTy::U32, v)?;
                }
                let at = format!("{arch:?}, {pad} words before, {n} elements");
                assert_eq!(whole, one_by_one, "{at}");
                assert_eq!(whole.held_words(), one_by_one.held_words(), "{at}");
                assert_eq!(whole.read::<f32>("f")?, f, "{at}");
                assert_eq!(whole.read::<u16>("h")?, h, "{at}");
                assert_eq!(whole.read::<u32>("u")?, u, "{at}");
                // a write of the wrong length or type is still refused, and changes nothing
                assert!(whole.write("f", &f[1..]).is_err(), "{at}");
                assert!(whole.write("h", &f).is_err(), "{at}");
                assert_eq!(whole, one_by_one, "{at}");
            }
        }
    }
    Ok(())
}
