//! What a SPIR-V module asks of its caller, read from its own declarations: the same
//! [`EntryReflection`] the WGSL path reads from naga's IR, so native modules get the same
//! argument checks. Every global variable of the module counts for every entry point (SPIR-V
//! before 1.4 lists only inputs and outputs in `OpEntryPoint`); tilecast's modules have one.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, ExecutionMode, ExecutionModel, Op, StorageClass, Word};

use crate::library::{BindingInfo, BindingKind, EntryReflection, ScalarInfo, ScalarType};

/// A parsed module's interface: each GLCompute entry point's calling convention.
#[derive(Clone, Debug)]
pub(crate) struct SpirvInterface {
    pub(crate) entries: Vec<(String, EntryReflection)>,
}

/// Decorations and names by id, and type/constant instructions by result id.
struct Index<'a> {
    defs: HashMap<Word, &'a Instruction>,
    names: HashMap<Word, String>,
    member_names: HashMap<(Word, u32), String>,
    decorations: HashMap<Word, Vec<(Decoration, Option<u32>)>>,
    member_offsets: HashMap<(Word, u32), u32>,
    member_non_writable: HashMap<Word, u32>,
}

fn lit(op: Option<&Operand>) -> Option<u32> {
    match op {
        Some(Operand::LiteralBit32(v)) => Some(*v),
        _ => None,
    }
}

fn id(op: Option<&Operand>) -> Option<Word> {
    match op {
        Some(Operand::IdRef(v)) => Some(*v),
        _ => None,
    }
}

impl<'a> Index<'a> {
    fn new(m: &'a Module) -> Index<'a> {
        let mut ix = Index {
            defs: HashMap::new(),
            names: HashMap::new(),
            member_names: HashMap::new(),
            decorations: HashMap::new(),
            member_offsets: HashMap::new(),
            member_non_writable: HashMap::new(),
        };
        for i in &m.types_global_values {
            if let Some(r) = i.result_id {
                ix.defs.insert(r, i);
            }
        }
        for i in &m.debug_names {
            match (i.class.opcode, &i.operands[..]) {
                (Op::Name, [Operand::IdRef(t), Operand::LiteralString(s)]) => {
                    ix.names.insert(*t, s.clone());
                }
                (
                    Op::MemberName,
                    [Operand::IdRef(t), Operand::LiteralBit32(k), Operand::LiteralString(s)],
                ) => {
                    ix.member_names.insert((*t, *k), s.clone());
                }
                _ => {}
            }
        }
        for i in &m.annotations {
            match (i.class.opcode, &i.operands[..]) {
                (Op::Decorate, [Operand::IdRef(t), Operand::Decoration(d), rest @ ..]) => {
                    ix.decorations.entry(*t).or_default().push((*d, lit(rest.first())));
                }
                (
                    Op::MemberDecorate,
                    [
                        Operand::IdRef(t),
                        Operand::LiteralBit32(k),
                        Operand::Decoration(d),
                        rest @ ..,
                    ],
                ) => match d {
                    Decoration::Offset => {
                        ix.member_offsets.insert((*t, *k), lit(rest.first()).unwrap_or(0));
                    }
                    Decoration::NonWritable => *ix.member_non_writable.entry(*t).or_default() += 1,
                    _ => {}
                },
                _ => {}
            }
        }
        ix
    }

    fn decoration(&self, target: Word, d: Decoration) -> Option<Option<u32>> {
        self.decorations.get(&target)?.iter().find(|(x, _)| *x == d).map(|(_, v)| *v)
    }

    fn constant_u32(&self, c: Word) -> Option<u32> {
        let i = self.defs.get(&c)?;
        (i.class.opcode == Op::Constant).then(|| lit(i.operands.first())).flatten()
    }

    /// Bytes of type `t` (a runtime-sized array counts one element), as wgpu checks bindings.
    fn size(&self, t: Word) -> Result<u64, String> {
        let i = self.defs.get(&t).ok_or_else(|| format!("type %{t} is not declared"))?;
        Ok(match i.class.opcode {
            Op::TypeInt | Op::TypeFloat => lit(i.operands.first()).unwrap_or(32) as u64 / 8,
            Op::TypeBool => 4,
            Op::TypeVector => {
                self.size(id(i.operands.first()).unwrap_or(0))?
                    * lit(i.operands.get(1)).unwrap_or(1) as u64
            }
            Op::TypeArray => {
                let n = id(i.operands.get(1))
                    .and_then(|c| self.constant_u32(c))
                    .ok_or_else(|| format!("array %{t} has no constant length"))?;
                let stride = match self.decoration(t, Decoration::ArrayStride) {
                    Some(Some(s)) => s as u64,
                    _ => self.size(id(i.operands.first()).unwrap_or(0))?,
                };
                stride * n as u64
            }
            Op::TypeRuntimeArray => match self.decoration(t, Decoration::ArrayStride) {
                Some(Some(s)) => s as u64,
                _ => self.size(id(i.operands.first()).unwrap_or(0))?,
            },
            Op::TypeStruct => {
                let mut end = 0;
                for (k, m) in i.operands.iter().enumerate() {
                    let m = id(Some(m)).unwrap_or(0);
                    let off = self.member_offsets.get(&(t, k as u32)).copied().unwrap_or(0);
                    end = end.max(off as u64 + self.size(m)?);
                }
                end
            }
            // Opaque or matrix-unit types take no bytes a binding is checked against.
            _ => 0,
        })
    }

    fn scalar(&self, t: Word) -> Option<ScalarType> {
        let i = self.defs.get(&t)?;
        match (i.class.opcode, lit(i.operands.first()), lit(i.operands.get(1))) {
            (Op::TypeInt, Some(32), Some(0)) => Some(ScalarType::U32),
            (Op::TypeInt, Some(32), Some(1)) => Some(ScalarType::I32),
            (Op::TypeFloat, Some(32), _) => Some(ScalarType::F32),
            (Op::TypeFloat, Some(16), _) => Some(ScalarType::F16),
            _ => None,
        }
    }

    /// The pointee of pointer type `p`.
    fn pointee(&self, p: Word) -> Option<Word> {
        let i = self.defs.get(&p)?;
        (i.class.opcode == Op::TypePointer).then(|| id(i.operands.get(1))).flatten()
    }
}

/// Reads `words`' compute entry points and their calling convention.
pub(crate) fn reflect_spirv(words: &[u32]) -> Result<SpirvInterface, String> {
    let m = rspirv::dr::load_words(words).map_err(|e| format!("not a SPIR-V module: {e}"))?;
    let ix = Index::new(&m);
    let mut shared = EntryReflection {
        workgroup_size: [1, 1, 1],
        size_from_overrides: false,
        bindings: Vec::new(),
        scalars: Vec::new(),
        immediate_size: 0,
        workgroup_vars: Vec::new(),
    };
    for v in m.types_global_values.iter().filter(|i| i.class.opcode == Op::Variable) {
        let (Some(var), Some(ptr)) = (v.result_id, v.result_type) else { continue };
        let Some(Operand::StorageClass(class)) = v.operands.first() else { continue };
        let name = ix.names.get(&var).cloned().unwrap_or_else(|| format!("%{var}"));
        let ty = ix.pointee(ptr).ok_or_else(|| format!("{name}: its type is not a pointer"))?;
        let kind = match class {
            StorageClass::StorageBuffer => {
                let members = ix.defs.get(&ty).map_or(0, |d| d.operands.len()) as u32;
                let read_only = ix.decoration(var, Decoration::NonWritable).is_some()
                    || (members > 0 && ix.member_non_writable.get(&ty) == Some(&members));
                Some(if read_only {
                    BindingKind::StorageRead
                } else {
                    BindingKind::StorageReadWrite
                })
            }
            StorageClass::Uniform => Some(BindingKind::Uniform),
            StorageClass::PushConstant => {
                shared.immediate_size = (ix.size(ty)? as u32).div_ceil(4) * 4;
                shared.scalars = push_scalars(&ix, ty, &name)?;
                None
            }
            StorageClass::Workgroup => {
                shared.workgroup_vars.push((name.clone(), ix.size(ty)?));
                None
            }
            _ => None,
        };
        if let Some(kind) = kind {
            let binding = match ix.decoration(var, Decoration::Binding) {
                Some(Some(b)) => b,
                _ => return Err(format!("{name} has no Binding decoration")),
            };
            let set = ix.decoration(var, Decoration::DescriptorSet).flatten().unwrap_or(0);
            if set != 0 {
                return Err(format!(
                    "{name} is in descriptor set {set}; tilecast kernels bind everything in set 0"
                ));
            }
            shared.bindings.push(BindingInfo { binding, name, kind, min_size: ix.size(ty)? });
        }
    }
    shared.bindings.sort_by_key(|b| b.binding);
    let mut entries = Vec::new();
    for e in &m.entry_points {
        let (Some(Operand::ExecutionModel(model)), Some(f), Some(Operand::LiteralString(name))) =
            (e.operands.first(), id(e.operands.get(1)), e.operands.get(2))
        else {
            continue;
        };
        if *model != ExecutionModel::GLCompute {
            continue;
        }
        let mut r = shared.clone();
        let mut sized = false;
        for x in &m.execution_modes {
            if id(x.operands.first()) != Some(f) {
                continue;
            }
            match x.operands.get(1) {
                Some(Operand::ExecutionMode(ExecutionMode::LocalSize)) => {
                    for (k, d) in r.workgroup_size.iter_mut().enumerate() {
                        *d = lit(x.operands.get(2 + k)).unwrap_or(1);
                    }
                    sized = true;
                }
                Some(Operand::ExecutionMode(ExecutionMode::LocalSizeId)) => {
                    return Err(format!(
                        "entry point {name:?} takes its threadgroup size from LocalSizeId; \
                         native modules give it as a literal LocalSize"
                    ));
                }
                _ => {}
            }
        }
        if !sized {
            return Err(format!("entry point {name:?} declares no LocalSize"));
        }
        entries.push((name.clone(), r));
    }
    Ok(SpirvInterface { entries })
}

fn push_scalars(ix: &Index, ty: Word, var: &str) -> Result<Vec<ScalarInfo>, String> {
    let not_scalar = |what: &str| {
        format!(
            "push constant {what} must be u32, i32, f32 or f16 (scalars are passed as immediates)"
        )
    };
    let def = ix.defs.get(&ty).ok_or_else(|| not_scalar(var))?;
    if def.class.opcode != Op::TypeStruct {
        let t = ix.scalar(ty).ok_or_else(|| not_scalar(var))?;
        return Ok(vec![ScalarInfo { name: var.to_string(), offset: 0, ty: t }]);
    }
    // A block wrapping one struct (how some writers declare a struct of immediates): its
    // members, shifted by the inner struct's offset.
    if let [Operand::IdRef(inner)] = &def.operands[..]
        && ix.defs.get(inner).is_some_and(|d| d.class.opcode == Op::TypeStruct)
    {
        let base = ix.member_offsets.get(&(ty, 0)).copied().unwrap_or(0);
        let mut v = push_scalars(ix, *inner, var)?;
        v.iter_mut().for_each(|s| s.offset += base);
        return Ok(v);
    }
    def.operands
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let k = k as u32;
            let name = ix.member_names.get(&(ty, k)).cloned().unwrap_or_else(|| format!("m{k}"));
            let t = id(Some(m))
                .and_then(|m| ix.scalar(m))
                .ok_or_else(|| not_scalar(&format!("{var}.{name}")))?;
            let offset = ix.member_offsets.get(&(ty, k)).copied().unwrap_or(0);
            Ok(ScalarInfo { name, offset, ty: t })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::reflect_spirv;
    use crate::library::{BindingKind, reflect};

    /// naga's SPIR-V of a module reflects as naga's IR of the same module does.
    #[test]
    fn spirv_reflection_matches_naga_reflection() {
        let src = "struct Args { n: u32, alpha: f32, }\n\
            var<immediate> args: Args;\n\
            var<workgroup> scratch: array<f32, 64>;\n\
            @group(0) @binding(0) var<storage, read> x: array<f32>;\n\
            @group(0) @binding(2) var<storage, read_write> y: array<vec4<f32>>;\n\
            @compute @workgroup_size(64, 2)\n\
            fn main(@builtin(local_invocation_index) t: u32) {\n\
                scratch[t % 64u] = x[t];\n\
                workgroupBarrier();\n\
                if (t < args.n) { y[t] = vec4<f32>(scratch[0] * args.alpha); }\n\
            }";
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap();
        // naga's SPIR-V of the same module, with names.
        let options = naga::back::spv::Options {
            lang_version: (1, 3),
            flags: naga::back::spv::WriterFlags::DEBUG,
            ..Default::default()
        };
        let words = naga::back::spv::write_vec(&module, &info, &options, None).unwrap();
        let from_naga = reflect(&module, &info, "main").unwrap();
        let spirv = reflect_spirv(&words).unwrap();
        assert_eq!(spirv.entries.len(), 1);
        let (name, r) = &spirv.entries[0];
        assert_eq!(name, "main");
        assert_eq!(r.workgroup_size, [64, 2, 1]);
        assert_eq!(r.immediate_size, from_naga.immediate_size);
        assert_eq!(r.scalars, from_naga.scalars);
        let kinds: Vec<_> = r.bindings.iter().map(|b| (b.binding, b.kind, b.min_size)).collect();
        let expected: Vec<_> =
            from_naga.bindings.iter().map(|b| (b.binding, b.kind, b.min_size)).collect();
        assert_eq!(kinds, expected);
        assert_eq!(kinds[0].1, BindingKind::StorageRead);
        let shared: u64 = r.workgroup_vars.iter().map(|(_, b)| b).sum();
        assert_eq!(shared, 256);
    }

    #[test]
    fn garbage_is_refused_with_a_reason() {
        let e = reflect_spirv(&[1, 2, 3]).unwrap_err();
        assert!(e.contains("not a SPIR-V module"), "{e}");
    }
}
