//! The module around the entry point: enables, the immediate block, bindings, threadgroup
//! memory, and one accessor per parameter that masks at its bounds (and does the atomic or
//! byte access the parameter's plan asks for).

use std::fmt::Write;

use super::Printer;
use super::names::ty;
use crate::ir::DType;
use std::collections::BTreeSet;

use super::Accessor;
use crate::lir::{Lowered, ParamAccess, ParamIx, TileStorage};

const ERF: &str = "// erf by Abramowitz & Stegun 7.1.26 (max error 1.5e-7).
fn tc_erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.3275911 * abs(x));
    let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-x * x);
    return select(-y, y, x >= 0.0);
}
";

/// Four fp8 codes of one word to f32, two per f16 unpack (see `E4M3`).
const FP8X4: &str = "// Four e4m3 codes (one word) to f32, exactly: each code's bits placed in an f16 (two per
// unpack), times 2^8; codes 0x7f and 0xff are NaN.
fn tc_e4m3x4(w: u32) -> vec4<f32> {
    let m = w & 0x7f7f7f7fu;
    let s = w & 0x80808080u;
    let lo = ((m & 0x7fu) << 7u) | ((m & 0x7f00u) << 15u) | ((s & 0x80u) << 8u) | ((s & 0x8000u) << 16u);
    let hi = ((m & 0x7f0000u) >> 9u) | ((m & 0x7f000000u) >> 1u) | ((s & 0x800000u) >> 8u) | (s & 0x80000000u);
    let v = vec4<f32>(unpack2x16float(lo), unpack2x16float(hi)) * 256.0;
    let nan = vec4<bool>((m & 0x7fu) == 0x7fu, (m & 0x7f00u) == 0x7f00u, (m & 0x7f0000u) == 0x7f0000u, (m & 0x7f000000u) == 0x7f000000u);
    return select(v, vec4<f32>(bitcast<f32>(0x7fc00000u)), nan);
}
// Four e5m2 codes (one word) to f32: each code is the top byte of an f16.
fn tc_e5m2x4(w: u32) -> vec4<f32> {
    let lo = ((w & 0xffu) << 8u) | ((w & 0xff00u) << 16u);
    let hi = ((w & 0xff0000u) >> 8u) | (w & 0xff000000u);
    return vec4<f32>(unpack2x16float(lo), unpack2x16float(hi));
}
";

const E4M3: &str =
    "// fp8 e4m3 (OCP, finite-only: 0x7f and 0xff are NaN) to f32, exactly: the code's
// exponent and mantissa bits, placed in an f16 whose exponent bias is 8 larger, times 2^8
// (subnormal codes land on f16 subnormals, which scale the same way).
fn tc_e4m3(b: u32) -> f32 {
    let v = unpack2x16float(((b & 0x7fu) << 7u) | ((b & 0x80u) << 8u)).x * 256.0;
    return select(v, bitcast<f32>(0x7fc00000u), (b & 0x7fu) == 0x7fu);
}
";

/// A u8 element's bits: the value's low 8 bits (stores wrap, as a C cast to uint8_t does).
const TO_U8: &str = "fn tc_to_u8(v: u32) -> u32 { return v & 0xffu; }\n";
/// An i8 element's bits: the value's low 8 bits, two's complement.
const TO_I8: &str = "fn tc_to_i8(v: i32) -> u32 { return bitcast<u32>(v) & 0xffu; }\n";

const TO_BF16: &str = "// f32 to bf16 bits, nearest even; NaN to 0x7fc0 (as torch rounds).
fn tc_to_bf16(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    if ((b & 0x7fffffffu) > 0x7f800000u) { return 0x7fc0u; }
    return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}
";

/// f32 to fp8, bit for bit as torch's `to(float8_e4m3fn)` / `to(float8_e5m2)` round: nearest
/// even; e4m3 (no infinity) gives NaN above 464 (the midpoint to the next step; 464 ties to 448), e5m2
/// infinity from 61440 up.
const TO_FP8: &str = "// f32 to fp8 e4m3 bits without branches (integer issue bounds this cast otherwise): normals
// round to nearest even on the f32 bits, the exponent rebased from 127 to 7; below 2^-6,
// adding 2^14 rounds to a multiple of 2^-9 in the f32 adder (nearest even: torch's method);
// 480 and up, infinities and NaN give NaN (0x7f).
fn tc_to_e4m3(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let a = b & 0x7fffffffu;
    let n = (a + ((a >> 20u) & 1u) - 0x3bf80001u) >> 20u;
    let d = bitcast<u32>(bitcast<f32>(a) + 16384.0) - 0x46800000u;
    let r = select(select(n, d, a < 0x3c800000u), 0x7fu, a >= 0x43f00000u);
    return r | ((b >> 24u) & 0x80u);
}
// f32 to fp8 e5m2 bits the same way (bias 15; below 2^-14 adding 2^7 rounds to multiples of
// 2^-16); 2^16 and up give infinity (0x7c), NaN 0x7f.
fn tc_to_e5m2(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let a = b & 0x7fffffffu;
    let n = (a + ((a >> 21u) & 1u) - 0x37f00001u) >> 21u;
    let d = bitcast<u32>(bitcast<f32>(a) + 128.0) - 0x43000000u;
    let r = select(select(n, d, a < 0x38800000u), select(0x7cu, 0x7fu, a > 0x7f800000u), a >= 0x47800000u);
    return r | ((b >> 24u) & 0x80u);
}
";

/// Word `idx` of a packed parameter: written ones are arrays of atomic words.
fn word(name: &str, idx: &str, atomic: bool) -> String {
    if atomic { format!("atomicLoad(&{name}[{idx}])") } else { format!("{name}[{idx}]") }
}

/// Bits per element and the encoder of a packed float type written from f32.
fn encoder(d: DType) -> (u32, &'static str) {
    match d {
        DType::BF16 => (16, "tc_to_bf16"),
        DType::U8 => (8, "tc_to_u8"),
        DType::I8 => (8, "tc_to_i8"),
        DType::F8E4M3 => (8, "tc_to_e4m3"),
        _ => (8, "tc_to_e5m2"),
    }
}

/// A store of `v` to element `lin` of a written packed parameter. Neighbours in the same word
/// may belong to other threads, so the element is merged into its word with two atomics: one
/// clears its bits, one sets them (each touches only this element's bits, so concurrent
/// merges of other elements of the word commute with it).
fn packed_write(name: &str, lin: &str, d: DType) -> String {
    let (bits, enc) = encoder(d);
    let per = 32 / bits;
    let mask = if bits == 16 { "0xffffu" } else { "0xffu" };
    format!(
        "let w = &{name}[({lin}) / {per}u]; let sh = (({lin}) % {per}u) * {bits}u; \
         atomicAnd(w, ~({mask} << sh)); atomicOr(w, {enc}(v) << sh);"
    )
}

/// A run of four elements from `lin` (a multiple of 4, the run inside the parameter) stored
/// as whole words: one for fp8, two for bf16.
fn packed_write4(name: &str, lin: &str, d: DType) -> String {
    let (bits, enc) = encoder(d);
    if bits == 16 {
        format!(
            "atomicStore(&{name}[({lin}) / 2u], {enc}(v.x) | ({enc}(v.y) << 16u));\n    \
             atomicStore(&{name}[({lin}) / 2u + 1u], {enc}(v.z) | ({enc}(v.w) << 16u));"
        )
    } else {
        format!(
            "atomicStore(&{name}[({lin}) / 4u], {enc}(v.x) | ({enc}(v.y) << 8u) | ({enc}(v.z) << 16u) | ({enc}(v.w) << 24u));"
        )
    }
}

/// A load of element `lin` of a packed parameter, widened to 32 bits (`atomic`: the parameter
/// is also written, so its words are atomics).
fn packed_read(name: &str, lin: &str, d: DType, atomic: bool) -> String {
    let byte = |w: &str| format!("extractBits({w}, (({lin}) % 4u) * 8u, 8u)");
    let word4 = word(name, &format!("({lin}) / 4u"), atomic);
    match d {
        DType::I8 => format!("extractBits(bitcast<i32>({word4}), (({lin}) % 4u) * 8u, 8u)"),
        // bf16 is the top half of an f32.
        DType::BF16 => format!(
            "bitcast<f32>(extractBits({}, (({lin}) % 2u) * 16u, 16u) << 16u)",
            word(name, &format!("({lin}) / 2u"), atomic)
        ),
        // e5m2 is the top byte of an f16.
        DType::F8E5M2 => format!("unpack2x16float({} << 8u).x", byte(&word4)),
        DType::F8E4M3 => format!("tc_e4m3({})", byte(&word4)),
        _ => byte(&word4),
    }
}

/// The whole module, with `body` as the entry point's body.
pub(crate) fn module(l: &Lowered, body: &str, used: &BTreeSet<Accessor>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// tilecast kernel {:?}: {} threads per threadgroup", l.name, l.threads);
    if l.features.f16 {
        out.push_str("enable f16;\n");
    }
    if l.features.matrix {
        out.push_str("enable wgpu_cooperative_matrix;\n");
    }
    out.push('\n');
    if !l.symbols.is_empty() || !l.scalars.is_empty() {
        out.push_str("struct Args {\n");
        for s in &l.symbols {
            let _ = writeln!(out, "    {}: u32,", s.ident);
        }
        for s in &l.scalars {
            let _ = writeln!(out, "    {}: {},", s.named.ident, ty(s.dtype));
        }
        out.push_str("}\nvar<immediate> args: Args;\n\n");
    }
    for (i, p) in l.params.iter().enumerate() {
        let access = if p.written { "read_write" } else { "read" };
        let elem = match p.access {
            ParamAccess::Plain => ty(p.dtype).to_string(),
            ParamAccess::Atomic => format!("atomic<{}>", ty(p.dtype)),
            // Written packed parameters are merged into word by word (`packed_write`).
            ParamAccess::Packed(_) if p.written => "atomic<u32>".to_string(),
            // Tensor parameters never reach WGSL (the native back end's pass makes them);
            // their narrow types would be packed words here.
            ParamAccess::Packed(_) | ParamAccess::Tensor => "u32".to_string(),
        };
        let _ = writeln!(
            out,
            "@group(0) @binding({i}) var<storage, {access}> {}: array<{elem}>;",
            p.named.ident
        );
    }
    for &(binding, p) in &l.vector_views {
        let prm = &l.params[p];
        // The view's access matches the parameter's binding: a buffer may not be read-only in
        // one binding and writable in another of the same dispatch.
        let access = if prm.written { "read_write" } else { "read" };
        // Four bf16 are two u32 words (bf16 views are read-only: see `passes::lower`'s vectors).
        let elem = match prm.dtype {
            DType::BF16 => "vec2<u32>".to_string(),
            // Four words of packed bytes.
            DType::U8 | DType::I8 => "vec4<u32>".to_string(),
            d => format!("vec4<{}>", ty(d)),
        };
        let _ = writeln!(
            out,
            "@group(0) @binding({binding}) var<storage, {access}> v_{}: array<{elem}>;",
            prm.named.ident
        );
    }
    for t in &l.tiles {
        if t.storage == TileStorage::Workgroup {
            let _ = writeln!(
                out,
                "var<workgroup> {}: array<{}, {}>;",
                t.named.ident,
                ty(t.dtype),
                t.stored_elements() * t.stages as u64
            );
        }
    }
    out.push('\n');
    accessors(l, &mut out, used);
    if l.features.erf {
        out.push_str(ERF);
    }
    if l.params.iter().any(|p| p.access == ParamAccess::Packed(DType::F8E4M3)) {
        out.push_str(E4M3);
    }
    if l.params
        .iter()
        .any(|p| matches!(p.access, ParamAccess::Packed(DType::F8E4M3 | DType::F8E5M2)))
    {
        out.push_str(FP8X4);
    }
    if l.params.iter().any(|p| p.written && p.access == ParamAccess::Packed(DType::BF16)) {
        out.push_str(TO_BF16);
    }
    if l.params.iter().any(|p| {
        p.written && matches!(p.access, ParamAccess::Packed(DType::F8E4M3 | DType::F8E5M2))
    }) {
        out.push_str(TO_FP8);
    }
    if l.params.iter().any(|p| p.written && p.access == ParamAccess::Packed(DType::U8)) {
        out.push_str(TO_U8);
    }
    if l.params.iter().any(|p| p.written && p.access == ParamAccess::Packed(DType::I8)) {
        out.push_str(TO_I8);
    }
    let mut builtins =
        "@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>"
            .to_string();
    if l.features.subgroups {
        builtins.push_str(", @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32");
    }
    let _ =
        writeln!(out, "\n@compute @workgroup_size({})\nfn {}({builtins}) {{", l.threads, l.entry);
    out.push_str(body);
    out.push_str("}\n");
    out
}

/// `ld_P`, `ldv_P`, `st_P` and `add_P` for each parameter, each masked at its bounds, and the
/// variants the body calls that test fewer axes (`used`: `ldu_P` / `stu_P` test none, e.g.
/// `ldk0_P` only axis 0).
fn accessors(l: &Lowered, out: &mut String, used: &BTreeSet<Accessor>) {
    let mut scratch = Printer::new(l, 0);
    for (pi, p) in l.params.iter().enumerate() {
        let pi = ParamIx(pi);
        let name = &p.named.ident;
        let vty = ty(p.dtype);
        let dims: Vec<String> = p.shape.iter().map(|d| scratch.expr(d)).collect();
        let idx: Vec<String> = (0..dims.len()).map(|d| format!("i{d}: u32")).collect();
        let tests: Vec<String> =
            dims.iter().enumerate().map(|(d, n)| format!("i{d} < {n}")).collect();
        let (idx, inb) = (idx.join(", "), tests.join(" && "));
        let mut lin = String::new();
        for (d, n) in dims.iter().enumerate() {
            lin = if d == 0 { "i0".into() } else { format!("({lin}) * {n} + i{d}") };
        }
        let read = match p.access {
            ParamAccess::Plain => format!("{name}[{lin}]"),
            ParamAccess::Atomic => format!("atomicLoad(&{name}[{lin}])"),
            ParamAccess::Packed(d) => packed_read(name, &lin, d, p.written),
            ParamAccess::Tensor => packed_read(name, &lin, p.dtype, p.written),
        };
        let _ = writeln!(
            out,
            "fn ld_{name}({idx}) -> {vty} {{\n    if ({inb}) {{ return {read}; }}\n    return {vty}(0);\n}}"
        );
        // Fewer tests: only where a pass proved the other coordinates inside (the bounds
        // proofs, `CopyPlan::interior`).
        let variants =
            used.iter().filter(|a| !a.word && a.param == pi && a.tests.iter().any(|t| !*t));
        for a in variants.clone().filter(|a| !a.store) {
            let f = a.prefix();
            match kept_tests(&tests, &a.tests) {
                None => {
                    let _ =
                        writeln!(out, "fn {f}_{name}({idx}) -> {vty} {{\n    return {read};\n}}");
                }
                Some(c) => {
                    let _ = writeln!(
                        out,
                        "fn {f}_{name}({idx}) -> {vty} {{\n    if ({c}) {{ return {read}; }}\n    return {vty}(0);\n}}"
                    );
                }
            }
        }
        if used.iter().any(|a| a.word && a.param == pi && a.tests == [false]) {
            // Proven inside by range analysis: the plain read.
            let w = word(name, "i", p.written);
            let _ = writeln!(out, "fn wdu_{name}(i: u32) -> u32 {{\n    return {w};\n}}");
        }
        if used.iter().any(|a| a.word && a.param == pi && a.tests != [false]) {
            // The parameter's bytes, `n`; its last word may hold fewer than four of them.
            let n = dims.iter().map(|d| format!("({d})")).collect::<Vec<_>>().join(" * ");
            let constant: Option<u64> = p.shape.iter().try_fold(1u64, |acc, d| match d.kind {
                crate::lir::TKind::Lit(v) => Some(acc * v as u64),
                _ => None,
            });
            match constant {
                // Whole words: the read is clamped inside and zeroed past the end, no branch.
                Some(bytes) if bytes % 4 == 0 && bytes > 0 => {
                    let last = bytes / 4 - 1;
                    let w = word(name, &format!("min(i, {last}u)"), p.written);
                    let _ = writeln!(
                        out,
                        "fn wd_{name}(i: u32) -> u32 {{\n    return select(0u, {w}, i <= {last}u);\n}}"
                    );
                }
                _ => {
                    let w = word(name, "i", p.written);
                    let _ = writeln!(
                        out,
                        "fn wd_{name}(i: u32) -> u32 {{\n    let n = {n};\n    if (i >= (n + 3u) / 4u) {{ return 0u; }}\n    let w = {w};\n    if (n - i * 4u >= 4u) {{ return w; }}\n    return w & ((1u << ((n - i * 4u) * 8u)) - 1u);\n}}"
                    );
                }
            }
        }
        if let ParamAccess::Packed(d @ (DType::F8E4M3 | DType::F8E5M2)) = p.access {
            // Four fp8 elements from one word; callers guarantee the last index and the row
            // length are multiples of 4, so the word lies wholly inside the row or outside it.
            let v = match d {
                DType::F8E4M3 => "tc_e4m3x4(w)",
                _ => "tc_e5m2x4(w)",
            };
            let w = word(name, &format!("({lin}) / 4u"), p.written);
            let _ = writeln!(
                out,
                "fn ldv_{name}({idx}) -> vec4<f32> {{\n    if ({inb}) {{ let w = {w}; return {v}; }}\n    return vec4<f32>(0);\n}}"
            );
            let _ = writeln!(
                out,
                "fn ldvu_{name}({idx}) -> vec4<f32> {{\n    let w = {w};\n    return {v};\n}}"
            );
        }
        if let (ParamAccess::Packed(d @ (DType::BF16 | DType::F8E4M3 | DType::F8E5M2)), true) =
            (p.access, p.written)
        {
            // Unmasked runs of 4 (fragment saves whose window lies inside and is aligned).
            let body = packed_write4(name, &lin, d);
            let _ = writeln!(out, "fn stvu_{name}({idx}, v: vec4<f32>) {{\n    {body}\n}}");
        }
        if p.vector_view.is_some() && p.dtype == DType::BF16 {
            // Four bf16 from two words, each the top half of an f32 (element 0 in the low half).
            let v = "vec4<f32>(bitcast<f32>(w.x << 16u), bitcast<f32>(w.x & 0xffff0000u), \
                     bitcast<f32>(w.y << 16u), bitcast<f32>(w.y & 0xffff0000u))";
            let _ = writeln!(
                out,
                "fn ldv_{name}({idx}) -> vec4<f32> {{\n    if ({inb}) {{ let w = v_{name}[({lin}) / 4u]; return {v}; }}\n    return vec4<f32>(0);\n}}"
            );
            let _ = writeln!(
                out,
                "fn ldvu_{name}({idx}) -> vec4<f32> {{\n    let w = v_{name}[({lin}) / 4u];\n    return {v};\n}}"
            );
        } else if p.vector_view.is_some() && !matches!(p.dtype, DType::U8 | DType::I8) {
            // (u8 and i8 views are read inline, as runs of words: `TKind::WordLane`.)
            // Callers guarantee the last index and the row length are multiples of 4, so a
            // vector lies wholly inside the row or wholly outside it.
            let _ = writeln!(
                out,
                "fn ldv_{name}({idx}) -> vec4<{vty}> {{\n    if ({inb}) {{ return v_{name}[({lin}) / 4u]; }}\n    return vec4<{vty}>(0);\n}}"
            );
            // Unmasked: only for windows tested to lie inside the parameter (`CopyPlan::interior`).
            let _ = writeln!(
                out,
                "fn ldvu_{name}({idx}) -> vec4<{vty}> {{\n    return v_{name}[({lin}) / 4u];\n}}"
            );
            if p.written {
                // Unmasked, as `ldvu`: fragment saves whose window lies inside.
                let _ = writeln!(
                    out,
                    "fn stvu_{name}({idx}, v: vec4<{vty}>) {{\n    v_{name}[({lin}) / 4u] = v;\n}}"
                );
            }
        }
        if p.written {
            let write = match p.access {
                ParamAccess::Atomic => format!("atomicStore(&{name}[{lin}], v);"),
                ParamAccess::Packed(d) => packed_write(name, &lin, d),
                _ => format!("{name}[{lin}] = v;"),
            };
            let _ =
                writeln!(out, "fn st_{name}({idx}, v: {vty}) {{\n    if ({inb}) {{ {write} }}\n}}");
            for a in variants.clone().filter(|a| a.store) {
                let f = a.prefix();
                let body = match kept_tests(&tests, &a.tests) {
                    None => write.clone(),
                    Some(c) => format!("if ({c}) {{ {write} }}"),
                };
                let _ = writeln!(out, "fn {f}_{name}({idx}, v: {vty}) {{\n    {body}\n}}");
            }
        }
        if p.access == ParamAccess::Atomic {
            let _ = writeln!(
                out,
                "fn add_{name}({idx}, v: {vty}) {{\n    if ({inb}) {{ atomicAdd(&{name}[{lin}], v); }}\n}}"
            );
        }
    }
}

/// The tests of the axes `keep` marks, joined; `None` when none is kept.
fn kept_tests(tests: &[String], keep: &[bool]) -> Option<String> {
    let kept: Vec<&str> =
        tests.iter().zip(keep).filter(|(_, k)| **k).map(|(t, _)| t.as_str()).collect();
    (!kept.is_empty()).then(|| kept.join(" && "))
}
