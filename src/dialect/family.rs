//! `--model ID`: the dialects a model writes, from its id.
//!
//! A model id names a family (`Qwen/Qwen3-Coder-30B-A3B-Instruct` is
//! Qwen3-Coder, `llama3.2:3b` is Llama 3.2 3B), and the family writes one
//! dialect, or two (Llama 3.2 1B and 3B write `llama3` JSON or `pythonic`
//! calls). [`dialects_for_model`] reads the id as Hugging Face, Ollama,
//! llama.cpp and vLLM write it:
//!
//! - in any case, with or without an organisation or a path in front
//!   (`meta-llama/`, `hf.co/unsloth/`): only the part after the last `/`
//!   counts;
//! - with suffixes after the family (`-Instruct`, `-GGUF`, `-AWQ`, `-FP8`,
//!   `.gguf`) and Ollama tags (`qwen3:8b`, `gpt-oss:20b`,
//!   `…-GGUF:Q4_K_M`): `_`, `:` and spaces count as `-`;
//! - with or without a `-` between a family's words and its version
//!   (`llama3.2` and `Llama-3.2`, `phi4-mini` and `Phi-4-mini`).
//!
//! A family's name must begin a word of the id (`OpenHermes` is not
//! Hermes), and a version must not be a size (`granite-3b-code` is not
//! Granite 3). The families are tried in the order of [`families`], so the
//! first that matches wins: a Hermes fine-tune of Llama is Hermes, a
//! DeepSeek R1 distilled into Llama or Qwen is DeepSeek.

/// The families: each as it is shown to users, with its dialects.
static FAMILIES: &[(&str, &[&str])] = &[
    ("Hermes 2 Pro / 3 / 4", &["hermes"]),
    ("DeepSeek V3 / R1", &["deepseek_v3"]),
    ("DeepSeek V3.1", &["deepseek_v31"]),
    ("DeepSeek V4.1+", &["deepseek_v41"]),
    ("DeepSeek V3.2 / V4", &["deepseek_v32"]),
    ("Qwen3-Coder", &["qwen3_coder"]),
    ("Qwen3.5+", &["qwen3_coder"]),
    ("Qwen2.5 / Qwen3", &["hermes"]),
    ("Nemotron 3", &["qwen3_coder"]),
    ("Seed-OSS", &["seed_oss"]),
    ("GLM-4.5 / 4.6 / 4.7 / 5.x", &["glm"]),
    ("Ling 3", &["glm"]),
    ("Poolside Laguna", &["glm"]),
    ("Spark 2.5", &["glm"]),
    ("MiniMax-M2", &["minimax_m2"]),
    ("MiniMax-M3", &["minimax_m3"]),
    (
        "Mistral / Mixtral / Magistral / Devstral / Ministral",
        &["mistral"],
    ),
    ("FireFunction v2", &["phi4_mini"]),
    ("xLAM", &["xlam"]),
    ("Llama 3.2 1B / 3B", &["llama3", "pythonic"]),
    ("Llama 3.1 / 3.2 / 3.3", &["llama3"]),
    ("Llama 4", &["pythonic"]),
    ("Olmo 3", &["pythonic"]),
    ("LFM2", &["pythonic"]),
    ("Kimi K2", &["kimi_k2"]),
    ("Kimi K3", &["kimi_k3"]),
    ("gpt-oss", &["gpt_oss"]),
    ("Command R7B / Command A", &["cohere"]),
    ("granite-20b-functioncalling", &["granite_20b_fc"]),
    ("Granite 3.x", &["granite"]),
    ("Granite 4.2+", &["qwen3_coder"]),
    ("Granite 4", &["hermes"]),
    ("Jamba", &["jamba"]),
    ("Hy3 / HY v4", &["hunyuan"]),
    ("Hunyuan-A13B", &["hunyuan_a13b"]),
    ("Phi-4-mini", &["phi4_mini"]),
    ("Step-3.5+", &["qwen3_coder"]),
    ("Step-3", &["step3"]),
    ("MiMo", &["qwen3_coder"]),
    ("Arcee Trinity", &["hermes"]),
    ("ERNIE 4.5", &["ernie45"]),
    ("InternLM2 / 3, Intern-S1", &["internlm"]),
    ("GigaChat 3.5", &["gigachat35"]),
    ("GigaChat 3", &["gigachat3"]),
    ("LongCat-Flash", &["longcat"]),
    ("dots.llm", &["dots"]),
    ("K2 Horizon", &["k2_horizon"]),
    ("IQuest Q1", &["iquest_q1"]),
    ("Gemma 4", &["gemma4"]),
    ("FunctionGemma", &["function_gemma"]),
    ("Muse Glimmer", &["muse_glimmer"]),
    ("Inkling", &["inkling"]),
    ("MiniCPM5", &["minicpm5"]),
    ("Apertus", &["apertus"]),
    ("Functionary v3.2", &["functionary_v32"]),
];

/// Whether an id is of a family.
type Matcher = fn(&Id) -> bool;

/// Whether an id is of the family at the same place in [`FAMILIES`].
static MATCHES: &[Matcher] = &[
    // Hermes 2 Pro (and Theta, its merge) / 3 / 4; the first Hermes 2
    // models wrote no tool calls.
    |id| {
        id.versions("hermes").iter().any(|v| match v.major {
            2 => {
                let rest = v.rest.trim_start_matches('-');
                rest.starts_with("pro") || rest.starts_with("theta")
            }
            3 | 4 => true,
            _ => false,
        })
    },
    // DeepSeek V3 / R1.
    |id| {
        id.versions("deepseek-v")
            .iter()
            .any(|v| v.major == 3 && v.minor.unwrap_or(0) == 0)
            || id.versions("deepseek-r").iter().any(|v| v.major == 1)
    },
    // DeepSeek V3.1.
    |id| {
        id.versions("deepseek-v")
            .iter()
            .any(|v| v.major == 3 && v.minor == Some(1))
    },
    // DeepSeek V4.1 and later: DSML with a space after `｜DSML｜`.
    |id| {
        id.versions("deepseek-v")
            .iter()
            .any(|v| (v.major == 4 && v.minor.unwrap_or(0) >= 1) || v.major >= 5)
    },
    // DeepSeek V3.2 and V4.
    |id| {
        id.versions("deepseek-v")
            .iter()
            .any(|v| (v.major == 3 && v.minor.unwrap_or(0) >= 2) || v.major == 4)
    },
    // Qwen3-Coder.
    |id| {
        id.versions("qwen").iter().any(|v| {
            v.major == 3
                && v.minor.unwrap_or(0) == 0
                && v.rest.trim_start_matches('-').starts_with("coder")
        })
    },
    // Qwen3.5 and later.
    |id| {
        id.versions("qwen")
            .iter()
            .any(|v| (v.major == 3 && v.minor.unwrap_or(0) >= 5) || v.major >= 4)
    },
    // Qwen2.5, Qwen3.
    |id| {
        id.versions("qwen").iter().any(|v| {
            (v.major == 2 && v.minor == Some(5)) || (v.major == 3 && v.minor.unwrap_or(0) == 0)
        })
    },
    // Nemotron 3.
    |id| {
        id.versions("nemotron")
            .iter()
            .any(|v| v.major == 3 && v.minor.is_none())
    },
    |id| id.word("seed-oss"),
    // GLM-4.5, 4.6, 4.7 and GLM-5.x (which the peers serve with the
    // GLM-4.7 parser).
    |id| {
        id.versions("glm")
            .iter()
            .any(|v| (v.major == 4 && matches!(v.minor, Some(5..=7))) || v.major == 5)
    },
    // Ling 3 (Bailing V3).
    |id| id.versions("ling").iter().any(|v| v.major == 3),
    |id| id.word("laguna"),
    |id| {
        id.versions("spark")
            .iter()
            .any(|v| v.major == 2 && v.minor == Some(5))
    },
    |id| id.versions("minimax-m").iter().any(|v| v.major == 2),
    |id| id.versions("minimax-m").iter().any(|v| v.major == 3),
    |id| {
        ["mistral", "mixtral", "magistral", "devstral", "ministral"]
            .iter()
            .any(|w| id.word(w))
    },
    |id| id.versions("firefunction-v").iter().any(|v| v.major == 2),
    // xLAM (before Llama: `Llama-xLAM-2-8b-fc-r`).
    |id| id.word("xlam"),
    // Llama 3.2 1B and 3B (11B and 90B are the vision models, which write
    // Llama 3.1's JSON).
    |id| {
        id.versions("llama").iter().any(|v| {
            v.major == 3
                && v.minor == Some(2)
                && !v
                    .rest
                    .split('-')
                    .any(|w| w == "11b" || w == "90b" || w.starts_with("vision"))
        })
    },
    // Llama 3.1 to 3.3.
    |id| {
        id.versions("llama")
            .iter()
            .any(|v| v.major == 3 && matches!(v.minor, Some(1..=3)))
    },
    |id| id.versions("llama").iter().any(|v| v.major == 4),
    |id| id.versions("olmo").iter().any(|v| v.major == 3),
    |id| id.versions("lfm").iter().any(|v| v.major == 2),
    |id| id.versions("kimi-k").iter().any(|v| v.major == 2),
    |id| id.versions("kimi-k").iter().any(|v| v.major == 3),
    |id| id.word("gpt-oss"),
    |id| id.word("command-r7b") || id.word("command-a"),
    |id| id.word("granite-20b-functioncalling"),
    |id| id.versions("granite").iter().any(|v| v.major == 3),
    // Granite 4.2 and later write Nemotron 3's calls and `<think>`.
    |id| {
        id.versions("granite")
            .iter()
            .any(|v| v.major == 4 && v.minor.unwrap_or(0) >= 2)
    },
    |id| id.versions("granite").iter().any(|v| v.major == 4),
    |id| id.word("jamba"),
    // Tencent Hy3 and HY v4.
    |id| id.word("hy3") || id.versions("hy-v").iter().any(|v| v.major >= 3),
    // Hunyuan-A13B (and the other Hunyuan chat models of its template).
    |id| id.word("hunyuan"),
    |id| id.word("phi-4-mini"),
    // Step-3.5 writes Qwen3-Coder's calls; Step-3 its own.
    |id| {
        id.versions("step")
            .iter()
            .any(|v| v.major == 3 && v.minor.unwrap_or(0) >= 5)
    },
    |id| {
        id.versions("step")
            .iter()
            .any(|v| v.major == 3 && v.minor.unwrap_or(0) == 0)
    },
    |id| id.word("mimo"),
    |id| id.word("trinity"),
    |id| {
        id.versions("ernie")
            .iter()
            .any(|v| v.major == 4 && v.minor == Some(5))
    },
    |id| {
        id.versions("internlm")
            .iter()
            .any(|v| v.major == 2 || v.major == 3)
            || id.word("intern-s1")
    },
    |id| {
        id.versions("gigachat")
            .iter()
            .any(|v| v.major == 3 && v.minor == Some(5))
    },
    |id| id.versions("gigachat").iter().any(|v| v.major == 3),
    |id| id.word("longcat"),
    |id| id.word("dots"),
    |id| id.word("k2-horizon") || id.versions("k2-v").iter().any(|v| v.major == 3),
    |id| id.word("iquest-q1"),
    |id| id.versions("gemma").iter().any(|v| v.major == 4),
    |id| id.word("functiongemma"),
    |id| id.word("muse-glimmer"),
    |id| id.word("inkling"),
    |id| id.versions("minicpm").iter().any(|v| v.major == 5),
    |id| id.word("apertus"),
    |id| id.word("functionary"),
];

/// The families whose chat template ends the prompt inside reasoning, so
/// that the response starts in it (`--model` turns `reasoning_open` on for
/// them), each as shown to users.
static REASONING_OPEN: &[(&str, Matcher)] = &[
    ("DeepSeek-R1 and its distills", |id| {
        id.versions("deepseek-r").iter().any(|v| v.major == 1)
    }),
    ("Qwen3 *-Thinking-2507", |id| {
        id.versions("qwen").iter().any(|v| v.major == 3) && id.word("thinking-2507")
    }),
    ("Olmo 3 Think", |id| {
        id.versions("olmo").iter().any(|v| v.major == 3) && id.word("think")
    }),
    ("Step-3", |id| {
        id.versions("step")
            .iter()
            .any(|v| v.major == 3 && v.minor.unwrap_or(0) == 0)
    }),
    ("ERNIE 4.5 Thinking", |id| {
        id.versions("ernie")
            .iter()
            .any(|v| v.major == 4 && v.minor == Some(5))
            && id.word("thinking")
    }),
    ("Ling 3", |id| {
        id.versions("ling").iter().any(|v| v.major == 3)
    }),
    ("MiniMax-M2", |id| {
        id.versions("minimax-m").iter().any(|v| v.major == 2)
    }),
    ("GigaChat 3.5", |id| {
        id.versions("gigachat")
            .iter()
            .any(|v| v.major == 3 && v.minor == Some(5))
    }),
    ("HY v4", |id| {
        id.versions("hy-v").iter().any(|v| v.major == 4)
    }),
];

/// The model families `--model` knows, in the order they are tried: each
/// as it is shown to users, with the dialects its models write.
///
/// ```
/// let families = actionstream::dialect::family::families();
/// let qwen_coder = families.iter().find(|(name, _)| *name == "Qwen3-Coder").unwrap();
/// assert_eq!(qwen_coder.1, ["qwen3_coder"]);
/// ```
pub fn families() -> &'static [(&'static str, &'static [&'static str])] {
    FAMILIES
}

/// The dialects the model `id` writes, by its family (see the [module
/// docs](self) for how ids are read).
///
/// # Errors
///
/// When no family matches: a message that lists the families, for a
/// usage error.
///
/// ```
/// use actionstream::dialect::family::dialects_for_model;
///
/// assert_eq!(dialects_for_model("Qwen/Qwen3-Coder-30B-A3B-Instruct").unwrap(), ["qwen3_coder"]);
/// assert_eq!(dialects_for_model("deepseek-ai/DeepSeek-V3.1").unwrap(), ["deepseek_v31"]);
/// assert_eq!(dialects_for_model("llama3.2:3b").unwrap(), ["llama3", "pythonic"]);
/// assert_eq!(dialects_for_model("granite-4.0-h-small").unwrap(), ["hermes"]);
/// let err = dialects_for_model("gpt-4o").unwrap_err();
/// assert!(err.starts_with("no model family matches `gpt-4o`; the families are: Hermes 2 Pro / 3 / 4 (hermes), "));
/// ```
pub fn dialects_for_model(id: &str) -> Result<Vec<&'static str>, String> {
    let parsed = Id::new(id);
    FAMILIES
        .iter()
        .zip(MATCHES)
        .find(|(_, matches)| matches(&parsed))
        .map(|((_, dialects), _)| dialects.to_vec())
        .ok_or_else(|| {
            let list: Vec<String> = FAMILIES
                .iter()
                .map(|(name, dialects)| format!("{name} ({})", dialects.join(" + ")))
                .collect();
            format!(
                "no model family matches `{}`; the families are: {}",
                id.trim(),
                list.join(", ")
            )
        })
}

/// Whether a response of the model `id` starts inside reasoning: its
/// family's chat template ends the prompt inside it (DeepSeek-R1, Qwen3
/// `*-Thinking-2507`, Olmo 3 Think, …: [`reasoning_open_families`]).
/// `--model` turns [`Config::reasoning_open`](crate::Config::reasoning_open)
/// on for these unless told otherwise.
///
/// ```
/// use actionstream::dialect::family::reasoning_opens;
///
/// assert!(reasoning_opens("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"));
/// assert!(reasoning_opens("Qwen/Qwen3-235B-A22B-Thinking-2507"));
/// assert!(!reasoning_opens("Qwen/Qwen3-235B-A22B-Instruct-2507"));
/// ```
pub fn reasoning_opens(id: &str) -> bool {
    let parsed = Id::new(id);
    REASONING_OPEN.iter().any(|(_, m)| m(&parsed))
}

/// The families whose responses start inside reasoning, as shown to users
/// (see [`reasoning_opens`]).
///
/// ```
/// let families = actionstream::dialect::family::reasoning_open_families();
/// assert!(families.contains(&"Olmo 3 Think"));
/// ```
pub fn reasoning_open_families() -> Vec<&'static str> {
    REASONING_OPEN.iter().map(|(name, _)| *name).collect()
}

/// A model id made comparable: the part after the last `/`, in lower case,
/// with `_`, `:` and spaces as `-`.
struct Id {
    text: String,
}

/// A version that follows a family's name in an id.
struct Version<'a> {
    major: u32,
    minor: Option<u32>,
    /// The id after the version.
    rest: &'a str,
}

impl Id {
    fn new(id: &str) -> Id {
        let last = id.trim().rsplit('/').next().unwrap_or_default();
        let text = last
            .chars()
            .map(|c| match c {
                '_' | ':' | ' ' => '-',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        Id { text }
    }

    /// Where `word` ends, at each place where it begins a word of the id
    /// (the start, or after a `-`); a `-` in `word` may be missing in the
    /// id.
    fn ends<'a>(&'a self, word: &'a str) -> impl Iterator<Item = usize> + 'a {
        let s = self.text.as_bytes();
        (0..s.len())
            .filter(move |&i| i == 0 || s[i - 1] == b'-')
            .filter_map(move |i| {
                let mut at = i;
                for &c in word.as_bytes() {
                    if c == b'-' {
                        if s.get(at) == Some(&b'-') {
                            at += 1;
                        }
                    } else if s.get(at) == Some(&c) {
                        at += 1;
                    } else {
                        return None;
                    }
                }
                Some(at)
            })
    }

    /// Whether `word` stands in the id as a word of its own (followed by
    /// the end, a `-`, a `.` or a digit).
    fn word(&self, word: &str) -> bool {
        let s = self.text.as_bytes();
        self.ends(word).any(|end| match s.get(end) {
            None => true,
            Some(&c) => c == b'-' || c == b'.' || c.is_ascii_digit(),
        })
    }

    /// The versions that follow `word` in the id (after an optional `-`):
    /// `major` or `major.minor`, not followed by a size's letter (`3b`,
    /// `135m`, `8x7b`).
    fn versions(&self, word: &str) -> Vec<Version<'_>> {
        let s = self.text.as_str();
        self.ends(word)
            .filter_map(|end| {
                let mut at = end;
                if s[at..].starts_with('-') {
                    at += 1;
                }
                let (major, after) = digits(&s[at..])?;
                let (minor, after) = match after.strip_prefix('.').and_then(digits) {
                    Some((minor, rest)) => (Some(minor), rest),
                    None => (None, after),
                };
                let size = after.starts_with(['b', 'm', 'k', 'x', 'e']);
                (!size).then_some(Version {
                    major,
                    minor,
                    rest: after,
                })
            })
            .collect()
    }
}

/// The number at the start of `s`, and what follows it.
fn digits(s: &str) -> Option<(u32, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n = s[..end].parse().ok()?;
    Some((n, &s[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_line_up() {
        assert_eq!(FAMILIES.len(), MATCHES.len());
    }

    #[test]
    fn real_ids() {
        // Ids from Hugging Face, Ollama and GGUF file names.
        let cases: &[(&str, &[&str])] = &[
            // Hermes.
            ("NousResearch/Hermes-2-Pro-Llama-3-8B", &["hermes"]),
            ("NousResearch/Hermes-2-Pro-Mistral-7B", &["hermes"]),
            ("NousResearch/Hermes-2-Theta-Llama-3-8B", &["hermes"]),
            ("NousResearch/Hermes-3-Llama-3.1-8B", &["hermes"]),
            ("NousResearch/Hermes-4-70B", &["hermes"]),
            ("hermes3:8b", &["hermes"]),
            // Qwen.
            ("Qwen/Qwen2.5-7B-Instruct", &["hermes"]),
            ("Qwen/Qwen2.5-Coder-32B-Instruct", &["hermes"]),
            ("qwen2.5:7b", &["hermes"]),
            ("qwen2.5-coder:7b", &["hermes"]),
            ("Qwen/Qwen3-8B", &["hermes"]),
            ("Qwen/Qwen3-30B-A3B-Instruct-2507", &["hermes"]),
            ("Qwen/Qwen3-235B-A22B-Thinking-2507", &["hermes"]),
            ("Qwen/Qwen3-Next-80B-A3B-Instruct", &["hermes"]),
            ("Qwen/Qwen3-0.6B", &["hermes"]),
            ("qwen3:8b", &["hermes"]),
            ("Qwen/Qwen3-Coder-30B-A3B-Instruct", &["qwen3_coder"]),
            ("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", &["qwen3_coder"]),
            (
                "unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF",
                &["qwen3_coder"],
            ),
            (
                "hf.co/unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M",
                &["qwen3_coder"],
            ),
            ("qwen3-coder:30b", &["qwen3_coder"]),
            ("Qwen/Qwen3.5-397B-A17B", &["qwen3_coder"]),
            ("qwen3.5:27b", &["qwen3_coder"]),
            (
                "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
                &["qwen3_coder"],
            ),
            ("nemotron-3-nano:30b", &["qwen3_coder"]),
            // Seed, GLM, MiniMax.
            ("ByteDance-Seed/Seed-OSS-36B-Instruct", &["seed_oss"]),
            ("zai-org/GLM-4.5", &["glm"]),
            ("zai-org/GLM-4.5-Air", &["glm"]),
            ("zai-org/GLM-4.5-Air-FP8", &["glm"]),
            ("zai-org/GLM-4.6", &["glm"]),
            ("zai-org/GLM-4.7", &["glm"]),
            ("glm-4.6:cloud", &["glm"]),
            ("MiniMaxAI/MiniMax-M2", &["minimax_m2"]),
            ("MiniMaxAI/MiniMax-M2.1", &["minimax_m2"]),
            ("minimax-m2:cloud", &["minimax_m2"]),
            // Mistral.
            ("mistralai/Mistral-7B-Instruct-v0.3", &["mistral"]),
            ("mistralai/Mistral-Nemo-Instruct-2407", &["mistral"]),
            (
                "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
                &["mistral"],
            ),
            ("mistralai/Mixtral-8x7B-Instruct-v0.1", &["mistral"]),
            ("mistralai/Magistral-Small-2509", &["mistral"]),
            ("mistralai/Devstral-Small-2507", &["mistral"]),
            ("mistralai/Ministral-8B-Instruct-2410", &["mistral"]),
            ("mistral:7b", &["mistral"]),
            ("mistral-small3.2:24b", &["mistral"]),
            ("mixtral:8x7b", &["mistral"]),
            ("devstral:24b", &["mistral"]),
            ("magistral:24b", &["mistral"]),
            // Llama.
            ("meta-llama/Llama-3.1-8B-Instruct", &["llama3"]),
            ("meta-llama/Meta-Llama-3.1-70B-Instruct", &["llama3"]),
            (
                "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4",
                &["llama3"],
            ),
            ("meta-llama/Llama-3.3-70B-Instruct", &["llama3"]),
            ("llama3.1:8b", &["llama3"]),
            ("llama3.3:70b", &["llama3"]),
            ("meta-llama/Llama-3.2-11B-Vision-Instruct", &["llama3"]),
            ("llama3.2-vision:11b", &["llama3"]),
            ("meta-llama/Llama-3.2-1B-Instruct", &["llama3", "pythonic"]),
            ("meta-llama/Llama-3.2-3B-Instruct", &["llama3", "pythonic"]),
            ("Llama-3.2-3B-Instruct", &["llama3", "pythonic"]),
            ("Llama-3.2-3B-Instruct-Q4_K_M.gguf", &["llama3", "pythonic"]),
            ("llama3.2:3b", &["llama3", "pythonic"]),
            ("llama3.2:1b", &["llama3", "pythonic"]),
            ("llama3.2", &["llama3", "pythonic"]),
            ("meta-llama/Llama-4-Scout-17B-16E-Instruct", &["pythonic"]),
            (
                "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
                &["pythonic"],
            ),
            ("llama4:scout", &["pythonic"]),
            // Olmo 3, LFM2.
            ("allenai/Olmo-3-7B-Instruct", &["pythonic"]),
            ("allenai/Olmo-3-32B-Think", &["pythonic"]),
            ("LiquidAI/LFM2-1.2B", &["pythonic"]),
            ("LiquidAI/LFM2-8B-A1B", &["pythonic"]),
            // DeepSeek.
            ("deepseek-ai/DeepSeek-V3", &["deepseek_v3"]),
            ("deepseek-ai/DeepSeek-V3-0324", &["deepseek_v3"]),
            ("deepseek-ai/DeepSeek-R1", &["deepseek_v3"]),
            ("deepseek-ai/DeepSeek-R1-0528", &["deepseek_v3"]),
            ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", &["deepseek_v3"]),
            ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", &["deepseek_v3"]),
            ("deepseek-r1:8b", &["deepseek_v3"]),
            ("deepseek-ai/DeepSeek-V3.1", &["deepseek_v31"]),
            ("deepseek-ai/DeepSeek-V3.1-Terminus", &["deepseek_v31"]),
            ("deepseek-v3.1:671b", &["deepseek_v31"]),
            ("deepseek-ai/DeepSeek-V3.2-Exp", &["deepseek_v32"]),
            ("deepseek-ai/DeepSeek-V3.2", &["deepseek_v32"]),
            // DeepSeek V4 writes V3.2's DSML, V4.1 a spaced DSML.
            ("deepseek-ai/DeepSeek-V4", &["deepseek_v32"]),
            ("deepseek-ai/DeepSeek-V4.1", &["deepseek_v41"]),
            // Kimi, gpt-oss, Cohere.
            ("moonshotai/Kimi-K2-Instruct", &["kimi_k2"]),
            ("moonshotai/Kimi-K2-Instruct-0905", &["kimi_k2"]),
            ("moonshotai/Kimi-K2-Thinking", &["kimi_k2"]),
            ("openai/gpt-oss-20b", &["gpt_oss"]),
            ("openai/gpt-oss-120b", &["gpt_oss"]),
            ("gpt-oss:20b", &["gpt_oss"]),
            ("CohereLabs/c4ai-command-r7b-12-2024", &["cohere"]),
            ("CohereLabs/c4ai-command-a-03-2025", &["cohere"]),
            ("command-r7b:7b", &["cohere"]),
            ("command-a:111b", &["cohere"]),
            // Granite.
            ("ibm-granite/granite-3.0-8b-instruct", &["granite"]),
            ("ibm-granite/granite-3.1-8b-instruct", &["granite"]),
            ("ibm-granite/granite-3.3-8b-instruct", &["granite"]),
            ("granite3.3:8b", &["granite"]),
            ("granite3-dense:8b", &["granite"]),
            ("ibm-granite/granite-4.0-h-small", &["hermes"]),
            ("granite-4.0-h-small", &["hermes"]),
            ("ibm-granite/granite-4.0-micro", &["hermes"]),
            ("granite4:micro", &["hermes"]),
            // Jamba, Hunyuan, Phi-4-mini, FireFunction.
            ("ai21labs/AI21-Jamba-Mini-1.7", &["jamba"]),
            ("ai21labs/AI21-Jamba-Large-1.5", &["jamba"]),
            ("tencent/Hunyuan-A13B-Instruct", &["hunyuan_a13b"]),
            ("microsoft/Phi-4-mini-instruct", &["phi4_mini"]),
            ("phi4-mini:3.8b", &["phi4_mini"]),
            ("fireworks-ai/llama-3-firefunction-v2", &["phi4_mini"]),
            ("firefunction-v2:70b", &["phi4_mini"]),
            // The families of section 7b. Sources: vLLM
            // `docs/models/supported_models.md` @ 4b387bcb (S), vLLM's and
            // SGLang's parser tests (named), and ids as written in public
            // client configurations (P: not checked against Hugging Face).
            ("zai-org/GLM-5", &["glm"]), // P (SiliconFlow `Pro/zai-org/GLM-5`)
            ("zai-org/GLM-5.1", &["glm"]), // P; peer-formats 4.2
            ("zai-org/GLM-5.2-FP8", &["glm"]), // P
            ("zai-org/GLM-5.3-Flash", &["glm"]), // P
            ("inclusionai/ling-3.0-flash", &["glm"]), // P (OpenRouter)
            ("poolside/Laguna-XS.2", &["glm"]), // SGLang `configs/laguna.py` docstring
            ("poolside/Laguna-S-2.1-GGUF", &["glm"]), // P
            ("ibm-granite/granite-4.2-8b", &["qwen3_coder"]), // peer-formats 4.3; P
            ("ibm-granite/granite-4.2-3b-GGUF", &["qwen3_coder"]), // P
            ("tencent/Hunyuan-A13B-Instruct-FP8", &["hunyuan_a13b"]), // S
            ("tencent/Hunyuan-7B-Instruct", &["hunyuan_a13b"]), // S
            ("tencent/Hy3", &["hunyuan"]), // P
            ("tencent/hy3-preview", &["hunyuan"]), // P
            ("stepfun-ai/Step-3.5-Flash", &["qwen3_coder"]), // P; peer-formats 4.8
            ("stepfun-ai/Step-3.5-Flash-FP8", &["qwen3_coder"]), // P
            ("stepfun-ai/step3", &["step3"]), // vLLM test_step3_tool_parser.py @ e91dfe12
            ("XiaomiMiMo/MiMo-V2-Flash", &["qwen3_coder"]), // S
            ("XiaomiMiMo/MiMo-7B-RL", &["qwen3_coder"]), // S
            ("arcee-ai/Trinity-Large", &["hermes"]), // peer-formats 4.8
            ("arcee-ai/trinity-mini", &["hermes"]), // P
            ("baidu/ERNIE-4.5-21B-A3B-PT", &["ernie45"]), // S
            ("baidu/ERNIE-4.5-300B-A47B-PT", &["ernie45"]), // S
            ("baidu/ERNIE-4.5-21B-A3B-Thinking", &["ernie45"]), // vLLM test_ernie45_moe_tool_parser.py @ 85cd216e
            ("internlm/internlm2-chat-7b", &["internlm"]),      // S
            ("internlm/internlm2_5-7b-chat", &["internlm"]),    // P
            ("internlm/internlm3-8b-instruct", &["internlm"]),  // S
            ("internlm/Intern-S1", &["internlm"]),              // SGLang `interns1` parser name
            ("ai-sage/GigaChat3-10B-A1.8B", &["gigachat3"]),    // P
            ("ai-sage/GigaChat3.1-10B-A1.8B", &["gigachat3"]),  // P
            (
                "hf.co/ai-sage/GigaChat3-10B-A1.8B-GGUF:Q8_0",
                &["gigachat3"],
            ), // P
            ("ai-sage/GigaChat3.5-432B-A28B", &["gigachat35"]), // P
            ("meituan-longcat/LongCat-Flash-Chat", &["longcat"]), // S
            ("meituan-longcat/LongCat-Flash-Chat-FP8", &["longcat"]), // S
            ("rednote-hilab/dots.llm1.inst", &["dots"]),        // S
            (
                "ibm-granite/granite-20b-functioncalling",
                &["granite_20b_fc"],
            ), // vLLM `granite-20b-fc` parser
            ("K2-Horizon", &["k2_horizon"]), // SGLang `k2_horizon` parser name (no public id found)
            ("IQuest-Q1", &["iquest_q1"]),   // SGLang `iquest_q1` parser name (no public id found)
            ("moonshotai/Kimi-K3", &["kimi_k3"]), // P (`moonshotai/kimi-k3`)
            ("MiniMaxAI/MiniMax-M3", &["minimax_m3"]), // P (`minimaxai/minimax-m3`)
            ("google/gemma-4-31b-it", &["gemma4"]), // P
            ("google/functiongemma-270m-it", &["function_gemma"]), // vLLM `functiongemma` parser (FunctionGemma 270M)
            ("meta/muse-glimmer-30b", &["muse_glimmer"]),          // P
            ("thinkingmachines/inkling-small", &["inkling"]),      // P
            ("openbmb/MiniCPM5-8B", &["minicpm5"]), // vLLM `minicpm5` parser (illustrative size)
            ("swiss-ai/Apertus-8B-Instruct-2509", &["apertus"]), // SGLang `apertus2509` parser
            ("Salesforce/Llama-xLAM-2-8b-fc-r", &["xlam"]), // vLLM `xlam` parser (xLAM-2)
            ("Salesforce/xLAM-2-32b-fc-r", &["xlam"]), // vLLM `xlam` parser (xLAM-2)
            ("meetkai/functionary-small-v3.2", &["functionary_v32"]), // llama.cpp `functionary_v3_2`
            // White space around, any case.
            ("  QWEN/QWEN3-CODER-30B-A3B-INSTRUCT \n", &["qwen3_coder"]),
        ];
        for (id, want) in cases {
            assert_eq!(dialects_for_model(id).as_deref(), Ok(*want), "{id}");
        }
    }

    #[test]
    fn ids_of_no_family() {
        let ids = [
            "",
            "gpt-4o",
            "claude-sonnet-4-5",
            "google/gemma-3-27b-it",
            "meta-llama/Meta-Llama-3-8B-Instruct",
            "microsoft/phi-4",
            "ibm-granite/granite-3b-code-instruct-128k",
            "nvidia/OpenReasoning-Nemotron-32B",
            "deepseek-ai/deepseek-coder-6.7b-instruct",
            "deepseek-ai/DeepSeek-V2.5",
            "THUDM/GLM-4-9B-0414",
            "MiniMaxAI/MiniMax-M1-80k",
            "Qwen/Qwen2-7B-Instruct",
            "tencent/HunyuanVideo",
            "stepfun-ai/Step-Audio-EditX",
            "LLM360/K2-Think-V2",
            "ai-sage/GigaChat-20B-A3B-instruct",
            "allenai/OLMo-2-1124-7B-Instruct",
        ];
        for id in ids {
            let err = dialects_for_model(id).expect_err(id);
            assert!(err.contains("the families are: "), "{id}: {err}");
        }
    }

    #[test]
    fn the_error_lists_every_family_with_its_dialects() {
        let err = dialects_for_model("foo/bar").unwrap_err();
        assert!(
            err.starts_with("no model family matches `foo/bar`"),
            "{err}"
        );
        for (name, dialects) in families() {
            assert!(
                err.contains(&format!("{name} ({})", dialects.join(" + "))),
                "{name} missing from: {err}"
            );
        }
        assert!(err.contains("Llama 3.2 1B / 3B (llama3 + pythonic)"));
    }

    #[test]
    fn every_family_matches_an_id() {
        // One id per family, in table order: a family nothing reaches (an
        // earlier one taking all its ids) fails here.
        let ids = [
            "Hermes-3-Llama-3.1-8B",
            "DeepSeek-R1",
            "DeepSeek-V3.1",
            "DeepSeek-V4.1",
            "DeepSeek-V3.2",
            "Qwen3-Coder-30B-A3B-Instruct",
            "Qwen3.5-27B",
            "Qwen3-8B",
            "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
            "Seed-OSS-36B-Instruct",
            "GLM-4.6",
            "ling-3.0-flash",
            "Laguna-XS.2",
            "Spark-2.5",
            "MiniMax-M2",
            "MiniMax-M3",
            "Devstral-Small-2507",
            "llama-3-firefunction-v2",
            "Llama-xLAM-2-8b-fc-r",
            "Llama-3.2-1B-Instruct",
            "Llama-3.3-70B-Instruct",
            "Llama-4-Scout-17B-16E-Instruct",
            "Olmo-3-7B-Instruct",
            "LFM2-1.2B",
            "Kimi-K2-Instruct",
            "Kimi-K3",
            "gpt-oss-20b",
            "c4ai-command-a-03-2025",
            "granite-20b-functioncalling",
            "granite-3.3-8b-instruct",
            "granite-4.2-8b",
            "granite-4.0-micro",
            "AI21-Jamba-Mini-1.7",
            "Hy3",
            "Hunyuan-A13B-Instruct",
            "Phi-4-mini-instruct",
            "Step-3.5-Flash",
            "step3",
            "MiMo-V2-Flash",
            "Trinity-Large",
            "ERNIE-4.5-21B-A3B-PT",
            "internlm3-8b-instruct",
            "GigaChat3.5-432B-A28B",
            "GigaChat3-10B-A1.8B",
            "LongCat-Flash-Chat",
            "dots.llm1.inst",
            "K2-Horizon",
            "IQuest-Q1",
            "gemma-4-31b-it",
            "functiongemma-270m-it",
            "muse-glimmer-30b",
            "inkling-small",
            "MiniCPM5-8B",
            "Apertus-8B-Instruct-2509",
            "functionary-small-v3.2",
        ];
        assert_eq!(ids.len(), FAMILIES.len());
        for (i, id) in ids.iter().enumerate() {
            let parsed = Id::new(id);
            let first = MATCHES.iter().position(|m| m(&parsed));
            assert_eq!(first, Some(i), "{id} should be {}", FAMILIES[i].0);
        }
    }

    #[test]
    fn every_dialect_is_reached() {
        let table = crate::dialect::BUILTIN;
        let reached: Vec<&str> = families()
            .iter()
            .flat_map(|(_, d)| d.iter().copied())
            .collect();
        for d in table {
            assert!(reached.contains(&d), "{d}");
        }
        for d in reached {
            assert!(table.contains(&d), "{d} is not a built-in dialect");
        }
    }

    #[test]
    fn reasoning_opens_by_family() {
        let open = [
            "deepseek-ai/DeepSeek-R1", // S
            "deepseek-ai/DeepSeek-R1-0528",
            "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
            "deepseek-r1:8b",
            "Qwen/Qwen3-235B-A22B-Thinking-2507",
            "Qwen/Qwen3-30B-A3B-Thinking-2507-FP8",
            "allenai/Olmo-3-32B-Think",         // S
            "stepfun-ai/step3",                 // vLLM step3 test
            "baidu/ERNIE-4.5-21B-A3B-Thinking", // vLLM ernie45 test
            "inclusionai/ling-3.0-flash",
            "MiniMaxAI/MiniMax-M2",
            "MiniMaxAI/MiniMax-M2.1",
            "ai-sage/GigaChat3.5-432B-A28B",
            "tencent/HY-v4",
        ];
        for id in open {
            assert!(reasoning_opens(id), "{id}");
        }
        let closed = [
            "deepseek-ai/DeepSeek-V3.1",
            "Qwen/Qwen3-235B-A22B-Instruct-2507",
            "Qwen/Qwen3-8B",
            "allenai/Olmo-3-7B-Instruct",
            "stepfun-ai/Step-3.5-Flash",
            "baidu/ERNIE-4.5-21B-A3B-PT",
            "ai-sage/GigaChat3-10B-A1.8B",
            "tencent/Hy3",
            "gpt-4o",
        ];
        for id in closed {
            assert!(!reasoning_opens(id), "{id}");
        }
        assert_eq!(reasoning_open_families().len(), REASONING_OPEN.len());
    }
}
