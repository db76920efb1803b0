//! `simdcrypt backends`: the CPU features found, the backend each algorithm uses, and
//! whether the GPU backend (`sum --backend cuda`) can run here and why not.

use clap::Args;
use simdcrypt::cpu::{self, Features};

use crate::output::{Failure, Out};

/// Arguments of `simdcrypt backends`.
#[derive(Args, Debug)]
pub struct BackendsArgs {
    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,
}

/// Prints the report.
pub fn run(args: &BackendsArgs, out: &mut Out) -> Result<bool, Failure> {
    let report = Report::gather();
    let text = if args.json { report.json() } else { report.text() };
    out.record(&text)?;
    Ok(true)
}

#[derive(Debug)]
struct Report {
    hardware: Vec<&'static str>,
    usable: Vec<&'static str>,
    disable_var: Option<String>,
    algorithms: Vec<simdcrypt::backend::BackendReport>,
    /// The GPU, or why there is none usable.
    cuda: Result<simdcrypt::cuda::DeviceInfo, String>,
}

fn names(features: Features) -> Vec<&'static str> {
    features.iter().map(|f| f.name()).collect()
}

impl Report {
    fn gather() -> Self {
        Report {
            hardware: names(cpu::hardware_features()),
            usable: names(cpu::features()),
            disable_var: std::env::var("SIMDCRYPT_DISABLE").ok(),
            algorithms: simdcrypt::backend_report(),
            cuda: simdcrypt::cuda::status().map_err(|e| match e {
                simdcrypt::Error::Unavailable { reason, .. } => reason,
                other => other.to_string(),
            }),
        }
    }

    fn text(&self) -> String {
        let list = |features: &[&str]| {
            if features.is_empty() {
                "(none)".to_string()
            } else {
                features.join(" ")
            }
        };
        let mut s = format!("cpu features: {}\n", list(&self.hardware));
        if self.usable != self.hardware {
            let hidden: Vec<&str> = self.hardware.iter().copied().filter(|f| !self.usable.contains(f)).collect();
            s += &format!(
                "usable features: {} (hidden by SIMDCRYPT_DISABLE: {})\n",
                list(&self.usable),
                hidden.join(" ")
            );
        }
        for a in &self.algorithms {
            s += &format!("{}: selected {} (supported: {})\n", a.algorithm, a.selected, a.supported.join(", "));
            for (backend, why) in &a.passed_over {
                s += &format!("  passed over {backend}: {why}\n");
            }
        }
        let note = simdcrypt::cuda::VERIFICATION_NOTE;
        match &self.cuda {
            Ok(info) => s += &format!("cuda: available on {info} (sum --backend cuda; {note})\n"),
            Err(reason) => s += &format!("cuda: unavailable: {reason} ({note})\n"),
        }
        s
    }

    fn json(&self) -> String {
        let list = |items: &[&str]| {
            let quoted: Vec<String> = items.iter().map(|s| json_string(s)).collect();
            format!("[{}]", quoted.join(", "))
        };
        let algorithms: Vec<String> = self
            .algorithms
            .iter()
            .map(|a| {
                let passed_over: Vec<String> = a
                    .passed_over
                    .iter()
                    .map(|(backend, why)| {
                        format!("{{\"backend\": {}, \"why\": {}}}", json_string(backend), json_string(why))
                    })
                    .collect();
                format!(
                    "    {{\"algorithm\": {}, \"selected\": {}, \"supported\": {}, \"passed_over\": [{}]}}",
                    json_string(a.algorithm),
                    json_string(a.selected),
                    list(&a.supported),
                    passed_over.join(", ")
                )
            })
            .collect();
        let disable = self.disable_var.as_deref().map_or_else(|| "null".to_string(), json_string);
        let (available, device, reason) = match &self.cuda {
            Ok(info) => ("true", json_string(&info.to_string()), "null".to_string()),
            Err(reason) => ("false", "null".to_string(), json_string(reason)),
        };
        let cuda = format!(
            "{{\"available\": {available}, \"device\": {device}, \"reason\": {reason}, \"verified\": {}}}",
            simdcrypt::cuda::VERIFIED_ON_GPU
        );
        format!(
            "{{\n  \"cpu_features\": {},\n  \"usable_features\": {},\n  \
             \"simdcrypt_disable\": {},\n  \"algorithms\": [\n{}\n  ],\n  \"cuda\": {cuda}\n}}\n",
            list(&self.hardware),
            list(&self.usable),
            disable,
            algorithms.join(",\n")
        )
    }
}

/// A JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::json_string;

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("avx2"), "\"avx2\"");
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
