//! A FIFO's `.empty_action` / `.full_action` (the seed's "Full and Empty Actions"): an
//! asynchronous pop of more than the FIFO holds ends when it finds the FIFO empty with
//! `.terminate` (and its `.activate` task runs) where the default suspends it; a write that
//! finds the FIFO full with `.fault` stops the run on WSE-3, and `.full_action` is refused on
//! WSE-2. The config may be a compile-time `if`, as the seed writes it.

use std::sync::Arc;

use npusim_cerebras::sched::Sim;
use npusim_csl::comptime::Arch;
use npusim_csl::pe::{load, run};

use super::pe_fabric::{ARCHS, LIMIT, compile};

// PE 0 pushes three values into its FIFO, then pops six of them east asynchronously; PE 1
// receives three into `dst`.
const EMPTY: &str = "\
param pe_id: i16;
param color_id: i16;
const c: color = @get_color(color_id);
const oq = @get_output_queue(2);
const iq = @get_input_queue(3);
var src = [3]f32 { 1.5, -2.0, 4.25 };
var dst = @zeros([3]f32);
var buf = @zeros([8]f32);
var done_count: i16 = 0;
const fifo = @allocate_fifo(buf, if (@is_arch(\"wse2\")) .{ .empty_action = ACTION } else .{ .empty_action = ACTION });
const src_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{3} -> src[i] });
const dst_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{3} -> dst[i] });
const out_dsd = @get_dsd(fabout_dsd, .{ .extent = 6, .fabric_color = c, .output_queue = oq });
const in_dsd = @get_dsd(fabin_dsd, .{ .extent = 3, .fabric_color = c, .input_queue = iq });
const main_id: local_task_id = @get_local_task_id(9);
const done_id: local_task_id = @get_local_task_id(10);
task main() void {
  if (pe_id == 0) {
    @fmovs(fifo, src_dsd);
    @fmovs(out_dsd, fifo, .{ .async = true, .activate = done_id });
  } else {
    @fmovs(dst_dsd, in_dsd, .{ .async = true, .activate = done_id });
  }
}
task done() void {
  done_count += 1;
}
comptime {
  @bind_local_task(main, main_id);
  @bind_local_task(done, done_id);
  if (@is_arch(\"wse3\")) {
    @initialize_queue(oq, .{ .color = c });
    @initialize_queue(iq, .{ .color = c });
  }
  @activate(main_id);
}
";

fn two_pes(text: &str, arch: Arch, sim_arch: npusim_cerebras::Arch) -> (Sim, Result<(), String>) {
    let mut sim = super::pe_fabric::row(sim_arch, 2, 5);
    let pes: Vec<_> = (0..2)
        .map(|x| super::pe_fabric::load_at(&mut sim, "fifo.csl", text, arch, x, &[("color_id", 5)]))
        .collect();
    let r = run(&mut sim, LIMIT, &pes)
        .map(|_| ())
        .map_err(|e| e.to_string());
    (sim, r)
}

fn run_on(text: &str, arch: Arch, sim_arch: npusim_cerebras::Arch) -> (Sim, Result<(), String>) {
    let p = compile("fifo.csl", text, arch, &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Sim::new(sim_arch, 1, 1).unwrap();
    let pe = load(&Arc::new(p), &mut sim, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    let r = run(&mut sim, LIMIT, &[pe])
        .map(|_| ())
        .map_err(|e| e.to_string());
    (sim, r)
}

#[test]
fn an_async_pop_that_finds_the_fifo_empty_terminates_with_terminate_and_activates() {
    let text = EMPTY.replace("ACTION", ".{ .terminate = true }");
    for (arch, sim_arch) in ARCHS {
        let (sim, r) = two_pes(&text, arch, sim_arch);
        r.unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let got = sim.pe(1, 0).unwrap().mem.read::<f32>("dst").unwrap();
        assert_eq!(got, vec![1.5, -2.0, 4.25], "{arch:?}");
        for x in 0..2 {
            let done = sim.pe(x, 0).unwrap().mem.read::<i16>("done_count").unwrap();
            assert_eq!(done, vec![1], "{arch:?} PE {x}");
        }
    }
}

#[test]
fn with_the_default_action_the_async_pop_waits_and_its_task_never_runs() {
    let text = EMPTY.replace("ACTION", ".{ .test_or_suspend = true }");
    for (arch, sim_arch) in ARCHS {
        let (sim, _) = two_pes(&text, arch, sim_arch);
        let got = sim.pe(1, 0).unwrap().mem.read::<f32>("dst").unwrap();
        assert_eq!(got, vec![1.5, -2.0, 4.25], "{arch:?}");
        let done = sim.pe(0, 0).unwrap().mem.read::<i16>("done_count").unwrap();
        assert_eq!(done, vec![0], "{arch:?}");
    }
}

const FULL: &str = "\
var src = @zeros([6]f32);
var buf = @zeros([4]f32);
const fifo = @allocate_fifo(buf, .{ .full_action = .{ .fault = true } });
const src_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{6} -> src[i] });
const main_id: local_task_id = @get_local_task_id(9);
task main() void {
  @fmovs(fifo, src_dsd);
}
comptime {
  @bind_local_task(main, main_id);
  @activate(main_id);
}
";

#[test]
fn a_write_that_finds_the_fifo_full_faults_on_wse3_and_full_action_is_refused_on_wse2() {
    let (_, r) = run_on(FULL, Arch::Wse3, npusim_cerebras::Arch::Wse3);
    let err = r.unwrap_err();
    assert!(err.to_lowercase().contains("fault"), "{err}");

    let p = compile("fifo.csl", FULL, Arch::Wse2, &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Sim::new(npusim_cerebras::Arch::Wse2, 1, 1).unwrap();
    let err = load(&Arc::new(p), &mut sim, 0, 0).unwrap_err().to_string();
    assert!(err.contains(".full_action"), "{err}");
}

#[test]
fn a_fifo_action_of_another_shape_is_refused_naming_the_choices() {
    let text = EMPTY.replace("ACTION", ".{ .explode = true }");
    let err = compile(
        "fifo.csl",
        &text,
        Arch::Wse3,
        &[("pe_id", 0), ("color_id", 5)],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("`.empty_action` takes one of `.{ .test_or_suspend = true }`"),
        "{err}"
    );
}
