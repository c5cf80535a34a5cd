//! Explicit layouts on workgroup types in naga's SPIR-V. naga decorates every array type with
//! its `ArrayStride` (and struct members with their `Offset`), workgroup arrays included;
//! Vulkan allows explicit layout only on types of the storage classes that have one (storage,
//! uniform and push-constant blocks, physical pointers) unless
//! `VK_KHR_workgroup_memory_explicit_layout` is used, and SPIRV-Tools refuses such a module
//! (`VUID-StandaloneSpirv-None-10684`). Drivers take it, but the SPIR-V tilecast hands them
//! should be valid: this drops those decorations from types that only workgroup variables
//! reach. A type reached from both sides keeps them (naga gives workgroup arrays their own
//! types, so tilecast's kernels have none).

use std::collections::{HashMap, HashSet};

use super::words::instructions;

const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
const WORKGROUP: u32 = 4;
/// Storage classes whose types carry explicit layouts: Uniform, PushConstant, StorageBuffer,
/// PhysicalStorageBuffer.
const LAID_OUT: [u32; 4] = [2, 9, 12, 5349];
/// Layout decorations: RowMajor, ColMajor, ArrayStride, MatrixStride, Offset.
const LAYOUT_DECORATIONS: [u32; 5] = [4, 5, 6, 7, 35];

/// `words` without layout decorations on types that only workgroup variables reach.
pub(crate) fn drop_workgroup_layouts(words: &[u32]) -> Result<Vec<u32>, String> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut pointers: HashMap<u32, (u32, u32)> = HashMap::new();
    let mut workgroup_roots = Vec::new();
    let mut laid_out_roots = Vec::new();
    let all = instructions(words)?;
    for i in &all {
        match (i.op, i.operands(words)) {
            (OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY, &[t, element, ..]) => {
                children.insert(t, vec![element]);
            }
            (OP_TYPE_STRUCT, &[t, ref members @ ..]) => {
                children.insert(t, members.to_vec());
            }
            (OP_TYPE_POINTER, &[t, class, pointee]) => {
                pointers.insert(t, (class, pointee));
                if LAID_OUT.contains(&class) {
                    laid_out_roots.push(pointee);
                }
            }
            (OP_VARIABLE, &[ty, _, WORKGROUP, ..]) => {
                if let Some(&(_, pointee)) = pointers.get(&ty) {
                    workgroup_roots.push(pointee);
                }
            }
            _ => {}
        }
    }
    let reach = |roots: Vec<u32>| {
        let (mut seen, mut stack) = (HashSet::new(), roots);
        while let Some(t) = stack.pop() {
            if seen.insert(t) {
                stack.extend(children.get(&t).into_iter().flatten());
            }
        }
        seen
    };
    let laid_out = reach(laid_out_roots);
    let only_workgroup: HashSet<u32> =
        reach(workgroup_roots).into_iter().filter(|t| !laid_out.contains(t)).collect();
    if only_workgroup.is_empty() {
        return Ok(words.to_vec());
    }
    let mut out = words[..5].to_vec();
    for i in &all {
        let dropped = match (i.op, i.operands(words)) {
            (OP_DECORATE, &[t, d, ..]) | (OP_MEMBER_DECORATE, &[t, _, d, ..]) => {
                LAYOUT_DECORATIONS.contains(&d) && only_workgroup.contains(&t)
            }
            _ => false,
        };
        if !dropped {
            out.extend_from_slice(&words[i.words.clone()]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(op: u32, operands: &[u32]) -> Vec<u32> {
        let mut w = vec![((operands.len() as u32 + 1) << 16) | op];
        w.extend_from_slice(operands);
        w
    }

    /// %1 float; %2 = array of %1 for a workgroup variable, %3 = array of %1 in a storage
    /// block %4; both arrays decorated with a stride.
    #[test]
    fn strides_go_from_workgroup_arrays_only() {
        let head = [0x0723_0203, 0x0001_0300, 0, 20, 0];
        let body = [
            inst(OP_DECORATE, &[2, 6, 4]),
            inst(OP_DECORATE, &[3, 6, 4]),
            inst(OP_MEMBER_DECORATE, &[4, 0, 35, 0]),
            inst(22, &[1, 32]),
            inst(OP_TYPE_ARRAY, &[2, 1, 9]),
            inst(OP_TYPE_RUNTIME_ARRAY, &[3, 1]),
            inst(OP_TYPE_STRUCT, &[4, 3]),
            inst(OP_TYPE_POINTER, &[5, WORKGROUP, 2]),
            inst(OP_TYPE_POINTER, &[6, 12, 4]),
            inst(OP_VARIABLE, &[5, 7, WORKGROUP]),
            inst(OP_VARIABLE, &[6, 8, 12]),
        ];
        let words: Vec<u32> = head.iter().copied().chain(body.iter().flatten().copied()).collect();
        let out = drop_workgroup_layouts(&words).unwrap();
        let want: Vec<u32> =
            head.iter().copied().chain(body[1..].iter().flatten().copied()).collect();
        assert_eq!(out, want);
        assert_eq!(drop_workgroup_layouts(&out).unwrap(), out);
    }
}
