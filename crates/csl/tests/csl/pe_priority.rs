//! `.priority` (the seed's "Microthread Priority"): an option of the asynchronous operation on
//! WSE-2, a field of the fabric DSD or the FIFO on WSE-3, `.high`, `.medium` or `.low`. A
//! relay through a FIFO with priorities moves the vector as it does without; a priority
//! written where the architecture does not take it, or of another shape, is refused by name.

use npusim_cerebras::Arch as SimArch;
use npusim_csl::comptime::Arch;
use npusim_csl::pe::{LoadedPe, run};

use super::pe_fabric::{LIMIT, compile, load_at, program_text};

fn relay(arch: Arch, sim_arch: SimArch, file: &str) {
    let m = 9usize;
    let text = program_text(&format!("fabric_priority/{file}"));
    let mut sim = super::pe_fabric::relay_row(sim_arch, 3, 4);
    let params = [("M", m as i128), ("in_color", 3), ("out_color", 4)];
    let pes: Vec<LoadedPe> = (0..3)
        .map(|x| load_at(&mut sim, file, &text, arch, x, &params))
        .collect();
    let src: Vec<f32> = (0..m).map(|i| i as f32 * 0.75 - 3.0).collect();
    sim.pe_mut(0, 0).unwrap().mem.write("src", &src).unwrap();
    run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
    assert_eq!(sim.pe(2, 0).unwrap().mem.read::<f32>("dst").unwrap(), src);
    for x in 0..3 {
        let done = sim.pe(x, 0).unwrap().mem.read::<i16>("done_count").unwrap();
        assert_eq!(done, vec![1], "{arch:?} PE {x}");
    }
}

#[test]
fn a_relay_with_priorities_on_the_dsd_and_fifo_moves_the_vector_on_wse3() {
    relay(Arch::Wse3, SimArch::Wse3, "priority_wse3.csl");
}

#[test]
fn a_relay_with_priorities_on_the_operations_moves_the_vector_on_wse2() {
    relay(Arch::Wse2, SimArch::Wse2, "priority_wse2.csl");
}

fn compile_err(text: &str, arch: Arch) -> String {
    match compile(
        "p.csl",
        text,
        arch,
        &[("pe_id", 1), ("M", 4), ("in_color", 3), ("out_color", 4)],
    ) {
        Ok(_) => panic!("compiled"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_priority_where_the_architecture_does_not_take_it_is_refused() {
    let wse3 = program_text("fabric_priority/priority_wse3.csl");
    let err = compile_err(&wse3, Arch::Wse2);
    assert!(
        err.contains("on WSE-2 the priority is an option of the asynchronous operation"),
        "{err}"
    );
    let wse2 = program_text("fabric_priority/priority_wse2.csl");
    let pes = |arch| {
        let mut sim = super::pe_fabric::relay_row(arch, 3, 4);
        let params = [("M", 4), ("in_color", 3), ("out_color", 4)];
        let pes: Vec<LoadedPe> = (0..3)
            .map(|x| load_at(&mut sim, "priority_wse2.csl", &wse2, Arch::Wse3, x, &params))
            .collect();
        run(&mut sim, LIMIT, &pes).unwrap_err().to_string()
    };
    let err = pes(SimArch::Wse3);
    assert!(
        err.contains("on WSE-3 the priority is a field of the fabric DSD or of the FIFO"),
        "{err}"
    );
}

#[test]
fn a_priority_of_another_shape_is_refused() {
    let wse3 = program_text("fabric_priority/priority_wse3.csl").replace(
        ".priority = .{ .high = true }",
        ".priority = .{ .urgent = true }",
    );
    let err = compile_err(&wse3, Arch::Wse3);
    assert!(
        err.contains("`.priority` takes one of `.{ .high = true }`"),
        "{err}"
    );
}
