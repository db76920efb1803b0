#![cfg(feature = "cuda-emulation")]
//! The host emulation itself: it must fail where a GPU would. Deliberately broken kernels
//! (src/cuda/emulation_selftest.cu, compiled into the emulation only) give wrong answers or
//! are refused: a removed barrier, a read of shared memory no thread wrote, two threads
//! racing for one shared word, barriers in divergent code, a removed or too-wide
//! `__syncwarp()` of a lane group; the correct kernels pass. Also
//! checked: blocks and threads run in shuffled orders, with a real barrier between phases,
//! and shared memory starts as junk. Without these, the kernel tests of the other
//! `cuda_*` files could pass on code that a GPU would break.

use simdcrypt::cuda::{Device, DeviceBuffer, Emulated, Kernel, Module, MAX_BLOCK};

/// The emulation finds kernels by name; the module is not used.
fn kernel(name: &'static str) -> Kernel {
    Kernel { module: Module::Sha256, name }
}

const GRID: u32 = 16;

/// Runs `name` over GRID blocks of `block` threads on words 0, 1, 2, ...: its output words,
/// or the launch's error.
fn run(name: &'static str, block: u32) -> Result<Vec<u32>, simdcrypt::Error> {
    let n = (GRID * block) as usize;
    let words: Vec<u8> = (0..n as u32).flat_map(|w| input_word(w).to_le_bytes()).collect();
    let dev = Emulated;
    let mut input = dev.alloc(4 * n)?;
    dev.upload(&mut input, 0, &words)?;
    let out = dev.alloc(4 * n)?;
    // SAFETY: the self-test kernels read and write word `blockIdx.x * blockDim.x +
    // threadIdx.x` of `input` and `out`, which hold GRID * block words each.
    unsafe { dev.launch(kernel(name), GRID, block, &[input.ptr(), out.ptr()])? };
    let mut bytes = vec![0u8; 4 * n];
    dev.download(&out, 0, &mut bytes)?;
    Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

/// Input word `w` (distinct words, none zero).
fn input_word(w: u32) -> u32 {
    w.wrapping_mul(0x9E37_79B9) ^ 0x5A5A_0000
}

/// What the reversing kernels compute when correct.
fn reversed(block: u32) -> Vec<u32> {
    (0..GRID * block).map(|i| input_word((i / block) * block + block - 1 - i % block)).collect()
}

#[test]
fn the_correct_kernel_passes_and_each_fault_is_caught() {
    for block in [32, 128, MAX_BLOCK] {
        assert_eq!(run("sc_selftest_reverse", block).unwrap(), reversed(block), "correct kernel, blocks of {block}");
        // The missing barrier: some thread reads its partner's word before it is written.
        let no_barrier = run("sc_selftest_reverse_no_barrier", block).unwrap();
        assert_ne!(no_barrier, reversed(block), "a removed __syncthreads() went unnoticed (blocks of {block})");
        // The half never staged reads as junk, not as zeros or last block's words.
        let unstaged = run("sc_selftest_reverse_unstaged", block).unwrap();
        let wrong = unstaged.iter().zip(reversed(block)).filter(|(a, b)| **a != *b).count();
        assert!(wrong >= (GRID * block / 2) as usize - 2, "unstaged reads matched the input: {wrong} wrong words");
        // Two writers of one word: one of each pair reads the other's value.
        let racy = run("sc_selftest_racy", block).unwrap();
        let expected: Vec<u32> = (0..GRID * block).map(input_word).collect();
        let wrong = racy.iter().zip(&expected).filter(|(a, b)| a != b).count();
        assert!(wrong >= (GRID * block / 2) as usize, "a racy shared write went unnoticed: {wrong} wrong words");
        let err = run("sc_selftest_divergent_barrier", block).unwrap_err().to_string();
        assert!(err.contains("different __syncthreads()"), "{err}");
    }
    println!("cuda emulation: removed barrier, unstaged shared read, racy shared write, divergent barrier all caught");
}

/// What sc_selftest_groups_ok computes: lane group k (eight threads) of each block reverses
/// its words 1 + k % 3 times.
fn groups_expected(block: u32) -> Vec<u32> {
    (0..GRID * block)
        .map(|i| {
            let group = i % block / 8;
            input_word(if group % 3 == 1 { i } else { i / 8 * 8 + 7 - i % 8 })
        })
        .collect()
}

#[test]
fn warp_barriers_of_lane_groups_open_alone_and_their_faults_are_caught() {
    for block in [32, 96, MAX_BLOCK] {
        // Groups of one warp pass different numbers of __syncwarp(mask) and still meet.
        assert_eq!(run("sc_selftest_groups_ok", block).unwrap(), groups_expected(block), "blocks of {block}");
        let no_sync = run("sc_selftest_groups_no_sync", block).unwrap();
        assert_ne!(no_sync, groups_expected(block), "a removed __syncwarp() went unnoticed (blocks of {block})");
        let err = run("sc_selftest_groups_whole_warp", block).unwrap_err().to_string();
        assert!(err.contains("__syncwarp() some of whose lanes waited elsewhere"), "{err}");
    }
    println!("cuda emulation: lane-group __syncwarp() passes; a removed one and a too-wide mask caught");
}

#[test]
fn shared_memory_starts_as_junk_in_every_block() {
    let junk = run("sc_selftest_junk", 64).unwrap();
    let blocks: Vec<&[u32]> = junk.chunks_exact(64).collect();
    assert!(blocks.iter().all(|b| b.iter().filter(|&&w| w == 0).count() < 4), "shared memory started zeroed");
    for pair in blocks.windows(2) {
        assert_ne!(pair[0], pair[1], "two blocks found the same shared memory");
    }
    assert_ne!(run("sc_selftest_junk", 64).unwrap(), junk, "two launches found the same junk");
}

#[test]
fn blocks_and_threads_run_in_shuffled_orders_with_a_real_barrier() {
    let (grid, block) = (8u32, 64u32);
    let threads = grid * block;
    let dev = Emulated;
    let count = dev.alloc(4).unwrap();
    let log = dev.alloc(8 * threads as usize).unwrap();
    let mut count_buf = count;
    dev.upload(&mut count_buf, 0, &0u32.to_le_bytes()).unwrap();
    // SAFETY: sc_selftest_order increments the u32 at `count` and writes 2 * grid * block
    // u32 slots of `log`, which holds that many.
    unsafe { dev.launch(kernel("sc_selftest_order"), grid, block, &[count_buf.ptr(), log.ptr()]).unwrap() };
    let mut bytes = vec![0u8; 8 * threads as usize];
    dev.download(&log, 0, &mut bytes).unwrap();
    let log: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    // Blocks one after another, each in two phases split by the barrier: every thread of the
    // block logs before the barrier, then every thread again.
    let mut block_order = Vec::new();
    for run in log.chunks_exact(2 * block as usize) {
        let b = run[0] / block;
        assert!(run.iter().all(|&i| i / block == b), "a block's threads mixed with another's: {run:?}");
        let (before, after) = run.split_at(block as usize);
        let mut sorted = before.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, (b * block..(b + 1) * block).collect::<Vec<_>>(), "every thread once before the barrier");
        assert_ne!(before, &sorted[..], "threads ran in index order");
        assert_ne!(before, after, "both phases ran the threads in the same order");
        block_order.push(b);
    }
    let mut sorted = block_order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..grid).collect::<Vec<_>>());
    assert_ne!(block_order, sorted, "blocks ran in index order");
}
