//! Binding numbers in passthrough SPIR-V. wgpu's Vulkan backend numbers the bindings of a
//! descriptor set densely: the i-th entry of a bind group layout (tilecast gives them sorted
//! by binding) becomes Vulkan binding i, and for WGSL it has naga write those numbers into the
//! SPIR-V. A module passed through as it is must already say them, or a kernel whose bindings
//! have a gap (a parameter read only through its vector view, say) reads the wrong buffers.
//! So the SPIR-V that reaches the driver is written or renumbered here, while kernels keep
//! being bound by the numbers their source declares.

use std::collections::BTreeMap;

use super::words::instructions;

/// `OpDecorate`'s opcode and `Binding`'s decoration number.
const OP_DECORATE: u32 = 71;
const DECORATION_BINDING: u32 = 33;

/// naga's binding map that writes binding `bindings[i]` of group 0 as Vulkan binding `i`
/// (`bindings` sorted, as the layout lists them). The module's other bindings (`declared`,
/// used by no entry point, so in no layout) come after them, where they collide with none.
pub(crate) fn dense_binding_map(bindings: &[u32], declared: &[u32]) -> naga::back::spv::BindingMap {
    let unused = declared.iter().filter(|b| !bindings.contains(b));
    let mut map = BTreeMap::new();
    for (rank, &binding) in bindings.iter().chain(unused).enumerate() {
        map.insert(
            naga::ResourceBinding { group: 0, binding },
            naga::back::spv::BindingInfo {
                descriptor_set: 0,
                binding: rank as u32,
                binding_array_size: None,
            },
        );
    }
    map
}

/// `words` with each `Binding` decoration replaced by its rank among `bindings` (sorted, as
/// the layout lists them); unchanged when they are already `0..n`. A binding missing from
/// `bindings` is an error (the reflection read every one, so it would be a bug here).
pub(crate) fn renumber_bindings(words: &[u32], bindings: &[u32]) -> Result<Vec<u32>, String> {
    let mut out = words.to_vec();
    if bindings.iter().enumerate().all(|(i, &b)| b == i as u32) {
        return Ok(out);
    }
    for i in instructions(words)? {
        if let (OP_DECORATE, &[_, DECORATION_BINDING, b]) = (i.op, i.operands(words)) {
            let rank = bindings
                .iter()
                .position(|&x| x == b)
                .ok_or_else(|| format!("binding {b} is not among the module's {bindings:?}"))?;
            out[i.words.end - 1] = rank as u32;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header and two `OpDecorate %v Binding n` instructions.
    fn module(a: u32, b: u32) -> Vec<u32> {
        let decorate = |id, n| [4 << 16 | OP_DECORATE, id, DECORATION_BINDING, n];
        let mut w = vec![0x0723_0203, 0x0001_0300, 0, 10, 0];
        w.extend(decorate(1, a));
        w.extend(decorate(2, b));
        w
    }

    #[test]
    fn gaps_close_in_binding_order() {
        assert_eq!(renumber_bindings(&module(5, 2), &[2, 5]).unwrap(), module(1, 0));
        assert_eq!(renumber_bindings(&module(1, 0), &[0, 1]).unwrap(), module(1, 0));
        let e = renumber_bindings(&module(3, 0), &[0, 2]).unwrap_err();
        assert!(e.contains("binding 3"), "{e}");
        let map = dense_binding_map(&[2, 3], &[0, 2, 3]);
        let at = |binding| map[&naga::ResourceBinding { group: 0, binding }].binding;
        assert_eq!((at(2), at(3), at(0)), (0, 1, 2));
    }
}
