//! No circle of file-level imports in `tilecast-lang` or `tilecast-runtime`: a file that
//! imports, through any chain of files, a file that imports it back makes the two one unit in
//! all but name. Each crate's check fails naming every such circle's files and the imports that
//! close it.
//!
//! The graph. Each `.rs` file that the crate's module tree reaches from `lib.rs` (through `mod`
//! declarations, `#[path]` included) is a node. A file imports another when it names something
//! of it by path: in a `use` (`crate::`, `super::`, `self::`, a child module, or a name another
//! `use` brought in; grouped `use a::{b, c::{d, e}}` over several lines included), or in code
//! (`crate::stream::CommandKind::Copy`). A path resolves to the deepest module it names (an
//! inline `mod tests { .. }` is part of its file); the next name is looked up there: where the
//! module defines it, the import is of that module's file; where the module only re-exports it
//! (`pub use`, or any `use`, globs included), the re-export is followed to the file that
//! defines it. So `use crate::Buffer` is an import of the file that defines `Buffer`, not of
//! `lib.rs`.
//!
//! Re-exports. A `pub use` of a name that its file does not itself use is a doorway, not an
//! import: `lib.rs` re-exporting `Buffer` is no edge from `lib.rs`, and a `mod.rs` that is a
//! folder's public face imports nothing it only passes on. Any other `use`, and a `pub use`
//! whose name the file also uses in its code, is an import. Declaring `mod child;` is not one.
//! So a `mod.rs` that uses an item of its child, while the child uses one of the parent's
//! (`super::Printer`), closes a circle like any other pair.
//!
//! The scan is textual: comments and literals are dropped, the rest is split into tokens. It
//! does not expand macros, sees no method calls (they name no path) and reads every `#[cfg]`
//! branch.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Str(String),
    /// `::`
    Sep,
    Punct(char),
}

/// Tokens with their lines, without comments, char literals, lifetimes and numbers.
fn tokenize(src: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let ident_start = |ch: char| ch.is_alphabetic() || ch == '_';
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    let (mut out, mut i, mut line) = (Vec::new(), 0, 1);
    // Moves `i` past a string body that started just before it; `hashes` for raw strings.
    let string = |i: &mut usize, line: &mut usize, hashes: Option<usize>| -> String {
        let start = *i;
        loop {
            match at(*i) {
                '\0' => return String::new(),
                '\\' if hashes.is_none() => *i += 2,
                '"' if (1..=hashes.unwrap_or(0)).all(|k| at(*i + k) == '#') => {
                    let s: String = c[start..*i].iter().collect();
                    *i += 1 + hashes.unwrap_or(0);
                    return s;
                }
                ch => {
                    *line += (ch == '\n') as usize;
                    *i += 1;
                }
            }
        }
    };
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += (c[i] == '\n') as usize;
                    i += 1;
                }
            }
        } else if ch == '"' {
            let l = line;
            i += 1;
            out.push((Tok::Str(string(&mut i, &mut line, None)), l));
        } else if ch == '\'' {
            // A char literal ('x', '\n', '\u{..}'), else a lifetime or a label.
            if at(i + 1) == '\\' {
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while ident_char(at(i)) {
                    i += 1;
                }
            }
        } else if ident_start(ch) || (ch == '$' && ident_start(at(i + 1))) {
            let start = i;
            i += 1;
            while ident_char(at(i)) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if raw && (at(i) == '"' || at(i) == '#') {
                let hashes = (0..).take_while(|&k| at(i + k) == '#').count();
                if at(i + hashes) == '"' {
                    let l = line;
                    i += hashes + 1;
                    out.push((Tok::Str(string(&mut i, &mut line, Some(hashes))), l));
                    continue;
                }
                if word == "r" && hashes == 1 && ident_start(at(i + 1)) {
                    // A raw identifier: r#type.
                    let s = i + 1;
                    i += 1;
                    while ident_char(at(i)) {
                        i += 1;
                    }
                    out.push((Tok::Ident(c[s..i].iter().collect()), line));
                    continue;
                }
            }
            if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                let l = line;
                i += 1;
                out.push((Tok::Str(string(&mut i, &mut line, None)), l));
            } else if word == "b" && at(i) == '\'' {
                i += if at(i + 1) == '\\' { 4 } else { 3 };
                while i < c.len() && c[i - 1] != '\'' {
                    i += 1;
                }
            } else {
                out.push((Tok::Ident(word), line));
            }
        } else if ch.is_ascii_digit() {
            while ident_char(at(i)) {
                i += 1;
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push((Tok::Sep, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

/// One name a `use` brings in (a leaf of its tree).
#[derive(Clone, Debug)]
struct Use {
    /// The module the `use` is written in.
    scope: Vec<String>,
    path: Vec<String>,
    /// The name it binds (the last segment or its `as` name); `None` for a glob.
    name: Option<String>,
    public: bool,
    line: usize,
}

/// A path written in code: `crate::a::b`, `super::f`, `child::T`.
#[derive(Clone, Debug)]
struct CodePath {
    scope: Vec<String>,
    path: Vec<String>,
    line: usize,
}

/// What one file says: its `mod` declarations, imports, paths and top-level items.
#[derive(Default)]
struct Scan {
    /// (scope, name, `#[path]`) of each `mod name;`; inline modules are (scope, name, None)
    /// in `inline`.
    mods: Vec<(Vec<String>, String, Option<String>)>,
    inline: Vec<Vec<String>>,
    uses: Vec<Use>,
    paths: Vec<CodePath>,
    /// (scope, name) of each item defined at the top of a module of this file.
    defined: BTreeSet<(Vec<String>, String)>,
    /// Every identifier outside `use` declarations.
    used: HashSet<String>,
}

const ITEM_KEYWORDS: [&str; 10] =
    ["fn", "struct", "enum", "const", "static", "type", "trait", "union", "mod", "macro_rules"];

fn scan(src: &str, module: &[String]) -> Scan {
    let toks = tokenize(src);
    let t = |i: usize| toks.get(i).map(|(t, _)| t);
    let ident = |i: usize| match t(i) {
        Some(Tok::Ident(s)) => Some(s.as_str()),
        _ => None,
    };
    let mut s = Scan::default();
    // Inline modules open: (name, brace depth of their body).
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < toks.len() {
        let scope: Vec<String> =
            module.iter().cloned().chain(open.iter().map(|(n, _)| n.clone())).collect();
        let top = depth == open.last().map_or(0, |o| o.1);
        match &toks[i].0 {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if open.last().is_some_and(|o| o.1 > depth) {
                    open.pop();
                }
            }
            Tok::Ident(kw) if kw == "use" => {
                let public = visibility(&toks, i) < i;
                let line = toks[i].1;
                i += 1;
                let mut leaves = Vec::new();
                use_tree(&toks, &mut i, Vec::new(), &mut leaves);
                for (path, name) in leaves {
                    s.uses.push(Use { scope: scope.clone(), path, name, public, line });
                }
                continue;
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let Some(name) = ident(i + 1) {
                    match t(i + 2) {
                        Some(Tok::Punct(';')) => {
                            s.mods.push((scope.clone(), name.to_string(), path_attr(&toks, i)));
                        }
                        Some(Tok::Punct('{')) => {
                            s.inline
                                .push(scope.iter().cloned().chain([name.to_string()]).collect());
                            open.push((name.to_string(), depth + 1));
                        }
                        _ => {}
                    }
                    if top {
                        s.defined.insert((scope.clone(), name.to_string()));
                    }
                    i += 2;
                    continue;
                }
            }
            Tok::Ident(kw) if top && ITEM_KEYWORDS.contains(&kw.as_str()) => {
                let name = if kw == "macro_rules" && t(i + 1) == Some(&Tok::Punct('!')) {
                    ident(i + 2)
                } else {
                    ident(i + 1)
                };
                if let Some(name) = name {
                    s.defined.insert((scope.clone(), name.to_string()));
                }
            }
            Tok::Ident(first)
                if t(i + 1) == Some(&Tok::Sep) && (i == 0 || t(i - 1) != Some(&Tok::Sep)) =>
            {
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while t(j) == Some(&Tok::Sep) {
                    match ident(j + 1) {
                        Some(seg) => path.push(seg.to_string()),
                        None => break,
                    }
                    j += 2;
                }
                s.used.extend(path.iter().cloned());
                s.paths.push(CodePath { scope, path, line: toks[i].1 });
                i = j;
                continue;
            }
            Tok::Ident(name) => {
                s.used.insert(name.clone());
            }
            _ => {}
        }
        i += 1;
    }
    s
}

/// Where the visibility (`pub`, `pub(..)`) of the item whose keyword is at `i` starts: `i`
/// when it has none.
fn visibility(toks: &[(Tok, usize)], i: usize) -> usize {
    let mut j = i;
    if j > 0 && toks[j - 1].0 == Tok::Punct(')') {
        while j > 0 && toks[j - 1].0 != Tok::Punct('(') {
            j -= 1;
        }
        j = j.saturating_sub(1);
    }
    if j > 0 && toks[j - 1].0 == Tok::Ident("pub".into()) { j - 1 } else { i }
}

/// The `#[path = ".."]` among the attributes of the `mod` at `i`.
fn path_attr(toks: &[(Tok, usize)], i: usize) -> Option<String> {
    let mut j = visibility(toks, i);
    // Attributes, last first: `# [ .. ]`.
    while j >= 2 && toks[j - 1].0 == Tok::Punct(']') {
        let close = j - 1;
        let mut open = close;
        while open > 0 && toks[open].0 != Tok::Punct('[') {
            open -= 1;
        }
        let inner: Vec<&Tok> = toks[open + 1..close].iter().map(|(t, _)| t).collect();
        if let [Tok::Ident(p), Tok::Punct('='), Tok::Str(file)] = inner.as_slice()
            && p == "path"
        {
            return Some(file.clone());
        }
        if open == 0 || toks[open - 1].0 != Tok::Punct('#') {
            break;
        }
        j = open - 1;
    }
    None
}

/// Reads one use tree at `i` (after `use`, or inside braces), appending (path, bound name) for
/// each leaf; stops after the tree (at `,`, `}` or `;`, which it consumes only when it is `;`).
fn use_tree(
    toks: &[(Tok, usize)],
    i: &mut usize,
    mut path: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    loop {
        match toks.get(*i).map(|(t, _)| t) {
            Some(Tok::Sep) if path.is_empty() => {
                // `::name`: an external crate.
                path.push("::".into());
                *i += 1;
            }
            Some(Tok::Ident(seg)) => {
                path.push(seg.clone());
                *i += 1;
                if toks.get(*i).map(|(t, _)| t) == Some(&Tok::Sep) {
                    *i += 1;
                    continue;
                }
                let mut name = path.last().cloned();
                if toks.get(*i).map(|(t, _)| t) == Some(&Tok::Ident("as".into())) {
                    if let Some((Tok::Ident(alias), _)) = toks.get(*i + 1) {
                        name = Some(alias.clone());
                    }
                    *i += 2;
                }
                if path.last().is_some_and(|s| s == "self") {
                    path.pop();
                    if name.as_deref() == Some("self") {
                        name = path.last().cloned();
                    }
                }
                out.push((path, name));
                break;
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push((path, None));
                break;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while let Some((tok, _)) = toks.get(*i) {
                    match tok {
                        Tok::Punct('}') => {
                            *i += 1;
                            break;
                        }
                        Tok::Punct(',') => *i += 1,
                        _ => use_tree(toks, i, path.clone(), out),
                    }
                }
                break;
            }
            _ => break,
        }
    }
    if toks.get(*i).map(|(t, _)| t) == Some(&Tok::Punct(';')) {
        *i += 1;
    }
}

/// A crate's files, their modules and what each file imports.
struct Graph {
    /// Paths relative to `src/`, in the order the module tree reaches them.
    files: Vec<PathBuf>,
    scans: Vec<Scan>,
    /// Module path -> the file that holds it.
    modules: BTreeMap<Vec<String>, usize>,
}

/// Where a path leads.
enum Found {
    /// The file that defines the item it names.
    Defined(usize),
    /// The file of the module it names, or of the module whose item it names where the scan
    /// cannot see that item defined.
    Module(usize),
    /// Another crate.
    Elsewhere,
}

/// An import of one file by another: (from, to, line, the path as written).
type Edge = (usize, usize, usize, String);

impl Graph {
    fn load(src: &Path) -> Graph {
        let mut g = Graph { files: Vec::new(), scans: Vec::new(), modules: BTreeMap::new() };
        // (file relative to src, its module, the folder its `mod x;` children live in).
        let mut queue = vec![(PathBuf::from("lib.rs"), Vec::<String>::new(), PathBuf::new())];
        while let Some((file, module, children)) = queue.pop() {
            let text = std::fs::read_to_string(src.join(&file))
                .unwrap_or_else(|e| panic!("{}: {e}", src.join(&file).display()));
            let s = scan(&text, &module);
            let n = g.files.len();
            g.modules.insert(module.clone(), n);
            for inline in &s.inline {
                g.modules.insert(inline.clone(), n);
            }
            let here = file.parent().unwrap_or(Path::new("")).to_path_buf();
            for (scope, name, attr) in &s.mods {
                let inner = &scope[module.len()..];
                let child: Vec<String> = scope.iter().cloned().chain([name.clone()]).collect();
                let path = match attr {
                    Some(p) => here.join(inner.iter().collect::<PathBuf>()).join(p),
                    None => {
                        let dir = children.join(inner.iter().collect::<PathBuf>());
                        let flat = dir.join(format!("{name}.rs"));
                        if src.join(&flat).exists() { flat } else { dir.join(name).join("mod.rs") }
                    }
                };
                let is_mod_rs = path.file_name().is_some_and(|f| f == "mod.rs");
                let grandchildren = if is_mod_rs {
                    path.parent().unwrap_or(Path::new("")).to_path_buf()
                } else {
                    path.with_extension("")
                };
                queue.push((path, child, grandchildren));
            }
            g.files.push(file);
            g.scans.push(s);
        }
        g
    }

    /// The file `path`, written in module `scope`, imports; `None` for other crates.
    fn resolve(&self, scope: &[String], path: &[String]) -> Option<usize> {
        match self.lookup(scope, path, 0) {
            Found::Defined(f) | Found::Module(f) => Some(f),
            Found::Elsewhere => None,
        }
    }

    fn lookup(&self, scope: &[String], path: &[String], hops: usize) -> Found {
        if hops > 32 || path.is_empty() {
            return Found::Elsewhere;
        }
        let parent = |m: &[String]| m.split_last().map(|(_, p)| p.to_vec());
        let (mut module, mut rest) = match path[0].as_str() {
            "crate" | "$crate" => (Vec::new(), &path[1..]),
            "self" => (scope.to_vec(), &path[1..]),
            "super" => {
                let mut k = 0;
                let mut m = Some(scope.to_vec());
                while path.get(k).is_some_and(|s| s == "super") {
                    m = m.and_then(|m| parent(&m));
                    k += 1;
                }
                let Some(m) = m else { return Found::Elsewhere };
                (m, &path[k..])
            }
            first => {
                let child: Vec<String> = scope.iter().cloned().chain([first.to_string()]).collect();
                if !self.modules.contains_key(&child) {
                    // A name a `use` of this module brought in, else another crate's.
                    return match self.item(scope, first, &path[1..], hops) {
                        Found::Module(_) => Found::Elsewhere,
                        found => found,
                    };
                }
                (child, &path[1..])
            }
        };
        while let Some(seg) = rest.first() {
            let child: Vec<String> = module.iter().cloned().chain([seg.clone()]).collect();
            if !self.modules.contains_key(&child) {
                break;
            }
            module = child;
            rest = &rest[1..];
        }
        match rest.split_first() {
            None => self.modules.get(&module).map_or(Found::Elsewhere, |&f| Found::Module(f)),
            Some((name, tail)) => self.item(&module, name, tail, hops),
        }
    }

    /// Where `name` comes from as module `module` sees it: the module's own file where it
    /// defines it, else where a `use` of the module (named, else a glob) leads.
    fn item(&self, module: &[String], name: &str, tail: &[String], hops: usize) -> Found {
        let Some(&file) = self.modules.get(module) else { return Found::Elsewhere };
        let s = &self.scans[file];
        if s.defined.contains(&(module.to_vec(), name.to_string())) {
            return Found::Defined(file);
        }
        let uses = s.uses.iter().filter(|u| u.scope == module);
        if let Some(u) = uses.clone().find(|u| u.name.as_deref() == Some(name)) {
            let full: Vec<String> = u.path.iter().chain(tail).cloned().collect();
            return self.lookup(&u.scope, &full, hops + 1);
        }
        uses.filter(|u| u.name.is_none())
            .find_map(|u| {
                let full: Vec<String> =
                    u.path.iter().cloned().chain([name.to_string()]).chain(tail.to_vec()).collect();
                match self.lookup(&u.scope, &full, hops + 1) {
                    Found::Defined(f) => Some(Found::Defined(f)),
                    _ => None,
                }
            })
            // Not seen defined (made by a macro, say): the module's file, to be safe.
            .unwrap_or(Found::Module(file))
    }

    /// Every import of one file by another, with where it is written.
    fn edges(&self) -> Vec<Edge> {
        let mut out = Vec::new();
        for (from, s) in self.scans.iter().enumerate() {
            for u in &s.uses {
                let doorway = u.public && u.name.as_ref().is_none_or(|n| !s.used.contains(n));
                if doorway {
                    continue;
                }
                if let Some(to) = self.resolve(&u.scope, &u.path) {
                    out.push((from, to, u.line, u.path.join("::")));
                }
            }
            for p in &s.paths {
                if let Some(to) = self.resolve(&p.scope, &p.path) {
                    out.push((from, to, p.line, p.path.join("::")));
                }
            }
        }
        out.retain(|&(from, to, ..)| from != to);
        out
    }

    /// The strongly connected components of more than one file (Tarjan's algorithm).
    fn cycles(&self, edges: &[Edge]) -> Vec<Vec<usize>> {
        struct Tarjan<'a> {
            next: &'a [BTreeSet<usize>],
            index: Vec<Option<usize>>,
            low: Vec<usize>,
            stack: Vec<usize>,
            on_stack: Vec<bool>,
            counter: usize,
            out: Vec<Vec<usize>>,
        }
        impl Tarjan<'_> {
            fn visit(&mut self, v: usize) {
                self.index[v] = Some(self.counter);
                self.low[v] = self.counter;
                self.counter += 1;
                self.stack.push(v);
                self.on_stack[v] = true;
                for &w in self.next[v].iter() {
                    match self.index[w] {
                        None => {
                            self.visit(w);
                            self.low[v] = self.low[v].min(self.low[w]);
                        }
                        Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                        Some(_) => {}
                    }
                }
                if Some(self.low[v]) == self.index[v] {
                    let mut component = Vec::new();
                    while let Some(w) = self.stack.pop() {
                        self.on_stack[w] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    if component.len() > 1 {
                        component.sort();
                        self.out.push(component);
                    }
                }
            }
        }
        let n = self.files.len();
        let mut next = vec![BTreeSet::new(); n];
        for &(from, to, ..) in edges {
            next[from].insert(to);
        }
        let mut t = Tarjan {
            next: &next,
            index: vec![None; n],
            low: vec![0; n],
            stack: Vec::new(),
            on_stack: vec![false; n],
            counter: 0,
            out: Vec::new(),
        };
        for v in 0..n {
            if t.index[v].is_none() {
                t.visit(v);
            }
        }
        t.out.sort();
        t.out
    }

    /// Each circle: its files, and the imports between them (file:line -> file, path).
    fn report(&self) -> Vec<String> {
        let edges = self.edges();
        let name = |f: usize| self.files[f].display().to_string();
        self.cycles(&edges)
            .iter()
            .map(|c| {
                let files: Vec<String> = c.iter().map(|&f| name(f)).collect();
                let mut seen = BTreeSet::new();
                let links: Vec<String> = edges
                    .iter()
                    .filter(|(a, b, ..)| c.contains(a) && c.contains(b) && seen.insert((*a, *b)))
                    .map(|(a, b, line, path)| {
                        format!("    {}:{line} -> {} ({path})", name(*a), name(*b))
                    })
                    .collect();
                format!("  {}\n{}", files.join(", "), links.join("\n"))
            })
            .collect()
    }
}

/// Every `.rs` file under `dir`, relative to it.
fn rust_files(dir: &Path, under: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir.join(under)).unwrap() {
        let entry = entry.unwrap();
        let rel = under.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            rust_files(dir, &rel, out);
        } else if rel.extension().is_some_and(|e| e == "rs") {
            out.push(rel);
        }
    }
}

/// Fails naming every circle of imports among the files of `crate_name`'s `src/`, and any file
/// there the module tree does not reach (it would escape the check).
fn check(crate_name: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(crate_name).join("src");
    let g = Graph::load(&src);
    let mut on_disk = Vec::new();
    rust_files(&src, Path::new(""), &mut on_disk);
    let reached: BTreeSet<&PathBuf> = g.files.iter().collect();
    let unreached: Vec<String> =
        on_disk.iter().filter(|f| !reached.contains(f)).map(|f| f.display().to_string()).collect();
    assert!(unreached.is_empty(), "{crate_name}: files no `mod` reaches: {unreached:?}");
    assert!(
        g.edges().len() >= g.files.len() / 2,
        "{crate_name}: the scan found almost no imports; is it broken?"
    );
    let cycles = g.report();
    assert!(
        cycles.is_empty(),
        "{crate_name}: {} circle(s) of file imports; move what both sides need to where it \
         belongs, so that one side no longer imports the other:\n{}",
        cycles.len(),
        cycles.join("\n")
    );
}

#[test]
fn runtime_has_no_import_cycles() {
    check("tilecast-runtime");
}

#[test]
fn lang_has_no_import_cycles() {
    check("tilecast-lang");
}

/// A crate in a fresh temporary folder, from (path, text) pairs.
struct Fixture(PathBuf);

impl Fixture {
    fn new(name: &str, files: &[(&str, &str)]) -> Fixture {
        let dir = std::env::temp_dir().join(format!("module_graph_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        Fixture(dir)
    }

    /// The circles, as sorted lists of files.
    fn cycles(&self) -> Vec<Vec<String>> {
        let g = Graph::load(&self.0);
        g.cycles(&g.edges())
            .iter()
            .map(|c| c.iter().map(|&f| g.files[f].display().to_string()).collect())
            .map(|mut c: Vec<String>| {
                c.sort();
                c
            })
            .collect()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_circle_is_found_and_a_tree_is_not() {
    let lib = "mod a;\nmod b;\npub use a::A;\npub use b::B;\n";
    let circle = Fixture::new(
        "circle",
        &[
            ("lib.rs", lib),
            ("a.rs", "use crate::b::{\n    self,\n    B,\n};\npub struct A(B);\n"),
            ("b.rs", "pub struct B;\nfn f() -> crate::a::A { todo!() }\n"),
        ],
    );
    assert_eq!(circle.cycles(), vec![vec!["a.rs".to_string(), "b.rs".to_string()]]);
    // The same crate with b.rs importing nothing back: a tree. lib.rs's re-exports are no
    // imports of its own, and a.rs's `crate::B` is an import of b.rs, not of lib.rs.
    let tree = Fixture::new(
        "tree",
        &[
            ("lib.rs", lib),
            ("a.rs", "use crate::B;\npub struct A(B);\n"),
            (
                "b.rs",
                "pub struct B;\n// crate::a::A in a comment\nconst S: &str = \"crate::a::A\";\n",
            ),
        ],
    );
    assert_eq!(tree.cycles(), Vec::<Vec<String>>::new());
}

#[test]
fn a_circle_through_re_exports_folders_and_super_is_found() {
    let files = |kernel: &'static str| {
        [
            (
                "lib.rs",
                "mod stream;\nmod kernel;\npub use kernel::Kernel;\npub use stream::Stream;\n",
            ),
            // The folder's face re-exports `Copy` without using it: no import of its own.
            ("stream/mod.rs", "mod copy;\npub use copy::Copy;\npub struct Stream;\n"),
            // A child's `super::` is an import of its parent's file.
            (
                "stream/copy.rs",
                "use super::Stream;\nuse crate::Kernel;\npub struct Copy(Stream, Kernel);\n\
                 #[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
            ),
            ("kernel.rs", kernel),
            // Through stream/mod.rs's re-export to the file that defines `Copy`.
            ("kernel_args.rs", "pub(crate) fn f(_: &crate::stream::Copy) {}\n"),
        ]
    };
    let tree = Fixture::new(
        "folders",
        &files("#[path = \"kernel_args.rs\"]\nmod args;\npub struct Kernel;\n"),
    );
    assert_eq!(tree.cycles(), Vec::<Vec<String>>::new());
    // kernel.rs calling into its child closes kernel -> args -> stream/copy -> kernel.
    let circle = Fixture::new(
        "folders_circle",
        &files(
            "#[path = \"kernel_args.rs\"]\nmod args;\npub struct Kernel;\n\
             fn g(c: &crate::stream::Copy) { args::f(c) }\n",
        ),
    );
    assert_eq!(circle.cycles(), vec![vec!["kernel.rs", "kernel_args.rs", "stream/copy.rs"]]);
}
