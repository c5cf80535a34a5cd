//! Typing: every expression becomes a [`TExpr`] whose type is decided here, once. Literals take
//! the type their context wants; literal-only subexpressions are folded, and must fit their type
//! (so the WGSL compiler never sees a constant overflow or a division by zero).

use crate::fold::{self, u32_value};
use crate::ir::{BinOp, DType, Expr, Kernel};
use crate::lir::{Bounds, ETy, TExpr, TKind, TileElem, TileIx};
use crate::ranges::{Scope, max_value, multiple_of};
use crate::types::{Ty, type_of};

/// Context the typing pass needs beyond the kernel.
pub(crate) struct Typer<'a> {
    pub(crate) k: &'a Kernel,
    /// Symbols in immediate order.
    pub(crate) symbols: &'a [String],
    /// Non-symbol scalars: kernel scalar index -> lowered index.
    pub(crate) scalars: &'a [Option<usize>],
    /// Parallel variables in scope with their extents.
    pub(crate) extents: Vec<(crate::ir::Var, u32)>,
    /// Serial loop counters in scope whose extent is a constant, with that extent.
    pub(crate) loops: Vec<(crate::ir::Var, u32)>,
}

pub(crate) fn ety(t: Ty) -> ETy {
    match t.settle() {
        Ty::Num(d) => ETy::Num(d),
        _ => ETy::Bool,
    }
}

fn lit_of(e: &TExpr) -> Option<f64> {
    match e.kind {
        TKind::Lit(v) => Some(v),
        _ => None,
    }
}

/// Whether a u32 expression is provably below 2^23: a field masked by a constant below it,
/// or a word shifted right by at least 9 (a packed level, `w.bits(..)`).
fn below_2_23(e: &Expr) -> bool {
    match e {
        Expr::Bin(BinOp::BitAnd, a, b) => {
            matches!(**b, Expr::Int(m) if (0..1 << 23).contains(&m))
                || matches!(**a, Expr::Int(m) if (0..1 << 23).contains(&m))
        }
        Expr::Bin(BinOp::Shr, _, b) => matches!(**b, Expr::Int(s) if (9..32).contains(&s)),
        _ => false,
    }
}

/// Whether an i32 expression provably has magnitude below 2^22: an arithmetic shift right by
/// at least 10 (a packed signed level, `w.signed_bits(..)`).
fn within_2_22(e: &Expr) -> bool {
    matches!(e, Expr::Bin(BinOp::Shr, _, b) if matches!(**b, Expr::Int(s) if (10..32).contains(&s)))
}

impl Typer<'_> {
    /// `f32(x)` for a u32 `x` below 2^23, as `bitcast<f32>(x | 0x4b000000) - 2^23`: `x` is then
    /// the mantissa of 2^23 + x, exactly. An integer conversion runs at a quarter of the
    /// fused multiply-add rate or less on NVIDIA GPUs; an or and a subtraction run at full
    /// rate, and a quantized kernel converts every weight it reads.
    /// An i32 of magnitude below 2^22 likewise, as `bitcast<f32>(x + 0x4b400000) - 1.5 * 2^23`.
    fn small_to_f32(&self, x: TExpr, magic: u32, bias: f64) -> Result<TExpr, String> {
        let u = x.ty;
        let f = ETy::Num(DType::F32);
        let op = if u == ETy::Num(DType::I32) { BinOp::Add } else { BinOp::BitOr };
        let magic = self.lit(f64::from(magic), u)?;
        let or = TExpr { ty: u, kind: TKind::Bin(op, Box::new(x), Box::new(magic)) };
        let bits = TExpr { ty: f, kind: TKind::Bitcast(Box::new(or)) };
        let bias = self.lit(bias, f)?;
        Ok(TExpr { ty: f, kind: TKind::Bin(BinOp::Sub, Box::new(bits), Box::new(bias)) })
    }

    /// A constant node, folded here so the WGSL compiler's own constant evaluation never sees
    /// an overflow: the value must fit `t`.
    fn folded(&self, v: Option<f64>, t: ETy, what: &str) -> Result<TExpr, String> {
        match v {
            Some(v) => self.lit(v, t),
            None => Err(format!("the constant expression {what} has no value")),
        }
    }

    /// A constant of type `t`, or why it cannot be one.
    fn lit(&self, v: f64, t: ETy) -> Result<TExpr, String> {
        let ok = match t {
            ETy::Num(DType::U32) => v >= 0.0 && v <= u32::MAX as f64 && v.fract() == 0.0,
            ETy::Num(DType::I32) => {
                v >= i32::MIN as f64 && v <= i32::MAX as f64 && v.fract() == 0.0
            }
            ETy::Num(DType::F32) => v.is_infinite() || v.abs() <= f32::MAX as f64,
            ETy::Num(DType::F16) => v.is_infinite() || v.abs() <= 65504.0,
            // A comparison folded to a constant (a bound test on a fixed shape).
            ETy::Bool => v == 0.0 || v == 1.0,
            _ => false,
        };
        if v.is_nan() {
            return Err("a constant expression evaluates to NaN".into());
        }
        if !ok {
            let name = match t {
                ETy::Num(d) => d.to_string(),
                ETy::Bool => "bool".into(),
            };
            return Err(format!("{v} does not fit {name}"));
        }
        Ok(TExpr { ty: t, kind: TKind::Lit(v) })
    }

    /// Types `e`, giving literals the type `want`.
    pub(crate) fn expr(&self, e: &Expr, want: ETy) -> Result<TExpr, String> {
        let k = self.k;
        let own = type_of(k, e)?;
        let t = if matches!(own, Ty::IntLit | Ty::FloatLit) { want } else { ety(own) };
        if own == Ty::IntLit
            && let Some(i) = fold::int(e)
        {
            // Integer semantics (truncating division) for integer-only expressions.
            return self.lit(i as f64, t);
        }
        if matches!(own, Ty::IntLit | Ty::FloatLit)
            && let Some(v) = fold::literal(e)
        {
            return self.lit(v, t);
        }
        let boxed = |x: TExpr| Box::new(x);
        let kind = match e {
            Expr::Int(v) => return self.lit(*v as f64, t),
            Expr::Float(v) => return self.lit(*v, t),
            Expr::Sym(s) => TKind::Sym(
                self.symbols
                    .iter()
                    .position(|x| x == s)
                    .ok_or_else(|| format!("symbol {s} has no argument"))?,
            ),
            Expr::Scalar(a) => TKind::Scalar(self.scalars[a.0].ok_or("a u32 scalar is a symbol")?),
            Expr::Var(v) => TKind::Var(*v),
            // The verifier made the let's type the one its uses need.
            Expr::Local(id) => {
                let name = crate::ir::visit::let_def(k, *id).map_or("", |(n, _)| n);
                TKind::Local(id.0, name.to_string())
            }
            // `f32(small) - c`: the constant joins the conversion's own subtraction.
            Expr::Bin(BinOp::Sub, a, b)
                if t == ETy::Num(DType::F32)
                    && matches!(&**b, Expr::Float(_) | Expr::Int(_))
                    && matches!(&**a, Expr::Cast(DType::F32, x)
                        if type_of(k, x)? == Ty::Num(DType::U32) && below_2_23(x)) =>
            {
                let (Expr::Cast(_, x), Some(c)) = (&**a, fold::literal(b)) else {
                    return Err("a folded conversion lost its operands".into());
                };
                let u = self.expr(x, ETy::Num(DType::U32))?;
                // 2^23 + x - (2^23 + c) is x - c exactly while 2^23 + c is (|c| < 2^23).
                if c.fract() == 0.0 && c.abs() < 8_388_608.0 {
                    return self.small_to_f32(u, 0x4b00_0000, 8_388_608.0 + c);
                }
                let f = self.small_to_f32(u, 0x4b00_0000, 8_388_608.0)?;
                let c = self.lit(c, t)?;
                TKind::Bin(BinOp::Sub, boxed(f), boxed(c))
            }
            Expr::Bin(op, a, b) => {
                let (ta, tb) = (type_of(k, a)?, type_of(k, b)?);
                let cmp = matches!(
                    op,
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
                );
                let lit = |x: Ty| matches!(x, Ty::IntLit | Ty::FloatLit);
                let operand = match (ta, tb) {
                    // Two u32 words in, an i32 out.
                    _ if *op == BinOp::Dot4I8 => ETy::Num(DType::U32),
                    _ if matches!(op, BinOp::Shl | BinOp::Shr) => {
                        let lhs = if lit(ta) { t } else { ety(ta) };
                        let x = self.expr(a, lhs)?;
                        let y = self.expr(b, ETy::Num(DType::U32))?;
                        if let (Some(u), Some(v)) = (lit_of(&x), lit_of(&y)) {
                            return self.folded(fold::binary(*op, u, v, true), t, &k.expr_text(e));
                        }
                        if let Some(v) = lit_of(&y)
                            && v >= 32.0
                        {
                            return Err(format!(
                                "{} shifts by {v}, past the 32-bit width",
                                k.expr_text(e)
                            ));
                        }
                        return Ok(TExpr { ty: t, kind: TKind::Bin(*op, boxed(x), boxed(y)) });
                    }
                    (x, y) if lit(x) && lit(y) => {
                        if cmp {
                            ety(if x == Ty::FloatLit || y == Ty::FloatLit {
                                Ty::FloatLit
                            } else {
                                Ty::IntLit
                            })
                        } else {
                            t
                        }
                    }
                    (x, y) if lit(x) => ety(y),
                    (x, _) => ety(x),
                };
                let (x, y) = (self.expr(a, operand)?, self.expr(b, operand)?);
                if let (Some(u), Some(v)) = (lit_of(&x), lit_of(&y)) {
                    let int = matches!(x.ty, ETy::Num(DType::U32 | DType::I32));
                    return self.folded(fold::binary(*op, u, v, int), t, &k.expr_text(e));
                }
                TKind::Bin(*op, boxed(x), boxed(y))
            }
            Expr::Math(f, a) => {
                let x = self.expr(a, t)?;
                if let Some(r) = lit_of(&x).and_then(|v| fold::math(*f, v)) {
                    return self.lit(r, t);
                }
                TKind::Math(*f, boxed(x))
            }
            Expr::Fma(a, b, c) => {
                let (x, y, z) = (self.expr(a, t)?, self.expr(b, t)?, self.expr(c, t)?);
                if let (Some(u), Some(v), Some(w)) = (lit_of(&x), lit_of(&y), lit_of(&z)) {
                    return self.lit(u.mul_add(v, w), t);
                }
                TKind::Fma(boxed(x), boxed(y), boxed(z))
            }
            Expr::Select(c, a, b) => TKind::Select(
                boxed(self.expr(c, ETy::Bool)?),
                boxed(self.expr(a, t)?),
                boxed(self.expr(b, t)?),
            ),
            Expr::Bitcast(_, a) => {
                let inner = ety(type_of(k, a)?);
                TKind::Bitcast(boxed(self.expr(a, inner)?))
            }
            Expr::Cast(d, a) => {
                match defined_conversion(*d, a, type_of(k, a)?) {
                    Some(Defined::Bits(e)) => return self.expr(&e, t),
                    Some(Defined::Literal(v)) => return self.lit(v, t),
                    Some(Defined::Saturated(f)) => {
                        let f = self.expr(&f, ETy::Num(DType::F32))?;
                        return Ok(TExpr { ty: t, kind: TKind::Cast(boxed(f)) });
                    }
                    None => {}
                }
                let inner = ety(type_of(k, a)?);
                let x = self.expr(a, inner)?;
                if x.ty == t {
                    return Ok(x);
                }
                if let Some(v) = lit_of(&x) {
                    let v =
                        if matches!(t, ETy::Num(DType::U32 | DType::I32)) { v.trunc() } else { v };
                    return self.lit(v, t);
                }
                if let (ETy::Num(DType::F32), Expr::Bitcast(DType::F16, bits)) = (t, &**a) {
                    // `x.bitcast(F16).cast(F32)`: one exact widening of the half's bits.
                    let u = self.expr(bits, ETy::Num(DType::U32))?;
                    return Ok(TExpr { ty: t, kind: TKind::HalfBits(boxed(u)) });
                }
                if t == ETy::Num(DType::F32) && inner == ETy::Num(DType::U32) && below_2_23(a) {
                    return self.small_to_f32(x, 0x4b00_0000, 8_388_608.0);
                }
                if t == ETy::Num(DType::F32) && inner == ETy::Num(DType::I32) && within_2_22(a) {
                    return self.small_to_f32(x, 0x4b40_0000, 12_582_912.0);
                }
                TKind::Cast(boxed(x))
            }
            Expr::LoadTile(tile, idx) => {
                if k.tiles[tile.0].scope == crate::ir::Scope::Fragment {
                    TKind::FragmentSlot((*tile).into())
                } else {
                    TKind::Tile(self.tile_elem(tile.0, idx)?)
                }
            }
            Expr::LoadParam(p, idx) => {
                TKind::Param((*p).into(), self.indices(idx)?, self.param_tests(p.0, idx))
            }
            Expr::LoadWord(p, i) => TKind::Word(
                (*p).into(),
                boxed(self.expr(i, ETy::Num(DType::U32))?),
                self.word_tested(p.0, i),
            ),
            // The verifier rejects these before lowering.
            Expr::Invalid { op, message } => return Err(format!("{op}: {message}")),
        };
        Ok(TExpr { ty: t, kind })
    }

    /// u32 coordinates.
    pub(crate) fn indices(&self, idx: &[Expr]) -> Result<Vec<TExpr>, String> {
        idx.iter().map(|i| self.expr(i, ETy::Num(DType::U32))).collect()
    }

    /// A tile element with its bounds proof: a coordinate is proven when its largest value
    /// (range analysis, as for parameters: constants, parallel extents, loop trip counts, a
    /// constant grid) is below the dimension.
    pub(crate) fn tile_elem(&self, tile: usize, idx: &[Expr]) -> Result<TileElem, String> {
        let shape = &self.k.tiles[tile].shape;
        let scope = self.scope();
        let proven = idx.iter().zip(shape).all(|(e, &d)| match e {
            Expr::Int(v) => *v >= 0 && (*v as u64) < d as u64,
            e => max_value(e, &scope).is_some_and(|m| m < d as u64),
        });
        Ok(TileElem {
            tile: TileIx(tile),
            stage: None,
            index: self.indices(idx)?,
            bounds: if proven { Bounds::Proven } else { Bounds::Checked },
        })
    }

    /// Per axis of parameter `p`, whether the coordinate `idx[axis]` needs its bound tested
    /// when the kernel runs. A coordinate is proven inside when its largest value (from
    /// constants, parallel extents, the thread count, constant loop trip counts and a constant
    /// grid, through `+ * / % >> min`, never past u32) is below a constant dimension. Symbolic
    /// dimensions stay tested: a launch may bind them to anything, zero included. Proofs pay:
    /// the tests cost f16 rope on an H200 a fifth of its bandwidth.
    pub(crate) fn param_tests(&self, p: usize, idx: &[Expr]) -> Vec<bool> {
        let shape = &self.k.params[p].shape;
        idx.iter()
            .zip(shape)
            .map(|(e, dim)| {
                u32_value(dim).is_none_or(|n| max_value(e, &self.scope()).is_none_or(|m| m >= n))
            })
            .collect()
    }

    /// Whether word `i` of packed parameter `p` (`W.word(i)`) needs its test against the end
    /// of the parameter's bytes: not where the bytes are a constant count and the largest
    /// value of `i` names a word that lies wholly inside them.
    pub(crate) fn word_tested(&self, p: usize, i: &Expr) -> bool {
        let bytes = self.k.params[p]
            .shape
            .iter()
            .try_fold(1u64, |acc, d| u32_value(d).and_then(|v| acc.checked_mul(v)));
        match (bytes, max_value(i, &self.scope())) {
            (Some(bytes), Some(m)) => (m + 1) * 4 > bytes,
            _ => true,
        }
    }

    /// Whether the window of `extent` elements per axis at `origin` lies inside parameter `p`
    /// at every launch, and (with `width`) whose row length and last origin are multiples of
    /// `width`: then a copy needs neither bounds tests nor a scalar fallback. Needs constant
    /// dimensions and origins whose largest values are known (constants, constant grids and
    /// loop extents); a window of lower rank than the parameter spans its last axes.
    pub(crate) fn window_proven(
        &self,
        p: usize,
        origin: &[Expr],
        extent: &[u32],
        width: Option<u32>,
    ) -> bool {
        let shape = &self.k.params[p].shape;
        let lead = origin.len().saturating_sub(extent.len());
        let inside = origin.iter().zip(shape).enumerate().all(|(d, (o, dim))| {
            let n = if d < lead { 1 } else { extent[d - lead] as u64 };
            match (max_value(o, &self.scope()), u32_value(dim)) {
                (Some(m), Some(dim)) => m + n <= dim,
                _ => false,
            }
        });
        let aligned = width.is_none_or(|w| {
            let w = w as u64;
            shape.last().and_then(u32_value).is_some_and(|n| n % w == 0)
                && origin.last().is_some_and(|o| multiple_of(o, w))
        });
        inside && aligned
    }

    /// What range analysis knows here ([`crate::ranges`]).
    fn scope(&self) -> Scope<'_> {
        Scope {
            threads: self.k.threads,
            grid: &self.k.grid,
            parallel: &self.extents,
            loops: &self.loops,
        }
    }
}

/// How a conversion to an integer is spelled so that every value has a defined result.
enum Defined {
    /// An integer's low 8 bits, as this integer expression.
    Bits(Expr),
    /// A constant's converted value.
    Literal(f64),
    /// This f32 expression (inside the target's range, never NaN), converted.
    Saturated(Expr),
}

/// A conversion to an integer spelled so that every value has a defined result, where the
/// plain conversion would leave some undefined (SPIR-V's float-to-integer conversions are
/// undefined out of range): a float saturates to the target's range and NaN gives 0, as
/// Rust's `as` does (u32 and i32 at the largest f32 inside their range, as WGSL does); an
/// integer to u8 or i8 keeps its low 8 bits (i8 sign-extended). None where the plain
/// conversion is already defined.
fn defined_conversion(to: DType, a: &Expr, from: Ty) -> Option<Defined> {
    let float = matches!(from, Ty::Num(DType::F32 | DType::F16) | Ty::FloatLit);
    if !float {
        return match to {
            DType::U8 => Some(Defined::Bits(Expr::Cast(DType::U32, Box::new(a.clone())) & 255u32)),
            DType::I8 => {
                Some(Defined::Bits((Expr::Cast(DType::I32, Box::new(a.clone())) << 24u32) >> 24u32))
            }
            _ => None,
        };
    }
    let (lo, hi) = match to {
        DType::U8 => (0.0, 255.0),
        DType::I8 => (-128.0, 127.0),
        // The largest f32 values below 2^32 and 2^31.
        DType::U32 => (0.0, 4_294_967_040.0),
        DType::I32 => (-2_147_483_648.0, 2_147_483_520.0),
        _ => return None,
    };
    if let Some(v) = fold::literal(a) {
        return Some(Defined::Literal(if v.is_nan() { 0.0 } else { v.trunc().clamp(lo, hi) }));
    }
    let x = Expr::Cast(DType::F32, Box::new(a.clone()));
    let clamped = x.clone().max(lo).min(hi);
    Some(Defined::Saturated(crate::ir::select(x.clone().ne_(x), Expr::Float(0.0), clamped)))
}
