//! A problem's options beyond its dimensions (the attention family's head counts, query rows,
//! pages and mask; quantized weights' format; rope's table length and position offset), as
//! written after a shape and as the registry carries them.

use std::fmt;

/// Options of a problem beyond its dimensions, written after the shape as `,name=value` or
/// `,name` (`4x32x4096x4096x128,kv=8,causal`); an entry names the ones it takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// Key/value heads (`kv=N`; default: as many as query heads).
    pub kv_heads: Option<usize>,
    /// Query rows per head (`rows=N`, decode; default 1).
    pub rows: Option<usize>,
    /// Tokens per page of a paged cache (`page=N`; default 16).
    pub page: Option<usize>,
    /// Pages in a paged cache's pool (`pages=N`; default: each sequence's own).
    pub pages: Option<usize>,
    /// A causal mask (`causal`).
    pub causal: bool,
    /// Quantized weights' format (`q4_0`, `q8_0`, `q4_k`, `mlx4`, `mlx8`; a flag).
    pub format: Option<crate::qlinear::WeightFormat>,
    /// Values per group of MLX weights (`group=N`; default 64).
    pub group: Option<usize>,
    /// Rows (positions) of rope's Cos/Sin tables (`positions=N`; default `offset + S`).
    pub positions: Option<usize>,
    /// Rope's position of the first token (`offset=N`, 0 allowed; default 0): the value of
    /// its `offset` scalar, which a caller may still give per launch.
    pub offset: Option<usize>,
    /// Each sequence's first position read from a u32 input `Start[B]` instead of the `offset`
    /// scalar (`starts`; rope and the paged cache write): what varies per step lives in memory,
    /// so a captured step replays at any position, and sequences may stand at different ones.
    pub starts: bool,
}

impl Options {
    /// Every option name, in the order they are written.
    pub const NAMES: [&'static str; 10] = [
        "kv",
        "rows",
        "page",
        "pages",
        "causal",
        "format",
        "group",
        "positions",
        "offset",
        "starts",
    ];

    /// Sets option `name` from its text (`value` is `None` for a flag).
    pub fn set(&mut self, name: &str, value: Option<&str>) -> std::result::Result<(), String> {
        let number = |v: Option<&str>| -> std::result::Result<usize, String> {
            let v = v.ok_or_else(|| format!("option {name} needs a value ({name}=N)"))?;
            match v.parse::<usize>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!("option {name}={v}: expected a positive integer")),
            }
        };
        match name {
            "kv" => self.kv_heads = Some(number(value)?),
            "rows" => self.rows = Some(number(value)?),
            "page" => self.page = Some(number(value)?),
            "pages" => self.pages = Some(number(value)?),
            "causal" if value.is_none() => self.causal = true,
            "causal" => return Err("option causal takes no value".into()),
            "starts" if value.is_none() => self.starts = true,
            "starts" => return Err("option starts takes no value".into()),
            "group" => self.group = Some(number(value)?),
            "positions" => self.positions = Some(number(value)?),
            "offset" => {
                let v = value.ok_or("option offset needs a value (offset=N)")?;
                let n = v
                    .parse::<usize>()
                    .map_err(|_| format!("option offset={v}: expected a non-negative integer"))?;
                self.offset = Some(n)
            }
            f if crate::qlinear::WeightFormat::parse(f).is_some() && value.is_none() => {
                self.format = crate::qlinear::WeightFormat::parse(f)
            }
            "format" => {
                let v = value.ok_or("option format needs a value (format=q4_0)")?;
                self.format = Some(crate::qlinear::WeightFormat::parse(v).ok_or_else(|| {
                    format!("unknown format {v:?}; use q4_0, q8_0, q4_k, mlx4 or mlx8")
                })?)
            }
            other => return Err(format!("unknown option {other:?}")),
        }
        Ok(())
    }
}

impl fmt::Display for Options {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(f) = self.format {
            write!(out, ",{f}")?;
        }
        for (name, v) in [
            ("kv", self.kv_heads),
            ("rows", self.rows),
            ("page", self.page),
            ("pages", self.pages),
            ("group", self.group),
            ("positions", self.positions),
            ("offset", self.offset),
        ] {
            if let Some(v) = v {
                write!(out, ",{name}={v}")?;
            }
        }
        if self.causal {
            out.write_str(",causal")?;
        }
        if self.starts {
            out.write_str(",starts")?;
        }
        Ok(())
    }
}
