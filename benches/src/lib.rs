//! Benchmarks only: see benches/.
