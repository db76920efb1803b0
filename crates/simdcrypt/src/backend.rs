//! What every algorithm's backend enum has in common: a name, a CPU requirement, a
//! preference order, and parsing of user-supplied names (`backend="avx2"`, `--backend avx2`).

use crate::cpu::{self, Features};
use crate::Error;

/// An algorithm's set of kernels. Each algorithm has one enum implementing this trait;
/// it is chosen once per hasher or cipher, never per block.
pub trait Backend: Copy + Eq + std::fmt::Debug + 'static {
    /// The algorithm's name, as in `simdcrypt.algorithms_available`.
    const ALGORITHM: &'static str;
    /// Every backend this build knows, best first. Includes ones this CPU cannot run.
    const ALL: &'static [Self];

    /// The short name users pass to select it (`"portable"`, `"avx2"`, ...).
    fn name(self) -> &'static str;

    /// Whether a CPU with these features can run it.
    fn runs_on(self, features: Features) -> bool;

    /// Whether this CPU can run it.
    fn is_supported(self) -> bool {
        self.runs_on(cpu::features())
    }

    /// The backends this CPU can run, best first. Never empty: "portable" runs anywhere.
    fn all_supported() -> Vec<Self> {
        Self::ALL.iter().copied().filter(|b| b.is_supported()).collect()
    }

    /// The best backend for this CPU (cheap: feature detection is cached).
    fn detect() -> Self {
        let features = cpu::features();
        Self::ALL.iter().copied().find(|b| b.runs_on(features)).expect("a backend that runs anywhere is listed last")
    }

    /// Parses a user-supplied name, checking that this CPU can run it.
    fn from_name(name: &str) -> Result<Self, Error> {
        let supported = || Self::all_supported().into_iter().map(Self::name).collect();
        let wanted = name.trim().to_ascii_lowercase();
        match Self::ALL.iter().copied().find(|b| b.name() == wanted) {
            Some(b) if b.is_supported() => Ok(b),
            Some(b) => Err(Error::UnsupportedBackend {
                algorithm: Self::ALGORITHM,
                requested: b.name(),
                supported: supported(),
            }),
            None => Err(Error::UnknownBackend {
                algorithm: Self::ALGORITHM,
                requested: name.to_string(),
                supported: supported(),
            }),
        }
    }
}

/// One algorithm's entry in the backend report: what it would pick and what it could use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendReport {
    /// The algorithm's name.
    pub algorithm: &'static str,
    /// The backend picked by detection.
    pub selected: &'static str,
    /// Every backend this CPU can run, best first.
    pub supported: Vec<&'static str>,
}

impl BackendReport {
    /// The report for one algorithm's backend enum.
    pub fn of<B: Backend>() -> Self {
        BackendReport {
            algorithm: B::ALGORITHM,
            selected: B::detect().name(),
            supported: B::all_supported().into_iter().map(B::name).collect(),
        }
    }
}

/// Panics unless this CPU can run `backend`. Every public entry point that takes a backend
/// value calls it before the value can reach a kernel: the enums' variants can be built
/// directly, and a kernel run on a CPU without its instructions is undefined behaviour.
#[track_caller]
pub(crate) fn assert_supported<B: Backend>(backend: B) {
    assert!(
        backend.is_supported(),
        "{} backend {:?} is not supported by this CPU (supported: {})",
        B::ALGORITHM,
        backend.name(),
        B::all_supported().into_iter().map(B::name).collect::<Vec<_>>().join(", ")
    );
}
