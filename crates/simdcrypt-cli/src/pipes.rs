//! Standard input and output grown, where they are pipes, to hold [`PIPE_LEN`] bytes. Through
//! Linux's default 64 KiB pipe the two ends of a pipeline take turns every 64 KiB; `bao
//! encode` and `bao decode`, `encrypt` and `decrypt` move whole contents through them, and
//! `sum -` reads one (BENCHMARKS.md, "Pipes"). Elsewhere there is nothing to do.

/// 256 KiB: as fast as 1 MiB (the most an unprivileged process may ask) for `sum -` and
/// `bao decode` into a pipe (BENCHMARKS.md, "Pipes"), and a quarter of the user's pipe
/// budget (`/proc/sys/fs/pipe-user-pages-soft`, 64 MiB by default), past which the kernel
/// gives that user's new pipes a single page: many commands at once in pipelines stay far
/// from it.
#[cfg(target_os = "linux")]
const PIPE_LEN: usize = 256 << 10;

/// Grows standard input's and standard output's pipes to [`PIPE_LEN`] where they are pipes
/// holding less. Anything else refuses, a refusal (over the user's pipe budget, say) leaves
/// the pipe as it was, and either way the command goes on.
pub fn widen_standard_pipes() {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsFd;
        let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
        for fd in [stdin.as_fd(), stdout.as_fd()] {
            if rustix::pipe::fcntl_getpipe_size(fd).is_ok_and(|len| len < PIPE_LEN) {
                let _ = rustix::pipe::fcntl_setpipe_size(fd, PIPE_LEN);
            }
        }
    }
}
