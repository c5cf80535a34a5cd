//! A SPIR-V module's instructions as its words say them: for the passes that rewrite the
//! passthrough path's modules a few words at a time (binding numbers, layout decorations),
//! where a full parse and re-emit would be more than the change.

use std::ops::Range;

/// One instruction: its opcode, and where it and its operands lie in the words.
pub(crate) struct Instruction {
    pub op: u32,
    /// The whole instruction (first word included).
    pub words: Range<usize>,
}

impl Instruction {
    /// The operands' words, in `module`.
    pub fn operands<'m>(&self, module: &'m [u32]) -> &'m [u32] {
        &module[self.words.start + 1..self.words.end]
    }
}

/// Every instruction after the 5-word header, or where the words stop making sense.
pub(crate) fn instructions(words: &[u32]) -> Result<Vec<Instruction>, String> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let (count, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        if count == 0 || at + count > words.len() {
            return Err(format!("malformed instruction at word {at}"));
        }
        out.push(Instruction { op, words: at..at + count });
        at += count;
    }
    Ok(out)
}
