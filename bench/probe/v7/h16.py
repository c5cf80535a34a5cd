"""Rewrites a generated kernel so its f32 fragments are held as f16 (reads widen to f32, writes
round to f16): a timing proxy for holding rows in half the registers. Usage: h16.py IN OUT"""
import re,sys
src=open(sys.argv[1]).read()
# fragment arrays f32 -> f16
frags=re.findall(r"var (f\d+_\w+): array<f32, (\d+)>;",src)
out=[]
for line in src.split("\n"):
    for name,n in frags:
        line=line.replace(f"var {name}: array<f32, {n}>;",f"var {name}: array<f16, {n}>;")
    m=re.match(r"^(\s*)(f\d+_\w+)\[([^\[\]]+)\] = (.*);$",line)
    if m and any(m.group(2)==f for f,_ in frags):
        ind,name,idx,rhs=m.groups()
        for f,_ in frags: rhs=re.sub(rf"\b{f}\[([^\[\]]+)\]",rf"f32({f}[\1])",rhs)
        line=f"{ind}{name}[{idx}] = f16({rhs});"
    else:
        for f,_ in frags: line=re.sub(rf"\b{f}\[([^\[\]]+)\]",rf"f32({f}[\1])",line)
    out.append(line)
open(sys.argv[2],"w").write("\n".join(out))
