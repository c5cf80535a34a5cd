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
    let mut at = 5;
    while at < words.len() {
        let (count, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        if count == 0 || at + count > words.len() {
            return Err(format!("malformed instruction at word {at}"));
        }
        let ops = &words[at + 1..at + count];
        match op {
            OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY if ops.len() >= 2 => {
                children.insert(ops[0], vec![ops[1]]);
            }
            OP_TYPE_STRUCT if !ops.is_empty() => {
                children.insert(ops[0], ops[1..].to_vec());
            }
            OP_TYPE_POINTER if ops.len() == 3 => {
                pointers.insert(ops[0], (ops[1], ops[2]));
                if LAID_OUT.contains(&ops[1]) {
                    laid_out_roots.push(ops[2]);
                }
            }
            OP_VARIABLE if ops.len() >= 3 && ops[2] == WORKGROUP => {
                if let Some(&(_, pointee)) = pointers.get(&ops[0]) {
                    workgroup_roots.push(pointee);
                }
            }
            _ => {}
        }
        at += count;
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
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let (op, ops) = (words[at] & 0xffff, &words[at + 1..at + count]);
        let dropped = match op {
            OP_DECORATE => ops.len() >= 2 && LAYOUT_DECORATIONS.contains(&ops[1]),
            OP_MEMBER_DECORATE => ops.len() >= 3 && LAYOUT_DECORATIONS.contains(&ops[2]),
            _ => false,
        } && only_workgroup.contains(&ops[0]);
        if !dropped {
            out.extend_from_slice(&words[at..at + count]);
        }
        at += count;
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
