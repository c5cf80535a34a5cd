//! The module around the entry point: capabilities, the push-constant block of symbols and
//! scalars, one storage buffer per parameter (and per vector view), threadgroup tiles, the
//! builtins, and the interned types and constants every other part asks for.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, FPEncoding,
    FunctionControl, MemoryModel, Op, StorageClass, Word,
};

use super::kinds::{Buffer, Kind};
use super::{Printer, Unsupported};
use crate::ir::DType;
use crate::lir::{ParamAccess, TileIx, TileStorage};

impl Printer<'_> {
    /// Words of `d`'s scalar type.
    pub(crate) fn ty(&mut self, k: Kind) -> Word {
        match k {
            Kind::F32 => self.b.type_float(32, None),
            Kind::F16 => self.b.type_float(16, None),
            Kind::BF16 => self.b.type_float(16, Some(FPEncoding::BFloat16KHR)),
            Kind::U32 => self.b.type_int(32, 0),
            Kind::I32 => self.b.type_int(32, 1),
            Kind::Bool => self.b.type_bool(),
        }
    }

    pub(crate) fn vec_ty(&mut self, k: Kind, n: u32) -> Word {
        let t = self.ty(k);
        self.b.type_vector(t, n)
    }

    pub(crate) fn ptr(&mut self, class: StorageClass, pointee: Word) -> Word {
        self.b.type_pointer(None, class, pointee)
    }

    /// A u32 constant.
    pub(crate) fn u(&mut self, v: u32) -> Word {
        let t = self.ty(Kind::U32);
        self.bits(t, v)
    }

    /// The constant of scalar type `ty` with bit pattern `bits` (interned: rspirv makes a new
    /// id per call, and types built from constants must see one id per value).
    pub(crate) fn bits(&mut self, ty: Word, bits: u32) -> Word {
        if let Some(&c) = self.constants.get(&(ty, bits)) {
            return c;
        }
        let c = self.b.constant_bit32(ty, bits);
        self.constants.insert((ty, bits), c);
        c
    }

    /// A constant of kind `k` with value `v` (the typing pass checked that it fits).
    pub(crate) fn constant(&mut self, k: Kind, v: f64) -> Word {
        let t = self.ty(k);
        match k {
            Kind::F32 => self.bits(t, (v as f32).to_bits()),
            Kind::F16 => self.bits(t, half::f16::from_f64(v).to_bits() as u32),
            Kind::BF16 => self.bits(t, half::bf16::from_f64(v).to_bits() as u32),
            Kind::U32 => self.bits(t, v as u64 as u32),
            Kind::I32 => self.bits(t, v as i64 as i32 as u32),
            Kind::Bool => {
                let key = (t, (v != 0.0) as u32);
                if let Some(&c) = self.constants.get(&key) {
                    return c;
                }
                let c = if v != 0.0 { self.b.constant_true(t) } else { self.b.constant_false(t) };
                self.constants.insert(key, c);
                c
            }
        }
    }

    /// Emits `op` with result type `ty` and `operands` (ids) into the current block.
    pub(crate) fn inst(&mut self, op: Op, ty: Word, operands: &[Word]) -> Word {
        let id = self.b.id();
        let ops = operands.iter().map(|&w| Operand::IdRef(w)).collect();
        self.emit(Instruction::new(op, Some(ty), Some(id), ops));
        id
    }

    /// `OpSDot` of two u32 words read as four signed bytes each, an i32 of type `ty`.
    pub(crate) fn packed_dot(&mut self, ty: Word, x: Word, y: Word) -> Word {
        let id = self.b.id();
        let format = Operand::PackedVectorFormat(
            rspirv::spirv::PackedVectorFormat::PackedVectorFormat4x8Bit,
        );
        let ops = vec![Operand::IdRef(x), Operand::IdRef(y), format];
        self.emit(Instruction::new(Op::SDot, Some(ty), Some(id), ops));
        id
    }

    pub(crate) fn emit(&mut self, i: Instruction) {
        self.b
            .insert_into_block(rspirv::dr::InsertPoint::End, i)
            .expect("the printer always has a block selected");
    }

    /// A GLSL.std.450 instruction.
    pub(crate) fn glsl(&mut self, f: rspirv::spirv::GlslStd450Op, ty: Word, args: &[Word]) -> Word {
        let set = self.glsl_set;
        self.b
            .ext_inst(ty, None, set, f as u32, args.iter().map(|&a| Operand::IdRef(a)))
            .expect("inside a block")
    }

    /// Declares everything outside the entry point's body and opens its first block.
    pub(crate) fn declare(&mut self) -> Result<(), Unsupported> {
        let l = self.l;
        // Tensor addressing is SPIR-V 1.6 (Vulkan 1.3) vocabulary; the rest is 1.3 (Vulkan 1.1).
        if l.features.workgroup_matrix {
            self.b.set_version(1, 6);
        } else {
            self.b.set_version(1, 3);
        }
        self.b.capability(Capability::Shader);
        let uses_f16 = l.features.f16
            || l.params.iter().any(|p| p.dtype == DType::F16)
            || l.tiles.iter().any(|t| t.dtype == DType::F16);
        // bf16 buffers read whole by tensor loads into bf16 matrices.
        let uses_bf16 =
            l.params.iter().any(|p| p.access == ParamAccess::Tensor && p.dtype == DType::BF16);
        if uses_f16 {
            self.b.capability(Capability::Float16);
        }
        if uses_bf16 {
            self.b.capability(Capability::BFloat16TypeKHR);
            self.b.capability(Capability::BFloat16CooperativeMatrixKHR);
            self.b.extension("SPV_KHR_bfloat16");
        }
        if uses_f16 || uses_bf16 {
            self.b.capability(Capability::StorageBuffer16BitAccess);
            self.b.extension("SPV_KHR_16bit_storage");
        }
        if l.features.matrix {
            // SPIR-V asks for the Vulkan memory model beside cooperative matrices in shaders.
            self.b.capability(Capability::CooperativeMatrixKHR);
            self.b.capability(Capability::VulkanMemoryModel);
        }
        if l.features.workgroup_matrix {
            self.b.capability(Capability::CooperativeMatrixTensorAddressingNV);
            self.b.capability(Capability::TensorAddressingNV);
        }
        if l.features.subgroups {
            self.b.capability(Capability::GroupNonUniform);
            self.b.capability(Capability::GroupNonUniformArithmetic);
        }
        if l.features.shuffles {
            self.b.capability(Capability::GroupNonUniformShuffle);
        }
        if l.features.dot_product {
            self.b.capability(Capability::DotProduct);
            self.b.capability(Capability::DotProductInput4x8BitPacked);
            self.b.extension("SPV_KHR_integer_dot_product");
        }
        self.b.extension("SPV_KHR_storage_buffer_storage_class");
        if l.features.matrix {
            self.b.extension("SPV_KHR_cooperative_matrix");
            self.b.extension("SPV_KHR_vulkan_memory_model");
        }
        if l.features.workgroup_matrix {
            self.b.extension("SPV_NV_cooperative_matrix2");
            self.b.extension("SPV_NV_tensor_addressing");
        }
        self.glsl_set = self.b.ext_inst_import("GLSL.std.450");
        let model = if l.features.matrix { MemoryModel::Vulkan } else { MemoryModel::GLSL450 };
        self.b.memory_model(AddressingModel::Logical, model);

        // The push-constant block: symbols (u32) first, then scalars, 4 bytes each.
        let mut members = Vec::new();
        for _ in &l.symbols {
            members.push(self.ty(Kind::U32));
        }
        for s in &l.scalars {
            members.push(self.ty(Kind::of(s.dtype)));
        }
        if !members.is_empty() {
            let st = self.b.type_struct(members.clone());
            self.b.decorate(st, Decoration::Block, []);
            let names =
                l.symbols.iter().map(|s| &s.ident).chain(l.scalars.iter().map(|s| &s.named.ident));
            for (k, name) in names.enumerate() {
                self.b.member_decorate(
                    st,
                    k as u32,
                    Decoration::Offset,
                    [Operand::LiteralBit32(4 * k as u32)],
                );
                self.b.member_name(st, k as u32, name.clone());
            }
            self.b.name(st, "Args");
            let p = self.ptr(StorageClass::PushConstant, st);
            let var = self.b.variable(p, None, StorageClass::PushConstant, None);
            self.b.name(var, "args");
            self.args = Some((var, members));
        }

        for (i, p) in l.params.iter().enumerate() {
            let kind = match p.access {
                ParamAccess::Tensor => Kind::of_matrix(p.dtype),
                _ => Kind::of(p.dtype),
            };
            let packed = match p.access {
                ParamAccess::Plain | ParamAccess::Tensor => None,
                ParamAccess::Packed(d) => Some(d),
                ParamAccess::Atomic if kind.is_float() => {
                    return Err(Unsupported(format!(
                        "parameter {} takes {} atomic adds (float atomics need \
                         SPV_EXT_shader_atomic_float_add, which the runtime does not enable)",
                        p.named.name, p.dtype
                    )));
                }
                ParamAccess::Atomic => None,
            };
            let (elem, bytes) = match packed {
                Some(_) => (self.ty(Kind::U32), 4),
                None => (self.ty(kind), kind.bytes()),
            };
            let var = self.buffer(elem, bytes, i as u32, !p.written, &p.named.ident);
            self.buffers.push(Buffer {
                var,
                kind,
                packed,
                atomic_words: packed.is_some() && p.written,
                atomic: p.access == ParamAccess::Atomic,
            });
            let view = match (p.vector_view, packed) {
                (None, _) => None,
                (Some(binding), None) => {
                    let v = self.vec_ty(kind, 4);
                    let name = format!("v_{}", p.named.ident);
                    Some(self.buffer(v, 4 * kind.bytes(), binding, !p.written, &name))
                }
                // Four bf16 are two words.
                (Some(binding), Some(DType::BF16)) => {
                    let v = self.vec_ty(Kind::U32, 2);
                    let name = format!("v_{}", p.named.ident);
                    Some(self.buffer(v, 8, binding, !p.written, &name))
                }
                // Four words of packed bytes.
                (Some(binding), Some(DType::U8 | DType::I8)) => {
                    let v = self.vec_ty(Kind::U32, 4);
                    let name = format!("v_{}", p.named.ident);
                    Some(self.buffer(v, 16, binding, !p.written, &name))
                }
                (Some(_), Some(d)) => {
                    return Err(Unsupported(format!(
                        "a vector view of {} (packed {d})",
                        p.named.name
                    )));
                }
            };
            self.views.push(view);
        }

        for (i, t) in l.tiles.iter().enumerate() {
            if t.storage == TileStorage::Workgroup {
                let n = t.stored_elements() * t.stages as u64;
                let elem = self.ty(Kind::of(t.dtype));
                let len = self.u(n as u32);
                let arr = self.b.type_array(elem, len);
                let p = self.ptr(StorageClass::Workgroup, arr);
                let var = self.b.variable(p, None, StorageClass::Workgroup, None);
                self.b.name(var, t.named.ident.clone());
                self.tile_vars[i] = Some((var, StorageClass::Workgroup));
            }
        }

        let u = self.ty(Kind::U32);
        let pu = self.ptr(StorageClass::Input, u);
        let tid = self.b.variable(pu, None, StorageClass::Input, None);
        self.b.decorate(
            tid,
            Decoration::BuiltIn,
            [Operand::BuiltIn(BuiltIn::LocalInvocationIndex)],
        );
        self.b.name(tid, "tid");
        let v3 = self.vec_ty(Kind::U32, 3);
        let pv3 = self.ptr(StorageClass::Input, v3);
        let wg = self.b.variable(pv3, None, StorageClass::Input, None);
        self.b.decorate(wg, Decoration::BuiltIn, [Operand::BuiltIn(BuiltIn::WorkgroupId)]);
        self.b.name(wg, "wg");

        let mut interface = vec![tid, wg];
        // From SPIR-V 1.4 an entry point lists every global variable it uses.
        if l.features.workgroup_matrix {
            interface.extend(self.args.as_ref().map(|a| a.0));
            interface.extend(self.buffers.iter().map(|b| b.var));
            interface.extend(self.views.iter().flatten());
            interface.extend(self.tile_vars.iter().flatten().map(|(v, _)| *v));
        }
        let mut subgroup_vars = Vec::new();
        if l.features.subgroups {
            for (b, name) in [
                (BuiltIn::SubgroupLocalInvocationId, "sg_lane"),
                (BuiltIn::SubgroupSize, "sg_size"),
                (BuiltIn::SubgroupId, "sg_id"),
                (BuiltIn::NumSubgroups, "sg_count"),
            ] {
                let v = self.b.variable(pu, None, StorageClass::Input, None);
                self.b.decorate(v, Decoration::BuiltIn, [Operand::BuiltIn(b)]);
                self.b.name(v, name);
                interface.push(v);
                subgroup_vars.push(v);
            }
        }
        let void = self.b.type_void();
        let fty = self.b.type_function(void, []);
        let f = self
            .b
            .begin_function(void, None, FunctionControl::NONE, fty)
            .expect("no function is open");
        self.b.entry_point(ExecutionModel::GLCompute, f, l.entry.clone(), interface);
        self.b.execution_mode(f, ExecutionMode::LocalSize, [l.threads, 1, 1]);
        self.b.name(f, l.entry.clone());
        let label = self.b.begin_block(None).expect("inside the function");
        self.block = label;

        // Per-thread and fragment tiles: function-local arrays, declared in the first block.
        for (i, t) in l.tiles.iter().enumerate() {
            let n = match &t.storage {
                TileStorage::Fragment { .. } => t.blocks().map_or(0, |b| b.per_thread() as u64),
                TileStorage::PerThread => t.elements(),
                TileStorage::Workgroup
                | TileStorage::WorkgroupMatrix { .. }
                | TileStorage::WorkgroupRows { .. }
                | TileStorage::Unused => continue,
            };
            let elem = self.ty(Kind::of(t.dtype));
            let len = self.u(n.max(1) as u32);
            let arr = self.b.type_array(elem, len);
            let p = self.ptr(StorageClass::Function, arr);
            let var = self.b.variable(p, None, StorageClass::Function, None);
            self.b.name(var, t.named.ident.clone());
            self.tile_vars[i] = Some((var, StorageClass::Function));
        }
        for (i, t) in l.tiles.iter().enumerate() {
            if t.matrix().is_some() {
                self.declare_matrix(TileIx(i));
            }
            if let TileStorage::WorkgroupMatrix { .. } | TileStorage::WorkgroupRows { .. } =
                t.storage
            {
                self.declare_workgroup_matrix(TileIx(i));
            }
        }

        self.inputs = (tid, wg, subgroup_vars);
        self.load_inputs();
        Ok(())
    }

    /// Loads the thread index, threadgroup index and subgroup builtins in the function being
    /// printed.
    pub(crate) fn load_inputs(&mut self) {
        let (tid, wg, subgroup_vars) = self.inputs.clone();
        let u = self.ty(Kind::U32);
        let v3 = self.vec_ty(Kind::U32, 3);
        self.tid = self.inst(Op::Load, u, &[tid]);
        for (k, v) in subgroup_vars.into_iter().enumerate() {
            self.subgroup[k] = self.inst(Op::Load, u, &[v]);
        }
        let wgv = self.inst(Op::Load, v3, &[wg]);
        for a in 0..3 {
            let id = self.b.id();
            self.emit(Instruction::new(
                Op::CompositeExtract,
                Some(u),
                Some(id),
                vec![Operand::IdRef(wgv), Operand::LiteralBit32(a)],
            ));
            self.block_ids[a as usize] = id;
        }
    }

    /// A function-local variable of type `ty` (declared in the entry block, as SPIR-V asks),
    /// holding `init`: a value loops update (accumulators).
    pub(crate) fn local_var(&mut self, ty: Word, init: Word) -> Word {
        let p = self.ptr(StorageClass::Function, ty);
        let id = self.b.id();
        let here = self.b.selected_block();
        self.b.select_block(Some(0)).expect("the entry block exists");
        self.b
            .insert_into_block(
                rspirv::dr::InsertPoint::Begin,
                Instruction::new(
                    Op::Variable,
                    Some(p),
                    Some(id),
                    vec![Operand::StorageClass(StorageClass::Function)],
                ),
            )
            .expect("the entry block exists");
        self.b.select_block(here).expect("the block being printed");
        self.b.store(id, init, None, []).expect("in a block");
        id
    }

    /// A storage buffer of `elem` (stride `stride` bytes) at `binding`.
    fn buffer(
        &mut self,
        elem: Word,
        stride: u32,
        binding: u32,
        read_only: bool,
        name: &str,
    ) -> Word {
        // Types are interned, so buffers of one element type share them: decorated once.
        let arr = self.b.type_runtime_array(elem);
        let st = self.b.type_struct([arr]);
        if self.decorated.insert(st) {
            self.b.decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(stride)]);
            self.b.decorate(st, Decoration::Block, []);
            self.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        }
        let p = self.ptr(StorageClass::StorageBuffer, st);
        let var = self.b.variable(p, None, StorageClass::StorageBuffer, None);
        self.b.decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        self.b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        if read_only {
            self.b.decorate(var, Decoration::NonWritable, []);
        }
        self.b.name(var, name.to_string());
        var
    }
}
